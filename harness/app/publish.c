/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing a dashboard incrementally (publish.h): a content hash per file
 * in the state file decides what is written and what gnuplot draws.
 */
#include "harness/app/publish.h"


#include "harness/gate/alert.h"
#include "harness/gate/published.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"
#include "harness/util/json.h"
#include "harness/util/jsonread.h"
#include "reporters/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger than any chart publish writes. */
#define PUBLISH_CHART_MAX_BYTES ((size_t)256 << 20)

/* What no content hashes to (hash_text() never writes it for a file it
 * read: FNV-1a of anything is not 0 but by chance). */
#define STALE_HASH "0000000000000000"

/* A file of the state: its path in the site and its content's hash. */
struct state_entry {
	char *path;
	char hash[17];
};

/* The files of the previous publish, sorted by path for bsearch. */
struct old_state {
	struct state_entry *entries;
	size_t nr, alloc;
};

static int compare_entries(const void *a, const void *b)
{
	return strcmp(((const struct state_entry *)a)->path,
		      ((const struct state_entry *)b)->path);
}

static const struct state_entry *old_find(const struct old_state *old,
					  const char *path)
{
	struct state_entry key = { .path = (char *)path };

	return old->nr ? bsearch(&key, old->entries, old->nr,
				 sizeof(*old->entries), compare_entries)
		       : NULL;
}

static void old_release(struct old_state *old)
{
	for (size_t i = 0; i < old->nr; i++)
		free(old->entries[i].path);
	free(old->entries);
}

/* Only what publish writes may be removed on its word: a state file
 * edited to name "../x" or ".git/config" names nothing to remove. */
static bool site_path(const char *path)
{
	static const char *const tops[] = { "index.html", "regressions.html",
					    "feed.xml", NULL };
	const char *name = strchr(path, '/');

	for (size_t i = 0; tops[i]; i++)
		if (!strcmp(path, tops[i]))
			return true;
	if (!name || strchr(name + 1, '/') || name[1] == '.' || !name[1])
		return false;
	return (!strncmp(path, "series/", 7) || !strncmp(path, "charts/", 7) ||
		!strncmp(path, "logs/", 5) || !strncmp(path, "reports/", 8)) &&
	       !strstr(path, "..");
}

/* The previous publish's files (published.h), those publish may remove
 * on its word (site_path()), sorted; none when dir has no state file. */
static int read_old_state(struct old_state *old,
			  struct published_state *previous, const char *dir)
{
	int error = published_read(previous, dir);
	struct strbuf message = STRBUF_INIT;

	if (error < 0) {
		/* The message is formatted into the buffer it is read from. */
		strbuf_addstr(&message, bg_error_last());
		if (error == BG_EINPUT)
			error = bg_input_error("%s (remove it to publish "
					       "afresh)",
					       message.buf);
		strbuf_release(&message);
		return error;
	}
	for (size_t i = 0; i < previous->files_nr; i++) {
		if (!site_path(previous->files[i].path))
			continue;
		ALLOC_GROW(old->entries, old->nr + 1, old->alloc);
		old->entries[old->nr].path = xstrdup(previous->files[i].path);
		memcpy(old->entries[old->nr++].hash, previous->files[i].hash,
		       17);
	}
	if (old->nr)
		qsort(old->entries, old->nr, sizeof(*old->entries),
		      compare_entries);
	return BG_OK;
}

static void hash_text(char out[17], const void *data, size_t len)
{
	snprintf(out, 17, "%016llx",
		 (unsigned long long)hash_fnv1a64(data, len));
}

/* The run of one publish. Below `dir` (the user's choice) everything
 * goes through descriptors of directories opened without following a
 * link: a previous site from a gh-pages checkout or a CI cache may hold
 * links that lead outside it (fileio.h). */
struct publisher {
	const char *dir;
	int root, series, charts; /* dir and its subdirectories */
	int logs, reports;
	struct old_state old;
	struct old_state now; /* the files of this publish */
	struct publish_counts *counts;
	struct strbuf path;
};

/* Whether path (in the site) is there with the content hash. */
static void record(struct publisher *p, const char *path, const char *hash)
{
	ALLOC_GROW(p->now.entries, p->now.nr + 1, p->now.alloc);
	p->now.entries[p->now.nr].path = xstrdup(path);
	memcpy(p->now.entries[p->now.nr++].hash, hash, 17);
}

/* The directory of a site path (site_path()) and its name there. */
static int dir_of(const struct publisher *p, const char *path,
		  const char **name)
{
	const char *slash = strchr(path, '/');

	*name = slash ? slash + 1 : path;
	if (!slash)
		return p->root;
	if (!strncmp(path, "logs/", 5))
		return p->logs;
	if (!strncmp(path, "reports/", 8))
		return p->reports;
	return !strncmp(path, "series/", 7) ? p->series : p->charts;
}

static bool unchanged(struct publisher *p, const char *path, const char *hash)
{
	const struct state_entry *entry = old_find(&p->old, path);
	const char *name;
	int dir = dir_of(p, path, &name);

	strbuf_reset(&p->path);
	strbuf_addf(&p->path, "%s/%s", p->dir, path);
	return entry && !strcmp(entry->hash, hash) &&
	       regular_file_at(dir, name);
}

/* Writes text as path of the site unless it is there already. */
static int write_site_file(struct publisher *p, const char *path,
			   const struct strbuf *text)
{
	const char *name;
	char hash[17];
	int dir, error = BG_OK;

	hash_text(hash, text->buf, text->len);
	record(p, path, hash);
	if (unchanged(p, path, hash)) {
		p->counts->kept++;
		return BG_OK;
	}
	/* Made durable all at once before the state records it. */
	name = NULL;
	dir = dir_of(p, path, &name);
	if ((error = write_file_atomic_at(dir, name, text->buf, text->len,
					  false, p->path.buf)) == 0)
		p->counts->written++;
	return error;
}

/* Keeps a file an earlier publish wrote, as it is; one gone since is left
 * out of the state, so that the next publish makes it again. */
static void keep_site_file(struct publisher *p, const char *path)
{
	const struct state_entry *entry = old_find(&p->old, path);
	const char *name;
	int dir = dir_of(p, path, &name);

	if (!entry || !regular_file_at(dir, name))
		return;
	record(p, path, entry->hash);
	p->counts->kept++;
}

/* Writes a chart's script and data; *hash is theirs together, what its
 * SVG is drawn from. */
static int write_chart_inputs(struct publisher *p, const struct chart *chart,
			      char hash[17], struct strbuf *scratch)
{
	uint64_t both;
	int error;

	strbuf_reset(scratch);
	strbuf_addf(scratch, "charts/%s.gp", chart->stem.buf);
	if ((error = write_site_file(p, scratch->buf, &chart->gp)) < 0)
		return error;
	strbuf_reset(scratch);
	strbuf_addf(scratch, "charts/%s.dat", chart->stem.buf);
	if ((error = write_site_file(p, scratch->buf, &chart->dat)) < 0)
		return error;
	both = hash_fnv1a64(chart->gp.buf, chart->gp.len) * 31 +
	       hash_fnv1a64(chart->dat.buf, chart->dat.len);
	snprintf(hash, 17, "%016llx", (unsigned long long)both);
	return BG_OK;
}

/* Whether the bytes are a whole SVG: its start, and its closing tag at
 * the end (a full disk cuts gnuplot's output short, and gnuplot still
 * exits 0). */
static bool svg_complete(const struct strbuf *svg)
{
	static const char closing[] = "</svg>";
	size_t end = svg->len;

	while (end && (svg->buf[end - 1] == '\n' || svg->buf[end - 1] == ' '))
		end--;
	return (!strncmp(svg->buf, "<?xml", 5) ||
		!strncmp(svg->buf, "<svg", 4)) &&
	       end >= sizeof(closing) - 1 &&
	       !memcmp(svg->buf + end - (sizeof(closing) - 1), closing,
		       sizeof(closing) - 1) &&
	       strstr(svg->buf, "<svg");
}

/* Checks the SVG gnuplot drew from stem.gp. One that is not whole is
 * removed (the file is ours: made empty before gnuplot ran) and is an
 * error, so that no state records it and the next publish draws it. */
static int check_chart(struct publisher *p, const char *stem,
		       struct strbuf *scratch)
{
	struct strbuf svg = STRBUF_INIT;
	int error;

	strbuf_reset(scratch);
	strbuf_addf(scratch, "%s.svg", stem);
	strbuf_reset(&p->path);
	strbuf_addf(&p->path, "%s/charts/%s", p->dir, scratch->buf);
	error = read_file_at(&svg, p->charts, scratch->buf, O_NOFOLLOW,
			     PUBLISH_CHART_MAX_BYTES, p->path.buf);
	if (!error && !svg_complete(&svg))
		error = bg_error("gnuplot wrote an incomplete chart '%s' (%zu "
				 "bytes, without its closing </svg>): is the "
				 "disk full?",
				 p->path.buf, svg.len);
	if (error)
		unlinkat(p->charts, scratch->buf, 0);
	strbuf_release(&svg);
	return error;
}

static int draw_charts(struct publisher *p, const struct dashboard *site)
{
	const struct charts *charts = &site->charts;
	const char **scripts = xcalloc(charts->nr + 1, sizeof(*scripts));
	char(*hashes)[17] = xcalloc(charts->nr + 1, sizeof(*hashes));
	size_t *offsets = xcalloc(charts->nr + 1, sizeof(*offsets));
	size_t *drawn = xcalloc(charts->nr + 1, sizeof(*drawn));
	struct strbuf names = STRBUF_INIT, svg = STRBUF_INIT;
	size_t nr = 0;
	int error = BG_OK;

	for (size_t i = 0; !error && i < charts->nr; i++) {
		const char *stem = charts->items[i].stem.buf;

		if ((error = write_chart_inputs(p, &charts->items[i],
						hashes[i], &svg)) < 0)
			break;
		strbuf_reset(&svg);
		strbuf_addf(&svg, "charts/%s.svg", stem);
		if (unchanged(p, svg.buf, hashes[i])) {
			record(p, svg.buf, hashes[i]);
			p->counts->kept++;
			continue;
		}
		/* gnuplot opens the name it is given: ours first, an empty
		 * file in place of whatever was there (a link replaced, not
		 * written through) */
		strbuf_reset(&svg);
		strbuf_addf(&svg, "%s.svg", stem);
		strbuf_reset(&p->path);
		strbuf_addf(&p->path, "%s/charts/%s", p->dir, svg.buf);
		if ((error = write_file_atomic_at(p->charts, svg.buf, "", 0,
						  false, p->path.buf)) < 0)
			break;
		offsets[nr] = names.len;
		drawn[nr++] = i;
		strbuf_addf(&names, "%s.gp", stem);
		strbuf_addch(&names, '\0');
	}
	for (size_t i = 0; i < nr; i++)
		scripts[i] = names.buf + offsets[i];
	if (!error) {
		strbuf_reset(&svg);
		strbuf_addf(&svg, "%s/charts", p->dir);
		error = gnuplot_run(svg.buf, scripts, nr);
	}
	if (error == BG_ENOTFOUND) {
		/* An SVG of an earlier publish stays, still ours but out of
		 * date: a hash no content has makes the next publish with
		 * gnuplot draw it. */
		for (size_t i = 0; i < nr; i++) {
			strbuf_reset(&svg);
			strbuf_addf(&svg, "charts/%s.svg",
				    charts->items[drawn[i]].stem.buf);
			if (old_find(&p->old, svg.buf))
				record(p, svg.buf, STALE_HASH);
		}
		p->counts->charts_skipped = true;
		error = BG_OK;
		nr = 0;
	}
	for (size_t i = 0; !error && i < nr; i++)
		error = check_chart(p, charts->items[drawn[i]].stem.buf, &svg);
	for (size_t i = 0; !error && i < nr; i++) {
		strbuf_reset(&svg);
		strbuf_addf(&svg, "charts/%s.svg",
			    charts->items[drawn[i]].stem.buf);
		record(p, svg.buf, hashes[drawn[i]]);
		p->counts->written++;
		p->counts->charts_drawn++;
	}
	free(scripts);
	free(hashes);
	free(offsets);
	free(drawn);
	strbuf_release(&names);
	strbuf_release(&svg);
	return error;
}

/*
 * The charts, drawn on a thread of their own while the pages are written
 * on another core: writing their scripts and data and gnuplot drawing
 * them (100 charts: 0.2 s) are most of a republish's own time. The
 * thread has a publisher of its own (the old state it shares is only
 * read), merged into the main one when it is done; and it is the only
 * thread that runs a process (process.h runs one at a time).
 */
struct drawing {
	struct publisher p;
	struct publish_counts counts;
	const struct dashboard *site;
	pthread_t thread;
	bool started;
	int error;
	char *message; /* the thread's error message (errors are per thread) */
};

static void *drawing_thread(void *arg)
{
	struct drawing *d = arg;

	d->error = draw_charts(&d->p, d->site);
	if (d->error < 0)
		d->message = xstrdup(bg_error_last());
	return NULL;
}

/* Starts drawing the site's charts; without a thread, draws them here. */
static void start_drawing(struct drawing *d, const struct publisher *p,
			  const struct dashboard *site)
{
	d->p = (struct publisher){ .dir = p->dir,
				   .root = p->root,
				   .series = p->series,
				   .charts = p->charts,
				   .logs = p->logs,
				   .reports = p->reports,
				   .old = p->old,
				   .counts = &d->counts };
	strbuf_init(&d->p.path, 0);
	d->site = site;
	d->started = !pthread_create(&d->thread, NULL, drawing_thread, d);
	if (!d->started)
		drawing_thread(d);
}

/* Waits for the charts and takes in the files and counts of their
 * publisher; their error, if any, is d->message. */
static int finish_drawing(struct publisher *p, struct drawing *d)
{
	if (d->started)
		pthread_join(d->thread, NULL);
	d->started = false;
	for (size_t i = 0; i < d->p.now.nr; i++) {
		ALLOC_GROW(p->now.entries, p->now.nr + 1, p->now.alloc);
		p->now.entries[p->now.nr++] = d->p.now.entries[i];
	}
	d->p.now.nr = 0;
	p->counts->written += d->counts.written;
	p->counts->kept += d->counts.kept;
	p->counts->charts_drawn += d->counts.charts_drawn;
	p->counts->charts_skipped = d->counts.charts_skipped;
	return d->error;
}

static void drawing_release(struct drawing *d)
{
	if (d->started)
		pthread_join(d->thread, NULL);
	old_release(&d->p.now); /* its old state is the main publisher's */
	strbuf_release(&d->p.path);
	free(d->message);
}

/* Whether the file at path is still the one publish wrote: a regular
 * file (not a link) in the site's own directories, with the content the
 * state records; an SVG's hash is of what it was drawn from, so a whole
 * SVG is all it can show. */
static bool still_ours(struct publisher *p, const struct state_entry *entry)
{
	struct strbuf text = STRBUF_INIT;
	const char *name;
	int dir = dir_of(p, entry->path, &name);
	size_t len = strlen(entry->path);
	bool ours = false;
	char hash[17];

	if (read_file_at(&text, dir, name, O_NOFOLLOW, PUBLISH_CHART_MAX_BYTES,
			 p->path.buf) < 0) {
		bg_error_clear();
	} else if (len > 4 && !strcmp(entry->path + len - 4, ".svg")) {
		ours = svg_complete(&text);
	} else {
		hash_text(hash, text.buf, text.len);
		ours = !strcmp(hash, entry->hash);
	}
	strbuf_release(&text);
	return ours;
}

/* Removes the files of the old state that the new one does not list,
 * when they are still what publish wrote there. */
static void remove_stale(struct publisher *p)
{
	for (size_t i = 0; i < p->old.nr; i++) {
		const struct state_entry *entry = &p->old.entries[i];
		const char *name;
		int dir = dir_of(p, entry->path, &name);

		if (old_find(&p->now, entry->path))
			continue;
		strbuf_reset(&p->path);
		strbuf_addf(&p->path, "%s/%s", p->dir, entry->path);
		if (still_ours(p, entry) && unlinkat(dir, name, 0) == 0)
			p->counts->removed++;
	}
}

/* The state file, last: the files of this publish and the change points
 * of its history, with those of the previous state it no longer shows
 * (alert_points_to_publish()). */
static int write_state(struct publisher *p, const struct history *history,
		       const struct published_state *previous)
{
	struct published_state state = { 0 };
	int error;

	state.branch = history->branch ? xstrdup(history->branch) : NULL;
	if (history->commits_nr)
		state.tip = xstrdup(
			history->commits[history->commits_nr - 1].commit);
	for (size_t i = 0; i < p->now.nr; i++)
		published_add_file(&state, p->now.entries[i].path,
				   p->now.entries[i].hash);
	alert_points_to_publish(&state, history, previous);
	error = published_write(&state, p->root, p->dir);
	published_release(&state);
	return error;
}

/* Opens the site's directory (made when missing; the user named it, so
 * a link to it is followed) and its series/ and charts/ (never through a
 * link: one there is refused). */
static int open_dirs(struct publisher *p)
{
	struct strbuf path = STRBUF_INIT;
	int error = BG_OK;

	if (mkdir_p(p->dir) < 0)
		return bg_error("cannot create directory '%s': %s", p->dir,
				strerror(errno));
	if ((p->root = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return bg_error("cannot open directory '%s': %s", p->dir,
				strerror(errno));
	strbuf_addf(&path, "%s/series", p->dir);
	if ((p->series = dir_open_at(p->root, "series", true, path.buf)) < 0)
		error = p->series;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/charts", p->dir);
	if (!error &&
	    (p->charts = dir_open_at(p->root, "charts", true, path.buf)) < 0)
		error = p->charts;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/logs", p->dir);
	if (!error &&
	    (p->logs = dir_open_at(p->root, "logs", true, path.buf)) < 0)
		error = p->logs;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/reports", p->dir);
	if (!error && (p->reports = dir_open_at(p->root, "reports", true,
						 path.buf)) < 0)
		error = p->reports;
	strbuf_release(&path);
	return error;
}

static void close_dirs(struct publisher *p)
{
	int *fds[] = { &p->root, &p->series, &p->charts, &p->logs,
		       &p->reports };

	for (size_t i = 0; i < 5; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
}

int publish_site(struct publish_counts *counts, const char *dir,
		 const struct dashboard *site, const struct history *history)
{
	struct publisher p = { .dir = dir, .counts = counts, .root = -1,
			       .series = -1, .charts = -1, .logs = -1,
			       .reports = -1 };
	struct drawing drawing = { 0 };
	struct published_state previous = { 0 };
	int error;

	memset(counts, 0, sizeof(*counts));
	strbuf_init(&p.path, 0);
	if ((error = open_dirs(&p)) < 0 ||
	    (error = read_old_state(&p.old, &previous, dir)) < 0)
		goto done;
	start_drawing(&drawing, &p, site);
	for (size_t i = 0; !error && i < site->files_nr; i++)
		if (site->files[i].keep)
			keep_site_file(&p, site->files[i].path);
		else
			error = write_site_file(&p, site->files[i].path,
						&site->files[i].text);
	/* The pages' error first: it is this thread's last message. */
	if (finish_drawing(&p, &drawing) < 0 && !error)
		error = bg_error("%s", drawing.message);
	if (error)
		goto done;
	if (p.now.nr)
		qsort(p.now.entries, p.now.nr, sizeof(*p.now.entries),
		      compare_entries);
	remove_stale(&p);
	/* Pages and charts on the disk first: a state that outlives them
	 * would keep an empty page forever. */
	fsync_filesystem(dir);
	error = write_state(&p, history, &previous);
done:
	drawing_release(&drawing);
	close_dirs(&p);
	old_release(&p.now);
	old_release(&p.old);
	strbuf_release(&p.path);
	published_release(&previous);
	return error;
}

struct publish_previous {
	struct old_state state;
};

int publish_previous_read(struct publish_previous **out, const char *dir)
{
	struct publish_previous *previous = xcalloc(1, sizeof(*previous));
	struct published_state state = { 0 };
	int error;

	*out = previous;
	/* a directory not made yet has no state: nothing published */
	error = read_old_state(&previous->state, &state, dir);
	published_release(&state);
	return error;
}

bool publish_previous_has(const struct publish_previous *previous,
			  const char *path)
{
	return old_find(&previous->state, path) != NULL;
}

void publish_previous_free(struct publish_previous *previous)
{
	if (!previous)
		return;
	old_release(&previous->state);
	free(previous);
}
