/* Replay driver: runs a fuzz target over files and directories with any
 * compiler, no fuzzing engine. ctest uses it to replay every target over its
 * seeds and the committed regressions (label "fuzz").
 *
 *   fuzz_<target> [--match=PREFIX] [--min-inputs=N] PATH...
 *
 * PATH is a file or a directory (read recursively, in name order; names
 * starting with '.' and README files are skipped). --match=PREFIX restricts
 * the files of the directories named after it to names starting with PREFIX
 * (corpus/regressions/ holds every target's reproducers, named
 * <target>-<hash>). It fails (exit 1) when a path cannot be read or fewer
 * than --min-inputs inputs (default 1) were run: an empty or misnamed corpus
 * must not pass silently. A target that finds a broken property aborts, so
 * the process dies with SIGABRT; the driver names the input first. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *current = NULL;
static unsigned long inputs = 0, failures = 0;

static void on_fatal(int sig)
{
    /* Async-signal-safe: write(2) only. */
    static const char a[] = "\nreplay: crashed on input ";
    if (current) {
        (void)!write(2, a, sizeof a - 1);
        (void)!write(2, current, strlen(current));
        (void)!write(2, "\n", 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        failures++;
        return;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "replay: out of memory reading %s\n", path);
            exit(1);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        failures++;
        free(buf);
        return;
    }
    /* Exactly n bytes, so that ASan sees any read past the input. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact)
        exit(1);
    memcpy(exact, buf, n);
    free(buf);
    current = path;
    LLVMFuzzerTestOneInput(exact, n);
    current = NULL;
    free(exact);
    inputs++;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path, const char *match, int top)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        failures++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (top || !match || strncmp(base, match, strlen(match)) == 0)
            run_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        failures++;
        return;
    }
    size_t count = 0, cap = 64;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
            continue;
        if (count == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        if (names)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    if (!names)
        exit(1);
    qsort(names, count, sizeof *names, cmp_names);
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(path) + strlen(names[i]) + 2;
        char *child = malloc(len);
        if (!child)
            exit(1);
        snprintf(child, len, "%s/%s", path, names[i]);
        run_path(child, match, 0);
        free(child);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *match = NULL;
    unsigned long min_inputs = 1;
    signal(SIGABRT, on_fatal);
    signal(SIGSEGV, on_fatal);
    signal(SIGBUS, on_fatal);
    signal(SIGFPE, on_fatal);
    signal(SIGILL, on_fatal);
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s [--match=PREFIX] [--min-inputs=N] FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--match=", 8) == 0)
            match = argv[i] + 8;
        else if (strncmp(argv[i], "--min-inputs=", 13) == 0)
            min_inputs = strtoul(argv[i] + 13, NULL, 10);
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            fprintf(stderr, "replay: ignoring engine option %s\n", argv[i]);
        else
            run_path(argv[i], match, 1);
    }
    const char *name = strrchr(argv[0], '/');
    printf("%s: %lu input(s) replayed, %lu unreadable path(s)\n", name ? name + 1 : argv[0], inputs, failures);
    if (failures || inputs < min_inputs) {
        if (inputs < min_inputs)
            fprintf(stderr, "replay: only %lu input(s), at least %lu expected\n", inputs, min_inputs);
        return 1;
    }
    return 0;
}
