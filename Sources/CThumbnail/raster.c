/* Shared helpers: the thumbnail's size, orientation, alpha, and error text. */
#include "thumbnail_shared.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cth_fail(cth_result *out, int status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, args);
    va_end(args);
    return status;
}

void cth_target_size(uint32_t width, uint32_t height, uint32_t box, int32_t orientation, uint32_t *target_width,
                     uint32_t *target_height) {
    int transposed = orientation >= 5;
    double display_width = transposed ? height : width, display_height = transposed ? width : height;
    double scale = 1;
    if (box > 0) {
        double fit_w = box / display_width, fit_h = box / display_height;
        scale = fit_w < fit_h ? fit_w : fit_h;
        if (scale > 1) scale = 1;
    }
    uint32_t w = (uint32_t)fmax(1, lround(display_width * scale));
    uint32_t h = (uint32_t)fmax(1, lround(display_height * scale));
    *target_width = transposed ? h : w;
    *target_height = transposed ? w : h;
}

/* EXIF orientation: where display pixel (x, y) comes from in the stored image (W x H).
   1 as stored; 2 mirrored; 3 turned 180; 4 flipped; 5 transposed; 6 turned 90 clockwise;
   7 transversed; 8 turned 90 anticlockwise (TIFF 6.0's "0th row / 0th column" table). */
cth_raster cth_orient(const cth_raster *raster, int32_t orientation) {
    uint32_t W = raster->width, H = raster->height, C = raster->channels;
    int transposed = orientation >= 5 && orientation <= 8;
    cth_raster out = {NULL, transposed ? H : W, transposed ? W : H, C};
    out.pixels = malloc((size_t)W * H * C);
    if (!out.pixels) return out;
    for (uint32_t y = 0; y < out.height; y++) {
        for (uint32_t x = 0; x < out.width; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = W - 1 - x; sy = y; break;
            case 3: sx = W - 1 - x; sy = H - 1 - y; break;
            case 4: sx = x; sy = H - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = H - 1 - x; break;
            case 7: sx = W - 1 - y; sy = H - 1 - x; break;
            case 8: sx = W - 1 - y; sy = x; break;
            default: sx = x; sy = y; break;
            }
            const uint8_t *from = raster->pixels + ((size_t)sy * W + sx) * C;
            uint8_t *to = out.pixels + ((size_t)y * out.width + x) * C;
            for (uint32_t c = 0; c < C; c++) to[c] = from[c];
        }
    }
    return out;
}

int cth_drop_opaque_alpha(cth_raster *raster) {
    if (raster->channels != 4) return 0;
    size_t count = (size_t)raster->width * raster->height;
    for (size_t i = 0; i < count; i++)
        if (raster->pixels[i * 4 + 3] != 255) return 0;
    for (size_t i = 0; i < count; i++) {
        raster->pixels[i * 3] = raster->pixels[i * 4];
        raster->pixels[i * 3 + 1] = raster->pixels[i * 4 + 1];
        raster->pixels[i * 3 + 2] = raster->pixels[i * 4 + 2];
    }
    raster->channels = 3;
    return 1;
}

cth_raster cth_to_rgba(const cth_raster *raster) {
    cth_raster out = {NULL, raster->width, raster->height, 4};
    size_t count = (size_t)raster->width * raster->height;
    out.pixels = malloc(count * 4);
    if (!out.pixels) return out;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = raster->pixels + i * raster->channels;
        uint8_t *q = out.pixels + i * 4;
        switch (raster->channels) {
        case 1: q[0] = q[1] = q[2] = p[0]; q[3] = 255; break;
        case 3: q[0] = p[0]; q[1] = p[1]; q[2] = p[2]; q[3] = 255; break;
        default: memcpy(q, p, 4); break;
        }
    }
    return out;
}
