/* SPDX-License-Identifier: Apache-2.0 */
#ifndef MLP_UTIL_H
#define MLP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Small helpers shared by mlp_train and mlp_bench: one recorded error
 * message, allocation that aborts on exhaustion, a growable byte buffer
 * with little-endian writers, a bounds-checked little-endian reader, CRC-32
 * and whole-file I/O.
 *
 * The workload deliberately does not link the harness: it is an example of
 * an ordinary benchmark program that only speaks the metrics file protocol.
 */

/* Records the formatted message (replacing the last one) and returns -1. */
int mlp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last recorded message; "" when none. Borrowed until the next record. */
const char *mlp_error_last(void);

/* Out of memory is not an error path: these print and abort. */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);

/* Bytes being encoded. `buf` is NULL until the first put. */
struct bytebuf {
	size_t alloc, len;
	unsigned char *buf;
};

#define BYTEBUF_INIT       \
	{                  \
		0, 0, NULL \
	}

void bytebuf_release(struct bytebuf *bb);
void bytebuf_put(struct bytebuf *bb, const void *data, size_t len);
void bytebuf_put_u16(struct bytebuf *bb, uint16_t v);
void bytebuf_put_u32(struct bytebuf *bb, uint32_t v);
void bytebuf_put_u64(struct bytebuf *bb, uint64_t v);
void bytebuf_put_f32(struct bytebuf *bb, float v);

/*
 * Bytes being decoded. Every getter returns 0, or -1 without consuming
 * anything when fewer bytes are left than it needs, so a truncated file is
 * always caught by the getter that runs past its end.
 */
struct cursor {
	const unsigned char *p;
	size_t left;
};

int cursor_get(struct cursor *c, void *out, size_t len);
int cursor_get_u16(struct cursor *c, uint16_t *out);
int cursor_get_u32(struct cursor *c, uint32_t *out);
int cursor_get_u64(struct cursor *c, uint64_t *out);
int cursor_get_f32(struct cursor *c, float *out);

/* CRC-32 (IEEE 802.3, the one zlib and PNG use) of `len` bytes. */
uint32_t crc32_ieee(const void *data, size_t len);

/*
 * Reads the whole of `path` into `out` (which must be empty). Fails with a
 * recorded message when the file cannot be read or is larger than `cap`.
 */
int file_read_all(struct bytebuf *out, const char *path, size_t cap);

/*
 * Writes `len` bytes to `path` through a temporary file and rename(), so a
 * reader (or an interrupted build) never sees half a file.
 */
int file_write_atomic(const char *path, const void *data, size_t len);

#endif
