# WTF's independent Python implementation (wtfpy) in the conformance suite
# (conformance/CMakeLists.txt includes this file): its self-test, and
# corpus/wtf, written by make_wtf_corpus.py, through the shared runner and
# clause-coverage check.
atf_add_corpus_tests(conformance_wtf_corpus_generated conformance_wtf_corpus_py
                     conformance_wtf_clause_coverage_py ${CMAKE_CURRENT_LIST_DIR}/make_wtf_corpus.py
                     ${CMAKE_CURRENT_LIST_DIR}/wtfpy_tool.py SPEC-WTF.md wtf)
atf_add_python_selftest(conformance_wtfpy_selftest ${CMAKE_CURRENT_LIST_DIR}/tests/test_wtfpy.py)
