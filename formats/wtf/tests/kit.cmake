# The reader kit over the WTF corpus (included by
# conformance/kit/CMakeLists.txt): `atf dump --json` and wtfpy side by side,
# writing reader-matrix-wtf.html.
atf_add_reader_kit(NAME conformance_reader_kit_wtf CORPUS ${PROJECT_SOURCE_DIR}/corpus/wtf
                   READER "${ATF_PYTHON} ${ATF_FORMATS_DIR}/wtf/python/wtfpy_tool.py dump --json"
                   HTML reader-matrix-wtf.html)
