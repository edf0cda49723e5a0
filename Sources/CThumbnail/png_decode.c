/*
 * PNG: libpng with every transform a real file needs: palettes and low-depth grey expanded to
 * 8 bits, tRNS turned into alpha, 16-bit scaled to 8, grey with alpha made RGBA, Adam7
 * de-interlaced. A non-interlaced PNG streams a row at a time into the resizer; an interlaced
 * one is held whole first. PNG has no reduced-size decode: more than CTH_PIXEL_BUDGET pixels
 * is refused. libpng's errors longjmp back here; its warnings are silenced.
 */
#include "thumbnail_shared.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
    int truncated;
    char message[160];
    cth_resizer resizer;
    uint8_t *row;
    uint8_t *image;
    png_bytep *rows;
} png_decoder;

static void on_error(png_structp png, png_const_charp text) {
    png_decoder *d = png_get_error_ptr(png);
    snprintf(d->message, sizeof d->message, "%s", text);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void read_bytes(png_structp png, png_bytep out, size_t count) {
    png_decoder *d = png_get_io_ptr(png);
    if (count > d->length - d->offset) {
        d->truncated = 1;
        png_error(png, "the PNG data ends before the image does");
    }
    memcpy(out, d->data + d->offset, count);
    d->offset += count;
}

int cth_decode_png(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    png_decoder *d = calloc(1, sizeof *d);
    if (!d) return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    d->data = data;
    d->length = length;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int status = CTH_OK;
    if (!png || !info) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
        goto done;
    }
    if (setjmp(png_jmpbuf(png))) {
        status = cth_fail(out, d->truncated ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT, "%s", d->message);
        goto done;
    }
    /* libpng refuses a side past 1,000,000 pixels by default, as "Invalid IHDR data" (said as a
       corrupt image): the pixel budget below is the limit, on the area, as the probe's is. */
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);
    png_set_read_fn(png, d, read_bytes);
    png_read_info(png, info);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    out->source_width = width;
    out->source_height = height;
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET) {
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a PNG of %u x %u pixels is over the budget of %llu pixels",
                          width, height, CTH_PIXEL_BUDGET);
        goto done;
    }
    int color = png_get_color_type(png, info);
    png_set_expand(png);                      /* palette -> RGB, grey < 8 bits -> 8, tRNS -> alpha */
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    int has_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    if (!(color & PNG_COLOR_MASK_COLOR) && has_alpha) png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    uint32_t channels = png_get_channels(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    if (channels != 1 && channels != 3 && channels != 4) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "a PNG with %u channels after expansion", channels);
        goto done;
    }

    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    out->decoded_width = width;
    out->decoded_height = height;
    if (cth_resizer_init(&d->resizer, width, height, target_width, target_height, channels) != CTH_OK) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory for a %u x %u image", width, height);
        goto done;
    }
    if (passes > 1) {
        d->image = malloc(rowbytes * height);
        d->rows = malloc(sizeof *d->rows * height);
        if (!d->image || !d->rows) {
            status = cth_fail(out, CTH_ERR_MEMORY, "out of memory for an interlaced %u x %u image", width, height);
            goto done;
        }
        for (uint32_t y = 0; y < height; y++) d->rows[y] = d->image + y * rowbytes;
        png_read_image(png, d->rows);
        for (uint32_t y = 0; y < height; y++) cth_resizer_push(&d->resizer, d->rows[y]);
    } else {
        d->row = malloc(rowbytes);
        if (!d->row) {
            status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
            goto done;
        }
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, d->row, NULL);
            cth_resizer_push(&d->resizer, d->row);
        }
    }
    request->raster = cth_resizer_finish(&d->resizer);

done:
    if (png) png_destroy_read_struct(&png, info ? &info : NULL, NULL);
    cth_resizer_free(&d->resizer);
    free(d->row);
    free(d->image);
    free(d->rows);
    free(d);
    return status;
}
