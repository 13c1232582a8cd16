/* A JSON value (jansson) written by the rule the formats' canonical dumps
 * share for JSON they carry: compact (no space), object keys in the order
 * jansson holds them (the order in the text it parsed), strings by
 * ob_json_string_n, numbers (integers and reals alike) by ob_number, and
 * true, false, null as literals. */
#include <jansson.h>

#include "obuf.h"

void ob_json_value(obuf *o, const void *jv)
{
    const json_t *j = (const json_t *)jv;
    size_t i;
    const char *k;
    json_t *v;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        ob_char(o, '{');
        int first = 1;
        json_object_foreach((json_t *)j, k, v) {
            if (!first)
                ob_char(o, ',');
            first = 0;
            ob_json_string(o, k);
            ob_char(o, ':');
            ob_json_value(o, v);
        }
        ob_char(o, '}');
        return;
    }
    case JSON_ARRAY:
        ob_char(o, '[');
        json_array_foreach((json_t *)j, i, v) {
            if (i)
                ob_char(o, ',');
            ob_json_value(o, v);
        }
        ob_char(o, ']');
        return;
    case JSON_STRING: ob_json_string_n(o, json_string_value(j), json_string_length(j)); return;
    case JSON_INTEGER: ob_number(o, (double)json_integer_value(j)); return;
    case JSON_REAL: ob_number(o, json_real_value(j)); return;
    case JSON_TRUE: ob_lit(o, "true"); return;
    case JSON_FALSE: ob_lit(o, "false"); return;
    default: ob_lit(o, "null"); return;
    }
}
