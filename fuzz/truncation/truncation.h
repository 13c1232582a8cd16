/* The truncation checker: what its driver (truncation_check.c) shares with
 * the formats' truncation models (formats/<f>/fuzz/truncation_<f>.c): the
 * model descriptor, the registry of models, the counters of the run and
 * failure reporting. */
#ifndef ATF_TRUNCATION_H
#define ATF_TRUNCATION_H

#include "fuzz_support.h"

/* One format's truncation model, `fz_truncation_<f>`. The driver asks the
 * models in registry order which one a path is a case of. */
typedef struct fz_truncation_model {
    const char *name;       /* the format's folder name: its option is --<name>-max-bytes */
    const char *cases;      /* what its cases are, for the summary ("ATF threads") */
    size_t max_bytes;       /* default of --<name>-max-bytes; 0: the model takes no such option */
    /* 1 when the directory is one case of this format (NULL: no directory is). */
    int (*bid_dir)(const char *dir);
    /* 1 when a regular file, whose first n bytes are head, is one case (NULL: none is). */
    int (*bid_file)(const void *head, size_t n, const char *path);
    /* Checks every variant of one case (counts them, failf on a failure);
     * max_bytes: the --<name>-max-bytes in force. */
    void (*run)(const char *path, size_t max_bytes);
} fz_truncation_model;

/* Generated from formats/formats.cmake (fuzz/truncation/CMakeLists.txt):
 * the formats whose fuzz.cmake names a truncation model, NULL-terminated. */
extern const fz_truncation_model *const fz_truncation_registry[];
extern const size_t fz_truncation_count;

extern unsigned long variants, findings_runs, failures, cases;
extern unsigned findings_every;   /* --findings-every: validator runs on every Nth other variant */
extern int quiet;

/* One failure line on stderr ("FAIL: ..."; the first 50), counted. */
void failf(const char *fmt, ...) FZ_PRINTF(1, 2);

/* A case file read whole (malloc'd, *@p size bytes); NULL when it cannot be
 * read (a failure) or holds more than @p max_bytes (named, with the option
 * @p option that sets the limit, and not cut). */
uint8_t *read_case(const char *path, size_t max_bytes, const char *option, size_t *size);

#endif /* ATF_TRUNCATION_H */
