# The fuzz targets of every format, read from the formats' own fragments:
# formats/<f>/fuzz/fuzz.cmake for each format of formats/formats.cmake that
# has a fuzz/ folder. A fragment calls
#
#   atf_fuzz_format(TARGETS <target>...            fuzz/targets/fuzz_<target>.c each
#                   [SEEDS <target>=<target>...]   a target that replays another's seeds
#                   [MODELS <source>...]           the format's fuzz models (fuzz_<f>_models.c)
#                   [TRUNCATION <source>])         its truncation model (truncation_<f>.c)
#
# with paths relative to its folder. Each target has its dictionary
# (dict/<target>.dict) and options (options/<target>.options) there; its
# seeds are corpus/fuzz-seeds/<target> (or those of the target SEEDS names).
#
# Results: ATF_FUZZ_TARGETS (registry order), for each target
# ATF_FUZZ_DIR_<target> (its format's fuzz folder) and
# ATF_FUZZ_SEEDS_OF_<target> (the seed directory's name);
# ATF_FUZZ_MODEL_SOURCES; ATF_FUZZ_TRUNCATION_FORMATS and
# ATF_FUZZ_TRUNCATION_SOURCES; ATF_FUZZ_FORMAT_DIRS.
#
# Run as a script it prints the list the scripts (ci/fuzz,
# .clusterfuzzlite/build.sh) use, one target a line:
#   cmake -P fuzz/fuzz_targets.cmake
#   -> <target> <seed directory name> <format's fuzz folder, relative to the source root>
if(NOT ATF_FORMATS_DIR)
  get_filename_component(ATF_FORMATS_DIR ${CMAKE_CURRENT_LIST_DIR}/../formats ABSOLUTE)
endif()
include(${ATF_FORMATS_DIR}/formats.cmake)

macro(atf_fuzz_format)
  cmake_parse_arguments(_FZ "" "TRUNCATION" "TARGETS;SEEDS;MODELS" ${ARGN})
  foreach(_t IN LISTS _FZ_TARGETS)
    list(APPEND ATF_FUZZ_TARGETS ${_t})
    set(ATF_FUZZ_DIR_${_t} ${CMAKE_CURRENT_LIST_DIR})
    set(ATF_FUZZ_SEEDS_OF_${_t} ${_t})
  endforeach()
  foreach(_s IN LISTS _FZ_SEEDS)
    string(REPLACE "=" ";" _kv ${_s})
    list(GET _kv 0 _k)
    list(GET _kv 1 _v)
    set(ATF_FUZZ_SEEDS_OF_${_k} ${_v})
  endforeach()
  foreach(_m IN LISTS _FZ_MODELS)
    list(APPEND ATF_FUZZ_MODEL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${_m})
  endforeach()
  if(_FZ_TRUNCATION)
    list(APPEND ATF_FUZZ_TRUNCATION_FORMATS ${_fz_format})
    list(APPEND ATF_FUZZ_TRUNCATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${_FZ_TRUNCATION})
  endif()
endmacro()

set(ATF_FUZZ_TARGETS "")
set(ATF_FUZZ_MODEL_SOURCES "")
set(ATF_FUZZ_TRUNCATION_FORMATS "")
set(ATF_FUZZ_TRUNCATION_SOURCES "")
set(ATF_FUZZ_FORMAT_DIRS "")
atf_formats_with(_fz_formats fuzz)
foreach(_fz_format IN LISTS _fz_formats)
  list(APPEND ATF_FUZZ_FORMAT_DIRS ${ATF_FORMATS_DIR}/${_fz_format}/fuzz)
  include(${ATF_FORMATS_DIR}/${_fz_format}/fuzz/fuzz.cmake)
endforeach()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  get_filename_component(_root ${ATF_FORMATS_DIR}/.. ABSOLUTE)
  set(_out "")
  foreach(_t IN LISTS ATF_FUZZ_TARGETS)
    file(RELATIVE_PATH _dir ${_root} ${ATF_FUZZ_DIR_${_t}})
    string(APPEND _out "${_t} ${ATF_FUZZ_SEEDS_OF_${_t}} ${_dir}\n")
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${_out}")
endif()
