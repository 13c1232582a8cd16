# ATF's property tests (included by conformance/property/CMakeLists.txt):
# atfpy against the C codec (test_atf_properties.py), with atf-prop-writer,
# a session from a line-based description through the session writer.
# The native format: its tests keep their first names, property_<n>.
atf_format_properties(NAME property TARGET atf_prop_writer OUTPUT atf-prop-writer
                      SOURCE ${CMAKE_CURRENT_LIST_DIR}/atf_prop_writer.c LIBS atf
                      SCRIPT ${CMAKE_CURRENT_LIST_DIR}/test_atf_properties.py
                      PROPERTIES 1_atfpy_sessions_decode_identically_in_c
                                 2_c_writer_sessions_decode_identically_in_python
                                 3_truncation_recovers_the_complete_prefix
                                 4_corrupt_header_or_footer_byte_is_detected_or_harmless)
