# RTC's validator pass (conformance/SPEC-RTC.md), compiled into atf_validator
# (conformance/validator/CMakeLists.txt includes this file), and its spec.
set(ATF_VALIDATE_SPEC_RTC SPEC-RTC.md)
list(APPEND ATF_VALIDATOR_SOURCES ${CMAKE_CURRENT_LIST_DIR}/rtc_pass.c)
