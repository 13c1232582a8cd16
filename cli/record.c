/* `atf record [OPTIONS] -- PROG [ARGS...]`: runs PROG with the
 * -finstrument-functions front end (libatf_cyg.so) preloaded and configured
 * through the environment, forwards PROG's exit status, and says where the
 * session is and what it holds. */

#include "record.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atf/session.h>

#ifndef ATF_CYG_INSTALLED
#define ATF_CYG_INSTALLED "/usr/local/lib/libatf_cyg.so"
#endif

static const char record_usage[] =
    "usage: atf record [OPTIONS] [--] PROG [ARGS...]\n"
    "\n"
    "Runs PROG (built with -finstrument-functions) with the atf front end\n"
    "preloaded and records every instrumented function's entry and exit, in\n"
    "every thread and every forked or exec()ed process, into one session:\n"
    "ROOT/session_YYYYMMDD_HHMMSS/pid_N/. Prints the session's path and one\n"
    "summary line on stderr; exits with PROG's status (128+N if a signal N\n"
    "killed it).\n"
    "\n"
    "options:\n"
    "  -o, --output ROOT   where sessions go (default: ada_traces)\n"
    "  --detail            open the detail lane (detail.atf per thread)\n"
    "  --budget BYTES      memory of the recorder's rings and buffers per process\n"
    "                      (suffix K, M or G; default 256M)\n"
    "  --lossless          a full ring makes the thread wait for the writer (default)\n"
    "  --drop              a full ring drops the event (counted as lost); never waits\n"
    "  --no-sync           do not fdatasync the files at the end\n"
    "  --io METHOD         auto (default: O_DIRECT where the file system takes it),\n"
    "                      direct or buffered (through the page cache)\n"
    "  --lib PATH          the front end to preload (default: libatf_cyg.so next to atf)\n"
    "  -h, --help          this text\n"
    "\n"
    "A static binary cannot be preloaded: link it with libatf_cyg.a instead\n"
    "(cc -finstrument-functions prog.c -latf_cyg -latf_recorder -latf ...).\n";

/* One line on stderr; the arguments (paths, PROG) with control characters escaped. */
static int fail(int code, const char *fmt, const char *a, const char *b)
{
    char line[8192];
    snprintf(line, sizeof line, fmt, a, b);
    fputs("atf record: ", stderr);
    atf_fputs_escaped(line, stderr);
    fputc('\n', stderr);
    return code;
}

static int parse_size(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30;
    else if (*end)
        return -1;
    if (mul > 1 && end[1])
        return -1;
    if (v > ULLONG_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* PROG as execvp() would find it. */
static int resolve(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/')) {
        /* A directory passes access(X_OK): it is refused here, before the
         * front end is looked for (126 "is a directory", as the shells). */
        struct stat st;
        if (stat(prog, &st) != 0 || S_ISDIR(st.st_mode) || access(prog, X_OK) != 0)
            return -1;
        snprintf(out, cap, "%s", prog);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        int len = snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", prog);
        struct stat st;
        if (len > 0 && (size_t)len < cap && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        if (!c)
            break;
        path = c + 1;
    }
    return -1;
}

/* 1: an ELF executable with no program interpreter (static: LD_PRELOAD does
 * nothing); 0 otherwise (dynamic, a script, unreadable: the run says). */
static int is_static_elf(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ElfW(Ehdr) eh;
    int st = 0;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
        eh.e_phentsize == sizeof(ElfW(Phdr)) && eh.e_phnum > 0 && eh.e_phnum < 4096) {
        int interp = 0;
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            ElfW(Phdr) ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
                break;
            interp |= ph.p_type == PT_INTERP;
        }
        /* No program interpreter: nothing reads LD_PRELOAD (static, and
         * static-pie, which has a PT_DYNAMIC of its own). */
        st = (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && !interp;
    }
    close(fd);
    return st;
}

static int find_lib(char *out, size_t cap)
{
    const char *env = getenv("ATF_RECORD_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            /* build tree: build/cli/atf -> build/lib; install: bin -> lib */
            int len = snprintf(out, cap, "%s/../lib/libatf_cyg.so", exe);
            if (len > 0 && (size_t)len < cap && access(out, R_OK) == 0)
                return 0;
        }
    }
    snprintf(out, cap, "%s", ATF_CYG_INSTALLED);
    return access(out, R_OK) == 0 ? 0 : -1;
}

static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

typedef struct totals {
    unsigned processes;
    unsigned long long events, threads, lost;
    int unreadable;
} totals;

static void add_pid_dir(const char *dir, totals *t)
{
    atf_session *s = NULL;
    atf_error err;
    /* Counts only: no checksum pass over gigabytes (atf validate does it). */
    atf_read_options ro = ATF_READ_OPTIONS_INIT;
    ro.verify = 0;
    if (atf_session_open(&s, dir, &ro, &err) != ATF_OK) {
        t->unreadable++;
        return;
    }
    t->processes++;
    size_t n = atf_session_thread_count(s);
    for (size_t i = 0; i < n; i++) {
        const atf_session_thread *th = atf_session_thread_at(s, i);
        t->threads++;
        if (th->index)
            t->events += atf_index_reader_count(th->index);
    }
    const atf_manifest *m = atf_session_manifest(s);
    if (m)
        t->lost += m->events_dropped;
    t->unreadable += (int)atf_session_unreadable_count(s);
    atf_session_close(s);
}

/* Every pid_N of SESSION and of SESSION_execK (the sessions exec() started). */
static void sum_sessions(const char *root, const char *base, totals *t, unsigned *nsessions)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    size_t bl = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, base, bl) != 0 || (e->d_name[bl] && strncmp(e->d_name + bl, "_exec", 5) != 0))
            continue;
        char sdir[PATH_MAX];
        if (snprintf(sdir, sizeof sdir, "%s/%s", root, e->d_name) >= (int)sizeof sdir)
            continue;
        DIR *sd = opendir(sdir);
        if (!sd)
            continue;
        int any = 0;
        struct dirent *p;
        while ((p = readdir(sd)) != NULL) {
            if (strncmp(p->d_name, "pid_", 4) != 0)
                continue;
            char pdir[PATH_MAX];
            if (snprintf(pdir, sizeof pdir, "%s/%s", sdir, p->d_name) >= (int)sizeof pdir)
                continue;
            add_pid_dir(pdir, t);
            any = 1;
        }
        closedir(sd);
        if (any)
            ++*nsessions;
        else
            rmdir(sdir);   /* created by us, nothing recorded in it */
    }
    closedir(d);
}

/* The command line of `atf record`. */
typedef struct record_args {
    const char *root, *lib_opt, *mode, *io;
    int detail, sync;
    unsigned long long budget;
} record_args;

/* Options into r; *next receives the index of PROG. @return -1 to go on,
 * else the exit code (--help: 0; a bad option: 2, said on stderr). */
static int record_parse(record_args *r, int argc, char **argv, int *next)
{
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(record_usage, stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--budget") || !strcmp(a, "--lib") ||
                   !strcmp(a, "--io")) {
            if (i + 1 >= argc)
                return fail(2, "%s needs a value%s (atf record --help)", a, "");
            const char *v = argv[++i];
            if (!strcmp(a, "--io")) {
                if (strcmp(v, "auto") && strcmp(v, "direct") && strcmp(v, "buffered"))
                    return fail(2, "--io %s: auto, direct or buffered%s", v, "");
                r->io = v;
            } else if (a[1] == 'o' || a[2] == 'o')
                r->root = v;
            else if (a[2] == 'l')
                r->lib_opt = v;
            else if (parse_size(v, &r->budget) != 0 || r->budget < (4ull << 20))
                return fail(2, "--budget %s: a size in bytes of at least 4M (suffix K, M or G)%s", v, "");
        } else if (!strncmp(a, "--output=", 9)) {
            r->root = a + 9;
        } else if (!strcmp(a, "--detail")) {
            r->detail = 1;
        } else if (!strcmp(a, "--drop")) {
            r->mode = "drop";
        } else if (!strcmp(a, "--lossless")) {
            r->mode = "lossless";
        } else if (!strcmp(a, "--no-sync")) {
            r->sync = 0;
        } else {
            return fail(2, "unknown option '%s'%s (atf record --help)", a, "");
        }
    }
    if (i >= argc) {
        fputs(record_usage, stderr);
        return 2;
    }
    *next = i;
    return -1;
}

/* PROG's path in exe and the front end's absolute path in libabs (PATH_MAX
 * each). @return -1 to go on, else the exit code (said on stderr). */
static int record_find(const record_args *r, char **prog, char *exe, char *libabs)
{
    if (resolve(prog[0], exe, PATH_MAX) != 0) {
        /* As the shells say it: 126 found but not executable, 127 not found. */
        struct stat st;
        if (strchr(prog[0], '/') && stat(prog[0], &st) == 0)
            return fail(126, "%s: %s", prog[0], S_ISDIR(st.st_mode) ? "is a directory" : "not executable");
        return fail(127, "%s: %s", prog[0], "command not found");
    }
    if (is_static_elf(exe))
        return fail(2,
                    "%s is a static binary: the front end cannot be preloaded into it; "
                    "link it with libatf_cyg.a instead%s",
                    exe, "");
    char lib[PATH_MAX];
    if (r->lib_opt) {
        snprintf(lib, sizeof lib, "%s", r->lib_opt);
        if (access(lib, R_OK) != 0)
            return fail(2, "--lib %s: %s", lib, strerror(errno));
    } else if (find_lib(lib, sizeof lib) != 0) {
        return fail(2, "cannot find the front end libatf_cyg.so (%s); say where with --lib", lib, "");
    }
    if (!realpath(lib, libabs))
        return fail(2, "%s: %s", lib, strerror(errno));
    return -1;
}

/* The session directory, made here so that an unwritable root is one clear
 * line before PROG runs, and absolute so that PROG may chdir: rootabs,
 * base (64 bytes: session_<stamp>[_rK]) and session (PATH_MAX each).
 * @return -1 to go on, else the exit code (said on stderr). */
static int record_session_dir(const char *root, char *rootabs, char *base, char *session)
{
    if (make_dirs(root) != 0)
        return fail(2, "cannot create the output root %s: %s", root, strerror(errno));
    if (!realpath(root, rootabs))
        return fail(2, "%s: %s", root, strerror(errno));
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    for (int k = 0;; k++) {
        if (k == 0)
            snprintf(base, 64, "session_%s", stamp);
        else
            snprintf(base, 64, "session_%s_r%d", stamp, k);
        if (snprintf(session, PATH_MAX, "%s/%s", rootabs, base) >= PATH_MAX)
            return fail(2, "%s: %s", rootabs, strerror(ENAMETOOLONG));
        if (mkdir(session, 0755) == 0)
            return -1;
        if (errno != EEXIST || k > 1000)
            return fail(2, "cannot create %s: %s", session, strerror(errno));
    }
}

/* The front end's settings in the environment PROG inherits. @return -1 to go on, else 2. */
static int record_env(const record_args *r, const char *libabs, const char *session)
{
    char budget_s[32];
    snprintf(budget_s, sizeof budget_s, "%llu", r->budget);
    const char *old = getenv("LD_PRELOAD");
    size_t plen = strlen(libabs) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(plen);
    if (!preload)
        return fail(2, "out of memory%s%s", "", "");
    snprintf(preload, plen, "%s%s%s", libabs, old && *old ? ":" : "", old ? old : "");
    setenv("ATF_RECORD_SESSION", session, 1);
    setenv("ATF_RECORD_MODE", r->mode, 1);
    setenv("ATF_RECORD_DETAIL", r->detail ? "1" : "0", 1);
    setenv("ATF_RECORD_SYNC", r->sync ? "1" : "0", 1);
    setenv("ATF_RECORD_IO", r->io, 1);
    if (r->budget)
        setenv("ATF_RECORD_BUDGET", budget_s, 1);
    else
        unsetenv("ATF_RECORD_BUDGET");
    setenv("LD_PRELOAD", preload, 1);
    free(preload);
    return -1;
}

/* Runs PROG like a shell: ^C and ^\ go to it; waits for it. *status
 * receives its wait status. @return -1 when it ran, else the exit code
 * (said on stderr; the empty session is removed when exec failed). */
static int record_exec(const char *exe, char **prog, const char *session, int *status)
{
    struct sigaction ign = { 0 }, old_int, old_quit;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return fail(2, "pipe: %s%s", strerror(errno), "");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return fail(2, "fork: %s%s", strerror(errno), "");
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        close(pfd[0]);
        execv(exe, prog);
        int e = errno;
        if (write(pfd[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(pfd[1]);
    int exec_errno = 0;
    ssize_t got = read(pfd[0], &exec_errno, sizeof exec_errno);
    close(pfd[0]);
    *status = 0;
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (got == (ssize_t)sizeof exec_errno) {
        rmdir(session);
        return fail(126, "cannot run %s: %s", exe, strerror(exec_errno));
    }
    return -1;
}

/* What was recorded, on stderr. @return the exit code: PROG's (rc), or 2
 * when nothing was recorded and PROG exited 0. */
static int record_summary(const char *prog0, const char *rootabs, const char *base, const char *session, int status,
                          int rc)
{
    totals t = { 0 };
    unsigned nsessions = 0;
    sum_sessions(rootabs, base, &t, &nsessions);
    if (WIFSIGNALED(status)) {
        fputs("atf record: ", stderr);
        atf_fputs_escaped(prog0, stderr);
        fprintf(stderr, " was killed by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
    }
    if (t.events == 0) {
        fputs("atf record: no event recorded: ", stderr);
        atf_fputs_escaped(prog0, stderr);
        fputs(" was not built with -finstrument-functions (or no instrumented function ran)\n", stderr);
        return rc ? rc : 2;
    }
    fputs("atf record: session ", stderr);
    atf_fputs_escaped(session, stderr);
    if (nsessions > 1) {
        fprintf(stderr, " (and %u more sessions started by exec: ", nsessions - 1);
        atf_fputs_escaped(session, stderr);
        fputs("_exec*)", stderr);
    }
    fputc('\n', stderr);
    fprintf(stderr, "atf record: %llu events, %llu threads in %u process%s, %llu lost%s\n", t.events, t.threads,
            t.processes, t.processes == 1 ? "" : "es", t.lost,
            t.unreadable ? " (some files could not be read: atf validate says which)" : "");
    return rc;
}

int atf_cmd_record(int argc, char **argv)
{
    record_args r = { "ada_traces", NULL, "lossless", "auto", 0, 1, 0 };
    int i = 0, ex;
    if ((ex = record_parse(&r, argc, argv, &i)) >= 0)
        return ex;
    char **prog = argv + i;
    char exe[PATH_MAX], libabs[PATH_MAX];
    if ((ex = record_find(&r, prog, exe, libabs)) >= 0)
        return ex;
    char rootabs[PATH_MAX], base[64], session[PATH_MAX];
    if ((ex = record_session_dir(r.root, rootabs, base, session)) >= 0)
        return ex;
    if ((ex = record_env(&r, libabs, session)) >= 0)
        return ex;
    int status;
    if ((ex = record_exec(exe, prog, session, &status)) >= 0)
        return ex;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    return record_summary(prog[0], rootabs, base, session, status, rc);
}
