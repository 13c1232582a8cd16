/* The bid over the registry of formats (format_module.h; the list itself is
 * generated from formats/formats.cmake into the build tree). */
#include "format_module.h"

const atf_format_module *atf_format_bid(const void *head, size_t n, const char *path, int *index)
{
    for (size_t i = 0; i < atf_format_count; i++)
        if (atf_format_registry[i]->bid(head, n, path)) {
            if (index)
                *index = (int)i;
            return atf_format_registry[i];
        }
    return NULL;
}
