# The firmware's post-link stack-room check (firmware/cmake/check_stack_room.cmake) on made-up symbol tables
# (cmake -P): NM is `cat`, and each "image" is a text file holding the two lines nm would print. An image whose
# .data and .bss end inside the stack it reserves must fail with the check's message and be deleted; one that ends
# at the limit, or below the stack's range (code and data below on the MPS machines), must pass and be kept.
#   -DCAT=<cat> -DCHECK=<check_stack_room.cmake> -DWORK=<scratch dir>
file(MAKE_DIRECTORY "${WORK}")
function(run_check name end limit stack_bytes expect_failure)
  set(image "${WORK}/${name}.elf")
  file(WRITE "${image}" "${end} B _end\n${limit} A ctattn_stack_limit\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -DNM=${CAT} -DELF=${image} -DSTACK_BYTES=${stack_bytes} -P "${CHECK}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \t\r\n]+" " " out "${out}")  # CMake wraps its messages
  if(expect_failure)
    if(rc EQUAL 0)
      message(FATAL_ERROR "${name}: .data and .bss end at 0x${end}, inside the stack from 0x${limit}, and the check "
                          "passed")
    endif()
    if(NOT out MATCHES "end at 0x${end}, [0-9]+ bytes inside the ${stack_bytes}-byte stack it reserves")
      message(FATAL_ERROR "${name}: the check failed without its message:\n${out}")
    endif()
    if(EXISTS "${image}")
      message(FATAL_ERROR "${name}: the rejected image was not deleted")
    endif()
  else()
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}: the check refused an image whose data end outside its stack:\n${out}")
    endif()
    if(NOT EXISTS "${image}")
      message(FATAL_ERROR "${name}: an accepted image was deleted")
    endif()
  endif()
  message(STATUS "${name}: as expected")
endfunction()
# The micro:bit's 16 KB at 0x20000000, a 4 KB stack below 0x20004000.
run_check(inside 20003100 20003000 4096 TRUE)
run_check(at_the_top 20004000 20003000 4096 TRUE)
run_check(at_the_limit 20003000 20003000 4096 FALSE)
run_check(below 20002000 20003000 4096 FALSE)
# Code and data above the stack (an MPS machine's layout): not inside the reserved stack.
run_check(above 21000000 20003000 4096 FALSE)
