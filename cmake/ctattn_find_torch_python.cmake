# ctattn_find_torch_python(<variable>): sets <variable> to a Python 3 interpreter that imports torch (the export
# tool's, docs/export.md), or to "" when none is found: python3 on the PATH first, then Debian's /usr/bin/python3
# (python3-torch installs torch for that one; a pyenv or venv python3 ahead of it on the PATH often has none).
function(ctattn_find_torch_python variable)
  set(_found "")
  find_program(CTATTN_PATH_PYTHON3 NAMES python3)
  foreach(_candidate IN ITEMS "${CTATTN_PATH_PYTHON3}" /usr/bin/python3)
    if(_candidate AND NOT _found AND EXISTS "${_candidate}")
      execute_process(COMMAND "${_candidate}" -c "import torch" RESULT_VARIABLE _no_torch OUTPUT_QUIET ERROR_QUIET)
      if(_no_torch EQUAL 0)
        set(_found "${_candidate}")
      endif()
    endif()
  endforeach()
  set(${variable} "${_found}" PARENT_SCOPE)
endfunction()
