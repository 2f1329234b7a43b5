/* SPDX-License-Identifier: Apache-2.0 */
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[512];

int mlp_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -1;
}

const char *mlp_error_last(void)
{
	return last_error;
}

static void out_of_memory(size_t size)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void bytebuf_release(struct bytebuf *bb)
{
	free(bb->buf);
	bb->buf = NULL;
	bb->alloc = bb->len = 0;
}

static void bytebuf_grow(struct bytebuf *bb, size_t extra)
{
	size_t want = bb->len + extra;
	unsigned char *p;

	if (want <= bb->alloc)
		return;
	if (want < bb->alloc * 2)
		want = bb->alloc * 2;
	if (want < 256)
		want = 256;
	p = realloc(bb->buf, want);
	if (!p)
		out_of_memory(want);
	bb->buf = p;
	bb->alloc = want;
}

void bytebuf_put(struct bytebuf *bb, const void *data, size_t len)
{
	bytebuf_grow(bb, len);
	memcpy(bb->buf + bb->len, data, len);
	bb->len += len;
}

void bytebuf_put_u16(struct bytebuf *bb, uint16_t v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	bytebuf_put(bb, b, sizeof(b));
}

void bytebuf_put_u32(struct bytebuf *bb, uint32_t v)
{
	unsigned char b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	bytebuf_put(bb, b, sizeof(b));
}

void bytebuf_put_u64(struct bytebuf *bb, uint64_t v)
{
	bytebuf_put_u32(bb, (uint32_t)v);
	bytebuf_put_u32(bb, (uint32_t)(v >> 32));
}

void bytebuf_put_f32(struct bytebuf *bb, float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	bytebuf_put_u32(bb, bits);
}

int cursor_get(struct cursor *c, void *out, size_t len)
{
	if (c->left < len)
		return -1;
	memcpy(out, c->p, len);
	c->p += len;
	c->left -= len;
	return 0;
}

int cursor_get_u16(struct cursor *c, uint16_t *out)
{
	if (c->left < 2)
		return -1;
	*out = (uint16_t)(c->p[0] | c->p[1] << 8);
	c->p += 2;
	c->left -= 2;
	return 0;
}

int cursor_get_u32(struct cursor *c, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	if (c->left < 4)
		return -1;
	for (i = 3; i >= 0; i--)
		v = v << 8 | c->p[i];
	*out = v;
	c->p += 4;
	c->left -= 4;
	return 0;
}

int cursor_get_u64(struct cursor *c, uint64_t *out)
{
	uint32_t lo, hi;

	if (c->left < 8)
		return -1;
	cursor_get_u32(c, &lo);
	cursor_get_u32(c, &hi);
	*out = (uint64_t)hi << 32 | lo;
	return 0;
}

int cursor_get_f32(struct cursor *c, float *out)
{
	uint32_t bits;

	if (cursor_get_u32(c, &bits) < 0)
		return -1;
	memcpy(out, &bits, sizeof(*out));
	return 0;
}

uint32_t crc32_ieee(const void *data, size_t len)
{
	static uint32_t table[256];
	static int table_ready;
	const unsigned char *p = data;
	uint32_t crc = 0xffffffffu;
	size_t i;

	if (!table_ready) {
		uint32_t n, k, c;

		for (n = 0; n < 256; n++) {
			c = n;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[n] = c;
		}
		table_ready = 1;
	}
	for (i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

int file_read_all(struct bytebuf *out, const char *path, size_t cap)
{
	unsigned char chunk[65536];
	FILE *f;
	size_t n;
	int error = 0;

	f = fopen(path, "rb");
	if (!f)
		return mlp_error("cannot open '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->len + n > cap) {
			error = mlp_error("'%s' is larger than %zu bytes", path,
					  cap);
			goto done;
		}
		bytebuf_put(out, chunk, n);
	}
	if (ferror(f))
		error = mlp_error("cannot read '%s': %s", path,
				  strerror(errno));
done:
	fclose(f);
	return error;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[4096];
	FILE *f;
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return mlp_error("path too long: '%s'", path);
	f = fopen(tmp, "wb");
	if (!f)
		return mlp_error("cannot create '%s': %s", tmp,
				 strerror(errno));
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		remove(tmp);
		return mlp_error("cannot write '%s': %s", tmp, strerror(errno));
	}
	if (fclose(f) != 0) {
		remove(tmp);
		return mlp_error("cannot write '%s': %s", tmp, strerror(errno));
	}
	if (rename(tmp, path) != 0) {
		remove(tmp);
		return mlp_error("cannot rename '%s' to '%s': %s", tmp, path,
				 strerror(errno));
	}
	return 0;
}
