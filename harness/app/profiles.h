/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_PROFILES_H
#define BENCHGATE_APP_PROFILES_H

struct result;
struct session;

/*
 * Draws the flame graphs of the session's profiling runs, the baseline
 * tree's too (reporters/flamegraph.h), once it is finished
 * (session_finish()) and before it is stored, so that the result lists
 * them and the store keeps them: a git store takes the files below the
 * result's directory in with the result, and a stored result is never
 * rewritten. Never fails: a profile never fails a case.
 */
void app_draw_profiles(struct session *session);

/*
 * Draws the flame graph of every case of result that has folded stacks
 * (its first "folded" or "python-folded" artifact, harness/run/profile.h):
 * flamegraph.svg beside that file (reporters/flamegraph.h), titled "Flame
 * graph of <benchmark>/<variant>/<device>" and subtitled "<sampling>: <N>
 * samples", where sampling says how "folded" stacks were sampled
 * (profiler_describe_perf(); NULL: none were, and such cases get no
 * graph) and python_sampling how "python-folded" ones were
 * (PROFILE_PYTHON_SAMPLING). Lists it as the case's "flamegraph"
 * artifact just before the stacks, where readers look first; relative
 * artifact paths, read and written, are relative to result_dir (the
 * result file's directory). The caller owns result and has not stored
 * it yet.
 *
 * A graph that cannot be drawn (the stacks unreadable, the SVG not
 * written) is not listed: the case's profile_note says why, unless it
 * already holds a reason (the first is the one worth reading), and a
 * warning is printed. Never fails: a profile never fails a case.
 */
void app_draw_flamegraphs(struct result *result, const char *result_dir,
			  const char *sampling, const char *python_sampling);

#endif
