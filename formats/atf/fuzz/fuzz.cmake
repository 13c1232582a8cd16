# ATF's fuzz targets (fuzz/fuzz_targets.cmake reads this file). "validate"
# reads the same session containers as "session".
atf_fuzz_format(
  TARGETS index_header index_footer index_file
          detail_header detail_footer detail_events detail_file arm64_payload
          manifest session validate merge
          index_roundtrip detail_roundtrip
  SEEDS validate=session
  MODELS fuzz_atf_models.c
  TRUNCATION truncation_atf.c)
