# Finds Catch2, the tests' one dependency, for the top-level CMakeLists.txt: v3 where it is installed, else Debian
# 12's v2.13, each by its CMake package. Sets Catch2_FOUND and Catch2_VERSION as find_package does;
# tests/CMakeLists.txt builds on Catch2::Catch2WithMain (v3) or Catch2::Catch2 (v2).
#
# A Linux cross build (cmake/toolchains/aarch64-linux-gnu.cmake) takes packages from the target's prefix only, where
# Debian installs no Catch2. There the host's Catch2 v2 serves: it is header-only, so its catch2/catch.hpp compiles
# for any target. The imported target Catch2::Catch2 then puts <build>/host_catch2 on the include path, a directory
# holding only a `catch2` link to the host's catch2/ header directory.
# Rationale: the link, because the host's header directory itself (/usr/include) also holds the host's libc
# headers, which would shadow the target's in a cross build.

find_package(Catch2 3 QUIET)
if(NOT Catch2_FOUND)
  find_package(Catch2 2 QUIET)
endif()

if(NOT Catch2_FOUND AND CMAKE_CROSSCOMPILING AND NOT TARGET Catch2::Catch2)
  find_path(CTATTN_HOST_CATCH2_INCLUDE_DIR catch2/catch.hpp NO_CMAKE_FIND_ROOT_PATH
            DOC "Cross builds: the host's directory holding catch2/catch.hpp (Catch2 v2, header-only)")
  if(CTATTN_HOST_CATCH2_INCLUDE_DIR)
    file(STRINGS "${CTATTN_HOST_CATCH2_INCLUDE_DIR}/catch2/catch.hpp" _ctattn_catch2_lines
         REGEX "#define CATCH_VERSION_(MAJOR|MINOR|PATCH) ")
    set(_ctattn_catch2_MAJOR "")
    foreach(_line IN LISTS _ctattn_catch2_lines)
      string(REGEX MATCH "CATCH_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)" _ "${_line}")
      set(_ctattn_catch2_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endforeach()
    if(_ctattn_catch2_MAJOR STREQUAL "2")
      set(_ctattn_catch2_links "${PROJECT_BINARY_DIR}/host_catch2")
      file(MAKE_DIRECTORY "${_ctattn_catch2_links}")
      file(CREATE_LINK "${CTATTN_HOST_CATCH2_INCLUDE_DIR}/catch2" "${_ctattn_catch2_links}/catch2" SYMBOLIC)
      add_library(Catch2::Catch2 INTERFACE IMPORTED)
      # An imported target's include directories are system ones (-isystem): no warnings from Catch2's code.
      set_target_properties(Catch2::Catch2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_ctattn_catch2_links}")
      set(Catch2_FOUND TRUE)
      set(Catch2_VERSION "${_ctattn_catch2_MAJOR}.${_ctattn_catch2_MINOR}.${_ctattn_catch2_PATCH}")
      message(STATUS "ctattn: cross build, using the host's header-only Catch2 ${Catch2_VERSION} from "
                     "${CTATTN_HOST_CATCH2_INCLUDE_DIR}/catch2")
    endif()
  endif()
endif()
