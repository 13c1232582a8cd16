# WTF's validator pass (conformance/SPEC-WTF.md), compiled into atf_validator
# (conformance/validator/CMakeLists.txt includes this file), and its spec.
set(ATF_VALIDATE_SPEC_WTF SPEC-WTF.md)
list(APPEND ATF_VALIDATOR_SOURCES ${CMAKE_CURRENT_LIST_DIR}/wtf_pass.c)
