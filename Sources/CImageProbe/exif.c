/*
 * A small, bounded EXIF reader: IFD0's Orientation (0x0112) and DateTime (0x0132), and the
 * Exif sub-IFD's DateTimeOriginal (0x9003), DateTimeDigitized (0x9004) and their zone offsets
 * (OffsetTime 0x9010, OffsetTimeOriginal 0x9011, OffsetTimeDigitized 0x9012). Both byte orders. Every offset is checked against
 * the block's length; no pointer is followed more than once; nothing is searched for.
 */
#include "probe_shared.h"

#include <stdlib.h>
#include <string.h>

enum {
    TAG_ORIENTATION = 0x0112,
    TAG_DATETIME = 0x0132,
    TAG_EXIF_IFD = 0x8769,
    TAG_DATETIME_ORIGINAL = 0x9003,
    TAG_DATETIME_DIGITIZED = 0x9004,
    TAG_OFFSET_TIME = 0x9010,
    TAG_OFFSET_TIME_ORIGINAL = 0x9011,
    TAG_OFFSET_TIME_DIGITIZED = 0x9012,
    EXIF_OFFSET_CHARS = 6,
    TYPE_ASCII = 2,
    TYPE_SHORT = 3,
    TYPE_LONG = 4,
    TYPE_IFD = 13, /* an offset, as LONG: some writers type the Exif pointer so (TIFF/EP) */
    EXIF_DATE_CHARS = 19
};

typedef struct {
    const uint8_t *p;
    size_t avail;
    size_t total;
    int little;
    size_t need; /* set when a read needed bytes past avail */
} tiff;

/* 1 if [off, off+len) is readable, 0 if it lies outside the block or is not read yet. */
static int tiff_has(tiff *t, uint64_t off, uint64_t len) {
    if (off > t->total || len > t->total - off) return 0;
    if (off + len > t->avail) {
        if (off + len > t->need) t->need = (size_t)(off + len);
        return 0;
    }
    return 1;
}

static uint32_t tiff_u16(const tiff *t, size_t off) {
    const uint8_t *b = t->p + off;
    return t->little ? (uint32_t)(b[0] | b[1] << 8) : (uint32_t)(b[0] << 8 | b[1]);
}

static uint32_t tiff_u32(const tiff *t, size_t off) {
    const uint8_t *b = t->p + off;
    return t->little ? ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24)
                     : ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3]);
}

/* An ASCII entry's first `chars` bytes (chars > 4: the value is always at an offset), or NULL
 * when the entry is of another type, shorter, or not within the block. */
static const char *ascii_value(tiff *t, size_t entry, uint32_t chars) {
    if (tiff_u16(t, entry + 2) != TYPE_ASCII || tiff_u32(t, entry + 4) < chars) return NULL;
    uint32_t off = tiff_u32(t, entry + 8);
    return tiff_has(t, off, chars) ? (const char *)t->p + off : NULL;
}

/* Copies an EXIF date ("YYYY:MM:DD HH:MM:SS") if its shape is right; values are checked in Swift. */
static void read_date(tiff *t, size_t entry, char dst[CIP_DATE_LEN]) {
    const char *s = ascii_value(t, entry, EXIF_DATE_CHARS);
    if (s == NULL) return;
    static const char shape[] = "dddd:dd:dd dd:dd:dd";
    for (int i = 0; i < EXIF_DATE_CHARS; i++) {
        char c = s[i];
        if (shape[i] == 'd' ? (c < '0' || c > '9') : (c != shape[i] && !(i < 10 && c == '-') && !(i == 10 && c == 'T')))
            return;
    }
    memcpy(dst, s, EXIF_DATE_CHARS);
    dst[4] = dst[7] = ':';
    dst[10] = ' ';
    dst[EXIF_DATE_CHARS] = '\0';
}

/* Copies an EXIF zone offset ("+HH:MM", "-HH:MM") if its shape is right; values are checked in Swift. */
static void read_offset(tiff *t, size_t entry, char dst[CIP_OFFSET_LEN]) {
    const char *s = ascii_value(t, entry, EXIF_OFFSET_CHARS);
    if (s == NULL) return;
    static const char shape[] = "sdd:dd";
    for (int i = 0; i < EXIF_OFFSET_CHARS; i++) {
        char c = s[i];
        if (shape[i] == 'd' ? (c < '0' || c > '9') : shape[i] == 's' ? (c != '+' && c != '-') : c != shape[i]) return;
    }
    memcpy(dst, s, EXIF_OFFSET_CHARS);
    dst[EXIF_OFFSET_CHARS] = '\0';
}

/* Scans one IFD; returns the Exif sub-IFD offset found in it, or 0. */
static uint32_t scan_ifd(tiff *t, uint32_t ifd, cip_exif *out, int is_ifd0) {
    if (ifd < 8 || !tiff_has(t, ifd, 2)) return 0;
    uint32_t count = tiff_u16(t, ifd);
    uint32_t sub = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (!tiff_has(t, entry, 12)) break;
        uint32_t tag = tiff_u16(t, entry);
        if (is_ifd0 && tag == TAG_ORIENTATION) {
            uint32_t type = tiff_u16(t, entry + 2);
            uint32_t value = type == TYPE_SHORT ? tiff_u16(t, entry + 8)
                           : type == TYPE_LONG ? tiff_u32(t, entry + 8) : 0;
            if (value >= 1 && value <= 8) out->orientation = (int32_t)value;
        } else if (is_ifd0 && tag == TAG_DATETIME) {
            read_date(t, entry, out->dates[CIP_DATE_MODIFIED].date);
        } else if (is_ifd0 && tag == TAG_EXIF_IFD
                   && (tiff_u16(t, entry + 2) == TYPE_LONG || tiff_u16(t, entry + 2) == TYPE_IFD)) {
            sub = tiff_u32(t, entry + 8);
        } else if (!is_ifd0 && tag == TAG_DATETIME_ORIGINAL) {
            read_date(t, entry, out->dates[CIP_DATE_ORIGINAL].date);
        } else if (!is_ifd0 && tag == TAG_DATETIME_DIGITIZED) {
            read_date(t, entry, out->dates[CIP_DATE_DIGITIZED].date);
        } else if (!is_ifd0 && tag == TAG_OFFSET_TIME) {
            read_offset(t, entry, out->dates[CIP_DATE_MODIFIED].offset);
        } else if (!is_ifd0 && tag == TAG_OFFSET_TIME_ORIGINAL) {
            read_offset(t, entry, out->dates[CIP_DATE_ORIGINAL].offset);
        } else if (!is_ifd0 && tag == TAG_OFFSET_TIME_DIGITIZED) {
            read_offset(t, entry, out->dates[CIP_DATE_DIGITIZED].offset);
        }
    }
    return sub;
}

int cip_exif_parse(const uint8_t *p, size_t avail, size_t total, cip_exif *out, size_t *need) {
    memset(out, 0, sizeof *out);
    tiff t = { .p = p, .avail = avail < total ? avail : total, .total = total, .little = 0, .need = 0 };
    if (!tiff_has(&t, 0, 8)) goto finish;
    if (p[0] == 'I' && p[1] == 'I') t.little = 1;
    else if (!(p[0] == 'M' && p[1] == 'M')) goto finish;
    if (tiff_u16(&t, 2) != 42) goto finish;
    uint32_t sub = scan_ifd(&t, tiff_u32(&t, 4), out, 1);
    if (sub != 0) scan_ifd(&t, sub, out, 0);
finish:
    *need = t.need;
    return t.need > 0 ? CIP_EXIF_NEED_MORE : CIP_EXIF_DONE;
}

int cip_exif_read(cip_reader *r, uint64_t length, cip_exif *out) {
    return cip_exif_read_from(r, NULL, 0, length, out);
}

int cip_exif_read_from(cip_reader *r, const uint8_t *first, size_t first_length, uint64_t length, cip_exif *out) {
    memset(out, 0, sizeof *out);
    if (first_length > length) return -1; /* more read than the block holds: the caller's mistake */
    size_t cap = length < CIP_EXIF_MAX ? (size_t)length : CIP_EXIF_MAX;
    uint8_t *block = cap > 0 ? malloc(cap) : NULL;
    size_t have = first_length; /* the block's bytes taken from the reader */
    if (block != NULL) {
        if (first_length > 0) memcpy(block, first, first_length);
        size_t want = cap < 4096 ? cap : 4096;
        if (want < have) want = have;
        for (;;) {
            size_t got = cip_reader_read(r, block + have, want - have);
            have += got;
            if (have < want) { free(block); return -1; }
            size_t need = 0;
            if (cip_exif_parse(block, have, cap, out, &need) == CIP_EXIF_DONE || need <= have) break;
            want = need > have * 2 ? need : have * 2; /* grow geometrically: a few reads at most */
            if (want > cap) want = cap;
        }
        free(block);
    }
    if (r->size - r->pos + (r->end - r->next) < length - have) { cip_reader_skip(r, length - have); return -1; }
    cip_reader_skip(r, length - have);
    return 0;
}

void cip_exif_apply(const cip_exif *exif, cip_result *out) {
    out->orientation = exif->orientation != 0 ? exif->orientation : 1;
    memcpy(out->dates, exif->dates, sizeof out->dates);
}
