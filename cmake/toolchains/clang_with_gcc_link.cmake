# Included by the bare-metal toolchain files for their Clang boards (m55-helium, rv32gcv): Clang compiles for
# TARGET, the GCC cross driver GXX links and the GCC packages' binary tools (PREFIX-ar, -nm, -objdump, ...) read
# the objects.
#
#   ctattn_clang_with_gcc_link(TARGET arm-none-eabi GXX "${CTATTN_ARM_GXX}" PREFIX arm-none-eabi)
#
# Rationale: the GCC driver links, with the link flags alone (no compile flags: it knows neither --target nor
# -nostdlibinc): it picks the C library's and libgcc's multilib from the CPU flags and runs the target's GNU ld
# with the default script the startup code relies on, as on the GCC boards (Clang's driver would look for a GCC
# installation of its own, or run the host's ld).
function(ctattn_clang_with_gcc_link)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;GXX;PREFIX" "")
  find_program(CMAKE_C_COMPILER clang)
  find_program(CMAKE_CXX_COMPILER clang++)
  if(NOT CMAKE_CXX_COMPILER)
    message(FATAL_ERROR "clang++ not found (board ${CTATTN_BOARD}): apt-get install clang")
  endif()
  set(CMAKE_C_COMPILER "${CMAKE_C_COMPILER}" PARENT_SCOPE)
  set(CMAKE_CXX_COMPILER "${CMAKE_CXX_COMPILER}" PARENT_SCOPE)
  set(CMAKE_ASM_COMPILER "${CMAKE_C_COMPILER}" PARENT_SCOPE)
  foreach(_lang C CXX ASM)
    set(CMAKE_${_lang}_COMPILER_TARGET ${arg_TARGET} PARENT_SCOPE)
  endforeach()
  foreach(_lang C CXX)
    set(CMAKE_${_lang}_LINK_EXECUTABLE
        "${arg_GXX} <CMAKE_${_lang}_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>" PARENT_SCOPE)
  endforeach()
  foreach(_tool AR NM OBJDUMP RANLIB OBJCOPY SIZE)
    string(TOLOWER "${_tool}" _name)
    find_program(CMAKE_${_tool} ${arg_PREFIX}-${_name} REQUIRED)
  endforeach()
endfunction()
