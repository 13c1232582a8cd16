/* Entry points: what a path is, and which format's pass validates it. The
 * input is detected once (the codec's bid, the registry of formats/formats.cmake); the pass is
 * the descriptor of that format in the generated registry (vinternal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"          /* the codec's: atf_blob */
#include "format_module.h"   /* the codec's: atf_format_bid (the registry of formats/formats.cmake) */
#include "vinternal.h"

/* ---- Paths -------------------------------------------------------------- */

char *v_cat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, c, lc + 1);
    return s;
}

int v_regular_or_absent(const char *path, atf_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        atf_fail_file(err, errno == ENOMEM ? ATF_E_NOMEM : ATF_E_IO, path, "cannot access: %s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        atf_fail_file(err, ATF_E_IO, path, "%s, not a regular file", atf_file_type_name((unsigned)st.st_mode));
        return -1;
    }
    return 1;
}

int v_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void v_base_name(const char *path, char *dst, size_t cap)
{
    size_t b, n;
    atf_path_last(path, &b, &n);
    size_t len = n - b < cap - 1 ? n - b : cap - 1;
    memcpy(dst, path + b, len);
    dst[len] = '\0';
}

/* ---- Formats ------------------------------------------------------------------ */

/* The descriptor of the codec module fm (NULL: the native format's). */
static const atf_validator_format *format_of(const atf_format_module *fm)
{
    for (size_t i = 0; i < atf_vformat_count; i++) {
        const atf_validator_format *f = atf_vformat_registry[i];
        if (fm ? strcmp(f->name, fm->name) == 0 : f->native)
            return f;
    }
    return NULL;
}

int v_clause_of(const atf_validator_format *f, const char *id, vclause *out)
{
    for (unsigned c = f->clause_first; c < f->clause_first + f->clause_count; c++)
        if (!strcmp(v_clause_id((vclause)c), id)) {
            *out = (vclause)c;
            return 1;
        }
    return 0;
}

/* ---- Entry points ---------------------------------------------------------- */

atf_status v_end(atf_validation *v, atf_status st, atf_validation **out, atf_error *err)
{
    if (!st && v->oom)
        st = atf_fail_file(err, ATF_E_NOMEM, v->path, NULL);
    if (!st && (st = v_finish(v)))
        atf_fail_file(err, st, v->path, NULL);
    if (st) {
        atf_validation_free(v);
        return st;
    }
    *out = v;
    return ATF_OK;
}

atf_status v_memory_begin(atf_validation **out, atf_validation **vp, size_t *file, const void *data, size_t size,
                          const char *name, const char *default_name, const atf_validate_options *opts,
                          atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || (!data && size))
        return atf_fail_file(err, ATF_E_ARG, NULL, NULL);
    atf_validation *v = v_create(name ? name : default_name, opts);
    if (!v)
        return atf_fail_file(err, ATF_E_NOMEM, name, NULL);
    *file = v_file(v, name ? name : default_name);
    *vp = v;
    return ATF_OK;
}

void v_release(const atf_validation *v, const uint8_t *p, uint64_t n)
{
    if (v->blob && p >= v->blob->data)
        atf_blob_release(v->blob, (uint64_t)(p - v->blob->data), n);
}

/* A lone file: the pass of the format whose codec module claims it (its
 * magic or its name), else the native format's. */
static atf_status lone_file(atf_validation *v, const char *path, atf_error *err)
{
    atf_blob m;
    atf_status st = atf_blob_open(&m, path, 0, err);
    if (st) {
        atf_error_set_file(err, path);
        return st;
    }
    char name[256];
    v_base_name(path, name, sizeof name);
    const atf_format_module *fm = atf_format_bid(m.data, m.size < 4 ? (size_t)m.size : 4, path, NULL);
    const atf_validator_format *f = format_of(fm);
    if (!f)
        f = format_of(NULL);   /* a module without a validator pass: the native format's */
    if (f) {
        v->blob = &m;
        f->file(v, v_file(v, name), m.data, m.size, m.data_end, name);
        v->blob = NULL;
    } else
        st = atf_fail_file(err, ATF_E_NOT_FOUND, path, "no validator for this file");
    atf_blob_close(&m);
    return st;
}

/* A directory: the first format that has directories and takes this one. */
static atf_status directory(atf_validation *v, const char *path, atf_error *err)
{
    atf_status st = atf_fail_file(err, ATF_E_NOT_FOUND, path, "not a directory of any format");
    for (size_t i = 0; i < atf_vformat_count; i++) {
        const atf_validator_format *f = atf_vformat_registry[i];
        if (f->dir && (st = f->dir(v, path, err)) != ATF_E_NOT_FOUND)
            break;
    }
    return st;
}

atf_status atf_validate_path(atf_validation **out, const char *path, const atf_validate_options *opts,
                             atf_error *err)
{
    if (out)
        *out = NULL;
    if (!out || !path)
        return atf_fail_file(err, ATF_E_ARG, NULL, NULL);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return atf_fail_file(err, ATF_E_IO, path, "%s", strerror(errno));
    atf_validation *v = v_create(path, opts);
    if (!v)
        return atf_fail_file(err, ATF_E_NOMEM, path, NULL);
    atf_status st;
    if (S_ISREG(sb.st_mode))
        st = lone_file(v, path, err);
    else if (S_ISDIR(sb.st_mode))
        st = directory(v, path, err);
    else
        st = atf_fail_file(err, ATF_E_IO, path, "%s, not a regular file or directory",
                    atf_file_type_name((unsigned)sb.st_mode));
    return v_end(v, st, out, err);
}
