/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PUBLISHED_H
#define BENCHGATE_PUBLISHED_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The published dashboard's state file, DIR/benchgate-state.json: the one
 * module that knows its path and keys, reads it and writes it. `publish`
 * (harness/app/publish.h) writes it with the site; `history --alert
 * --published DIR` (alert.h) reads which change points the site was
 * published with.
 *
 *   {"benchgate_dashboard": 1, "branch": "main", "tip": "<commit>",
 *    "files": {"index.html": "<hash>", "charts/NAME.svg": "<hash>", ...},
 *    "change_points": [{"suite", "benchmark", "variant", "device",
 *      "machine", "metric", "commit", "direction", "change",
 *      "resolved_by" (a regression that was fixed: the commit of the
 *      change point that took it back), "present": false (below)}]}
 *
 * files maps each path benchgate wrote to the FNV-1a 64 hash (16 hex) of
 * its content (for an SVG, of the script and data it was drawn from);
 * change_points lists every change point the site shows, the regressions
 * that `history --alert` has already told of, and every one an earlier
 * publish listed that this history no longer shows ("present": false):
 * remembered, so that a change point that vanishes for a night and comes
 * back is not new.
 */

#define PUBLISHED_STATE_FILE "benchgate-state.json"

/* A file of the site and its content's hash. */
struct published_file {
	char *path;
	char hash[17];
};

/* A change point the site was published with. */
struct published_point {
	/* the series: each a name (util/name.h) */
	char *suite, *machine, *benchmark, *variant, *device, *metric;
	char *commit;
	bool regression; /* "direction": "regression", else "improvement" */
	double change;	 /* NAN when the state gives none */
	char *resolved_by; /* NULL: not fixed */
	bool present;	   /* false: an earlier history's, not this one's */
};

struct published_state {
	bool found; /* read: the directory had a state file */
	char *branch, *tip; /* NULL when unknown */
	struct published_file *files;
	size_t files_nr, files_alloc;
	struct published_point *points;
	size_t points_nr, points_alloc;
};

/*
 * Reads DIR/benchgate-state.json into *out (zeroed by the caller; release
 * with published_release()), never through a link. A missing directory
 * or file is no error: out->found stays false. BG_EINPUT naming the file,
 * line, column and key for a state that is not one benchgate writes (a
 * hash that is not 16 hex digits, a change point without its series or
 * commit); BG_ERROR when it cannot be read.
 */
int published_read(struct published_state *out, const char *dir);

/*
 * Writes state as DIR/benchgate-state.json (DIR open as dir_fd),
 * atomically and durably, never through a link. BG_ERROR when it cannot.
 */
int published_write(const struct published_state *state, int dir_fd,
		    const char *dir);

/* Appends a file (path copied) / a change point (its strings copied). */
void published_add_file(struct published_state *state, const char *path,
			const char hash[17]);
void published_add_point(struct published_state *state,
			 const struct published_point *point);

/* The point's series in alert_series_key()'s terms (alert.h): suite,
 * machine, benchmark, variant, device and metric, each on a line. */
struct strbuf;
void published_point_key(struct strbuf *out,
			 const struct published_point *point);

/* Frees what state holds and leaves it empty. */
void published_release(struct published_state *state);

#endif
