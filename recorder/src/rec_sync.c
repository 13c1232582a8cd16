/* Durability: atf_recorder_sync() and the periodic policy's sync thread.
 *
 * A killed process loses nothing the writers have written (the page cache
 * survives it); a power cut loses whatever the device does not hold yet:
 * file data, file sizes and directory entries (a thread's directory and
 * files are created by mkdir + rename, the manifest is replaced by rename).
 * Making all of it durable file by file would take an fdatasync per file
 * and an fsync per directory, from the writer threads that own the
 * descriptors. One syncfs() on the session's file system covers every file
 * and directory entry at once, from any thread, without touching a
 * descriptor the writers may be closing (parking) at the same moment: the
 * writers keep writing while the sync runs.
 *
 * What a sync covers is what atf_recorder_flush() wrote before it: the
 * flush makes the writers write every published event and rewrite the
 * manifest, then the file system is synced. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_internal.h"
#include "rec_sync.h"
#include "rec_writer.h"

static atf_status sync_fs(atf_recorder *r, atf_error *err)
{
    int fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = fd < 0 ? -1 : syncfs(fd);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (rc == 0) {
        atomic_fetch_add_explicit(&r->syncs, 1, RLX);
        return ATF_OK;
    }
    if (err) {
        err->code = ATF_E_IO;
        rec_fmt(err->file, sizeof err->file, "%s", r->dir);
        rec_fmt(err->message, sizeof err->message, "cannot sync the session: %s", strerror(e));
    }
    return ATF_E_IO;
}

atf_status atf_recorder_sync(atf_recorder *r, atf_error *err)
{
    atf_status own = rec_owner_check(r, err);
    if (own != ATF_OK)
        return own;
    atf_status st = atf_recorder_flush(r, 0);
    if (st == ATF_E_IO) {
        if (err) {
            err->code = ATF_E_IO;
            rec_fmt(err->message, sizeof err->message, "a write of the session failed (see stop())");
        }
        return st;
    }
    /* ATF_E_STATE: stopped or stopping; stop() wrote everything (and syncs
     * it when opts.sync), a sync now covers what it finished. */
    return sync_fs(r, err);
}

static void *sync_main(void *arg)
{
    atf_recorder *r = arg;
#if defined(__linux__)
    pthread_setname_np(pthread_self(), "atf-rec-sync");
#endif
    uint32_t ms = r->o.sync_interval_ms;
    pthread_mutex_lock(&r->sync_mu);
    while (!r->sync_quit) {
        struct timespec at;
        rec_deadline_after(&at, CLOCK_MONOTONIC, ms);
        while (!r->sync_quit && pthread_cond_timedwait(&r->sync_cv, &r->sync_mu, &at) != ETIMEDOUT)
            ;
        if (r->sync_quit)
            break;
        pthread_mutex_unlock(&r->sync_mu);
        /* A flush that takes longer than the interval (a slow disk) still
         * ends in a sync of what it wrote so far. */
        if (atf_recorder_flush(r, ms) != ATF_E_STATE)
            sync_fs(r, NULL);
        pthread_mutex_lock(&r->sync_mu);
    }
    pthread_mutex_unlock(&r->sync_mu);
    return NULL;
}

int rec_sync_start(atf_recorder *r)
{
    pthread_condattr_t ca;
    pthread_mutex_init(&r->sync_mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->sync_cv, &ca);
    pthread_condattr_destroy(&ca);
    r->sync_init = 1;
    if (r->o.durability != ATF_RECORDER_DURABLE_PERIODIC)
        return 0;
    if (pthread_create(&r->sync_th, NULL, sync_main, r) != 0)
        return -1;
    r->sync_started = 1;
    return 0;
}

void rec_sync_stop(atf_recorder *r)
{
    if (!r->sync_init)
        return;
    if (r->sync_started) {
        pthread_mutex_lock(&r->sync_mu);
        r->sync_quit = 1;
        pthread_cond_broadcast(&r->sync_cv);
        pthread_mutex_unlock(&r->sync_mu);
        pthread_join(r->sync_th, NULL);
        r->sync_started = 0;
    }
}

void rec_sync_destroy(atf_recorder *r)
{
    rec_sync_stop(r);
    if (r->sync_init) {
        pthread_cond_destroy(&r->sync_cv);
        pthread_mutex_destroy(&r->sync_mu);
        r->sync_init = 0;
    }
}

/* fsync of one directory; ENOENT/EACCES on the ancestors is not an error
 * of the session (a root the process may not open). */
static int sync_dir(const char *path, int must)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return must ? -1 : 0;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* At stop, with the writers gone and every file fdatasynced at finalize:
 * the directory entries, by an fsync of each directory that holds one (the
 * threads' directories, the session's, and the two above it that mkdir
 * created: pid_N in session_*, session_* in the root). Unlike syncfs(),
 * this writes nothing of other programs on the same file system. */
atf_status rec_sync_final(atf_recorder *r, atf_error *err)
{
    char path[4096];
    int rc = 0;
    DIR *d = opendir(r->dir);
    if (!d)
        rc = -1;
    for (struct dirent *e; d && rc == 0 && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name) >= sizeof path)
            continue;
        rc = sync_dir(path, e->d_type == DT_DIR);
    }
    int e0 = errno;
    if (d)
        closedir(d);
    errno = e0;
    if (rc == 0)
        rc = sync_dir(r->dir, 1);
    snprintf(path, sizeof path, "%s", r->dir);
    for (int up = 0; rc == 0 && up < 2; up++) {
        char *slash = strrchr(path, '/');
        if (!slash)
            break;
        if (slash == path)
            slash[1] = '\0';
        else
            *slash = '\0';
        rc = sync_dir(path, 0);
        if (slash == path)
            break;
    }
    if (rc == 0) {
        atomic_fetch_add_explicit(&r->syncs, 1, RLX);
        return ATF_OK;
    }
    if (err) {
        int e = errno;
        err->code = ATF_E_IO;
        rec_fmt(err->file, sizeof err->file, "%s", r->dir);
        rec_fmt(err->message, sizeof err->message, "cannot sync the session's directories: %s", strerror(e));
    }
    return ATF_E_IO;
}
