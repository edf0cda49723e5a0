/*
 * Internal to CImageProbe: the shared helpers every format reader may use (the buffered
 * reader, the EXIF parser, the error text).
 *
 * Calls run one way: the dispatcher (probe.c) -> the format readers (jpeg_probe.c,
 * png_probe.c; declared in format_probes.h, which only the dispatcher includes) -> these
 * helpers (reader.c, exif.c, failure.c). A helper never calls a format reader, and a format
 * reader never calls the dispatcher. A new format's reader is one file that includes this
 * header, plus one line in format_probes.h and one case in the dispatcher.
 */
#ifndef CIMAGEPROBE_SHARED_H
#define CIMAGEPROBE_SHARED_H

#include "cimageprobe.h"

#include <setjmp.h>
#include <stdint.h>
#include <stddef.h>

/* The first read gets this many bytes: all of a small file, or its header and first segments. */
#define CIP_BUF_SIZE CIP_HEAD_SIZE

/* A read after a skip gets this many, doubling on each sequential read up to CIP_BUF_SIZE:
   after an ICC profile or a thumbnail, the next marker is usually a few bytes away, and a run
   of skipped segments must not cost a full buffer each. */
#define CIP_SEEK_READ 1024

/* The largest EXIF block (TIFF structure) the parser holds; offsets past it are ignored. */
#define CIP_EXIF_MAX (256u * 1024u)

/* The largest Exif item of a HEIF file that is read (libheif hands it over whole, where the
   other formats' blocks are read a part at a time): a block with a large preview image. Past
   it the date is not read: a scan reads at most this much more for a file. */
#define CIP_EXIF_ITEM_MAX (1024u * 1024u)

/*
 * A forward-only reader over a file descriptor (pread at an explicit offset, so a skip is
 * just an addition: no syscall, no bytes read) or over memory.
 */
typedef struct {
    int fd;                /* -1 for memory */
    const uint8_t *mem;
    uint64_t size;         /* total bytes in the file or buffer */
    uint64_t pos;          /* offset of the byte after the buffer's end */
    size_t next;           /* first unconsumed byte in buf */
    size_t end;            /* one past the last valid byte in buf */
    size_t fill_size;      /* bytes the next fill asks for */
    int io_errno;          /* set when pread failed */
    uint64_t bytes_read;   /* everything fill copied in, for tests and benchmarks */
    uint8_t buf[CIP_BUF_SIZE];
} cip_reader;

void cip_reader_init_fd(cip_reader *r, int fd, uint64_t size);
void cip_reader_init_memory(cip_reader *r, const uint8_t *data, size_t length);

/* The first fill of a reader over a file descriptor, from the file's first `length` bytes that
   the caller has read (those past what a first fill gets are not used), and from the file for
   the rest of a first fill; returns how many bytes the buffer holds, as cip_reader_fill does. */
size_t cip_reader_fill_from(cip_reader *r, const uint8_t *head, size_t length);

/* Replaces the buffer's contents with the next bytes; returns how many (0 at the end or on error). */
size_t cip_reader_fill(cip_reader *r);

/* Copies up to n bytes; returns how many were available. */
size_t cip_reader_read(cip_reader *r, uint8_t *dst, size_t n);

/* Moves past n bytes without reading those that are not buffered yet. */
void cip_reader_skip(cip_reader *r, uint64_t n);

/* What the EXIF parser extracts. */
typedef struct {
    int32_t orientation;         /* 1...8, or 0 when absent */
    cip_date dates[CIP_DATES];   /* DateTimeOriginal (0x9003), DateTimeDigitized (0x9004), DateTime
                                    (0x0132), with OffsetTimeOriginal, OffsetTimeDigitized and
                                    OffsetTime (0x9011, 0x9012, 0x9010); "" when absent */
} cip_exif;

enum { CIP_EXIF_DONE = 0, CIP_EXIF_NEED_MORE = 1 };

/*
 * Parses a TIFF structure (what follows "Exif\0\0" in a JPEG APP1, or a PNG eXIf chunk).
 * `avail` bytes of the block are in `tiff`, `total` is the block's full length. Every offset
 * is checked against `total`; a value that lies in the block but past `avail` makes the call
 * return CIP_EXIF_NEED_MORE with *need set to the bytes required. Broken structures are not
 * errors: what could be read is kept.
 */
int cip_exif_parse(const uint8_t *tiff, size_t avail, size_t total, cip_exif *out, size_t *need);

/*
 * Consumes exactly `length` bytes from the reader holding an EXIF block: reads only the parts
 * the parser asks for and skips the rest (thumbnails are never read). Returns 0, or -1 when
 * the reader ran out of data first.
 */
int cip_exif_read(cip_reader *r, uint64_t length, cip_exif *out);

/* The same, for a block whose first `first_length` bytes the caller has read already (a WebP
   EXIF chunk's first six, read to tell whether "Exif\0\0" prefixes it); `length` counts them. */
int cip_exif_read_from(cip_reader *r, const uint8_t *first, size_t first_length, uint64_t length, cip_exif *out);

/* Copies the parsed EXIF fields into a result: orientation (default 1), then the dates. */
void cip_exif_apply(const cip_exif *exif, cip_result *out);

/* Sets out->message (printf style) and returns status. */
int cip_fail(cip_result *out, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
