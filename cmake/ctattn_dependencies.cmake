# Boost.Hana is ctattn's one dependency: header-only, so only an include directory is needed.
# Rationale: Debian ships BoostConfig.cmake, but a cross build (arm-none-eabi with find-root modes ONLY)
# cannot see the host's CMake packages; there we look for the headers directly and expose just the
# Boost include directory, never /usr/include as a whole (it would bring in the host's C library).
if(NOT TARGET ctattn::boost_headers)
  find_package(Boost 1.70 CONFIG QUIET)
  add_library(ctattn_boost_headers INTERFACE)
  add_library(ctattn::boost_headers ALIAS ctattn_boost_headers)
  if(TARGET Boost::headers AND NOT CMAKE_CROSSCOMPILING)
    target_link_libraries(ctattn_boost_headers INTERFACE Boost::headers)
  else()
    find_path(CTATTN_BOOST_INCLUDE_DIR boost/hana/version.hpp
      HINTS ${Boost_INCLUDE_DIRS} /usr/include /usr/local/include
      NO_CMAKE_FIND_ROOT_PATH
      DOC "Directory that holds boost/hana/")
    if(NOT CTATTN_BOOST_INCLUDE_DIR)
      message(FATAL_ERROR "ctattn needs Boost.Hana: install libboost-dev (Debian) or set CTATTN_BOOST_INCLUDE_DIR")
    endif()
    # Expose only boost/ through a directory of its own, so that a cross compiler never sees the host's libc.
    set(_ctattn_boost_shim "${CMAKE_BINARY_DIR}/ctattn_boost_include")
    file(MAKE_DIRECTORY "${_ctattn_boost_shim}")
    if(NOT EXISTS "${_ctattn_boost_shim}/boost")
      file(CREATE_LINK "${CTATTN_BOOST_INCLUDE_DIR}/boost" "${_ctattn_boost_shim}/boost" SYMBOLIC)
    endif()
    target_include_directories(ctattn_boost_headers SYSTEM INTERFACE "$<BUILD_INTERFACE:${_ctattn_boost_shim}>")
  endif()
  set_target_properties(ctattn_boost_headers PROPERTIES EXPORT_NAME boost_headers)
endif()
