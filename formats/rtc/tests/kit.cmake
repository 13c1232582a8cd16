# The reader kit over the RTC corpus (included by
# conformance/kit/CMakeLists.txt): `atf dump --json` and rtcpy side by side,
# writing reader-matrix-rtc.html.
atf_add_reader_kit(NAME conformance_reader_kit_rtc CORPUS ${PROJECT_SOURCE_DIR}/corpus/rtc
                   READER "${ATF_PYTHON} ${ATF_FORMATS_DIR}/rtc/python/rtcpy_tool.py dump --json"
                   HTML reader-matrix-rtc.html)
