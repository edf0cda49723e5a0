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
    r->taps = (uint32_t)ceil(scale_x) + 1;
    r->first = calloc(dst_width, sizeof *r->first);
    r->weights = calloc((size_t)dst_width * r->taps, sizeof *r->weights);
    r->row = calloc((size_t)dst_width * channels, sizeof *r->row);
    r->current = calloc((size_t)dst_width * channels, sizeof *r->current);
    r->next = calloc((size_t)dst_width * channels, sizeof *r->next);
    r->out.pixels = malloc((size_t)dst_width * dst_height * channels);
    r->out.width = dst_width;
    r->out.height = dst_height;
    r->out.channels = channels;
    if (!r->first || !r->weights || !r->row || !r->current || !r->next || !r->out.pixels) return CTH_ERR_MEMORY;
    /* Destination column x covers source columns [x * scale, (x + 1) * scale). */
    for (uint32_t x = 0; x < dst_width; x++) {
        double start = x * scale_x, end = (x + 1) * scale_x;
        if (end > src_width) end = src_width;
        uint32_t first = (uint32_t)floor(start);
        r->first[x] = first;
        double total = 0;
        for (uint32_t tap = 0; tap < r->taps && first + tap < src_width; tap++) {
            double left = first + tap, right = left + 1;
            double covered = (right < end ? right : end) - (left > start ? left : start);
            r->weights[(size_t)x * r->taps + tap] = covered > 0 ? (float)covered : 0;
            total += covered > 0 ? covered : 0;
        }
        /* Normalized: a column's weights sum to 1, so only the vertical pass divides. */
        for (uint32_t tap = 0; tap < r->taps && total > 0; tap++) r->weights[(size_t)x * r->taps + tap] /= (float)total;
    }
    return CTH_OK;
}

/* Writes destination row `dst_row` from the sums, and starts the next one. */
static void emit_row(cth_resizer *r) {
    uint32_t channels = r->channels;
    uint8_t *out = r->out.pixels + (size_t)r->dst_row * r->dst_width * channels;
    for (uint32_t x = 0; x < r->dst_width; x++) {
        float *sum = r->current + (size_t)x * channels;
        if (channels == 4) {
            /* Colour was summed weighted by alpha: divide by the alpha sum, not the area. */
            float alpha = sum[3];
            for (uint32_t c = 0; c < 3; c++) {
                float v = alpha > 0 ? sum[c] / alpha : 0;
                out[x * 4 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
            }
            float a = (float)(alpha / r->current_weight);
            out[x * 4 + 3] = (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a + 0.5f);
        } else {
            for (uint32_t c = 0; c < channels; c++) {
                float v = (float)(sum[c] / r->current_weight);
                out[x * channels + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
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

void cth_resizer_push(cth_resizer *r, const uint8_t *row) {
    if (r->src_row >= r->src_height || r->dst_row >= r->dst_height) return;
    uint32_t channels = r->channels, taps = r->taps;
    /* Horizontal: each destination column's weighted sum of its source pixels. */
    for (uint32_t x = 0; x < r->dst_width; x++) {
        const float *w = r->weights + (size_t)x * taps;
        const uint8_t *src = row + (size_t)r->first[x] * channels;
        float sums[4] = {0, 0, 0, 0};
        uint32_t available = r->src_width - r->first[x];
        uint32_t count = taps < available ? taps : available;
        if (channels == 4) {
            for (uint32_t tap = 0; tap < count; tap++) {
                float alpha = w[tap] * src[tap * 4 + 3];
                sums[0] += alpha * src[tap * 4];
                sums[1] += alpha * src[tap * 4 + 1];
                sums[2] += alpha * src[tap * 4 + 2];
                sums[3] += alpha;
            }
        } else {
            for (uint32_t tap = 0; tap < count; tap++)
                for (uint32_t c = 0; c < channels; c++) sums[c] += w[tap] * src[tap * channels + c];
        }
        memcpy(r->row + (size_t)x * channels, sums, channels * sizeof(float));
    }
    /* Vertical: source row y covers [y, y + 1); destination row j covers [j * s, (j + 1) * s). */
    double top = r->src_row, bottom = top + 1;
    double boundary = (r->dst_row + 1) * r->scale_y;
    double in_current = (bottom < boundary ? bottom : boundary) - top;
    double in_next = bottom - boundary;
    size_t n = (size_t)r->dst_width * channels;
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
    free(r->first);
    free(r->weights);
    free(r->row);
    free(r->current);
    free(r->next);
    free(r->out.pixels);
    memset(r, 0, sizeof *r);
}
