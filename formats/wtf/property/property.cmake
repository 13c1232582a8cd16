# WTF's property tests (included by conformance/property/CMakeLists.txt):
# wtfpy against the C codec (test_wtf_properties.py), with wtf-prop-writer,
# a file from a JSON description through the public API of atf/wtf.h.
add_executable(wtf_prop_writer ${CMAKE_CURRENT_LIST_DIR}/wtf_prop_writer.c)
set_target_properties(wtf_prop_writer PROPERTIES OUTPUT_NAME wtf-prop-writer)
target_link_libraries(wtf_prop_writer PRIVATE atf PkgConfig::JANSSON)
if(TARGET atf_cli)
  atf_prop_host_writer(_writer wtf_prop_writer wtf-prop-writer)
  atf_add_properties(property_wtf ${CMAKE_CURRENT_LIST_DIR}/test_wtf_properties.py ${_writer}
                     1_wtfpy_traces_dump_identically_in_c
                     2_c_writer_traces_read_back_in_wtfpy
                     3_cut_traces_recover_the_same_in_c)
endif()
