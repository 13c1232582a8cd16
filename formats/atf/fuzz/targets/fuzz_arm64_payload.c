/* Target arm64_payload: the ARM64 function payload of detail events
 * (function_id, x0..x7, lr, fp, sp, stack_size <= 256, reserved, stack).
 *
 * Input: one payload (seeds are payloads cut from real detail events).
 * Properties: decode fails exactly when the payload is shorter than 100
 * bytes, stack_size > 256, or the size is not 100 + stack_size, with an
 * error record; decode -> encode gives back every byte (reserved included);
 * the stack view lies inside the input; encode refuses stack_size > 256 and
 * too small buffers. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_atf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_params p = fz_params_overlay(data, size);
    atf_arm64_payload a;
    atf_error err;
    atf_status st = atf_arm64_payload_decode(&a, data, size, &err);
    atf_status want = ATF_OK;
    if (size < 100)
        want = ATF_E_TRUNCATED;
    else if ((data[96] | data[97] << 8) > 256)
        want = ATF_E_FIELD;
    else if (size != 100u + (size_t)(data[96] | data[97] << 8))
        want = ATF_E_LENGTH;
    FZ_CHECK(st == want, "decode returned %s, the rules say %s", atf_status_name(st), atf_status_name(want));
    if (st) {
        fz_check_error(&err, st, "arm64 payload");
        FZ_CHECK(err.field != NULL, "error without a field");
        return 0;
    }
    FZ_CHECK(a.function_id == fz_le64(data) && a.lr == fz_le64(data + 72) && a.fp == fz_le64(data + 80) &&
                 a.sp == fz_le64(data + 88) && a.reserved == (data[98] | data[99] << 8),
             "fields are not at their offsets");
    for (int i = 0; i < 8; i++)
        FZ_CHECK(a.x[i] == fz_le64(data + 8 + 8 * i), "x%d", i);
    FZ_CHECK(a.stack_size == 0 ? a.stack == NULL : a.stack == data + 100, "stack view");

    uint8_t raw[100 + 256];
    size_t n = atf_arm64_payload_encode(raw, sizeof raw, &a);
    FZ_CHECK(n == size && memcmp(raw, data, size) == 0, "decode -> encode changed the payload");
    FZ_CHECK(atf_arm64_payload_encode(raw, size - 1, &a) == 0, "encode into a buffer one byte short");

    /* encode refuses an oversized stack, whatever the buffer. */
    atf_arm64_payload big = a;
    uint8_t *stack = calloc(1, 65536);
    FZ_CHECK(stack != NULL, "oom");
    big.stack_size = (uint16_t)fz_range(&p, 257, 65535);
    big.stack = stack;
    uint8_t *huge = malloc(100 + 65536);
    FZ_CHECK(huge != NULL, "oom");
    FZ_CHECK(atf_arm64_payload_encode(huge, 100 + 65536, &big) == 0, "encoded stack_size %u", big.stack_size);
    free(huge);
    free(stack);
    return 0;
}
