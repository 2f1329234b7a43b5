/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t size)
{
	fprintf(stderr,
		"benchgate: fatal: out of memory allocating %zu bytes\n", size);
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

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void alloc_grow(void **ptr, size_t elem_size, size_t nr, size_t *alloc)
{
	size_t grown;

	if (nr <= *alloc)
		return;
	grown = *alloc ? *alloc * 2 : 8;
	if (grown < nr)
		grown = nr;
	*ptr = xrealloc(*ptr, grown * elem_size);
	memset((char *)*ptr + *alloc * elem_size, 0,
	       (grown - *alloc) * elem_size);
	*alloc = grown;
}
