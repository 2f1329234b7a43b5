/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ALLOC_H
#define BENCHGATE_ALLOC_H

#include <stddef.h>

/*
 * Allocation that never returns NULL: running out of memory is not an error
 * path in benchgate, these print a message and abort.
 */

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s); /* xstrdup(NULL) returns NULL */
char *xstrndup(const char *s, size_t n);

/* Grows the array *ptr of *alloc elements of elem_size bytes so that it can
 * hold at least nr elements; new memory is zeroed. Use through ALLOC_GROW. */
void alloc_grow(void **ptr, size_t elem_size, size_t nr, size_t *alloc);

#define ALLOC_GROW(array, nr, alloc) \
	alloc_grow((void **)&(array), sizeof(*(array)), (nr), &(alloc))

#endif
