# Post-link check of a firmware image: fails if the image defines any heap, stdio or exception-runtime symbol.
#   cmake -DNM=arm-none-eabi-nm -DELF=image.elf [-DKEEP=ON] -P check_no_heap.cmake
#
# Rationale: the check reads the final image's symbol table, so it catches the heap however it got in:
# malloc or operator new called by our code, _malloc_r pulled in by newlib's stdio, _sbrk by anything.
# A linker --wrap would only see references to the names we list, and not references resolved inside
# the same archive member. On failure the image is deleted, so the next build links it again and fails
# again (a failing post-build step would otherwise leave a stale image that looks built). The image's link
# map (<image>.map) tells which object pulled a symbol in.
cmake_minimum_required(VERSION 3.24)
if(NOT NM OR NOT ELF)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DELF=<image> [-DKEEP=ON] -P check_no_heap.cmake")
endif()

execute_process(COMMAND "${NM}" --defined-only "${ELF}"
                OUTPUT_VARIABLE _symbols RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "check_no_heap: ${NM} failed on ${ELF}: ${_err}")
endif()

# Heap: the C allocator (and newlib's reentrant forms), the break, C++ operator new/delete (size_t is
# unsigned int on Arm: _Znwj/_Znaj; delete is _ZdlPv.../_ZdaPv...).
set(_heap "^(malloc|free|calloc|realloc|reallocf|memalign|aligned_alloc|posix_memalign|valloc|pvalloc|_malloc_r|_free_r|_calloc_r|_realloc_r|_memalign_r|_sbrk|_sbrk_r|sbrk|_Znwj.*|_Znaj.*|_ZdlPv.*|_ZdaPv.*)$")
# newlib stdio.
set(_stdio "^(printf|_printf_r|iprintf|vprintf|fprintf|sprintf|snprintf|vsnprintf|_vfprintf_r|_vfiprintf_r|_svfprintf_r|puts|_puts_r|fputs|_fputs_r|putchar|_putchar_r|fwrite|_fwrite_r|fflush|_fflush_r|__sfvwrite_r|__swsetup_r|__sinit)$")
# The exception runtime (-fno-exceptions must leave none of it).
set(_exceptions "^(__cxa_allocate_exception|__cxa_throw|__cxa_begin_catch|__gxx_personality_v0|_Unwind_RaiseException|__cxa_guard_acquire)$")

string(REPLACE "\n" ";" _lines "${_symbols}")
set(_found "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[0-9a-fA-F]+ [A-Za-z] (.+)$")
    set(_name "${CMAKE_MATCH_1}")
    foreach(_kind heap stdio exceptions)
      if(_name MATCHES "${_${_kind}}")
        list(APPEND _found "${_name} (${_kind})")
      endif()
    endforeach()
  endif()
endforeach()

if(_found)
  list(JOIN _found ", " _list)
  if(NOT KEEP)
    file(REMOVE "${ELF}")
  endif()
  # One unwrapped line first (tests match it), then the error.
  message(NOTICE "no-heap check FAILED: ${ELF} defines ${_list}")
  message(FATAL_ERROR "no-heap check: ${ELF} uses the heap, stdio or exceptions (symbols above). "
                      "Firmware images must not; see ${ELF}.map for the object that pulled each symbol in.")
endif()
