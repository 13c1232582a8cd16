# WTF's fuzz targets (fuzz/fuzz_targets.cmake reads this file).
# "wtf_validate" reads the same files as "wtf_file".
atf_fuzz_format(
  TARGETS wtf_file_header wtf_chunk wtf_signature wtf_strings wtf_events wtf_header_json
          wtf_file wtf_validate wtf_roundtrip
  SEEDS wtf_validate=wtf_file
  MODELS fuzz_wtf_models.c
  TRUNCATION truncation_wtf.c)
