# The warning set for ctattn's own tests, examples and benchmarks (never imposed on users).
# Warnings are errors: a warning in a header is a warning in every user's build.
#   -Wall -Wextra -Wpedantic    the common baseline, and no compiler extensions
#   -Wconversion -Wsign-conversion  size_t/int and double/float narrowing hides index and precision bugs
#   -Wdouble-promotion          a float silently computed in double costs dearly on a single-precision FPU
#   -Wshadow                    kernels nest loops; a shadowed index is a wrong result
#   -Wold-style-cast -Wcast-qual  every conversion is visible and keeps const
#   -Wundef                     a misspelled configuration macro must not silently read as 0
#   -Wnon-virtual-dtor -Woverloaded-virtual  class hygiene for any polymorphic helper
#   -Wimplicit-fallthrough -Wnull-dereference
if(NOT TARGET ctattn_warnings)
  add_library(ctattn_warnings INTERFACE)
  target_compile_options(ctattn_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Werror
    -Wconversion -Wsign-conversion -Wdouble-promotion -Wshadow -Wold-style-cast -Wcast-qual -Wundef
    -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough -Wnull-dereference)
endif()
