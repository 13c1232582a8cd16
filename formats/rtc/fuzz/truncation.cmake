# RTC's truncation tests (fuzz/truncation/CMakeLists.txt includes this file;
# truncation_rtc.c is the model): the RTC golden corpus's y_ cases up to
# 16 KiB (8 KiB under an emulator), and the reference writer's split
# fixed-length frames (SPEC-RTC R-E8, the i_ref_frm_007 cases: conformant
# with a warning), cut at every position at both ends, each against
# SPEC-RTC 8.2 computed from the uncut file's record and Unit tables.
if(CMAKE_CROSSCOMPILING_EMULATOR)
  set(_rtc_max 8192)
else()
  set(_rtc_max 16384)
endif()
add_test(NAME truncation_check_rtc COMMAND atf_truncation_check --quiet --rtc-max-bytes=${_rtc_max}
         --golden=${PROJECT_SOURCE_DIR}/corpus/rtc
         ${PROJECT_SOURCE_DIR}/corpus/rtc/i_ref_frm_007_fixed_split/trace.rtc
         ${PROJECT_SOURCE_DIR}/corpus/rtc/i_ref_frm_007_split_at_crc/trace.rtc)
set_tests_properties(truncation_check_rtc PROPERTIES LABELS "truncation" TIMEOUT ${ATF_TRUNCATION_SWEEP_TIMEOUT})
