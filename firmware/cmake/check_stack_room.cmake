# Post-link check of a firmware image (firmware/CMakeLists.txt, ctattn_set_firmware_stack): its .data and .bss
# end (the linker's `_end`) at or below the stack's lowest address (`ctattn_stack_limit`, the stack top less the
# image's STACK_BYTES), so that the stack the image reserves, and paints, holds none of its variables. On the
# boards whose RAM is megabytes this always holds; on the micro:bit (16 KB) it decides how much stack an image can
# take. Fails the build, deleting the image, otherwise.
# Usage: cmake -DNM=<nm> -DELF=<image.elf> -DSTACK_BYTES=<n> -P check_stack_room.cmake
execute_process(COMMAND "${NM}" "${ELF}" OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "check_stack_room: ${NM} could not read ${ELF}")
endif()
if(NOT symbols MATCHES "([0-9a-fA-F]+) [A-Za-z] _end\n" )
  message(FATAL_ERROR "check_stack_room: ${ELF} has no _end symbol")
endif()
set(end_hex "${CMAKE_MATCH_1}")
if(NOT symbols MATCHES "([0-9a-fA-F]+) [A-Za-z] ctattn_stack_limit\n")
  message(FATAL_ERROR "check_stack_room: ${ELF} has no ctattn_stack_limit symbol")
endif()
set(limit_hex "${CMAKE_MATCH_1}")
math(EXPR end_value "0x${end_hex}")
math(EXPR limit_value "0x${limit_hex}")
# Code and data share RAM on the MPS machines, where _end may lie anywhere below the stack; the micro:bit's data
# starts at RAM and the stack ends at its top. Only an end inside the reserved stack is an error.
math(EXPR stack_top "${limit_value} + ${STACK_BYTES}")
if(end_value GREATER limit_value AND end_value LESS_EQUAL stack_top)
  file(REMOVE "${ELF}")
  math(EXPR over "${end_value} - ${limit_value}")
  message(FATAL_ERROR "${ELF}: its .data and .bss end at 0x${end_hex}, ${over} bytes inside the ${STACK_BYTES}-byte "
                      "stack it reserves (limit 0x${limit_hex}). Give the image a smaller STACK_BYTES, or less static "
                      "data.")
endif()
