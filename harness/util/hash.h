/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HASH_H
#define BENCHGATE_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * FNV-1a (Fowler, Noll, Vo): a small hash that is the same on every run and
 * machine, which is what its users need: hash tables whose probe order must
 * not vary, flame-graph colours that stay put between runs, and short file
 * names derived from user text. Not for anything an attacker could choose
 * collisions in to do harm.
 */

/* The 64-bit FNV-1a of len bytes. */
uint64_t hash_fnv1a64(const void *bytes, size_t len);

/* The 64-bit FNV-1a of bytes that come in pieces: start from
 * HASH_FNV1A64_START and pass each piece with the hash so far; the result
 * is hash_fnv1a64() of the pieces joined. */
#define HASH_FNV1A64_START 0xcbf29ce484222325ULL
uint64_t hash_fnv1a64_add(uint64_t hash, const void *bytes, size_t len);

/* The 32-bit FNV-1a of a NUL-terminated string. */
uint32_t hash_fnv1a32(const char *s);

/*
 * SHA-256 (OpenSSL's low-level functions: no configuration or provider
 * to load), for what must not collide by chance or by design: a suite
 * file's identity (result.h's suite_sha256), the machine id.
 * Writes the 64 lower-case hex digits of len bytes' digest and a NUL to
 * out. BG_ERROR when OpenSSL fails (out is then "").
 */
int hash_sha256_hex(const void *bytes, size_t len, char out[65]);

#endif
