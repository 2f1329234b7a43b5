/* SPDX-License-Identifier: Apache-2.0 */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MLP_MAX_BYTES ((size_t)256 << 20)

const char *mlp_kind_name(enum mlp_kind kind)
{
	switch (kind) {
	case MLP_FP32:
		return "fp32";
	case MLP_INT8:
		return "int8";
	case MLP_PRUNED:
		return "pruned";
	case MLP_DISTILLED:
		return "distilled";
	}
	return "unknown";
}

const char *mlp_variant_name(enum mlp_kind kind)
{
	switch (kind) {
	case MLP_FP32:
		return "original";
	case MLP_INT8:
		return "quantized";
	case MLP_PRUNED:
		return "pruned";
	case MLP_DISTILLED:
		return "distilled";
	}
	return "unknown";
}

static int is_dense_f32(enum mlp_kind kind)
{
	return kind == MLP_FP32 || kind == MLP_DISTILLED;
}

void mlp_init(struct mlp *m, enum mlp_kind kind, uint64_t data_seed,
	      uint32_t layers, const uint32_t *width)
{
	uint32_t l;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->data_seed = data_seed;
	m->layers = layers;
	memcpy(m->width, width, (layers + 1) * sizeof(*width));
	for (l = 0; l < layers; l++) {
		struct mlp_layer *layer = &m->layer[l];
		size_t in = width[l], out = width[l + 1];

		layer->in = width[l];
		layer->out = width[l + 1];
		if (is_dense_f32(kind))
			layer->weight = xcalloc(in * out, sizeof(float));
		if (kind != MLP_INT8)
			layer->bias = xcalloc(out, sizeof(float));
		if (kind == MLP_INT8) {
			layer->weight_scale = xcalloc(out, sizeof(float));
			layer->qweight = xcalloc(in * out, sizeof(int8_t));
			layer->qbias = xcalloc(out, sizeof(int32_t));
		}
		if (kind == MLP_PRUNED)
			layer->row_start = xcalloc(out + 1, sizeof(uint32_t));
	}
}

void mlp_layer_alloc_sparse(struct mlp_layer *layer, uint32_t nnz)
{
	free(layer->column);
	free(layer->value);
	layer->nnz = nnz;
	layer->column = xcalloc(nnz, sizeof(uint16_t));
	layer->value = xcalloc(nnz, sizeof(float));
}

void mlp_release(struct mlp *m)
{
	uint32_t l;

	if (!m)
		return;
	for (l = 0; l < MLP_MAX_LAYERS; l++) {
		struct mlp_layer *layer = &m->layer[l];

		free(layer->weight);
		free(layer->bias);
		free(layer->weight_scale);
		free(layer->qweight);
		free(layer->qbias);
		free(layer->row_start);
		free(layer->column);
		free(layer->value);
	}
	memset(m, 0, sizeof(*m));
}

static void put_f32s(struct bytebuf *bb, const float *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bytebuf_put_f32(bb, v[i]);
}

static void encode_layer(struct bytebuf *bb, enum mlp_kind kind,
			 const struct mlp_layer *layer)
{
	size_t i, n = (size_t)layer->in * layer->out;

	switch (kind) {
	case MLP_FP32:
	case MLP_DISTILLED:
		put_f32s(bb, layer->weight, n);
		put_f32s(bb, layer->bias, layer->out);
		break;
	case MLP_INT8:
		bytebuf_put_f32(bb, layer->input_scale);
		put_f32s(bb, layer->weight_scale, layer->out);
		bytebuf_put(bb, layer->qweight, n);
		for (i = 0; i < layer->out; i++)
			bytebuf_put_u32(bb, (uint32_t)layer->qbias[i]);
		break;
	case MLP_PRUNED:
		bytebuf_put_u32(bb, layer->nnz);
		for (i = 0; i <= layer->out; i++)
			bytebuf_put_u32(bb, layer->row_start[i]);
		for (i = 0; i < layer->nnz; i++)
			bytebuf_put_u16(bb, layer->column[i]);
		put_f32s(bb, layer->value, layer->nnz);
		put_f32s(bb, layer->bias, layer->out);
		break;
	}
}

int mlp_save(const struct mlp *m, const char *path)
{
	struct bytebuf bb = BYTEBUF_INIT;
	uint32_t l;
	int error;

	bytebuf_put(&bb, MLP_MAGIC, 4);
	bytebuf_put_u32(&bb, MLP_VERSION);
	bytebuf_put_u32(&bb, (uint32_t)m->kind);
	bytebuf_put_u32(&bb, m->layers);
	bytebuf_put_u64(&bb, m->data_seed);
	for (l = 0; l <= m->layers; l++)
		bytebuf_put_u32(&bb, m->width[l]);
	for (l = 0; l < m->layers; l++)
		encode_layer(&bb, m->kind, &m->layer[l]);
	bytebuf_put_u32(&bb, crc32_ieee(bb.buf, bb.len));
	error = file_write_atomic(path, bb.buf, bb.len);
	bytebuf_release(&bb);
	return error;
}

/*
 * Decoding. Each get_* reads `n` values and fails on a short payload or a
 * value the kernels cannot take, naming the layer and the field.
 */
struct decoder {
	const char *path;
	struct cursor cur;
	uint32_t layer;
};

static int short_payload(const struct decoder *d, const char *field)
{
	return mlp_error("%s: layer %u: truncated in '%s'", d->path, d->layer,
			 field);
}

static int get_f32s(struct decoder *d, const char *field, float *v, size_t n)
{
	size_t i;

	if (d->cur.left / 4 < n)
		return short_payload(d, field);
	for (i = 0; i < n; i++) {
		cursor_get_f32(&d->cur, &v[i]);
		if (!isfinite(v[i]))
			return mlp_error("%s: layer %u: '%s'[%zu] is not "
					 "finite",
					 d->path, d->layer, field, i);
	}
	return 0;
}

static int get_scales(struct decoder *d, const char *field, float *v, size_t n)
{
	size_t i;

	if (get_f32s(d, field, v, n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!(v[i] > 0))
			return mlp_error("%s: layer %u: '%s'[%zu] = %g, "
					 "expected > 0",
					 d->path, d->layer, field, i,
					 (double)v[i]);
	return 0;
}

static int decode_int8(struct decoder *d, struct mlp_layer *layer)
{
	size_t i, n = (size_t)layer->in * layer->out;

	if (get_scales(d, "input_scale", &layer->input_scale, 1) < 0 ||
	    get_scales(d, "weight_scale", layer->weight_scale, layer->out) < 0)
		return -1;
	if (cursor_get(&d->cur, layer->qweight, n) < 0)
		return short_payload(d, "weight");
	/* -128 has no positive twin: the symmetric kernels never produce it. */
	for (i = 0; i < n; i++)
		if (layer->qweight[i] == INT8_MIN)
			return mlp_error("%s: layer %u: weight %zu is -128, "
					 "expected -127..127",
					 d->path, d->layer, i);
	for (i = 0; i < layer->out; i++) {
		uint32_t v;

		if (cursor_get_u32(&d->cur, &v) < 0)
			return short_payload(d, "bias");
		memcpy(&layer->qbias[i], &v, sizeof(v));
	}
	return 0;
}

static int decode_csr_rows(struct decoder *d, struct mlp_layer *layer)
{
	uint32_t j, p;

	if (layer->row_start[0] != 0 ||
	    layer->row_start[layer->out] != layer->nnz)
		return mlp_error("%s: layer %u: row_start must run from 0 to "
				 "nnz %u",
				 d->path, d->layer, layer->nnz);
	for (j = 0; j < layer->out; j++) {
		uint32_t begin = layer->row_start[j];
		uint32_t end = layer->row_start[j + 1];

		if (end < begin || end > layer->nnz)
			return mlp_error("%s: layer %u: row_start[%u] = %u "
					 "out of order",
					 d->path, d->layer, j + 1, end);
		for (p = begin; p < end; p++)
			if (layer->column[p] >= layer->in ||
			    (p > begin &&
			     layer->column[p] <= layer->column[p - 1]))
				return mlp_error("%s: layer %u: row %u: bad "
						 "column %u",
						 d->path, d->layer, j,
						 layer->column[p]);
	}
	return 0;
}

static int decode_pruned(struct decoder *d, struct mlp_layer *layer)
{
	uint32_t nnz, i;

	if (cursor_get_u32(&d->cur, &nnz) < 0)
		return short_payload(d, "nnz");
	if ((uint64_t)nnz > (uint64_t)layer->in * layer->out)
		return mlp_error("%s: layer %u: nnz %u > %u x %u", d->path,
				 d->layer, nnz, layer->in, layer->out);
	/* Each entry takes 6 bytes: refuse a huge nnz before allocating. */
	if (d->cur.left / 6 < nnz)
		return short_payload(d, "value");
	mlp_layer_alloc_sparse(layer, nnz);
	for (i = 0; i <= layer->out; i++)
		if (cursor_get_u32(&d->cur, &layer->row_start[i]) < 0)
			return short_payload(d, "row_start");
	for (i = 0; i < nnz; i++)
		if (cursor_get_u16(&d->cur, &layer->column[i]) < 0)
			return short_payload(d, "column");
	if (get_f32s(d, "value", layer->value, nnz) < 0 ||
	    get_f32s(d, "bias", layer->bias, layer->out) < 0)
		return -1;
	return decode_csr_rows(d, layer);
}

static int decode_layer(struct decoder *d, enum mlp_kind kind,
			struct mlp_layer *layer)
{
	size_t n = (size_t)layer->in * layer->out;

	switch (kind) {
	case MLP_FP32:
	case MLP_DISTILLED:
		if (get_f32s(d, "weight", layer->weight, n) < 0)
			return -1;
		return get_f32s(d, "bias", layer->bias, layer->out);
	case MLP_INT8:
		return decode_int8(d, layer);
	case MLP_PRUNED:
		return decode_pruned(d, layer);
	}
	return mlp_error("%s: unknown kind %d", d->path, (int)kind);
}

static int decode_header(struct decoder *d, uint32_t *kind, uint64_t *seed,
			 uint32_t *layers, uint32_t *width)
{
	uint32_t version, l;
	char magic[4];

	if (cursor_get(&d->cur, magic, 4) < 0 || memcmp(magic, MLP_MAGIC, 4))
		return mlp_error("%s: not a benchgate MLP model (bad magic)",
				 d->path);
	if (cursor_get_u32(&d->cur, &version) < 0 || version != MLP_VERSION)
		return mlp_error("%s: unsupported model version %u (this build "
				 "reads %u)",
				 d->path, version, MLP_VERSION);
	if (cursor_get_u32(&d->cur, kind) < 0 ||
	    cursor_get_u32(&d->cur, layers) < 0 ||
	    cursor_get_u64(&d->cur, seed) < 0)
		return mlp_error("%s: truncated header", d->path);
	if (*kind < MLP_FP32 || *kind > MLP_DISTILLED)
		return mlp_error("%s: unknown model kind %u (expected 1..4)",
				 d->path, *kind);
	if (*layers < 1 || *layers > MLP_MAX_LAYERS)
		return mlp_error("%s: %u layers, expected 1..%d", d->path,
				 *layers, MLP_MAX_LAYERS);
	for (l = 0; l <= *layers; l++) {
		if (cursor_get_u32(&d->cur, &width[l]) < 0)
			return mlp_error("%s: truncated header", d->path);
		if (width[l] < 1 || width[l] > 65535)
			return mlp_error("%s: width[%u] = %u, expected "
					 "1..65535",
					 d->path, l, width[l]);
	}
	return 0;
}

static int decode(struct mlp *out, struct decoder *d)
{
	uint32_t kind, layers, width[MLP_MAX_LAYERS + 1] = { 0 };
	uint64_t seed, n = 0;
	uint32_t l;

	if (decode_header(d, &kind, &seed, &layers, width) < 0)
		return -1;
	/* Dense payloads dominate: refuse absurd shapes before allocating. */
	for (l = 0; l < layers; l++)
		n += (uint64_t)width[l] * width[l + 1];
	if (kind != MLP_PRUNED && n > d->cur.left)
		return mlp_error("%s: %u layers of %llu weights do not fit in "
				 "%zu bytes",
				 d->path, layers, (unsigned long long)n,
				 d->cur.left);
	mlp_init(out, (enum mlp_kind)kind, seed, layers, width);
	for (l = 0; l < layers; l++) {
		d->layer = l;
		if (decode_layer(d, out->kind, &out->layer[l]) < 0)
			return -1;
	}
	if (d->cur.left)
		return mlp_error("%s: %zu unexpected bytes after the last "
				 "layer",
				 d->path, d->cur.left);
	return 0;
}

int mlp_load(struct mlp *out, size_t *file_bytes, const char *path)
{
	struct bytebuf bb = BYTEBUF_INIT;
	struct decoder d = { path, { NULL, 0 }, 0 };
	struct cursor tail;
	uint32_t stored;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = file_read_all(&bb, path, MLP_MAX_BYTES)) < 0)
		goto done;
	*file_bytes = bb.len;
	if (bb.len == 0) {
		error = mlp_error("%s: empty file", path);
		goto done;
	}
	/* Name a foreign file as such before calling it corrupt. */
	if (bb.len < 4 || memcmp(bb.buf, MLP_MAGIC, 4)) {
		error = mlp_error("%s: not a benchgate MLP model (bad magic)",
				  path);
		goto done;
	}
	if (bb.len < 8) {
		error = mlp_error("%s: truncated header", path);
		goto done;
	}
	tail.p = bb.buf + bb.len - 4;
	tail.left = 4;
	cursor_get_u32(&tail, &stored);
	if (stored != crc32_ieee(bb.buf, bb.len - 4)) {
		error = mlp_error("%s: checksum mismatch: the file is "
				  "truncated or corrupt",
				  path);
		goto done;
	}
	d.cur.p = bb.buf;
	d.cur.left = bb.len - 4;
	error = decode(out, &d);
done:
	if (error < 0)
		mlp_release(out);
	bytebuf_release(&bb);
	return error;
}

uint64_t mlp_params(const struct mlp *m)
{
	uint64_t n = 0;
	uint32_t l;

	for (l = 0; l < m->layers; l++)
		n += (uint64_t)m->layer[l].in * m->layer[l].out +
		     m->layer[l].out;
	return n;
}

static uint64_t count_nonzero_f32(const float *v, size_t n)
{
	uint64_t count = 0;
	size_t i;

	for (i = 0; i < n; i++)
		count += v[i] != 0;
	return count;
}

uint64_t mlp_nonzero_params(const struct mlp *m)
{
	uint64_t n = 0;
	uint32_t l;
	size_t i;

	for (l = 0; l < m->layers; l++) {
		const struct mlp_layer *layer = &m->layer[l];
		size_t w = (size_t)layer->in * layer->out;

		switch (m->kind) {
		case MLP_FP32:
		case MLP_DISTILLED:
			n += count_nonzero_f32(layer->weight, w);
			n += count_nonzero_f32(layer->bias, layer->out);
			break;
		case MLP_INT8:
			for (i = 0; i < w; i++)
				n += layer->qweight[i] != 0;
			for (i = 0; i < layer->out; i++)
				n += layer->qbias[i] != 0;
			break;
		case MLP_PRUNED:
			n += count_nonzero_f32(layer->value, layer->nnz);
			n += count_nonzero_f32(layer->bias, layer->out);
			break;
		}
	}
	return n;
}
