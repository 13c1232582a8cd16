/* Running adapter and reader commands: posix_spawn of /bin/sh in a new
 * process group, output drained through poll(), a deadline after which the
 * whole group is killed. Several commands may run at once from one thread
 * (kit_proc_wait_any); the kit never forks from a multi-threaded process.
 * Memory is bounded: stdout goes to a sink (or only its first bytes are
 * kept), stderr's first bytes are kept. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kit_internal.h"

extern char **environ;

/* Output still open this long after the command ended belongs to processes
 * it left behind; they are killed with the group. */
#define GRACE_S 2.0

/* Process groups of the commands running now, for atf_conform_abort_children()
 * (called from signal handlers: plain stores of sig_atomic_t, no locks). The
 * only process-wide state of the kits. */
#define LIVE_MAX 128
static volatile sig_atomic_t live_groups[LIVE_MAX];

static void live_add(pid_t pgid)
{
    for (int i = 0; i < LIVE_MAX; i++)
        if (live_groups[i] == 0) {
            live_groups[i] = (sig_atomic_t)pgid;
            return;
        }
}

static void live_remove(pid_t pgid)
{
    for (int i = 0; i < LIVE_MAX; i++)
        if (live_groups[i] == (sig_atomic_t)pgid)
            live_groups[i] = 0;
}

void atf_conform_abort_children(void)
{
    for (int i = 0; i < LIVE_MAX; i++) {
        pid_t g = (pid_t)live_groups[i];
        if (g > 0)
            kill(-g, SIGKILL);
    }
}

static void keep_head(char *head, uint64_t *total, const char *data, size_t n)
{
    if (*total < KIT_PROC_HEAD) {
        size_t room = KIT_PROC_HEAD - (size_t)*total;
        size_t k = n < room ? n : room;
        memcpy(head + *total, data, k);
        head[*total + k] = '\0';
    }
    *total += n;
}

static void set_spawn_error(kit_proc_result *r, const char *what, int e)
{
    r->state = KIT_PROC_SPAWN_FAILED;
    snprintf(r->spawn_error, sizeof r->spawn_error, "%s: %s", what, strerror(e));
}

int kit_proc_start(kit_proc *p, const char *cmd, const char *const *args, size_t nargs, double timeout_s,
                   kit_sink_fn sink, void *user, kit_proc_result *r)
{
    memset(p, 0, sizeof *p);
    memset(r, 0, sizeof *r);
    p->r = r;
    p->sink = sink;
    p->user = user;
    p->out_fd = p->err_fd = -1;
    p->pid = -1;
    p->done = 1;              /* until the spawn succeeds */
    r->state = KIT_PROC_SPAWN_FAILED;
    if (!cmd || !*cmd) {
        snprintf(r->spawn_error, sizeof r->spawn_error, "empty command");
        return -1;
    }
    char *script = kit_sprintf("%s \"$@\"", cmd);
    const char **argv = calloc(nargs + 5, sizeof *argv);
    if (!script || !argv) {
        free(script);
        free(argv);
        set_spawn_error(r, "cannot allocate", ENOMEM);
        return -1;
    }
    argv[0] = "sh";
    argv[1] = "-c";
    argv[2] = script;
    argv[3] = "atf-conform";
    for (size_t i = 0; i < nargs; i++)
        argv[4 + i] = args[i];

    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int fa_ok = 0, at_ok = 0, rc = -1, e;
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        set_spawn_error(r, "pipe", errno);
        goto out;
    }
    if ((e = posix_spawn_file_actions_init(&fa))) {
        set_spawn_error(r, "posix_spawn_file_actions_init", e);
        goto out;
    }
    fa_ok = 1;
    if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
        (e = posix_spawn_file_actions_adddup2(&fa, outp[1], 1)) ||
        (e = posix_spawn_file_actions_adddup2(&fa, errp[1], 2))) {
        set_spawn_error(r, "posix_spawn_file_actions", e);
        goto out;
    }
    if ((e = posix_spawnattr_init(&at))) {
        set_spawn_error(r, "posix_spawnattr_init", e);
        goto out;
    }
    at_ok = 1;
    sigset_t none, dflt;
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGCHLD);
    if ((e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF)) ||
        (e = posix_spawnattr_setpgroup(&at, 0)) || (e = posix_spawnattr_setsigmask(&at, &none)) ||
        (e = posix_spawnattr_setsigdefault(&at, &dflt))) {
        set_spawn_error(r, "posix_spawnattr", e);
        goto out;
    }
    p->t0 = kit_now();
    e = posix_spawn(&p->pid, "/bin/sh", &fa, &at, (char *const *)argv, environ);
    if (e) {
        p->pid = -1;
        set_spawn_error(r, "cannot run /bin/sh", e);
        goto out;
    }
    live_add(p->pid);
    /* Our ends must not block: a child that fills a pipe waits for us. */
    fcntl(outp[0], F_SETFL, fcntl(outp[0], F_GETFL) | O_NONBLOCK);
    fcntl(errp[0], F_SETFL, fcntl(errp[0], F_GETFL) | O_NONBLOCK);
    p->out_fd = outp[0];
    p->err_fd = errp[0];
    outp[0] = errp[0] = -1;
    p->deadline = p->t0 + (timeout_s > 0 ? timeout_s : 1e9);
    p->done = 0;
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (at_ok)
        posix_spawnattr_destroy(&at);
    free(script);
    free(argv);
    return rc;
}

static void read_fd(kit_proc *p, int is_out)
{
    char buf[65536];
    int *fd = is_out ? &p->out_fd : &p->err_fd;
    for (int rounds = 0; rounds < 16 && *fd >= 0; rounds++) {
        ssize_t got = read(*fd, buf, sizeof buf);
        if (got > 0) {
            kit_proc_result *r = p->r;
            if (!is_out) {
                keep_head(r->err_head, &r->err_total, buf, (size_t)got);
            } else if (p->sink) {
                r->out_total += (uint64_t)got;
                if (!p->sink_stopped && p->sink(p->user, buf, (size_t)got) != 0)
                    p->sink_stopped = 1;   /* keep draining, stop feeding */
            } else {
                keep_head(r->out_head, &r->out_total, buf, (size_t)got);
            }
            if ((size_t)got < sizeof buf)
                return;
        } else if (got < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        } else {
            close(*fd);
            *fd = -1;
        }
    }
}

static void finish(kit_proc *p)
{
    kit_proc_result *r = p->r;
    if (!p->reaped) {
        /* Timed out: kill the whole group, then reap. */
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
            ;
        p->timed_out = 1;
    } else {
        /* Leave nothing behind. The group id cannot have been reused: the
         * group exists as long as any member does. */
        kill(-p->pid, SIGKILL);
    }
    live_remove(p->pid);
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->err_fd >= 0)
        close(p->err_fd);
    p->out_fd = p->err_fd = -1;
    r->seconds = kit_now() - p->t0;
    int status = p->status;
    if (p->timed_out) {
        r->state = KIT_PROC_TIMEOUT;
    } else if (WIFSIGNALED(status)) {
        r->state = KIT_PROC_SIGNALED;
        r->signal = WTERMSIG(status);
    } else {
        r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
        /* `sh -c` reports a command killed by signal N as exit 128+N. */
        if (r->exit_code > 128 && r->exit_code <= 128 + 64) {
            r->state = KIT_PROC_SIGNALED;
            r->signal = r->exit_code - 128;
            r->signal_via_shell = 1;
        } else {
            r->state = KIT_PROC_EXITED;
        }
    }
    p->done = 1;
}

size_t kit_proc_wait_any(kit_proc *const *procs, size_t n)
{
    size_t finished = 0;
    for (;;) {
        struct pollfd pf[2 * KIT_PROC_MAX_WAIT];
        kit_proc *owner[2 * KIT_PROC_MAX_WAIT];
        size_t nf = 0, active = 0;
        double now = kit_now(), nearest = now + 0.05;
        for (size_t i = 0; i < n && i < KIT_PROC_MAX_WAIT; i++) {
            kit_proc *p = procs[i];
            if (!p || p->done)
                continue;
            active++;
            if (p->out_fd >= 0) {
                pf[nf] = (struct pollfd){ p->out_fd, POLLIN, 0 };
                owner[nf++] = p;
            }
            if (p->err_fd >= 0) {
                pf[nf] = (struct pollfd){ p->err_fd, POLLIN, 0 };
                owner[nf++] = p;
            }
            double wake = p->reaped || (p->out_fd < 0 && p->err_fd < 0) ? now + 0.005 : p->deadline;
            if (wake < nearest)
                nearest = wake;
        }
        if (!active)
            return finished;
        int wait_ms = nearest > now ? (int)((nearest - now) * 1000.0) + 1 : 0;
        int pr = poll(pf, (nfds_t)nf, wait_ms);
        for (size_t i = 0; pr > 0 && i < nf; i++)
            if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
                read_fd(owner[i], pf[i].fd == owner[i]->out_fd);
        now = kit_now();
        for (size_t i = 0; i < n && i < KIT_PROC_MAX_WAIT; i++) {
            kit_proc *p = procs[i];
            if (!p || p->done)
                continue;
            if (!p->reaped) {
                pid_t w = waitpid(p->pid, &p->status, WNOHANG);
                if (w == p->pid || (w < 0 && errno != EINTR)) {
                    if (w != p->pid)
                        p->status = 0;
                    p->reaped = 1;
                    if (p->deadline > now + GRACE_S)
                        p->deadline = now + GRACE_S;
                }
            }
            if (now >= p->deadline || (p->reaped && p->out_fd < 0 && p->err_fd < 0)) {
                finish(p);
                finished++;
            }
        }
        if (finished)
            return finished;
    }
}

int kit_proc_run(const char *cmd, const char *const *args, size_t nargs, double timeout_s, kit_sink_fn sink,
                 void *user, kit_proc_result *r)
{
    kit_proc p;
    if (kit_proc_start(&p, cmd, args, nargs, timeout_s, sink, user, r) != 0)
        return -1;
    kit_proc *one = &p;
    while (!p.done)
        kit_proc_wait_any(&one, 1);
    return 0;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "HUP";
    case SIGINT: return "INT";
    case SIGQUIT: return "QUIT";
    case SIGILL: return "ILL";
    case SIGTRAP: return "TRAP";
    case SIGABRT: return "ABRT";
    case SIGBUS: return "BUS";
    case SIGFPE: return "FPE";
    case SIGKILL: return "KILL";
    case SIGSEGV: return "SEGV";
    case SIGPIPE: return "PIPE";
    case SIGALRM: return "ALRM";
    case SIGTERM: return "TERM";
    case SIGXCPU: return "XCPU";
    case SIGXFSZ: return "XFSZ";
    case SIGSYS: return "SYS";
    default: return NULL;
    }
}

void kit_proc_describe(const kit_proc_result *r, char *dst, size_t cap)
{
    switch (r->state) {
    case KIT_PROC_EXITED:
        snprintf(dst, cap, "exit %d", r->exit_code);
        break;
    case KIT_PROC_SIGNALED: {
        const char *name = signal_name(r->signal);
        snprintf(dst, cap, "signal %d%s%s%s%s", r->signal, name ? " (SIG" : "", name ? name : "",
                 name ? ")" : "", r->signal_via_shell ? " (shell exit status)" : "");
        break;
    }
    case KIT_PROC_TIMEOUT:
        snprintf(dst, cap, "timed out after %.1f s", r->seconds);
        break;
    default:
        snprintf(dst, cap, "could not run: %s", r->spawn_error);
        break;
    }
}
