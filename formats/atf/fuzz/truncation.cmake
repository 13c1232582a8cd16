# ATF's truncation tests (fuzz/truncation/CMakeLists.txt includes this file;
# truncation_atf.c is the model).

# Valid cases written by the C session writer (atf demo), both layouts.
if(TARGET atf_cli)
  foreach(_l 1 2)
    add_test(NAME truncation_cases_demo_l${_l}
             COMMAND ${CMAKE_COMMAND} -E env ATF_DEMO_DIR=${ATF_TRUNCATION_WORK}/demo_l${_l}
                     sh -c "rm -rf \"$ATF_DEMO_DIR\" && \"$0\" demo --layout ${_l} --threads 2 --events 40 --detail-every 3 \"$ATF_DEMO_DIR\" >/dev/null"
                     ${ATF_CLI})
    set_tests_properties(truncation_cases_demo_l${_l} PROPERTIES LABELS "truncation"
                         FIXTURES_SETUP truncation_cases)
  endforeach()
endif()

# Valid cases written by the independent Python implementation (small scale).
add_test(NAME truncation_cases_atfpy
         COMMAND ${ATF_PYTHON} ${PROJECT_SOURCE_DIR}/formats/atf/python/independent_sessions.py ${ATF_TRUNCATION_WORK}/atfpy
                 --scale 0.02 --quiet --no-selfcheck
                 --only l1_arm64_ios_symbols --only l1_arm64_android_crc32ieee --only l1_legacy_checksum0
                 --only l2_arm64_linux_extremes --only l2_x86_64_opaque --only l2_arm64_macos_symbols_hex)
set_tests_properties(truncation_cases_atfpy PROPERTIES LABELS "truncation" FIXTURES_SETUP truncation_cases)

set(_cases ${ATF_TRUNCATION_WORK}/atfpy)
if(TARGET atf_cli)
  list(APPEND _cases ${ATF_TRUNCATION_WORK}/demo_l1 ${ATF_TRUNCATION_WORK}/demo_l2)
endif()
# The valid cases of the golden corpus (corpus/y_*), found at run time.
list(APPEND _cases --golden=${PROJECT_SOURCE_DIR}/corpus/atf)

add_test(NAME truncation_check COMMAND atf_truncation_check --quiet ${_cases})
set_tests_properties(truncation_check PROPERTIES LABELS "truncation" FIXTURES_REQUIRED truncation_cases)
