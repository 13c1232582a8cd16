/* The front ends' shared slow paths (front.h): starting the recorder from the
 * environment, the loaded objects and their symbols, fork. Nothing here runs
 * on the fast path but front_id_slow() after a cache miss. */

#include "front.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_syms.h"

__thread front_tls front_t __attribute__((tls_model("initial-exec")));
atf_recorder *front_rec;

/* A loaded object. Entries are written once under front_mu and published by
 * the release store of nmod, so front_id_slow() reads them without a lock. */
typedef struct front_module {
    uintptr_t lo, span;       /* executable PT_LOAD range */
    uintptr_t bias;           /* dlpi_addr */
    uint64_t base, size;      /* every PT_LOAD: the manifest's base_address, size */
    uint32_t id;              /* module_id, 1, 2, ... in discovery order */
    int used;                 /* a function of it was called (its symbols are listed) */
    unsigned listed_gen;      /* the recorder generation that has it in its manifest */
    char *path;
    char build_id[41];
} front_module;

#define FRONT_MAX_MODULES 4096u
#define FRONT_UNKNOWN_MODULE 0xffffffffu

static front_module mods[FRONT_MAX_MODULES];
static unsigned nmod;         /* atomic: entries [0, nmod) are complete */
static pthread_mutex_t front_mu = PTHREAD_MUTEX_INITIALIZER;
static int state;             /* 0 not started, 1 running, 2 start failed (do not retry) */
static unsigned gen;          /* recorders started by this process image */
static char *(*demangle)(const char *, char *, size_t *, int *);
static int demangle_looked;
static pid_t started_pid;     /* the process that started front_rec */

/* ---- Loaded objects ----------------------------------------------------------------- */

static void hex_build_id(const struct dl_phdr_info *info, char out[41])
{
    out[0] = '\0';
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        size_t left = ph->p_memsz;
        while (left >= sizeof(ElfW(Nhdr))) {
            ElfW(Nhdr) nh;
            memcpy(&nh, p, sizeof nh);
            size_t nsz = (nh.n_namesz + 3u) & ~(size_t)3, dsz = (nh.n_descsz + 3u) & ~(size_t)3;
            if (nsz > left - sizeof nh || dsz > left - sizeof nh - nsz)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + sizeof nh, "GNU", 4)) {
                size_t n = nh.n_descsz > 20 ? 20 : nh.n_descsz;
                const unsigned char *d = p + sizeof nh + nsz;
                for (size_t k = 0; k < n; k++)
                    snprintf(out + 2 * k, 3, "%02x", d[k]);
                return;
            }
            p += sizeof nh + nsz + dsz;
            left -= sizeof nh + nsz + dsz;
        }
    }
}

static int known(uintptr_t lo, const char *name)
{
    for (unsigned i = 0; i < nmod; i++)
        if (mods[i].lo == lo && !strcmp(mods[i].path, name))
            return 1;
    return 0;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    uintptr_t xlo = UINTPTR_MAX, xhi = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
        if (ph->p_flags & PF_X) {
            if (a < xlo)
                xlo = a;
            if (b > xhi)
                xhi = b;
        }
    }
    if (xlo >= xhi)
        return 0;
    char exe[PATH_MAX];
    const char *name = info->dlpi_name;
    if (!name || !name[0]) {
        /* The main program: the first object, named "" by the loader. */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        name = exe;
    }
    if (known(xlo, name))
        return 0;
    unsigned k = nmod;
    if (k >= FRONT_MAX_MODULES)
        return 1;
    front_module *m = &mods[k];
    memset(m, 0, sizeof *m);
    m->path = strdup(name);
    if (!m->path)
        return 1;
    m->lo = xlo;
    m->span = xhi - xlo;
    m->bias = info->dlpi_addr;
    m->base = lo;
    m->size = hi - lo;
    m->id = k + 1;
    hex_build_id(info, m->build_id);
    __atomic_store_n(&nmod, k + 1, __ATOMIC_RELEASE);
    return 0;
}

/* Under front_mu: (re)reads the loaded objects; objects loaded with dlopen()
 * since the last scan are appended. */
static void scan_objects(void)
{
    dl_iterate_phdr(add_object, NULL);
}

static char *demangled(const char *name)
{
    if (name[0] != '_' || name[1] != 'Z')
        return NULL;
    if (!demangle_looked) {
        /* The C++ runtime's demangler, when the program has one loaded. */
        demangle_looked = 1;
        *(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    if (!demangle)
        return NULL;
    int status = -1;
    char *d = demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}

/* Under front_mu: adds module @p m and its function symbols to the recorder's
 * manifest (written at its next rewrite, so a crashed session names its
 * functions too). symbol_index = st_value: the address minus the load bias. */
static void list_module(atf_recorder *r, front_module *m)
{
    if (m->listed_gen == gen)
        return;
    __atomic_store_n(&m->listed_gen, gen, __ATOMIC_RELEASE);
    atf_manifest_module mm = { m->id, m->base, m->size, m->path, m->build_id };
    if (atf_recorder_add_module(r, &mm) != ATF_OK) {
        mm.path = "";
        atf_recorder_add_module(r, &mm);
    }
    elf_syms s;
    const char *why = NULL;
    if (elf_syms_read(m->path, &s, &why) != 0) {
        if (m->id == 1 || getenv("ATF_RECORD_VERBOSE"))
            fprintf(stderr, "atf record: %s: no symbols (%s); its functions are listed by address\n", m->path, why);
        return;
    }
    uint64_t lo = m->lo - m->bias, hi = lo + m->span;
    for (size_t i = 0; i < s.n; i++) {
        if (s.v[i].value < lo || s.v[i].value >= hi || s.v[i].value > UINT32_MAX)
            continue;
        char *d = demangled(s.v[i].name);
        atf_manifest_symbol sym = { ((uint64_t)m->id << 32) | s.v[i].value, m->id, s.v[i].value,
                                    d ? d : s.v[i].name };
        atf_recorder_add_symbol(r, &sym);
        free(d);
    }
    elf_syms_free(&s);
}

static const front_module *find(uintptr_t addr)
{
    unsigned n = __atomic_load_n(&nmod, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < n; i++)
        if (addr - mods[i].lo < mods[i].span)
            return &mods[i];
    return NULL;
}

uint64_t front_id_slow(uintptr_t addr)
{
    front_module *m = (front_module *)find(addr);
    if (!m || __atomic_load_n(&m->listed_gen, __ATOMIC_ACQUIRE) != __atomic_load_n(&gen, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&front_mu);
        if (!m) {
            scan_objects();   /* an object loaded with dlopen() since */
            m = (front_module *)find(addr);
        }
        atf_recorder *r = __atomic_load_n(&front_rec, __ATOMIC_ACQUIRE);
        if (m) {
            m->used = 1;
            if (r)
                list_module(r, m);
        }
        pthread_mutex_unlock(&front_mu);
    }
    uint64_t lowbits = (uint32_t)addr;
    if (!m || m->lo - m->bias + m->span > (uint64_t)UINT32_MAX + 1)
        /* Code outside every loaded object (generated code), or an object
         * whose text ends past 4 GiB from its load bias: a function id of
         * the unknown module, with the address's low 32 bits. */
        return ((uint64_t)FRONT_UNKNOWN_MODULE << 32) | lowbits;
    front_tls *t = &front_t;
    t->lo = m->lo;
    t->span = m->span;
    t->idbase = ((uint64_t)m->id << 32) + (m->lo - m->bias);
    return t->idbase + (addr - m->lo);
}

/* ---- Signal handlers nested in the hook --------------------------------------------- */

static uint64_t deferred_lost;   /* atomic: beyond FRONT_PENDING in one hook */

void front_defer(uint32_t kind, uintptr_t fn)
{
    front_tls *t = &front_t;
    /* One atomic increment: a handler nested in this one takes the next slot. */
    uint32_t n = __atomic_fetch_add(&t->npending, 1, __ATOMIC_RELAXED);
    if (n < FRONT_PENDING) {
        t->pending_fn[n] = fn;
        t->pending_kind[n] = (uint8_t)kind;
    } else {
        __atomic_fetch_add(&deferred_lost, 1, __ATOMIC_RELAXED);
    }
}

void front_replay(atf_recorder *r)
{
    front_tls *t = &front_t;
    uint32_t i = 0;
    for (;;) {
        uint32_t n = __atomic_load_n(&t->npending, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        uint32_t m = n < FRONT_PENDING ? n : FRONT_PENDING;
        for (; i < m; i++) {
            uintptr_t fn = t->pending_fn[i];
            uintptr_t off = fn - t->lo;
            uint64_t id = off < t->span ? t->idbase + off : front_id_slow(fn);
            atf_recorder_event(r, t->pending_kind[i], id);
        }
        /* A handler that ran since the load queued more: go on. */
        if (__atomic_compare_exchange_n(&t->npending, &n, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

static void report_deferred_lost(void)
{
    uint64_t n = __atomic_load_n(&deferred_lost, __ATOMIC_RELAXED);
    if (n)
        fprintf(stderr,
                "atf record: process %d: %llu events of signal handlers not recorded (more than %u "
                "nested in one hook)\n",
                (int)getpid(), (unsigned long long)n, FRONT_PENDING);
}

/* ---- Start, fork, exec -------------------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) {
        fprintf(stderr, "atf record: %s=%s is not a number; using the default\n", name, s);
        return dflt;
    }
    return v;
}

static void child_after_fork(void)
{
    /* The child's copy of the parent's recorder refuses events and never
     * writes the parent's files (recorder.h); the child gets its own pid_N
     * at its next event. front_mu was taken by prepare in this thread. */
    __atomic_store_n(&front_rec, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&state, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&front_mu);
}

static void prepare_fork(void)
{
    pthread_mutex_lock(&front_mu);
}

static void parent_after_fork(void)
{
    pthread_mutex_unlock(&front_mu);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

atf_recorder *front_start(void)
{
    static int atfork_done;
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
        return NULL;
    pthread_mutex_lock(&front_mu);
    atf_recorder *r = __atomic_load_n(&front_rec, __ATOMIC_ACQUIRE);
    if (r || __atomic_load_n(&state, __ATOMIC_ACQUIRE) != 0) {
        pthread_mutex_unlock(&front_mu);
        return r;
    }
    atf_recorder_options o = ATF_RECORDER_OPTIONS_INIT;
    const char *mode = getenv("ATF_RECORD_MODE");
    o.overflow = mode && !strcmp(mode, "drop") ? ATF_RECORDER_DROP : ATF_RECORDER_BACKPRESSURE;
    o.detail = env_u64("ATF_RECORD_DETAIL", 0) != 0;
    o.memory_budget_bytes = env_u64("ATF_RECORD_BUDGET", 0);
    o.sync = (uint8_t)(env_u64("ATF_RECORD_SYNC", 1) != 0);
    const char *io = getenv("ATF_RECORD_IO");   /* auto (or unset), direct, buffered */
    if (io && !strcmp(io, "buffered"))
        o.io = ATF_RECORDER_IO_BUFFERED;
    else if (io && !strcmp(io, "direct"))
        o.io = ATF_RECORDER_IO_DIRECT;
    else if (io && *io && strcmp(io, "auto"))
        fprintf(stderr, "atf record: ATF_RECORD_IO=%s is not auto, direct or buffered; using auto\n", io);
    const char *session = getenv("ATF_RECORD_SESSION");
    char dir[PATH_MAX];
    if (session && *session) {
        /* A session shared by the processes of one run (fork children get
         * their own pid_N). A pid_N that exists already is this process
         * before an exec(), or a pid reused: a new session next to it. */
        int pid = (int)getpid();
        snprintf(dir, sizeof dir, "%s/pid_%d", session, pid);
        for (int k = 1; exists(dir) && k < 1000; k++)
            snprintf(dir, sizeof dir, "%s_exec%d/pid_%d", session, k, pid);
        o.session_dir = dir;
    } else {
        o.root = getenv("ATF_RECORD_ROOT");
        if (o.root && !*o.root)
            o.root = NULL;
    }
    atf_error err;
    /* (The recorder's own threads start with every signal blocked.) */
    atf_status st = atf_recorder_start(&r, &o, &err);
    if (st != ATF_OK) {
        char line[512];
        atf_error_format(line, sizeof line, &err);
        fprintf(stderr, "atf record: cannot start recording in process %d: %s\n", (int)getpid(), line);
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&front_mu);
        return NULL;
    }
    if (!session || !*session) {
        /* Children and exec()ed images record into the same session. */
        char *s = strdup(atf_recorder_session_dir(r));
        char *slash = s ? strrchr(s, '/') : NULL;
        if (slash) {
            *slash = '\0';
            setenv("ATF_RECORD_SESSION", s, 1);
        }
        free(s);
    }
    if (o.detail)
        atf_recorder_detail_enable(r, NULL);
    if (!atfork_done) {
        pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
        atexit(report_deferred_lost);
        atfork_done = 1;
    }
    __atomic_store_n(&gen, gen + 1, __ATOMIC_RELEASE);
    if (!nmod)
        scan_objects();
    for (unsigned i = 0; i < nmod; i++)
        if (mods[i].used)
            list_module(r, &mods[i]);
    __atomic_store_n(&state, 1, __ATOMIC_RELEASE);
    started_pid = getpid();
    __atomic_store_n(&front_rec, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&front_mu);
    return r;
}

void front_stop_for_exec(void)
{
    pthread_mutex_lock(&front_mu);
    atf_recorder *r = __atomic_load_n(&front_rec, __ATOMIC_ACQUIRE);
    /* A vfork() child shares the parent's memory: it must not stop the
     * parent's recorder. */
    if (r && getpid() == started_pid) {
        __atomic_store_n(&front_rec, NULL, __ATOMIC_RELEASE);
        atf_recorder_stop(r, NULL);
        /* If exec() fails, the next event starts a new session (pid_N exists
         * now, so it is a new session directory next to this one). The
         * stopped recorder is not freed: other threads may still hold it. */
        __atomic_store_n(&state, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&front_mu);
}
