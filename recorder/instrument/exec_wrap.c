/* libatf_cyg.so only: the exec family ends the session before the process
 * image is replaced (exec() runs no atexit handler, so the recorder's rings
 * and tails would be lost and its files left crash-truncated). The new
 * image, if it is instrumented, starts a new session at its first event.
 * glibc's exec functions call __execve internally, not execve through the
 * PLT, so each one is wrapped. */

#include "front.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#define WRAP __attribute__((visibility("default")))

static void before_exec(void)
{
    front_stop_for_exec();
}

#define REAL(name)                                                                                 \
    static __typeof__(&name) real_##name;                                                          \
    if (!real_##name)                                                                              \
        *(void **)&real_##name = dlsym(RTLD_NEXT, #name);                                          \
    if (!real_##name) {                                                                            \
        errno = ENOSYS;                                                                            \
        return -1;                                                                                 \
    }

WRAP int execve(const char *path, char *const argv[], char *const envp[])
{
    REAL(execve)
    before_exec();
    return real_execve(path, argv, envp);
}

WRAP int execv(const char *path, char *const argv[])
{
    REAL(execv)
    before_exec();
    return real_execv(path, argv);
}

WRAP int execvp(const char *file, char *const argv[])
{
    REAL(execvp)
    before_exec();
    return real_execvp(file, argv);
}

WRAP int execvpe(const char *file, char *const argv[], char *const envp[])
{
    REAL(execvpe)
    before_exec();
    return real_execvpe(file, argv, envp);
}

WRAP int fexecve(int fd, char *const argv[], char *const envp[])
{
    REAL(fexecve)
    before_exec();
    return real_fexecve(fd, argv, envp);
}

/* execl, execlp, execle: the list as an argv (on the stack: no allocation
 * between fork and exec), then the wrappers above. how: 'l' execv, 'p'
 * execvp, 'e' execve with the environment after the list's NULL. */
static int exec_list(char how, const char *path, const char *arg, va_list *ap)
{
    va_list cp;
    va_copy(cp, *ap);
    size_t n = 1;
    while (va_arg(cp, char *))
        n++;
    va_end(cp);
    char *argv[n + 1];
    argv[0] = (char *)arg;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(*ap, char *);
    if (how == 'e')
        return execve(path, argv, va_arg(*ap, char *const *));
    return how == 'p' ? execvp(path, argv) : execv(path, argv);
}

WRAP int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list('l', path, arg, &ap);
    va_end(ap);
    return rc;
}

WRAP int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list('p', file, arg, &ap);
    va_end(ap);
    return rc;
}

WRAP int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list('e', path, arg, &ap);
    va_end(ap);
    return rc;
}
