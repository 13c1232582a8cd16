# ATF's independent Python implementation (atfpy) in the conformance suite
# (conformance/CMakeLists.txt includes this file): its self-test (with the
# session generator independent_sessions.py and the comparison harness), and
# corpus/atf, written by make_corpus.py, through the shared runner and
# clause-coverage check.
atf_add_python_selftest(conformance_atfpy_selftest ${CMAKE_CURRENT_LIST_DIR}/tests/test_atfpy.py)
atf_add_corpus_tests(conformance_corpus_regenerates conformance_corpus_atfpy
                     conformance_clause_coverage_atfpy ${CMAKE_CURRENT_LIST_DIR}/make_corpus.py
                     ${CMAKE_CURRENT_LIST_DIR}/atfpy_tool.py SPEC.md atf)
