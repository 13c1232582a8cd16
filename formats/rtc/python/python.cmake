# RTC's independent Python implementation (rtcpy) in the conformance suite
# (conformance/CMakeLists.txt includes this file): its self-test, and
# corpus/rtc, written by make_rtc_corpus.py, through the shared runner and
# clause-coverage check.
atf_add_corpus_tests(conformance_rtc_corpus_generated conformance_rtc_corpus_py
                     conformance_rtc_clause_coverage_py ${CMAKE_CURRENT_LIST_DIR}/make_rtc_corpus.py
                     ${CMAKE_CURRENT_LIST_DIR}/rtcpy_tool.py SPEC-RTC.md rtc)
atf_add_python_selftest(conformance_rtcpy_selftest ${CMAKE_CURRENT_LIST_DIR}/tests/test_rtcpy.py)
