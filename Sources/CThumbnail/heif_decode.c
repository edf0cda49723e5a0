/*
 * HEIC and AVIF: libheif decodes the primary image (HEVC through libde265, AV1 through its AV1
 * decoder) with its transformations applied (irot, imir, clap: the display orientation, so the
 * caller passes orientation 1), to interleaved RGB or RGBA, reduced by the resizer. These
 * codecs have no reduced-size decode: more than CTH_PIXEL_BUDGET pixels is refused before
 * decoding.
 */
#include "thumbnail_shared.h"

#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

/* ---- Derived images: libheif 1.15 follows a grid's or an overlay's `dimg` references
   recursively, and a file whose references form a cycle makes it recurse until the stack (or,
   with a thread per tile, the threads) run out. The references are checked here first. ---- */

static uint32_t be(const uint8_t *p, int bytes) {
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
    return v;
}

/* The box of type `type` among the boxes in [at, end), as [*start, *stop) of its payload. */
static int find_box(const uint8_t *data, size_t at, size_t end, const char *type, size_t *start, size_t *stop) {
    while (at + 8 <= end) {
        uint64_t size = be(data + at, 4);
        size_t header = 8;
        if (size == 1) {
            if (at + 16 > end) return 0;
            size = (uint64_t)be(data + at + 8, 4) << 32 | be(data + at + 12, 4);
            header = 16;
        } else if (size == 0) {
            size = end - at;
        }
        if (size < header || size > end - at) return 0;
        if (memcmp(data + at + 4, type, 4) == 0) {
            *start = at + header;
            *stop = at + (size_t)size;
            return 1;
        }
        at += (size_t)size;
    }
    return 0;
}

enum { MAX_DERIVED = 4096, MAX_DEPTH = 8, UNBOUNDED = 1 << 30 };

typedef struct {
    uint32_t from, to;
} reference;

typedef struct {
    reference edges[MAX_DERIVED];   /* sorted by `from` once read */
    size_t count;
    uint32_t nodes[2 * MAX_DERIVED]; /* every item named, sorted, unique */
    size_t node_count;
    uint8_t state[2 * MAX_DERIVED];  /* 0 not seen, 1 on the current path, 2 done */
    int longest[2 * MAX_DERIVED];    /* for done nodes: the longest chain from them */
} derivations;

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int compare_from(const void *a, const void *b) {
    return compare_u32(&((const reference *)a)->from, &((const reference *)b)->from);
}

static size_t node_index(const derivations *d, uint32_t id) {
    const uint32_t *found = bsearch(&id, d->nodes, d->node_count, sizeof *d->nodes, compare_u32);
    return (size_t)(found - d->nodes);
}

/* The longest chain of references from node v, or UNBOUNDED past MAX_DEPTH or on a cycle. Each
   node is finished once (its edges looked at once): O(V + E log E) in all. */
static int longest_from(derivations *d, size_t v, int depth) {
    if (d->state[v] == 2) return d->longest[v];
    if (d->state[v] == 1 || depth > MAX_DEPTH) return UNBOUNDED;
    d->state[v] = 1;
    int best = 0;
    reference key = { d->nodes[v], 0 };
    reference *edge = bsearch(&key, d->edges, d->count, sizeof *d->edges, compare_from);
    while (edge && edge > d->edges && edge[-1].from == key.from) edge--; /* the first with this `from` */
    for (; edge && edge < d->edges + d->count && edge->from == key.from; edge++) {
        int chain = longest_from(d, node_index(d, edge->to), depth + 1);
        if (chain >= UNBOUNDED || chain + 1 > MAX_DEPTH) return UNBOUNDED;
        if (chain + 1 > best) best = chain + 1;
    }
    d->state[v] = 2;
    d->longest[v] = best;
    return best;
}

/* 1 when the file's derived images are bounded: at most MAX_DERIVED `dimg` references, and no
   chain of them longer than MAX_DEPTH (a cycle is an endless chain). A reference box that
   cannot be read makes the file refused: libheif may read it differently. */
static int derivations_bounded(const uint8_t *data, size_t length) {
    size_t meta, meta_end, iref, iref_end;
    if (!find_box(data, 0, length, "meta", &meta, &meta_end) || meta + 4 > meta_end) return 1; /* libheif refuses it */
    if (!find_box(data, meta + 4, meta_end, "iref", &iref, &iref_end)) return 1;
    if (iref + 4 > iref_end) return 0;
    int id_bytes = data[iref] == 0 ? 2 : 4;
    derivations *d = calloc(1, sizeof *d);
    if (!d) return 0;
    size_t at = iref + 4;
    int bounded = 1;
    while (bounded && at + 8 <= iref_end) {
        uint64_t size = be(data + at, 4);
        size_t header = 8;
        if (size == 1) { /* a 64-bit size */
            if (at + 16 > iref_end) { bounded = 0; break; }
            size = (uint64_t)be(data + at + 8, 4) << 32 | be(data + at + 12, 4);
            header = 16;
        } else if (size == 0) {
            size = iref_end - at;
        }
        if (size > iref_end - at) size = iref_end - at; /* libheif reads a box that overruns iref up to iref's end */
        if (size < header + (size_t)id_bytes + 2) { bounded = 0; break; }
        if (memcmp(data + at + 4, "dimg", 4) == 0) {
            size_t body = at + header;
            uint32_t from = be(data + body, id_bytes);
            uint32_t count = be(data + body + id_bytes, 2);
            size_t first = body + 2 + (size_t)id_bytes;
            for (uint32_t k = 0; k < count && first + ((size_t)k + 1) * (size_t)id_bytes <= at + size; k++) {
                if (d->count == MAX_DERIVED) { bounded = 0; break; }
                d->edges[d->count].from = from;
                d->edges[d->count].to = be(data + first + (size_t)k * (size_t)id_bytes, id_bytes);
                d->nodes[d->node_count++] = from;
                d->nodes[d->node_count++] = d->edges[d->count].to;
                d->count++;
            }
        }
        at += (size_t)size;
    }
    if (bounded && d->count > 0) {
        qsort(d->edges, d->count, sizeof *d->edges, compare_from);
        qsort(d->nodes, d->node_count, sizeof *d->nodes, compare_u32);
        size_t unique = 0;
        for (size_t i = 0; i < d->node_count; i++)
            if (unique == 0 || d->nodes[unique - 1] != d->nodes[i]) d->nodes[unique++] = d->nodes[i];
        d->node_count = unique;
        for (size_t v = 0; bounded && v < d->node_count; v++)
            if (longest_from(d, v, 0) >= UNBOUNDED) bounded = 0;
    }
    free(d);
    return bounded;
}

int cth_decode_heif(const uint8_t *data, size_t length, cth_decode *request) {
    cth_result *out = request->result;
    if (!derivations_bounded(data, length))
        return cth_fail(out, CTH_ERR_CORRUPT, "a HEIF image derived from too many images, or from itself");
    struct heif_context *context = heif_context_alloc();
    if (!context) return cth_fail(out, CTH_ERR_MEMORY, "out of memory");
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int status = CTH_OK;
    /* Tiles of a grid image are decoded here, one after another, not on a thread each: a file
       that declares thousands of tiles must not exhaust the process's threads. */
    heif_context_set_max_decoding_threads(context, 0);
    heif_context_set_maximum_image_size_limit(context, 16384); /* libheif's own check, per side */
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(context, &handle);
    if (error.code != heif_error_Ok) {
        status = cth_fail(out, error.subcode == heif_suberror_End_of_data ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT,
                          "not a valid HEIF container: %s", error.message ? error.message : "unknown error");
        goto done;
    }
    int w = heif_image_handle_get_width(handle), h = heif_image_handle_get_height(handle);
    if (w <= 0 || h <= 0) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "the primary image is %d x %d", w, h);
        goto done;
    }
    uint32_t width = (uint32_t)w, height = (uint32_t)h;
    out->source_width = width;
    out->source_height = height;
    if ((unsigned long long)width * height > CTH_PIXEL_BUDGET) {
        status = cth_fail(out, CTH_ERR_TOO_LARGE, "a HEIF image of %u x %u pixels is over the budget of %llu pixels",
                          width, height, CTH_PIXEL_BUDGET);
        goto done;
    }
    int alpha = heif_image_handle_has_alpha_channel(handle);
    error = heif_decode_image(handle, &image, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                              NULL);
    if (error.code != heif_error_Ok) {
        status = cth_fail(out, error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype
                                   ? CTH_ERR_UNSUPPORTED_KIND
                                   : error.subcode == heif_suberror_End_of_data ? CTH_ERR_TRUNCATED : CTH_ERR_CORRUPT,
                          "the HEIF image cannot be decoded: %s", error.message ? error.message : "unknown error");
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
    if (!plane || iw <= 0 || ih <= 0) {
        status = cth_fail(out, CTH_ERR_CORRUPT, "the decoded HEIF image has no pixels");
        goto done;
    }
    if ((uint32_t)iw != width || (uint32_t)ih != height) {
        /* A coded stream larger (or smaller) than the size the file declares: a bomb, or broken. */
        status = cth_fail(out, CTH_ERR_CORRUPT, "the coded image is %d x %d where the file declares %u x %u", iw, ih, width, height);
        goto done;
    }
    uint32_t target_width, target_height;
    cth_target_size(width, height, request->box, request->orientation, &target_width, &target_height);
    out->decoded_width = width;
    out->decoded_height = height;
    cth_resizer resizer;
    if (cth_resizer_init(&resizer, width, height, target_width, target_height, alpha ? 4 : 3) != CTH_OK) {
        status = cth_fail(out, CTH_ERR_MEMORY, "out of memory");
        goto done;
    }
    for (uint32_t y = 0; y < height; y++) cth_resizer_push(&resizer, plane + (size_t)y * (size_t)stride);
    request->raster = cth_resizer_finish(&resizer);
    cth_resizer_free(&resizer);

done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(context);
    return status;
}
