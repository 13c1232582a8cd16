/* Crash-truncation generator and checker (ctest label "truncation").
 *
 *   atf-truncation-check [--findings-every=N] [--<format>-max-bytes=N]... [--quiet]
 *                        [--golden=CORPUS] PATH...
 *
 * PATH is a valid case of a format with a truncation model (a directory or
 * a file that the model's bid claims: for ATF a thread directory or one
 * holding a lone detail.atf; for a single-file format a file its codec's
 * sniff claims) or a directory holding such cases; --golden=CORPUS takes
 * the valid cases (y_*) of a golden corpus (corpus/<format>). The models are
 * formats/<f>/fuzz/truncation_<f>.c, listed in a registry generated from
 * formats/formats.cmake (fz_truncation_registry); each generates, in memory,
 * what crashes and filesystems leave behind from a case and checks the
 * codec and the validator against the outcome computed for each variant
 * from the original's structure. A model with a size limit takes
 * --<name>-max-bytes=N (its default is the model's): larger files are named
 * and not cut.
 *
 * Exit status 0 when every variant behaves as computed, 1 otherwise. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "truncation.h"

unsigned long variants, findings_runs, failures, cases;
unsigned findings_every = 97;
int quiet;

/* --<name>-max-bytes of each model of the registry. */
static size_t *max_bytes;

void failf(const char *fmt, ...)
{
    va_list ap;
    failures++;
    if (failures > 50)
        return;
    fputs("FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

uint8_t *read_case(const char *path, size_t max, const char *option, size_t *size)
{
    uint8_t *d = fz_read_file(path, size);
    if (!d) {
        failf("%s: cannot read", path);
        return NULL;
    }
    if (*size > max) {
        printf("%s: %zu bytes, more than %s=%zu: not cut\n", path, *size, option, max);
        free(d);
        return NULL;
    }
    return d;
}

/* ---- Which model a path is a case of --------------------------------------- */

/* The model whose bid claims path (a directory or a regular file), or -1. */
static int model_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    uint8_t head[16];
    size_t n = 0;
    if (S_ISREG(st.st_mode)) {
        FILE *f = fopen(path, "rb");
        if (f) {
            n = fread(head, 1, sizeof head, f);
            fclose(f);
        }
    } else if (!S_ISDIR(st.st_mode)) {
        return -1;
    }
    for (size_t i = 0; i < fz_truncation_count; i++) {
        const fz_truncation_model *m = fz_truncation_registry[i];
        if (S_ISDIR(st.st_mode) ? m->bid_dir && m->bid_dir(path) : m->bid_file && m->bid_file(head, n, path))
            return (int)i;
    }
    return -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The entries of a directory that start with prefix ("": all but dot files),
 * sorted, into *out (*count of them); 0 (a failure) when it cannot be read. */
static int sorted_entries(const char *dir, const char *prefix, char ***out, size_t *count)
{
    DIR *d = opendir(dir);
    *out = NULL;
    *count = 0;
    if (!d) {
        failf("%s: %s", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0, plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, plen) != 0)
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            fprintf(stderr, "truncation: out of memory\n");
            exit(2);
        }
        names = grown;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    *out = names;
    *count = n;
    return 1;
}

static void walk(const char *path);

/* Walks the entries of dir that start with prefix and are directories or
 * cases of a model; 0 when dir cannot be read (a failure). */
static int walk_entries(const char *dir, const char *prefix)
{
    size_t n;
    char **names;
    if (!sorted_entries(dir, prefix, &names, &n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char buf[1200];
        struct stat st;
        snprintf(buf, sizeof buf, "%s/%s", dir, names[i]);
        if (stat(buf, &st) == 0 && (S_ISDIR(st.st_mode) || model_of(buf) >= 0))
            walk(buf);
        free(names[i]);
    }
    free(names);
    return 1;
}

/* A case of a model, or a directory searched for cases. */
static void walk(const char *path)
{
    int m = model_of(path);
    if (m >= 0)
        fz_truncation_registry[m]->run(path, max_bytes[m]);
    else
        (void)walk_entries(path, "");
}

/* ---- Command line ------------------------------------------------------------ */

/* --<name>-max-bytes=N of a model: 1 when arg is one. */
static int max_bytes_option(const char *arg)
{
    for (size_t i = 0; i < fz_truncation_count; i++) {
        const fz_truncation_model *m = fz_truncation_registry[i];
        size_t k = strlen(m->name);
        if (m->max_bytes && strncmp(arg, "--", 2) == 0 && strncmp(arg + 2, m->name, k) == 0 &&
            strncmp(arg + 2 + k, "-max-bytes=", 11) == 0) {
            max_bytes[i] = (size_t)strtoull(arg + 13 + k, NULL, 10);
            return 1;
        }
    }
    return 0;
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--findings-every=N]", argv0);
    for (size_t i = 0; i < fz_truncation_count; i++)
        if (fz_truncation_registry[i]->max_bytes)
            fprintf(stderr, " [--%s-max-bytes=N]", fz_truncation_registry[i]->name);
    fprintf(stderr, " [--quiet] [--golden=CORPUS] CASE_OR_DIR...\n");
}

static void summary(void)
{
    printf("truncation: %lu case(s) (", cases);
    for (size_t i = 0; i < fz_truncation_count; i++)
        printf("%s%s", i ? ", " : "", fz_truncation_registry[i]->cases);
    printf("), %lu variants, %lu validator runs, %lu failure(s)\n", variants, findings_runs, failures);
}

int main(int argc, char **argv)
{
    int paths = 0;
    max_bytes = calloc(fz_truncation_count + 1, sizeof *max_bytes);
    if (!max_bytes)
        return 2;
    for (size_t i = 0; i < fz_truncation_count; i++)
        max_bytes[i] = fz_truncation_registry[i]->max_bytes;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--findings-every=", 17) == 0) {
            findings_every = (unsigned)strtoul(argv[i] + 17, NULL, 10);
            if (!findings_every)
                findings_every = 1;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (max_bytes_option(argv[i])) {
        } else if (strncmp(argv[i], "--golden=", 9) == 0) {
            /* The golden corpus: its valid cases are the y_* entries. */
            if (walk_entries(argv[i] + 9, "y_"))
                paths++;
        } else {
            walk(argv[i]);
            paths++;
        }
    }
    free(max_bytes);
    if (!paths) {
        usage(argv[0]);
        return 2;
    }
    summary();
    if (cases == 0) {
        fprintf(stderr, "truncation: no valid case found\n");
        return 1;
    }
    return failures ? 1 : 0;
}
