/* The dispatcher: sniff the format, decode and reduce, orient, encode. */
#include "thumbnail_shared.h"

#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

static int sniff(const uint8_t *data, size_t length) {
    if (length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return CTH_FORMAT_JPEG;
    if (length >= 8 && memcmp(data, png_magic, 8) == 0) return CTH_FORMAT_PNG;
    if (length >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) return CTH_FORMAT_WEBP;
    if (length >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) return CTH_FORMAT_GIF;
    if (length >= 12 && memcmp(data + 4, "ftyp", 4) == 0) {
        /* libheif decides among the brands: an image brand of HEIF or AVIF, else not ours. */
        enum heif_filetype_result kind = heif_check_filetype(data, (int)(length < 64 ? length : 64));
        if (kind == heif_filetype_yes_supported || kind == heif_filetype_yes_unsupported) return CTH_FORMAT_HEIF;
    }
    return CTH_FORMAT_NONE;
}

/* Decodes and reduces to what `box` asks (0: full size), in stored orientation. */
static int decode(const uint8_t *data, size_t length, uint32_t box, int32_t orientation, cth_result *out, cth_raster *raster) {
    /* As the probe says it: an empty file is no image of any format. */
    if (length == 0) return cth_fail(out, CTH_ERR_TRUNCATED, "the file is empty");
    out->source_format = sniff(data, length);
    cth_decode request = {box, orientation, out, {NULL, 0, 0, 0}};
    int status;
    switch (out->source_format) {
    case CTH_FORMAT_JPEG: status = cth_decode_jpeg(data, length, &request); break;
    case CTH_FORMAT_PNG: status = cth_decode_png(data, length, &request); break;
    case CTH_FORMAT_WEBP: status = cth_decode_webp(data, length, &request); break;
    case CTH_FORMAT_GIF: status = cth_decode_gif(data, length, &request); break;
    case CTH_FORMAT_HEIF: status = cth_decode_heif(data, length, &request); break;
    default: return cth_fail(out, CTH_UNSUPPORTED, "not a JPEG, PNG, WebP, GIF, HEIC or AVIF");
    }
    *raster = request.raster;
    return status;
}

int cth_thumbnail(const uint8_t *data, size_t length, const cth_options *options, cth_result *out) {
    memset(out, 0, sizeof *out);
    if (options->box == 0) return cth_fail(out, CTH_ERR_ARGUMENT, "a box of 0 pixels");
    if (options->orientation < 1 || options->orientation > 8)
        return cth_fail(out, CTH_ERR_ARGUMENT, "orientation %d is not 1...8", options->orientation);
    if (options->quality < 1 || options->quality > 100)
        return cth_fail(out, CTH_ERR_ARGUMENT, "JPEG quality %d is not 1...100", options->quality);
    cth_raster reduced;
    int status = decode(data, length, options->box, options->orientation, out, &reduced);
    if (status != CTH_OK) return status;
    cth_raster oriented = reduced;
    if (options->orientation != 1) {
        oriented = cth_orient(&reduced, options->orientation);
        free(reduced.pixels);
        if (!oriented.pixels) return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    }
    out->width = oriented.width;
    out->height = oriented.height;
    cth_drop_opaque_alpha(&oriented);
    status = oriented.channels == 4 ? cth_encode_png(&oriented, out) : cth_encode_jpeg(&oriented, options->quality, out);
    free(oriented.pixels);
    return status;
}

void cth_release(cth_result *result) {
    free(result->data);
    result->data = NULL;
    result->length = 0;
}

int cth_decode_rgba(const uint8_t *data, size_t length, uint8_t **pixels, uint32_t *width, uint32_t *height,
                    char *message, size_t message_size) {
    cth_result out;
    memset(&out, 0, sizeof out);
    cth_raster raster;
    *pixels = NULL;
    int status = decode(data, length, 0, 1, &out, &raster);
    if (status == CTH_OK) {
        cth_raster rgba = cth_to_rgba(&raster);
        free(raster.pixels);
        if (!rgba.pixels) {
            status = cth_fail(&out, CTH_ERR_MEMORY, "out of memory");
        } else {
            *pixels = rgba.pixels;
            *width = rgba.width;
            *height = rgba.height;
        }
    }
    if (message && message_size) {
        strncpy(message, out.message, message_size - 1);
        message[message_size - 1] = 0;
    }
    return status;
}
