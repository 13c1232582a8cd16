# RTC's property tests (included by conformance/property/CMakeLists.txt):
# rtcpy against the C codec, both writers (test_rtc_properties.py), with
# rtc-prop-writer, a file from a JSON description through the public API of
# atf/rtc.h.
atf_format_properties(NAME property_rtc TARGET rtc_prop_writer OUTPUT rtc-prop-writer
                      SOURCE ${CMAKE_CURRENT_LIST_DIR}/rtc_prop_writer.c LIBS atf PkgConfig::JANSSON
                      SCRIPT ${CMAKE_CURRENT_LIST_DIR}/test_rtc_properties.py
                      PROPERTIES 1_c_writer_files_read_back_in_rtcpy
                                 2_rtcpy_files_dump_identically_in_c
                                 3_cuts_at_both_ends_recover_the_same)
