# RTC's fuzz targets (fuzz/fuzz_targets.cmake reads this file).
# "rtc_validate" reads the same files as "rtc_file".
atf_fuzz_format(
  TARGETS rtc_leb128 rtc_marker rtc_frames rtc_index rtc_meta rtc_format rtc_clock
          rtc_file rtc_validate rtc_roundtrip
  SEEDS rtc_validate=rtc_file
  MODELS fuzz_rtc_models.c
  TRUNCATION truncation_rtc.c)
