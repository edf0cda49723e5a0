/*
 * cthumbnail: a small image from a JPEG, PNG, WebP, GIF (its first frame), HEIC or AVIF, decoded at reduced size where the format
 * allows it, reduced by area averaging, turned into display orientation, and encoded.
 *
 * The only code in catalog besides cimageprobe that includes jpeglib.h or png.h. Nothing of
 * libjpeg's or libpng's types leaks through this header: callers see a status code and plain
 * structs. Their fatal errors are caught with setjmp/longjmp inside the C code and returned as
 * a status and a one-line message; their warnings are silenced. Every function is reentrant.
 *
 * Memory is bounded whatever the header declares:
 * - a JPEG is decoded at the smallest DCT scale (1/8 ... 8/8) whose output still covers the
 *   thumbnail, row by row: only a few rows of the decoded image exist at once;
 * - a progressive JPEG needs its whole coefficient array: more than CTH_JPEG_MEMORY bytes
 *   is refused (CTH_ERR_TOO_LARGE);
 * - a PNG cannot be decoded at reduced size: one with more than CTH_PIXEL_BUDGET pixels is
 *   refused, and an interlaced one is held whole (at most CTH_PIXEL_BUDGET x 4 bytes);
 * - a WebP is decoded at the thumbnail's size by libwebp; an animated one's first frame and a
 *   GIF's first frame are drawn on their canvas (at most CTH_PIXEL_BUDGET pixels);
 * - HEIC and AVIF have no reduced-size decode: more than CTH_PIXEL_BUDGET pixels is refused.
 */
#ifndef CTHUMBNAIL_H
#define CTHUMBNAIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CTH_OK = 0,
    CTH_UNSUPPORTED = 1,       /* none of the formats by its magic bytes */
    CTH_ERR_TRUNCATED = 2,     /* the data ends before the image does */
    CTH_ERR_CORRUPT = 3,       /* malformed data; message says how */
    CTH_ERR_TOO_LARGE = 4,     /* over the pixel budget or the decoder's memory limit */
    CTH_ERR_UNSUPPORTED_KIND = 5, /* a variant this build cannot decode (a 12-bit JPEG) */
    CTH_ERR_MEMORY = 6,        /* an allocation failed */
    CTH_ERR_ARGUMENT = 7       /* a box of 0 pixels, an orientation outside 1...8, a quality outside 1...100 */
} cth_status;

typedef enum {
    CTH_FORMAT_NONE = 0,
    CTH_FORMAT_JPEG = 1,
    CTH_FORMAT_PNG = 2,
    CTH_FORMAT_WEBP = 3,
    CTH_FORMAT_GIF = 4,
    CTH_FORMAT_HEIF = 5   /* HEIC or AVIF */
} cth_format;

/** Pixels a PNG (or any image decoded at full size) may have: 2^26, a 8192 x 8192 image. */
#define CTH_PIXEL_BUDGET 67108864ull

/** Memory libjpeg may use for one image (the coefficients of a progressive JPEG): 512 MiB. */
#define CTH_JPEG_MEMORY 536870912L

typedef struct {
    uint32_t box;         /* the thumbnail fits within box x box pixels; never enlarged */
    int32_t orientation;  /* EXIF orientation 1...8 of the source, applied to the result */
    int32_t quality;      /* JPEG quality, 1...100 */
} cth_options;

typedef struct {
    int32_t source_format;   /* cth_format of the input */
    int32_t format;          /* cth_format of the output: PNG when the image has transparency */
    uint32_t source_width;   /* the input's size as stored */
    uint32_t source_height;
    uint32_t decoded_width;  /* what the decoder produced (a JPEG's DCT-scaled size) */
    uint32_t decoded_height;
    uint32_t width;          /* the thumbnail's size, in display orientation */
    uint32_t height;
    uint8_t *data;           /* the encoded thumbnail (malloc'ed); release with cth_release */
    size_t length;
    char message[160];       /* for errors: what went wrong, one line */
} cth_result;

/** Makes a thumbnail of the image bytes in `data`. On success `out->data` must be released. */
int cth_thumbnail(const uint8_t *data, size_t length, const cth_options *options, cth_result *out);

/** Frees a result's data (safe on a result that holds none). */
void cth_release(cth_result *result);

/**
 * Decodes a JPEG or PNG at full size into 8-bit RGBA (for tests and quality measurements):
 * `*pixels` is malloc'ed (width x height x 4 bytes), release it with free(). Same statuses.
 */
int cth_decode_rgba(const uint8_t *data, size_t length, uint8_t **pixels, uint32_t *width, uint32_t *height,
                    char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif /* CTHUMBNAIL_H */
