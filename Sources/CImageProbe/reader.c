#include "probe_shared.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void cip_reader_init_fd(cip_reader *r, int fd, uint64_t size) {
    r->fd = fd;
    r->mem = NULL;
    r->size = size;
    r->pos = 0;
    r->next = r->end = 0;
    r->fill_size = CIP_BUF_SIZE;
    r->io_errno = 0;
    r->bytes_read = 0;
}

void cip_reader_init_memory(cip_reader *r, const uint8_t *data, size_t length) {
    cip_reader_init_fd(r, -1, length);
    r->mem = data;
}

/* Reads from the file into the buffer, from r->end up to `want` bytes in it. */
static void read_up_to(cip_reader *r, size_t want) {
    while (r->end < want) {
        ssize_t got = pread(r->fd, r->buf + r->end, want - r->end, (off_t)(r->pos + r->end));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) { r->io_errno = errno; break; }
        if (got == 0) break; /* the file shrank under us: treat as its end */
        r->end += (size_t)got;
    }
}

size_t cip_reader_fill(cip_reader *r) {
    r->next = r->end = 0;
    if (r->pos >= r->size || r->io_errno != 0) return 0;
    uint64_t left = r->size - r->pos;
    size_t want = left < r->fill_size ? (size_t)left : r->fill_size;
    r->fill_size = r->fill_size * 2 < CIP_BUF_SIZE ? r->fill_size * 2 : CIP_BUF_SIZE;
    if (r->fd < 0) {
        memcpy(r->buf, r->mem + r->pos, want);
        r->end = want;
    } else {
        read_up_to(r, want);
    }
    r->pos += r->end;
    r->bytes_read += r->end;
    return r->end;
}

size_t cip_reader_fill_from(cip_reader *r, const uint8_t *head, size_t length) {
    size_t want = r->size < CIP_BUF_SIZE ? (size_t)r->size : CIP_BUF_SIZE;
    if (length > want) length = want;
    memcpy(r->buf, head, length);
    r->next = 0;
    r->end = length;
    read_up_to(r, want); /* the rest of a first fill that the caller did not read */
    r->pos = r->end;
    r->bytes_read = r->end;
    return r->end;
}

size_t cip_reader_read(cip_reader *r, uint8_t *dst, size_t n) {
    size_t done = 0;
    while (done < n) {
        if (r->next == r->end && cip_reader_fill(r) == 0) break;
        size_t take = r->end - r->next;
        if (take > n - done) take = n - done;
        memcpy(dst + done, r->buf + r->next, take);
        r->next += take;
        done += take;
    }
    return done;
}

void cip_reader_skip(cip_reader *r, uint64_t n) {
    size_t buffered = r->end - r->next;
    if (n <= buffered) {
        r->next += (size_t)n;
        return;
    }
    n -= buffered;
    r->next = r->end = 0;
    r->fill_size = CIP_SEEK_READ;
    r->pos = (r->size - r->pos < n) ? r->size : r->pos + n;
}
