/* Hints for thread directories spelled in a way readers do not open. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

int atf_thread_dir_misnamed(const char *session_dir, uint64_t id, char *dst, size_t cap)
{
    DIR *d = session_dir ? opendir(session_dir) : NULL;
    if (!d)
        return 0;
    char canonical[32];
    snprintf(canonical, sizeof canonical, "thread_%llu", (unsigned long long)id);
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncasecmp(n, "thread", 6) != 0 || !strcmp(n, canonical))
            continue;
        const char *p = n + 6;
        if (*p == '_' || *p == '-' || *p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            continue;
        uint64_t v = 0;
        int overflow = 0;
        for (; isdigit((unsigned char)*p); p++) {
            unsigned dg = (unsigned)(*p - '0');
            overflow |= v > (UINT64_MAX - dg) / 10;
            v = v * 10 + dg;
        }
        if (!*p && !overflow && v == id) {
            snprintf(dst, cap, "%s", n);
            found = 1;
        }
    }
    closedir(d);
    return found;
}
