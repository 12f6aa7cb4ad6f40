# Install rules: headers, the exported ctattn::ctattn and ctattn::layers targets, a package config and a version file,
# the CMake function ctattn_import_weights (cmake/ctattn_import.cmake, which the config includes), the license and the
# export tool (bin/ctattn-export).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CTATTN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/ctattn" CACHE STRING
    "Where ctattnConfig.cmake is installed (header-only: architecture-independent)")

install(TARGETS ctattn
  EXPORT ctattnTargets
  FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT ctattnTargets
  NAMESPACE ctattn::
  DESTINATION "${CTATTN_INSTALL_CMAKEDIR}")
# ctattn::layers in its own export file: the config includes it only when Boost is found (ctattnConfig.cmake.in).
install(TARGETS ctattn_layers EXPORT ctattnLayersTargets)
install(EXPORT ctattnLayersTargets
  NAMESPACE ctattn::
  DESTINATION "${CTATTN_INSTALL_CMAKEDIR}")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/ctattnConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/ctattnConfig.cmake"
  INSTALL_DESTINATION "${CTATTN_INSTALL_CMAKEDIR}")
# Header-only: any architecture may use it.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/ctattnConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion
  ARCH_INDEPENDENT)
install(FILES
  "${PROJECT_BINARY_DIR}/ctattnConfig.cmake"
  "${PROJECT_BINARY_DIR}/ctattnConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/ctattn_import.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/ctattn_proof.cmake"
  DESTINATION "${CTATTN_INSTALL_CMAKEDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
# The PyTorch export tool (docs/export.md): a Python script that finds the headers at ../include from where it is
# installed. Its first line names the Python with torch found when configuring (Debian's python3-torch is for
# /usr/bin/python3, which a python3 earlier on the PATH may not be), else python3 on the PATH. The same file is
# installed as a module, share/ctattn/python/ctattn_export.py, for `import ctattn_export`.
include("${PROJECT_SOURCE_DIR}/cmake/ctattn_find_torch_python.cmake")
ctattn_find_torch_python(_ctattn_torch_python)
file(READ "${PROJECT_SOURCE_DIR}/tools/ctattn_export.py" _ctattn_export_text)
if(_ctattn_torch_python)
  string(REGEX REPLACE "^#![^\n]*" "#!${_ctattn_torch_python}" _ctattn_export_text "${_ctattn_export_text}")
endif()
file(WRITE "${PROJECT_BINARY_DIR}/ctattn-export" "${_ctattn_export_text}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tools/ctattn_export.py")
install(PROGRAMS "${PROJECT_BINARY_DIR}/ctattn-export" DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/tools/ctattn_export.py"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/ctattn/python")
# The templates of the files the tool writes (tools/export_templates/*.in), where both installed forms find them.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/tools/export_templates/"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/ctattn/export_templates" FILES_MATCHING PATTERN "*.in")
