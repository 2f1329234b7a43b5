/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PROVIDER_H
#define BENCHGATE_PROVIDER_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct cJSON;
struct http_response;
struct target;

/*
 * What one forge's REST API for the comments of a pull or merge request
 * looks like: its words, URLs, headers and pagination. github.h and
 * gitlab.h each define one; comment.c drives either through this table,
 * because the flow (list page by page, find ours, update or create) is
 * the same on both.
 */
struct provider {
	const char *name;	    /* "GitHub", for messages */
	const char *item;	    /* what a comment is called there */
	char sigil;		    /* owner/repo#7, group/proj!7 */
	const char *update_method;  /* that edits an item: PATCH, PUT */
	size_t body_max;	    /* longest body, counted as body_length() */
	const char *const *headers; /* NULL-terminated: Accept and the like,
				     * sent before the token's */

	/* Appends the header line that carries t's token. */
	void (*add_token_header)(struct strbuf *out, const struct target *t);

	/* Sets url to page `page` (from 1) of the list of items. */
	void (*list_url)(struct strbuf *url, const struct target *t, long page);

	/* Sets url to where a new item is POSTed. */
	void (*create_url)(struct strbuf *url, const struct target *t);

	/* Sets url to the item with that id, for update_method. */
	void (*item_url)(struct strbuf *url, const struct target *t,
			 const char *id);

	/*
	 * Appends the URL of the list page after page `page` from the
	 * answer res; nothing on the last page. BG_ERROR when the answer
	 * points somewhere the token must not go or back to an earlier
	 * page.
	 */
	int (*next_page_url)(struct strbuf *next, const struct target *t,
			     const struct http_response *res, long page);

	/* Whether a listed item was written by the forge itself, and so is
	 * never ours whatever its body; NULL when the forge writes none. */
	bool (*is_system_item)(const struct cJSON *item);

	/* Appends what to check after a 403 that is not a rate limit. */
	void (*add_forbidden_hint)(struct strbuf *msg, const struct target *t);
};

/* Shared by the providers */

/* Appends the first len bytes of s percent-encoded as one URL path
 * segment (RFC 3986 unreserved characters stay), so "group/proj" becomes
 * "group%2Fproj". */
void provider_add_path_segment(struct strbuf *out, const char *s, size_t len);

/* Appends a JSON number that names something on a forge (an item id, a
 * pull request number): a positive whole number, exact in a double (up to
 * 2^53). false, appending nothing, for anything else. */
bool provider_add_id(struct strbuf *out, const struct cJSON *number);

#endif
