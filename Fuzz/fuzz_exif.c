/* libFuzzer target: the EXIF/TIFF parser alone, whole and with only a prefix available. */
#include "../Sources/CImageProbe/probe_shared.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t split = ((size_t)data[0] << 8 | data[1]) % size; /* how much is "already read" */
    const uint8_t *tiff = data + 2;
    size_t total = size - 2;
    cip_exif whole, part;
    size_t need = 0;
    if (cip_exif_parse(tiff, total, total, &whole, &need) != CIP_EXIF_DONE || need != 0) __builtin_trap();
    if (whole.orientation < 0 || whole.orientation > 8) __builtin_trap();
    for (int i = 0; i < CIP_DATES; i++)
        if (memchr(whole.dates[i].date, 0, CIP_DATE_LEN) == NULL || memchr(whole.dates[i].offset, 0, CIP_OFFSET_LEN) == NULL) __builtin_trap();
    if (split > total) split = total;
    /* A partial parse either finishes with the same answer or asks for more than it had. */
    if (cip_exif_parse(tiff, split, total, &part, &need) == CIP_EXIF_DONE) {
        if (memcmp(&whole, &part, sizeof whole) != 0) __builtin_trap();
    } else if (need <= split || need > total) {
        __builtin_trap();
    }
    return 0;
}
