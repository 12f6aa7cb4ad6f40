# cmake -DREADME=<README.md> -DSOURCE=<quickstart.cpp> -P check_readme_listing.cmake
# Fails unless the README's first ```cpp listing is the source file, character for character: the README says it
# shows examples/quickstart.cpp, and the build compiles and runs that file.
file(READ "${README}" _readme)
file(READ "${SOURCE}" _source)
string(FIND "${_readme}" "```cpp\n" _start)
if(_start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp listing")
endif()
math(EXPR _start "${_start} + 7")
string(SUBSTRING "${_readme}" ${_start} -1 _rest)
string(FIND "${_rest}" "\n```" _end)
math(EXPR _end "${_end} + 1")
string(SUBSTRING "${_rest}" 0 ${_end} _listing)
if(NOT _listing STREQUAL _source)
  message(FATAL_ERROR "The README's first listing differs from ${SOURCE}: copy the file into the README again")
endif()
message(STATUS "The README's first listing is ${SOURCE}")
