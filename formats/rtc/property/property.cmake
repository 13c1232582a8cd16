# RTC's property tests (included by conformance/property/CMakeLists.txt):
# rtcpy against the C codec, both writers (test_rtc_properties.py), with
# rtc-prop-writer, a file from a JSON description through the public API of
# atf/rtc.h.
add_executable(rtc_prop_writer ${CMAKE_CURRENT_LIST_DIR}/rtc_prop_writer.c)
set_target_properties(rtc_prop_writer PROPERTIES OUTPUT_NAME rtc-prop-writer)
target_link_libraries(rtc_prop_writer PRIVATE atf PkgConfig::JANSSON)
if(TARGET atf_cli)
  atf_prop_host_writer(_writer rtc_prop_writer rtc-prop-writer)
  atf_add_properties(property_rtc ${CMAKE_CURRENT_LIST_DIR}/test_rtc_properties.py ${_writer}
                     1_c_writer_files_read_back_in_rtcpy
                     2_rtcpy_files_dump_identically_in_c
                     3_cuts_at_both_ends_recover_the_same)
endif()
