/**
 * @file atf/version.h
 * @brief Library version (distinct from the trace-format version) and the export macro.
 */
#ifndef ATF_VERSION_H
#define ATF_VERSION_H

#define ATF_VERSION_MAJOR 0
#define ATF_VERSION_MINOR 1
#define ATF_VERSION_PATCH 0
#define ATF_VERSION_NUMBER (ATF_VERSION_MAJOR * 10000 + ATF_VERSION_MINOR * 100 + ATF_VERSION_PATCH)
#define ATF_VERSION_STRING "0.1.0"

/* Exported symbols; everything else is hidden in the shared library. */
#if defined(ATF_STATIC_DEFINE)
#  define ATF_API
#elif defined(_WIN32)
#  if defined(ATF_BUILDING_LIBRARY)
#    define ATF_API __declspec(dllexport)
#  else
#    define ATF_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define ATF_API __attribute__((visibility("default")))
#else
#  define ATF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @return ATF_VERSION_NUMBER of the library actually linked. */
ATF_API unsigned atf_version_number(void);
/** @return ATF_VERSION_STRING of the library actually linked. */
ATF_API const char *atf_version_string(void);

#ifdef __cplusplus
}
#endif
#endif /* ATF_VERSION_H */
