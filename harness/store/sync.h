/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SYNC_H
#define BENCHGATE_SYNC_H

#include <stdbool.h>

/*
 * `benchgate sync`: shares a results branch (a `--store git:BRANCH`) with
 * a remote, so that several CI runners build one history.
 *
 * Results are append-only and each runner writes only its own machine's
 * paths, so two sides that both moved never really conflict: after the
 * fetch, a commit on top of the remote tip (a merge, its second parent the
 * local tip) re-applies the files this side added since the two diverged
 * (the merge base): every such path absent remotely is added; a path the
 * remote has with other content (two runners sharing a machine id and a
 * second) is kept under the next free name ("-N" before the extension),
 * so no result is ever lost. The local branch moves to that commit with a
 * compare-and-swap, then it is pushed. A push that is rejected because
 * another runner pushed first fetches again, merges on top again and
 * retries, after a jittered, growing pause (SYNC_ATTEMPTS pushes at most).
 *
 * Remotes reached through a URL push with libgit2's transports. A remote
 * that is a local path or a file:// URL is updated directly, objects then
 * a compare-and-swap of the remote's ref, because libgit2's local
 * transport (1.5) sets the remote ref without checking its old value: two
 * concurrent pushes there could silently drop one.
 *
 * Credentials, for https remotes: GITHUB_TOKEN (user x-access-token) for
 * github.com and the host of GITHUB_SERVER_URL; GITLAB_TOKEN, else
 * CI_JOB_TOKEN (user gitlab-ci-token), for gitlab.com and the host of
 * CI_SERVER_HOST / CI_SERVER_URL. A token is only ever sent to its own
 * forge, and never printed. Otherwise, and for ssh, what libgit2 offers:
 * the ssh agent, the user name of the URL, and the platform's default
 * (NTLM/Negotiate) credentials. git's credential helpers are not run
 * (libgit2 has none). A refused authentication is reported with what the
 * server asked for and what was offered (variable names, never values);
 * a server that closes the connection while a push is sent is an error
 * saying so, not a SIGPIPE (main() ignores it).
 */

/* Pushes tried before giving up while other runners keep winning. */
#define SYNC_ATTEMPTS 6

/*
 * The remote is a configured remote's name, or the URL or path of a
 * repository ("https://host/org/results.git", "/srv/results.git"): a
 * results repository of its own, which clones of the code never fetch.
 * Its branch is then tracked in "refs/benchgate/remotes/<hash>/<branch>".
 */
struct sync_options {
	const char *remote; /* remote name or URL; NULL: "origin" */
	const char *branch; /* NULL: "benchgate-results" */
	/* Multiplies the pauses between attempts (base 250 ms, doubling,
	 * jittered by +-50 %); < 0: BENCHGATE_SYNC_BACKOFF_SCALE, else 1. */
	double backoff_scale;
	/* The repository whose branch is synced; NULL: the one containing
	 * the current directory (a git:URL#BRANCH store's local copy, see
	 * store.h, names its own). */
	const char *repo_path;
};

enum sync_action {
	SYNC_NOTHING,	 /* the branch exists on neither side */
	SYNC_UP_TO_DATE, /* both sides at the same commit */
	SYNC_FETCHED,	 /* the local branch moved to the remote's */
	SYNC_PUSHED,	 /* the remote moved to the local branch */
	SYNC_MERGED,	 /* both had moved: merged, then pushed */
};

struct sync_report {
	enum sync_action action;
	unsigned pushes;  /* push attempts made */
	unsigned added;	  /* files the last merge re-applied */
	unsigned renamed; /* of those, kept under a new name */
	char tip[41];	  /* the branch's tip afterwards; "" if none */
};

/*
 * Syncs the branch of the repository (opts->repo_path, else the one
 * containing the current directory) with the remote, as described above, and fills `report`.
 * BG_EINPUT for an unknown remote, an invalid branch name, a bad
 * BENCHGATE_SYNC_BACKOFF_SCALE, or outside a repository; BG_ERROR for
 * network, authentication and repository failures, and when every push
 * was rejected (the message says how often).
 */
int sync_run(const struct sync_options *opts, struct sync_report *report);

#endif
