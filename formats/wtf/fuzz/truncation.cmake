# WTF's truncation tests (fuzz/truncation/CMakeLists.txt includes this file;
# truncation_wtf.c is the model): our writer's traces (wtf_write_scenarios,
# the interop tests' program), the reference library's (corpus/wtf-real) and
# the WTF golden corpus's y_ cases, cut at every byte and followed by zero
# tails, each against SPEC-WTF section 6. Files above 8 KiB (4 KiB under an
# emulator: the largest golden cases cost most of a sweep) are named and
# not cut.
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set(_wtf_max 4096)
else()
  set(_wtf_max 8192)
endif()
atf_host_command(_scenarios wtf_write_scenarios)
add_test(NAME truncation_cases_wtf_ours
         COMMAND ${CMAKE_COMMAND} -E env ATF_WTF_DIR=${ATF_TRUNCATION_WORK}/wtf_ours
                 sh -c "rm -rf \"$ATF_WTF_DIR\" && mkdir -p \"$ATF_WTF_DIR\" && $0 \"$ATF_WTF_DIR\" >/dev/null"
                 ${_scenarios})
set_tests_properties(truncation_cases_wtf_ours PROPERTIES LABELS "truncation" FIXTURES_SETUP truncation_wtf_cases)
set(_wtf_cases ${ATF_TRUNCATION_WORK}/wtf_ours ${PROJECT_SOURCE_DIR}/corpus/wtf-real)
if(EXISTS ${PROJECT_SOURCE_DIR}/corpus/wtf)
  list(APPEND _wtf_cases --golden=${PROJECT_SOURCE_DIR}/corpus/wtf)
endif()
add_test(NAME truncation_check_wtf COMMAND atf_truncation_check --quiet --wtf-max-bytes=${_wtf_max} ${_wtf_cases})
set_tests_properties(truncation_check_wtf PROPERTIES LABELS "truncation" FIXTURES_REQUIRED truncation_wtf_cases
                     TIMEOUT ${ATF_TRUNCATION_SWEEP_TIMEOUT})
