/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/hash.h"

#include "harness/util/error.h"

/* SHA256_Init() and its kin are deprecated in OpenSSL 3 in favour of EVP,
 * whose first use loads OpenSSL's configuration and its default
 * provider: a few milliseconds at every start for one small digest
 * (docs/performance.md). The low-level functions run the same assembly
 * and need no set-up. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <string.h>

uint64_t hash_fnv1a64_add(uint64_t hash, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;

	for (size_t i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 0x100000001b3ULL;
	return hash;
}

uint64_t hash_fnv1a64(const void *bytes, size_t len)
{
	return hash_fnv1a64_add(HASH_FNV1A64_START, bytes, len);
}

uint32_t hash_fnv1a32(const char *s)
{
	uint32_t hash = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		hash = (hash ^ *p) * 16777619u;
	return hash;
}

int hash_sha256_hex(const void *bytes, size_t len, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char digest[SHA256_DIGEST_LENGTH];
	SHA256_CTX context;

	out[0] = '\0';
	if (!SHA256_Init(&context) || !SHA256_Update(&context, bytes, len) ||
	    !SHA256_Final(digest, &context))
		return bg_error("SHA-256 failed in OpenSSL");
	for (size_t i = 0; i < sizeof(digest); i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 0xf];
	}
	out[2 * sizeof(digest)] = '\0';
	return BG_OK;
}
