#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a GitHub Actions job or a GitLab CI job on this machine, the way the
hosted runners would, for the templates' second-repository test
(tests/ci/second_repo.sh). It is a small `act`: enough of each system to
run benchgate's action and GitLab template from a repository that is not
benchgate's, as the README tells a user to write them.

    run_workflow.py github WORKFLOW JOB EVENT --action OWNER/REPO=DIR ...
    run_workflow.py gitlab CI_FILE JOB --project OWNER/REPO=DIR ...

The work tree is the current directory. Supported for GitHub: run steps,
the composite action of a `uses: OWNER/REPO@REF` whose REF must exist in
DIR's repository (github.action_ref and action_repository set, its
outputs returned), `with:`, `env:`, `if:` with the functions and operators
the templates use, GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY;
actions/* steps are logged and skipped (checkout has happened: the work
tree is a clone). For GitLab: `include: project:` resolved to DIR at `ref`,
`extends:`, `variables:`, `script:`. Prints each step and exits with the
job's status: 0, or the failing step's.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)


class Null:
    """What a missing key reads as: null, whose properties are null too,
    equal to '' and false in a condition, as on GitHub."""

    def __getitem__(self, key):
        return self

    def __eq__(self, other):
        return other in ("", None) or isinstance(other, Null)

    def __bool__(self):
        return False

    def __str__(self):
        return ""


NULL = Null()


class Context(dict):
    """A context object: missing keys read as null."""

    def __missing__(self, key):
        return NULL


def readable(value):
    """A copy of value whose objects read missing keys as empty."""
    if isinstance(value, dict):
        return Context({k: readable(v) for k, v in value.items()})
    return value


def evaluate(expression, ctx):
    """A GitHub expression, as far as the templates use them."""
    text = expression
    # contexts with dashed names: inputs.report-dir -> inputs['report-dir']
    text = re.sub(r"\b(inputs|github|env|steps|matrix|vars|runner)((?:\.[A-Za-z_][\w-]*)+)",
                  lambda m: m.group(1) + "".join(
                      "[%r]" % part for part in m.group(2)[1:].split(".")),
                  text)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    scope = {k: readable(v) for k, v in ctx.items()}
    scope.update({
        "cancelled": lambda: False, "always": lambda: True,
        "success": lambda: ctx["_ok"], "failure": lambda: not ctx["_ok"],
        "startsWith": lambda a, b: str(a).startswith(str(b)),
        "format": lambda f, *a: re.sub(r"\{(\d+)\}", lambda m: str(a[int(m.group(1))]), f),
        "hashFiles": lambda *pats: "x" if any(
            _glob(p) for p in pats) else "",
        "true": True, "false": False, "null": None,
    })
    return eval(text, {"__builtins__": {}}, scope)


def _glob(pattern):
    import glob
    return [p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p)]


def substitute(value, ctx):
    if not isinstance(value, str):
        return value
    return EXPR.sub(lambda m: _text(evaluate(m.group(1), ctx)), value)


def _text(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    return "" if value is None or value is NULL else str(value)


def condition(step, ctx):
    cond = step.get("if")
    if cond is None:
        return ctx["_ok"]
    if isinstance(cond, bool):
        return cond
    cond = EXPR.sub(lambda m: m.group(1), str(cond)).strip()
    # a status function in it decides; otherwise success() is implied
    if not re.search(r"\b(cancelled|always|failure|success)\(", cond) and not ctx["_ok"]:
        return False
    return bool(evaluate(cond, ctx))


class Runner:
    def __init__(self, workspace, actions):
        self.workspace = workspace
        self.actions = actions
        self.files = tempfile.mkdtemp(prefix="run-workflow-")
        self.path = []
        self.exported = {}  # GITHUB_ENV: for the job's later steps
        self.env = dict(os.environ)

    def shell(self, script, env, name):
        output = os.path.join(self.files, "output")
        open(output, "w").close()
        env = dict(env)
        env["GITHUB_OUTPUT"] = output
        env["GITHUB_PATH"] = os.path.join(self.files, "path")
        env["GITHUB_STEP_SUMMARY"] = os.path.join(self.files, "summary.md")
        env["GITHUB_ENV"] = os.path.join(self.files, "env")
        env.update(self.exported)
        env["PATH"] = os.pathsep.join(self.path + [env.get("PATH", "")])
        print("::step::%s" % name, flush=True)
        status = subprocess.call(["bash", "--noprofile", "--norc", "-eo",
                                  "pipefail", "-c", script],
                                 cwd=self.workspace, env=env)
        outputs = {}
        with open(output) as f:
            for line in f:
                if "=" in line:
                    key, value = line.rstrip("\n").split("=", 1)
                    outputs[key] = value
        if os.path.exists(env["GITHUB_ENV"]):
            with open(env["GITHUB_ENV"]) as f:
                for line in f:
                    if "=" in line:
                        key, value = line.rstrip("\n").split("=", 1)
                        self.exported[key] = value
            os.remove(env["GITHUB_ENV"])
        if os.path.exists(env["GITHUB_PATH"]):
            with open(env["GITHUB_PATH"]) as f:
                self.path = [l.strip() for l in f if l.strip()][::-1] + self.path
            os.remove(env["GITHUB_PATH"])
        return status, outputs

    def steps(self, steps, ctx, env):
        ctx["_ok"] = True
        status = 0
        for i, step in enumerate(steps):
            name = step.get("name") or step.get("uses") or step.get("run", "")[:40]
            if not condition(step, ctx):
                print("::skip::%s" % name)
                continue
            step_env = dict(env)
            for key, value in (step.get("env") or {}).items():
                step_env[key] = substitute(value, ctx)
            if "run" in step:
                code, outputs = self.shell(substitute(step["run"], ctx),
                                           step_env, name)
            else:
                code, outputs = self.uses(step, ctx, step_env)
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": outputs}
            if code and not step.get("continue-on-error"):
                print("::failed::%s (exit %d)" % (name, code))
                ctx["_ok"] = False
                status = status or code
        return status

    def uses(self, step, ctx, env):
        ref = step["uses"]
        owner_repo, _, version = ref.partition("@")
        if owner_repo.startswith("actions/"):
            print("::hosted::%s (skipped here)" % ref)
            return 0, {}
        if owner_repo not in self.actions:
            sys.exit("run_workflow: unknown action %s" % ref)
        source = self.actions[owner_repo]
        if subprocess.call(["git", "-C", source, "rev-parse", "--verify",
                            "--quiet", version + "^{commit}"],
                           stdout=subprocess.DEVNULL) != 0:
            sys.exit("run_workflow: %s has no ref %s" % (owner_repo, version))
        with open(os.path.join(source, "action.yml")) as f:
            action = yaml.safe_load(f)
        given = {k: substitute(v, ctx) for k, v in (step.get("with") or {}).items()}
        inputs = {}
        for key, spec in (action.get("inputs") or {}).items():
            if key in given:
                inputs[key] = _text(given[key])
            elif spec.get("required"):
                sys.exit("run_workflow: input %s is required" % key)
            else:
                inputs[key] = _text(substitute(spec.get("default", ""), ctx))
        unknown = set(given) - set(inputs)
        if unknown:
            sys.exit("run_workflow: %s takes no input %s" % (ref, sorted(unknown)))
        inner = Context(ctx)
        inner["inputs"] = inputs
        inner["github"] = dict(ctx["github"], action_path=source,
                               action_ref=version,
                               action_repository=owner_repo)
        inner["steps"] = Context()
        status = self.steps(action["runs"]["steps"], inner, env)
        ctx["_ok"] = status == 0
        outputs = {key: _text(substitute(spec.get("value", ""), inner))
                   for key, spec in (action.get("outputs") or {}).items()}
        for key, value in outputs.items():
            print("::output::%s=%s" % (key, value))
        return status, outputs


def github(args, actions):
    with open(args.file) as f:
        workflow = yaml.safe_load(f)
    job = workflow["jobs"][args.job]
    event = args.event
    github_ctx = {
        "event_name": event,
        "base_ref": os.environ.get("GITHUB_BASE_REF", ""),
        "ref": os.environ.get("GITHUB_REF", ""),
        "token": os.environ.get("GITHUB_TOKEN", "token-of-the-test"),
        "workspace": os.getcwd(),
        "run_id": "1",
        "event": {"pull_request": {"head": {"repo": {
            "fork": os.environ.get("PR_FROM_FORK") == "true"}}}},
    }
    ctx = Context({"github": github_ctx, "env": {}, "steps": {},
                   "vars": {}, "matrix": {}, "runner": {}, "inputs": {}})
    env = dict(os.environ, GITHUB_ACTIONS="true", CI="true",
               GITHUB_EVENT_NAME=event, RUNNER_TEMP=tempfile.mkdtemp())
    for scope in (workflow.get("env") or {}, job.get("env") or {}):
        for key, value in scope.items():
            env[key] = _text(substitute(value, ctx))
            ctx["env"][key] = env[key]
    runner = Runner(os.getcwd(), actions)
    status = runner.steps(job["steps"], ctx, env)
    summary = os.path.join(runner.files, "summary.md")
    if os.path.exists(summary):
        print("::summary::%d bytes" % os.path.getsize(summary))
    return status


def flatten(lines):
    """A script's lines, with the lists anchors put in it spliced in."""
    for line in lines:
        if isinstance(line, list):
            yield from flatten(line)
        else:
            yield line


def deep_merge(base, override):
    if not isinstance(base, dict) or not isinstance(override, dict):
        return override
    merged = dict(base)
    for key, value in override.items():
        merged[key] = deep_merge(base.get(key), value)
    return merged


def gitlab(args, projects):
    with open(args.file) as f:
        config = yaml.safe_load(f)
    jobs = {}
    for include in config.pop("include", []) or []:
        source = projects[include["project"]]
        if subprocess.call(["git", "-C", source, "rev-parse", "--verify",
                            "--quiet", include.get("ref", "HEAD") + "^{commit}"],
                           stdout=subprocess.DEVNULL) != 0:
            sys.exit("run_workflow: %s has no ref %s" % (include["project"],
                                                         include.get("ref")))
        with open(os.path.join(source, include["file"])) as f:
            jobs.update(yaml.safe_load(f))
    # a job of the file that the include also defines is merged into it,
    # hashes key by key (GitLab's include merging)
    for name, value in config.items():
        jobs[name] = deep_merge(jobs.get(name), value)
    job = dict(jobs[args.job])
    while "extends" in job:
        base = dict(jobs[job.pop("extends")])
        variables = dict(base.get("variables") or {})
        variables.update(job.get("variables") or {})
        base.update(job)
        base["variables"] = variables
        job = base
    env = dict(os.environ, GITLAB_CI="true", CI="true",
               CI_PROJECT_DIR=os.getcwd())
    for key, value in (job.get("variables") or {}).items():
        # project variables (--var, from the environment) outrank the
        # job's, as CI/CD settings do on GitLab
        if key in args.variables:
            continue
        # GitLab expands $VARS in variables from the job's environment
        env[key] = re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), ""), str(value))
    script = "\n".join(flatten(job.get("before_script", []) + job["script"]))
    print("::job::%s" % args.job, flush=True)
    return subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail",
                            "-c", script], env=env)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("system", choices=["github", "gitlab"])
    parser.add_argument("file")
    parser.add_argument("job")
    parser.add_argument("event", nargs="?", default="push")
    parser.add_argument("--action", "--project", action="append", default=[],
                        dest="sources", help="OWNER/REPO=DIR")
    parser.add_argument("--var", action="append", default=[],
                        dest="variables",
                        help="GitLab: a project variable, from the environment")
    args = parser.parse_args()
    sources = dict(s.split("=", 1) for s in args.sources)
    status = github(args, sources) if args.system == "github" else gitlab(args, sources)
    print("::job-status::%d" % status)
    sys.exit(status)


if __name__ == "__main__":
    main()
