# WTF's property tests (included by conformance/property/CMakeLists.txt):
# wtfpy against the C codec (test_wtf_properties.py), with wtf-prop-writer,
# a file from a JSON description through the public API of atf/wtf.h.
atf_format_properties(NAME property_wtf TARGET wtf_prop_writer OUTPUT wtf-prop-writer
                      SOURCE ${CMAKE_CURRENT_LIST_DIR}/wtf_prop_writer.c LIBS atf PkgConfig::JANSSON
                      SCRIPT ${CMAKE_CURRENT_LIST_DIR}/test_wtf_properties.py
                      PROPERTIES 1_wtfpy_traces_dump_identically_in_c
                                 2_c_writer_traces_read_back_in_wtfpy
                                 3_cut_traces_recover_the_same_in_c)
