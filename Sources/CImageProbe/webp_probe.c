/*
 * WebP: libwebp's WebPGetFeatures on the first bytes (the VP8/VP8L frame header or the VP8X
 * chunk's canvas size: animated files are one item at their canvas size), then, when VP8X
 * says the file carries EXIF, a walk over the RIFF chunks by their sizes (image data skipped
 * by offset, never read) to the EXIF chunk, whose orientation applies as in a JPEG.
 */
#include "probe_shared.h"

#include <string.h>

#include <webp/decode.h>

static uint32_t le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int cip_probe_webp(cip_reader *r, cip_result *out) {
    out->format = CIP_FORMAT_WEBP;
    size_t avail = r->end - r->next;
    const uint8_t *head = r->buf + r->next;
    if (avail < 12) return cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the RIFF header");
    uint64_t riff_end = (uint64_t)le32(head + 4) + 8; /* the RIFF payload's end */
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(head, avail, &features);
    if (status == VP8_STATUS_NOT_ENOUGH_DATA)
        return cip_fail(out, CIP_ERR_TRUNCATED, "the file ends inside the WebP header");
    if (status != VP8_STATUS_OK)
        return cip_fail(out, CIP_ERR_CORRUPT, "not a valid WebP header (libwebp status %d)", (int)status);
    if (features.width <= 0 || features.height <= 0 || (uint32_t)features.width > CIP_MAX_SIDE
        || (uint32_t)features.height > CIP_MAX_SIDE)
        return cip_fail(out, CIP_ERR_DIMENSIONS, "a side is 0 or larger than %u pixels", CIP_MAX_SIDE);
    out->width = (uint32_t)features.width;
    out->height = (uint32_t)features.height;
    /* VP8X flags: bit 3 is EXIF. Without VP8X there is no EXIF chunk. */
    if (avail < 21 || memcmp(head + 12, "VP8X", 4) != 0 || (head[20] & 0x08) == 0) return CIP_OK;
    cip_reader_skip(r, 12); /* to the first chunk */
    uint64_t offset = 12;
    for (int chunks = 0; chunks < 4096 && offset + 8 <= riff_end; chunks++) {
        uint8_t chunk[8];
        if (cip_reader_read(r, chunk, 8) < 8) return CIP_OK; /* truncated after the header: the size is known */
        uint64_t length = le32(chunk + 4);
        uint64_t padded = length + (length & 1);
        offset += 8;
        if (memcmp(chunk, "EXIF", 4) == 0) {
            if (length > riff_end - offset) return CIP_OK;
            /* Some writers keep JPEG's "Exif\0\0" prefix: the TIFF header follows it. */
            uint8_t prefix[6];
            uint64_t tiff_length = length;
            if (length >= 6) {
                size_t got = cip_reader_read(r, prefix, 6);
                if (got < 6) return CIP_OK;
                if (memcmp(prefix, "Exif\0\0", 6) == 0) {
                    tiff_length -= 6;
                } else {
                    /* No prefix: those 6 bytes began the TIFF header. */
                    cip_exif exif = { 0 };
                    if (cip_exif_read_from(r, prefix, 6, length, &exif) == 0) cip_exif_apply(&exif, out);
                    return CIP_OK;
                }
            }
            cip_exif exif = { 0 };
            if (cip_exif_read(r, tiff_length, &exif) == 0) cip_exif_apply(&exif, out);
            return CIP_OK;
        }
        if (padded > riff_end - offset) return CIP_OK;
        cip_reader_skip(r, padded);
        offset += padded;
    }
    return CIP_OK;
}
