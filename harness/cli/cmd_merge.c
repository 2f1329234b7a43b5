#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/store/shards.h"
#include "harness/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_command_spec spec = {
	.name = "merge",
	.usage = "RESULT... [--out FILE | --store S]",
	.summary = "Combine the shard results of one run into one result.",
	.help = "The results of `run --shard I/N` jobs (one commit, machine and "
		"suite) become the\nresult a single run would have stored: the "
		"cases of all, the earliest start and\nthe latest finish. A "
		"case in two results, or results of different commits,\n"
		"machines or suites, are refused. The result is written to "
		"--out FILE\n(atomically) or stored in the store (default "
		".benchgate/results). Keep the\nshards out of that store (run "
		"them with another --store): the newest shard\nwould otherwise "
		"be found before the merged result. The logs and artifacts\n"
		"beside each shard file are copied into the store with the "
		"merged result\n(with --out its paths point at the shards' "
		"files); give the stored shard files,\nnot `run --json` "
		"copies, whose files are elsewhere: merge warns about what\n"
		"it cannot carry.",
	.options = OPT_OUT | OPT_STORE,
	.min_args = 1,
	.max_args = 4096,
};

/* The directory of path, for rebasing logs; "." for a bare name. */
static void directory_of(const char *path, struct strbuf *out)
{
	const char *slash = strrchr(path, '/');

	if (slash == path)
		strbuf_addch(out, '/');
	else if (slash)
		strbuf_add(out, path, (size_t)(slash - path));
	else
		strbuf_addch(out, '.');
}

int cmd_merge(int argc, char **argv)
{
	struct strbuf spec_text = STRBUF_INIT, where = STRBUF_INIT;
	struct strbuf out_dir = STRBUF_INIT, json = STRBUF_INIT;
	struct store *store = NULL;
	struct store_slot *slot = NULL;
	struct result *merged = NULL;
	const char **origins = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (opts.formats) {
		error = bg_input_error("merge: --format does not apply; the "
				       "merged result is a result file");
		goto done;
	}
	if (opts.out_dir && opts.store) {
		error = bg_input_error("merge: give --out FILE or --store, not "
				       "both");
		goto done;
	}
	if (opts.out_dir)
		directory_of(opts.out_dir, &out_dir);
	if ((error = shards_merge(&merged, (const char *const *)opts.args,
				  (size_t)opts.args_nr,
				  opts.out_dir ? out_dir.buf : NULL,
				  &origins)) < 0)
		goto done;
	if (opts.out_dir) {
		result_to_json(merged, &json);
		if ((error = write_file_atomic(opts.out_dir, json.buf,
					       json.len)) < 0)
			goto done;
		strbuf_addstr(&where, opts.out_dir);
	} else {
		if (opts.store)
			strbuf_addstr(&spec_text, opts.store);
		else
			store_default_spec(&spec_text, NULL);
		/* a slot, so that the shards' files go in beside the result */
		if ((error = store_open(&store, spec_text.buf)) < 0 ||
		    (error = store_reserve(store, merged, &slot)) < 0 ||
		    (error = shards_carry_files(merged, origins, slot)) < 0 ||
		    (error = store_write(store, merged, slot, &where)) < 0)
			goto done;
	}
	if (!opts.quiet)
		printf("merged %d result%s (%zu cases) into %s\n", opts.args_nr,
		       opts.args_nr == 1 ? "" : "s", merged->cases_nr,
		       where.buf);
	error = OUTCOME_PASS;
done:
	result_free(merged);
	free(origins);
	store_slot_free(slot);
	store_free(store);
	strbuf_release(&spec_text);
	strbuf_release(&where);
	strbuf_release(&out_dir);
	strbuf_release(&json);
	return error;
}
