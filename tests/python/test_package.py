# SPDX-License-Identifier: Apache-2.0
"""python/pyproject.toml makes the helper installable: `pip install ./python`.

    python3 test_package.py SOURCE_DIR WORK_DIR PROJECT_VERSION

Installs the package with pip into WORK_DIR (no index: the build backend,
setuptools and wheel, are those of the first Python that has them, this
one or the system's; exit 77, a skip, when none has), imports it from
there in a fresh interpreter, and checks its metadata: the name, benchgate's version (the
project's, from CMakeLists.txt), the licence, no dependencies.
"""

import json
import os
import shutil
import subprocess
import sys


SKIP = 77


def builder():
    """A Python with pip, setuptools and wheel: no index is needed."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import setuptools, wheel, pip"],
                stderr=subprocess.DEVNULL).returncode == 0:
            return python
    return None


def main(source_dir, work, version):
    python = builder()
    if not python:
        print("test_package: SKIP: no Python here has pip, setuptools and "
              "wheel (Debian: python3-setuptools python3-wheel)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    target = os.path.join(work, "site")
    # a copy, as setuptools writes build/ and *.egg-info beside the sources
    copy = os.path.join(work, "python")
    shutil.copytree(os.path.join(source_dir, "python"), copy,
                    ignore=shutil.ignore_patterns("__pycache__", "build",
                                                  "*.egg-info"))
    subprocess.run([python, "-m", "pip", "install", "--quiet",
                    "--no-build-isolation", "--no-deps", "--no-index",
                    "--target", target, copy],
                   check=True, cwd=work)
    probe = """
import json, benchgate
from importlib import metadata
meta = metadata.metadata("benchgate")
print(json.dumps({"file": benchgate.__file__,
                  "version": metadata.version("benchgate"),
                  "license": meta["License"],
                  "requires": metadata.requires("benchgate"),
                  "has_metrics": callable(benchgate.metrics),
                  "plugin": __import__("importlib.util").util.find_spec(
                      "benchgate_pytest") is not None}))
"""
    env = dict(os.environ, PYTHONPATH=target, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([python, "-c", probe], env=env, check=True,
                         stdout=subprocess.PIPE, cwd=work).stdout
    info = json.loads(out)
    failures = []
    if not info["file"].startswith(target):
        failures.append("imported %s, not the installed one" % info["file"])
    if info["version"] != version:
        failures.append("version %s, not benchgate's %s"
                        % (info["version"], version))
    if info["license"] != "Apache-2.0":
        failures.append("license %r" % info["license"])
    if info["requires"]:
        failures.append("dependencies %r: standard library only"
                        % info["requires"])
    if not info["has_metrics"]:
        failures.append("benchgate.metrics is missing")
    if not info["plugin"]:
        failures.append("the pytest plugin benchgate_pytest is not installed")
    for failure in failures:
        print("test_package: FAIL: " + failure, file=sys.stderr)
    if not failures:
        print("test_package: ok: %s %s from %s"
              % ("benchgate", info["version"], info["file"]))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
