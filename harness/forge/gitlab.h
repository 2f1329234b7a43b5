/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GITLAB_H
#define BENCHGATE_GITLAB_H

#include "harness/forge/provider.h"

/*
 * GitLab's REST API for the notes of a merge request: GET and POST
 * {api}/projects/PROJECT/merge_requests/N/notes, PUT .../notes/ID
 * (docs.gitlab.com/ee/api/notes.html), the project an id or a
 * URL-encoded path. The token goes in PRIVATE-TOKEN, or JOB-TOKEN for
 * CI_JOB_TOKEN; pages follow X-Next-Page. Notes GitLab writes itself
 * ("added 1 commit") are system notes and never ours.
 */

/* GitLab's limit on a note body, in characters (body_length()). */
#define GITLAB_BODY_MAX 1000000

extern const struct provider gitlab_provider;

#endif
