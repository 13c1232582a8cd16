/* A program built with -finstrument-functions that lives the way real
 * programs do; run_life.py records each mode with `atf record` and checks
 * the sessions. Modes (argv[1]):
 *   threads N   N threads, each life_worker() calling life_leaf() 1000 times
 *   fork        the child calls life_in_child(), the parent life_in_parent()
 *   exec        life_before_exec(), then exec of itself in mode "after"
 *   after       life_after_exec()
 *   signal      SIGALRM every 1 ms runs life_on_signal() while the main
 *               thread calls life_leaf() in a loop
 *   longjmp     life_dive() recurses 10 deep and longjmps out, 100 times
 *   kill FILE   calls life_spin() forever after writing its pid to FILE
 *   exit        4 threads call life_leaf() forever; main calls exit()
 *   dlopen SO   calls plugin_work() of the instrumented object SO
 *   nothing     (built without instrumentation: see CMakeLists.txt) */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* External, so that each keeps its name in .symtab. */
void life_leaf(unsigned long i);
void *life_worker(void *arg);
void life_in_child(void);
void life_in_parent(void);
void life_before_exec(void);
void life_after_exec(void);
void life_on_signal(int sig);
void life_dive(int depth);
void life_spin(void);
void *life_forever(void *arg);

/* Per thread: the workers call life_leaf() side by side (a shared counter
 * would be a data race, which the TSan build reports). */
static __thread volatile unsigned long sink;

NOINLINE void life_leaf(unsigned long i)
{
    sink += i;
}

NOINLINE void *life_worker(void *arg)
{
    (void)arg;
    for (unsigned long i = 0; i < 1000; i++)
        life_leaf(i);
    return NULL;
}

NOINLINE void life_in_child(void) { life_leaf(1); }
NOINLINE void life_in_parent(void) { life_leaf(2); }
NOINLINE void life_before_exec(void) { life_leaf(3); }
NOINLINE void life_after_exec(void) { life_leaf(4); }

static volatile sig_atomic_t signals;

NOINLINE void life_on_signal(int sig)
{
    (void)sig;
    life_leaf(5);
    signals++;
}

static jmp_buf jb;

/* GCC 12 with -finstrument-functions calls this infinite recursion: the
 * recursion ends in longjmp(). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
NOINLINE void life_dive(int depth)
{
    if (depth > 0)
        life_dive(depth - 1);
    else
        longjmp(jb, 1);
    sink++;
}
#pragma GCC diagnostic pop

NOINLINE void life_spin(void)
{
    for (unsigned long i = 0;; i++) {
        life_leaf(i);
        if ((i & 15) == 0)
            usleep(100);   /* a session of ~100k events by the time it is killed */
    }
}

NOINLINE void *life_forever(void *arg)
{
    (void)arg;
    for (unsigned long i = 0;; i++) {
        life_leaf(i);
        if ((i & 15) == 0)
            usleep(100);   /* a session of ~100k events: run_life.py reads it all */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "threads")) {
        int n = argc > 2 ? atoi(argv[2]) : 4;
        pthread_t t[64];
        if (n < 1 || n > 64)
            return 2;
        for (int i = 0; i < n; i++)
            if (pthread_create(&t[i], NULL, life_worker, NULL) != 0)
                return 2;
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        pid_t p = fork();
        if (p < 0)
            return 2;
        if (p == 0) {
            life_in_child();
            return 0;   /* exit(): the child's own session is finalized */
        }
        life_in_parent();
        int st;
        waitpid(p, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
    }
    if (!strcmp(mode, "exec")) {
        life_before_exec();
        execl("/proc/self/exe", argv[0], "after", (char *)NULL);
        perror("execl");
        return 2;
    }
    if (!strcmp(mode, "after")) {
        life_after_exec();
        return 0;
    }
    if (!strcmp(mode, "signal")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = life_on_signal;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        while (signals < 200) {
            life_leaf(1);
            for (volatile int k = 0; k < 1000; k++)
                ;   /* not instrumented: a session of ~100k events, not millions */
        }
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
        return 0;
    }
    if (!strcmp(mode, "longjmp")) {
        for (volatile int i = 0; i < 100; i++)
            if (setjmp(jb) == 0)
                life_dive(10);
        return 0;
    }
    if (!strcmp(mode, "kill") && argc > 2) {
        life_leaf(0);
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return 2;
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        life_spin();
    }
    if (!strcmp(mode, "exit")) {
        pthread_t t;
        for (int i = 0; i < 4; i++)
            if (pthread_create(&t, NULL, life_forever, NULL) != 0)
                return 2;
        usleep(200000);
        exit(0);
    }
    if (!strcmp(mode, "dlopen") && argc > 2) {
        void *h = dlopen(argv[2], RTLD_NOW);
        if (!h) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        void (*work)(int) = (void (*)(int))dlsym(h, "plugin_work");
        if (!work)
            return 2;
        work(10);
        return 0;
    }
    if (!strcmp(mode, "nothing"))
        return 0;
    fprintf(stderr, "life: unknown mode '%s'\n", mode);
    return 2;
}
