# Runs one bounded libFuzzer session (fuzz/CMakeLists.txt): -DFUZZER=<binary> -DWORK=<scratch directory>
# -DCORPUS=<seed corpus> -DARGS=<libFuzzer options separated by |>. Fails when the fuzzer reports a finding.
string(REPLACE "|" ";" _args "${ARGS}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus" "${WORK}/artifacts")
execute_process(COMMAND "${FUZZER}" ${_args} "-artifact_prefix=${WORK}/artifacts/" "${WORK}/corpus" "${CORPUS}"
                RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "the fuzzer exited with ${_result}: its finding is in ${WORK}/artifacts/")
endif()
