# WTF's export tests beside the tools' (included by tools/tests/CMakeLists.txt,
# which registers export_corpus and the other export checks).
# `atf export --format wtf` over the golden corpus: every file written (and
# every part file) conformant, `atf validate` (export_corpus).
list(APPEND ATF_EXPORT_CORPUS_VALIDATED --validated wtf:t.wtf-trace)
# `atf export --format wtf`: every file conformant (`atf validate`), and
# per zone the scopes balance and are the thread's calls by name
# (`atf dump --json`); the real library loads exports in formats/wtf/tests/interop/.
add_test(NAME export_wtf
         COMMAND ${ATF_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_wtf_export.py ${ATF_CLI}
                 ${CMAKE_CURRENT_BINARY_DIR}/export_wtf)
set_tests_properties(export_wtf PROPERTIES LABELS unit ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
