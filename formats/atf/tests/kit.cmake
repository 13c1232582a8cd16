# The reader kit over ATF's golden corpus (included by
# conformance/kit/CMakeLists.txt): `atf dump --json` and atfpy side by side,
# writing reader-matrix.html. The corpus is the checked-in corpus/atf when it
# holds cases, else one generated into the build tree by
# formats/atf/python/make_corpus.py (a test fixture).
file(GLOB _kit_corpus_expect "${PROJECT_SOURCE_DIR}/corpus/atf/*.expect.json")
set(_kit_atfpy "${ATF_PYTHON} ${ATF_FORMATS_DIR}/atf/python/atfpy_tool.py dump --json")
if(_kit_corpus_expect)
  atf_add_reader_kit(NAME conformance_reader_kit CORPUS ${PROJECT_SOURCE_DIR}/corpus/atf
                     READER "${_kit_atfpy}" HTML reader-matrix.html)
else()
  message(STATUS "conformance/kit: corpus/ holds no cases: conformance_reader_kit runs on a corpus generated "
                 "into the build tree by formats/atf/python/make_corpus.py (re-run cmake once corpus/ is checked in)")
  set(_kit_corpus ${CMAKE_CURRENT_BINARY_DIR}/corpus)
  add_test(NAME conformance_reader_kit_corpus
           COMMAND ${ATF_PYTHON} ${ATF_FORMATS_DIR}/atf/python/make_corpus.py --out ${_kit_corpus})
  set_tests_properties(conformance_reader_kit_corpus PROPERTIES LABELS "conformance"
                       FIXTURES_SETUP atf_kit_corpus)
  atf_add_reader_kit(NAME conformance_reader_kit CORPUS ${_kit_corpus}
                     READER "${_kit_atfpy}" HTML reader-matrix.html)
  set_tests_properties(conformance_reader_kit PROPERTIES FIXTURES_REQUIRED atf_kit_corpus)
endif()
