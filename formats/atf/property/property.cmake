# ATF's property tests (included by conformance/property/CMakeLists.txt):
# atfpy against the C codec (test_atf_properties.py), with atf-prop-writer,
# a session from a line-based description through the session writer.
# The native format: its tests keep their first names, property_<n>.
add_executable(atf_prop_writer ${CMAKE_CURRENT_LIST_DIR}/atf_prop_writer.c)
set_target_properties(atf_prop_writer PROPERTIES OUTPUT_NAME atf-prop-writer)
target_link_libraries(atf_prop_writer PRIVATE atf)
if(TARGET atf_cli)
  atf_prop_host_writer(_writer atf_prop_writer atf-prop-writer)
  atf_add_properties(property ${CMAKE_CURRENT_LIST_DIR}/test_atf_properties.py ${_writer}
                     1_atfpy_sessions_decode_identically_in_c
                     2_c_writer_sessions_decode_identically_in_python
                     3_truncation_recovers_the_complete_prefix
                     4_corrupt_header_or_footer_byte_is_detected_or_harmless)
endif()
