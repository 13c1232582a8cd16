/* WTF as a format module of the codec (format_module.h): its bid. */
#include <stdint.h>
#include <string.h>

#include <atf/wtf.h>

#include "format_module.h"

int atf_wtf_sniff(const void *head, size_t n, const char *path)
{
    const uint8_t *d = (const uint8_t *)head;
    static const uint8_t le[4] = { 0xEF, 0xBE, 0xAD, 0xDE }, be[4] = { 0xDE, 0xAD, 0xBE, 0xEF };
    if (n >= 4 && (memcmp(d, le, 4) == 0 || memcmp(d, be, 4) == 0))
        return 1;
    size_t pl = path ? strlen(path) : 0;
    return pl >= 10 && strcmp(path + pl - 10, ".wtf-trace") == 0;
}

const atf_format_module atf_format_wtf = { "WTF", atf_wtf_sniff };
