/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/hash.h"

#include "harness/util/error.h"

#include <openssl/evp.h>
#include <stdio.h>
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
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len = 0;

	out[0] = '\0';
	if (!EVP_Digest(bytes, len, digest, &digest_len, EVP_sha256(), NULL) ||
	    digest_len != 32)
		return bg_error("SHA-256 failed in OpenSSL");
	for (unsigned int i = 0; i < digest_len; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
	return BG_OK;
}
