/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/hash.h"

#include <string.h>

uint64_t hash_fnv1a64(const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	uint64_t hash = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 0x100000001b3ULL;
	return hash;
}

uint32_t hash_fnv1a32(const char *s)
{
	uint32_t hash = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		hash = (hash ^ *p) * 16777619u;
	return hash;
}
