/* Area averaging, fed a source row at a time: see thumbnail_shared.h. */
#include "thumbnail_shared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cth_resizer_init(cth_resizer *r, uint32_t src_width, uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                     uint32_t channels) {
    memset(r, 0, sizeof *r);
    r->src_width = src_width;
    r->src_height = src_height;
    r->dst_width = dst_width;
    r->dst_height = dst_height;
    r->channels = channels;
    r->scale_y = (double)src_height / dst_height;
    double scale_x = (double)src_width / dst_width;
    r->column = calloc(src_width, sizeof *r->column);
    r->share = calloc(src_width, sizeof *r->share);
    r->column_scale = calloc(dst_width, sizeof *r->column_scale);
    r->row = calloc((size_t)(dst_width + 1) * channels, sizeof *r->row);
    r->current = calloc((size_t)dst_width * channels, sizeof *r->current);
    r->next = calloc((size_t)dst_width * channels, sizeof *r->next);
    r->out.pixels = malloc((size_t)dst_width * dst_height * channels);
    r->out.width = dst_width;
    r->out.height = dst_height;
    r->out.channels = channels;
    if (!r->column || !r->share || !r->column_scale || !r->row || !r->current || !r->next || !r->out.pixels) return CTH_ERR_MEMORY;
    /* Destination column d covers source [d * scale, (d + 1) * scale); a source pixel [x, x + 1)
       (scale >= 1) lies in one destination column or straddles two. */
    double *covered = calloc(dst_width + 1, sizeof *covered);
    if (!covered) return CTH_ERR_MEMORY;
    for (uint32_t x = 0; x < src_width; x++) {
        uint32_t d = (uint32_t)(x / scale_x);
        if (d >= dst_width) d = dst_width - 1;
        double boundary = (d + 1) * scale_x;
        double inside = x + 1 <= boundary ? 1 : boundary - x;
        if (d + 1 >= dst_width) inside = 1; /* rounding at the right edge: all of it in the last column */
        r->column[x] = d;
        r->share[x] = (float)inside;
        covered[d] += inside;
        covered[d + 1] += 1 - inside;
    }
    for (uint32_t d = 0; d < dst_width; d++) r->column_scale[d] = covered[d] > 0 ? (float)(1 / covered[d]) : 0;
    free(covered);
    return CTH_OK;
}

/* Writes destination row `dst_row` from the sums, and starts the next one. */
static void emit_row(cth_resizer *r) {
    uint32_t channels = r->channels;
    uint8_t *out = r->out.pixels + (size_t)r->dst_row * r->dst_width * channels;
    float rows = (float)(1 / r->current_weight);
    if (channels == 4) {
        for (uint32_t x = 0; x < r->dst_width; x++) {
            float *sum = r->current + (size_t)x * 4;
            /* Colour was summed weighted by alpha: divide by the alpha sum, not the area. */
            float alpha = sum[3], inverse = alpha > 0 ? 1 / alpha : 0;
            for (uint32_t c = 0; c < 3; c++) {
                float v = sum[c] * inverse;
                out[x * 4 + c] = (uint8_t)(v > 255 ? 255 : v + 0.5f);
            }
            float a = alpha * rows * r->column_scale[x];
            out[x * 4 + 3] = (uint8_t)(a > 255 ? 255 : a + 0.5f);
        }
    } else {
        for (uint32_t x = 0; x < r->dst_width; x++) {
            float scale = rows * r->column_scale[x];
            for (uint32_t c = 0; c < channels; c++) {
                float v = r->current[x * channels + c] * scale;
                out[x * channels + c] = (uint8_t)(v > 255 ? 255 : v + 0.5f);
            }
        }
    }
    float *swap = r->current;
    r->current = r->next;
    r->next = swap;
    memset(r->next, 0, (size_t)r->dst_width * channels * sizeof *r->next);
    r->current_weight = r->next_weight;
    r->next_weight = 0;
    r->dst_row++;
}

/* Horizontal: a pass over the source row with the current destination column's sums in
   registers. A source pixel adds its share to the column it starts in and the rest to a carry
   that opens the next column (a scale of at least 1 puts the start of some pixel in every
   column, so columns advance one at a time). Sums are scaled to means when the row is
   written out. One loop per channel count. */
static void reduce_row(cth_resizer *r, const uint8_t *row) {
    float *out = r->row;
    const uint32_t *column = r->column;
    const float *share = r->share;
    uint32_t width = r->src_width, d = 0;
    switch (r->channels) {
    case 1: {
        float s = 0, carry = 0;
        for (uint32_t x = 0; x < width; x++) {
            if (column[x] != d) { out[d] = s; s = carry; carry = 0; d = column[x]; }
            float v = row[x], w = share[x];
            s += w * v;
            carry += (1 - w) * v;
        }
        out[d] = s;
        break;
    }
    case 3: {
        float s0 = 0, s1 = 0, s2 = 0, c0 = 0, c1 = 0, c2 = 0;
        for (uint32_t x = 0; x < width; x++) {
            if (column[x] != d) {
                out[d * 3] = s0; out[d * 3 + 1] = s1; out[d * 3 + 2] = s2;
                s0 = c0; s1 = c1; s2 = c2; c0 = c1 = c2 = 0;
                d = column[x];
            }
            const uint8_t *p = row + (size_t)x * 3;
            float w = share[x], rest = 1 - w, v0 = p[0], v1 = p[1], v2 = p[2];
            s0 += w * v0; s1 += w * v1; s2 += w * v2;
            c0 += rest * v0; c1 += rest * v1; c2 += rest * v2;
        }
        out[d * 3] = s0; out[d * 3 + 1] = s1; out[d * 3 + 2] = s2;
        break;
    }
    default: {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        for (uint32_t x = 0; x < width; x++) {
            if (column[x] != d) {
                out[d * 4] = s0; out[d * 4 + 1] = s1; out[d * 4 + 2] = s2; out[d * 4 + 3] = s3;
                s0 = c0; s1 = c1; s2 = c2; s3 = c3; c0 = c1 = c2 = c3 = 0;
                d = column[x];
            }
            const uint8_t *p = row + (size_t)x * 4;
            float alpha = p[3], w = share[x] * alpha, rest = (1 - share[x]) * alpha; /* colour weighted by alpha */
            s0 += w * p[0]; s1 += w * p[1]; s2 += w * p[2]; s3 += w;
            c0 += rest * p[0]; c1 += rest * p[1]; c2 += rest * p[2]; c3 += rest;
        }
        out[d * 4] = s0; out[d * 4 + 1] = s1; out[d * 4 + 2] = s2; out[d * 4 + 3] = s3;
        break;
    }
    }
}

void cth_resizer_push(cth_resizer *r, const uint8_t *row) {
    if (r->src_row >= r->src_height || r->dst_row >= r->dst_height) return;
    if (r->src_width == r->dst_width && r->src_height == r->dst_height) {
        /* Nothing to reduce (an image already within the box): the row as it is. */
        size_t n = (size_t)r->dst_width * r->channels;
        memcpy(r->out.pixels + (size_t)r->dst_row * n, row, n);
        r->src_row++;
        r->dst_row++;
        return;
    }
    reduce_row(r, row);
    /* Vertical: source row y covers [y, y + 1); destination row j covers [j * s, (j + 1) * s). */
    double top = r->src_row, bottom = top + 1;
    double boundary = (r->dst_row + 1) * r->scale_y;
    double in_current = (bottom < boundary ? bottom : boundary) - top;
    double in_next = bottom - boundary;
    size_t n = (size_t)r->dst_width * r->channels;
    if (in_current > 0) {
        for (size_t i = 0; i < n; i++) r->current[i] += (float)in_current * r->row[i];
        r->current_weight += in_current;
    }
    if (in_next > 0 && r->dst_row + 1 < r->dst_height) {
        for (size_t i = 0; i < n; i++) r->next[i] += (float)in_next * r->row[i];
        r->next_weight += in_next;
    }
    r->src_row++;
    if (bottom >= boundary - 1e-9 && r->dst_row < r->dst_height) emit_row(r);
}

cth_raster cth_resizer_finish(cth_resizer *r) {
    while (r->dst_row < r->dst_height) {
        if (r->current_weight <= 0) {
            /* Rounding left this row without source rows (cannot happen with whole rows, but a
               truncated image stops early): repeat the row above, or black. */
            size_t n = (size_t)r->dst_width * r->channels;
            uint8_t *out = r->out.pixels + (size_t)r->dst_row * n;
            if (r->dst_row > 0) memcpy(out, out - n, n); else memset(out, 0, n);
            r->dst_row++;
            r->current_weight = r->next_weight;
            float *swap = r->current;
            r->current = r->next;
            r->next = swap;
            memset(r->next, 0, n * sizeof *r->next);
            r->next_weight = 0;
        } else {
            emit_row(r);
        }
    }
    cth_raster out = r->out;
    r->out.pixels = NULL;
    return out;
}

void cth_resizer_free(cth_resizer *r) {
    free(r->column);
    free(r->share);
    free(r->column_scale);
    free(r->row);
    free(r->current);
    free(r->next);
    free(r->out.pixels);
    memset(r, 0, sizeof *r);
}
