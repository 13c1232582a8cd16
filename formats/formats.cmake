# The registry of formats: one line per format. Everything else finds a
# format's parts by its folder, formats/<name>/:
#   include/ src/   the codec (libatf)          tests/    its unit tests
#   tools/          its part of the tools       validate/ its validator pass
#   fuzz/           fuzz targets, dictionaries, seeds, truncation model
#   python/         its independent Python implementation
#   property/       its property tests (property.cmake, included by
#                   conformance/property/)
#   bench/          its benchmark
# and in tests/, when it has them, kit.cmake (its run of the reader kit,
# included by conformance/kit/) and export/export.cmake (its export checks,
# included by tools/tests/).
# A part a format does not have is a folder it does not have.
set(ATF_FORMATS
  atf
  wtf
  rtc
)

# The formats that have part <part> (a folder formats/<name>/<part>/), in
# registry order, into <var>.
function(atf_formats_with var part)
  set(_out "")
  foreach(_f IN LISTS ATF_FORMATS)
    if(EXISTS ${ATF_FORMATS_DIR}/${_f}/${part})
      list(APPEND _out ${_f})
    endif()
  endforeach()
  set(${var} ${_out} PARENT_SCOPE)
endfunction()

# A C source, generated into the build tree, that lists one descriptor per
# format: `extern const <type> <prefix>_<name>;` for each name in FORMATS,
# then `const <type> *const <prefix>_registry[]` (NULL-terminated) and
# `const size_t <prefix>_count`. HEADER is the header that declares <type>.
#   atf_format_registry(OUT <file.c> TYPE <type> PREFIX <prefix>
#                       HEADER <header> FORMATS <names...>)
function(atf_format_registry)
  cmake_parse_arguments(R "" "OUT;TYPE;PREFIX;HEADER" "FORMATS" ${ARGN})
  set(_c "/* Generated from formats/formats.cmake: do not edit. */\n")
  string(APPEND _c "#include <stddef.h>\n#include \"${R_HEADER}\"\n\n")
  foreach(_f IN LISTS R_FORMATS)
    string(APPEND _c "extern const ${R_TYPE} ${R_PREFIX}_${_f};\n")
  endforeach()
  string(APPEND _c "\nconst ${R_TYPE} *const ${R_PREFIX}_registry[] = {\n")
  foreach(_f IN LISTS R_FORMATS)
    string(APPEND _c "    &${R_PREFIX}_${_f},\n")
  endforeach()
  list(LENGTH R_FORMATS _n)
  string(APPEND _c "    NULL,\n};\nconst size_t ${R_PREFIX}_count = ${_n};\n")
  file(CONFIGURE OUTPUT ${R_OUT} CONTENT "${_c}" @ONLY)
endfunction()
