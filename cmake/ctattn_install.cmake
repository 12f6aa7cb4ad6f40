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
# The PyTorch export tool (docs/export.md): a Python script, run with Debian's python3-torch; it finds the headers
# at ../include from where it is installed.
install(PROGRAMS "${PROJECT_SOURCE_DIR}/tools/ctattn_export.py" DESTINATION "${CMAKE_INSTALL_BINDIR}"
        RENAME ctattn-export)
