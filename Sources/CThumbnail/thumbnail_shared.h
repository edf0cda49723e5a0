/*
 * Internal to CThumbnail. Calls run one way: the dispatcher (thumbnail.c) -> the decoders
 * (jpeg_decode.c, png_decode.c) and encoders (encode.c) -> the helpers (resize.c, raster.c).
 * A decoder reads the header, asks cth_target_size what to produce, and feeds its rows, at
 * whatever size it decoded them, to a resizer that averages them down to exactly that size.
 */
#ifndef CTHUMBNAIL_SHARED_H
#define CTHUMBNAIL_SHARED_H

#include "cthumbnail.h"

#include <stdint.h>
#include <stddef.h>

/* 8-bit pixels, `channels` per pixel: 1 gray, 3 RGB or 4 RGBA (not premultiplied). */
typedef struct {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    uint32_t channels;
} cth_raster;

/* Area averaging from src to dst (each side of dst at most the source's), a source row at a
   time: each destination pixel is the mean of the source area it covers, fractional edges
   weighted by how much of them it covers; colour weighted by alpha when there is alpha. */
typedef struct {
    uint32_t src_width, src_height, dst_width, dst_height, channels;
    double scale_y;           /* source rows per destination row */
    uint32_t *column;         /* per source column: the destination column it starts in */
    float *share;             /* per source column: the part of it in that column (the rest is in the next) */
    float *column_scale;      /* per destination column: 1 / the source width it covers */
    float *row;               /* the current source row, reduced horizontally (one spare column) */
    float *current, *next;    /* sums for destination rows `dst_row` and `dst_row + 1` */
    double current_weight, next_weight;
    uint32_t src_row, dst_row;
    cth_raster out;
} cth_resizer;

int cth_resizer_init(cth_resizer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                     uint32_t channels);
void cth_resizer_push(cth_resizer *r, const uint8_t *row);
/* The result (every destination row, even when rounding left the last one short); the raster's
   pixels now belong to the caller. */
cth_raster cth_resizer_finish(cth_resizer *r);
void cth_resizer_free(cth_resizer *r);

/* The thumbnail's size in the source's stored orientation: the display size (sides swapped
   for orientations 5 to 8) scaled to fit `box`, never enlarged, each side rounded and at least
   1, then swapped back. box 0 means the full size. */
void cth_target_size(uint32_t width, uint32_t height, uint32_t box, int32_t orientation, uint32_t *target_width,
                     uint32_t *target_height);

/* What a decoder needs: the target box and orientation in, the sizes and the raster out. */
typedef struct {
    uint32_t box;
    int32_t orientation;
    cth_result *result;  /* sizes and the message */
    cth_raster raster;   /* the decoded and reduced image, in stored orientation */
} cth_decode;

int cth_decode_jpeg(const uint8_t *data, size_t length, cth_decode *d);
int cth_decode_png(const uint8_t *data, size_t length, cth_decode *d);
int cth_decode_webp(const uint8_t *data, size_t length, cth_decode *d);
int cth_decode_gif(const uint8_t *data, size_t length, cth_decode *d);
/* HEIC and AVIF, in display orientation already (libheif applies irot, imir and clap). */
int cth_decode_heif(const uint8_t *data, size_t length, cth_decode *d);

int cth_encode_jpeg(const cth_raster *raster, int quality, cth_result *out);
int cth_encode_png(const cth_raster *raster, cth_result *out);

/* The raster turned into display orientation (a new raster; NULL pixels when out of memory). */
cth_raster cth_orient(const cth_raster *raster, int32_t orientation);
/* Whether every pixel of a 4-channel raster is opaque; drops the alpha channel when so. */
int cth_drop_opaque_alpha(cth_raster *raster);
/* The raster as RGBA (a new raster; NULL pixels when out of memory). */
cth_raster cth_to_rgba(const cth_raster *raster);

int cth_fail(cth_result *out, int status, const char *fmt, ...);

#endif /* CTHUMBNAIL_SHARED_H */
