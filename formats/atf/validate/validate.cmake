# ATF's validator pass (conformance/SPEC.md), compiled into atf_validator
# (conformance/validator/CMakeLists.txt includes this file), and its spec.
set(ATF_VALIDATE_SPEC_ATF SPEC.md)
list(APPEND ATF_VALIDATOR_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/atf_validate.c
  ${CMAKE_CURRENT_LIST_DIR}/index_pass.c
  ${CMAKE_CURRENT_LIST_DIR}/detail_pass.c
  ${CMAKE_CURRENT_LIST_DIR}/session_pass.c
  ${CMAKE_CURRENT_LIST_DIR}/manifest_check.c
)
