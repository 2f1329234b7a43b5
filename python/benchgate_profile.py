# SPDX-License-Identifier: Apache-2.0
"""Python stacks for benchgate's profiling runs (standard library only).

`benchgate run --profile` runs each case once more with this file as the
`sitecustomize` module of every Python process it starts (PYTHONPATH
points at a copy of it that benchgate writes; docs/how-to/profile.md), so
a suite's `python3 bench.py` is profiled without a change to the script.
It does nothing unless $BENCHGATE_PROFILE_DIR names a directory.

- A thread samples every Python thread's stack with sys._current_frames()
  every INTERVAL seconds of wall-clock time and, when the process exits,
  writes the counts as folded stacks to python-<pid>.folded in that
  directory, one frame "function (file:line)" per level, root first, the
  line being where the function is defined. benchgate merges the files
  into the case's folded.txt and draws its flame graph.
- When the program imports torch, torch.profiler records its operators
  from then on, and at exit their table (key_averages().table()) goes to
  torch-ops.txt; where CUDA is present, a CUDA memory snapshot goes to
  cuda-memory.pickle (for https://pytorch.org/memory_viz). A program that
  starts a torch profiler of its own stops benchgate's first, as torch
  allows one at a time.

Nothing here may change what the program does or how it exits: every
failure is one line on stderr, and the program goes on.
"""

import atexit
import os
import sys
import threading

INTERVAL = 0.005

_PREFIX = "benchgate: python profile: "


def _warn(what, error):
    try:
        sys.stderr.write("%s%s: %s\n" % (_PREFIX, what, error))
    except Exception:
        pass


def _clean(text):
    # folded stacks: ';' separates frames, a line is one stack
    return text.replace(";", ":").replace("\n", " ").replace("\r", " ")


class _Sampler:
    def __init__(self, out_dir, interval):
        self.out_dir = out_dir
        self.interval = interval
        self.counts = {}
        self.names = {}
        self.cwd = os.getcwd()
        self.stopping = threading.Event()
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self._run,
                                       name="benchgate-profile",
                                       daemon=True)
        self.thread.start()

    def restart_in_child(self):
        # a fork's child has no sampler thread: a new one, new counts
        del _torch_profiles[:]
        self.counts = {}
        self.stopping = threading.Event()
        self.start()

    def _run(self):
        me = threading.get_ident()
        counts = self.counts
        while not self.stopping.wait(self.interval):
            threads = threading._active  # ident -> Thread, no copy
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                codes = []
                while frame is not None:
                    codes.append(frame.f_code)
                    frame = frame.f_back
                thread = threads.get(ident)
                key = (thread.name if thread is not None else "thread",
                       tuple(codes))
                counts[key] = counts.get(key, 0) + 1

    def _frame(self, code):
        name = self.names.get(code)
        if name is None:
            path = code.co_filename
            if not path.startswith("<"):
                path = os.path.abspath(path)
                if path.startswith(self.cwd + os.sep):
                    path = os.path.relpath(path, self.cwd)
            name = _clean("%s (%s:%d)" % (getattr(code, "co_qualname",
                                                  code.co_name),
                                          path, code.co_firstlineno))
            self.names[code] = name
        return name

    def folded(self):
        program = sys.argv[0] if sys.argv and sys.argv[0] else "-"
        root = _clean("%s %s" % (os.path.basename(sys.executable or "python"),
                                 os.path.basename(program)))
        lines = {}
        for (thread, codes), count in list(self.counts.items()):
            frames = [root]
            if thread != "MainThread":
                frames.append(_clean(thread))
            frames.extend(self._frame(code) for code in reversed(codes))
            line = ";".join(frames)
            lines[line] = lines.get(line, 0) + count
        return "".join("%s %d\n" % item for item in sorted(lines.items()))

    def stop_and_write(self):
        self.stopping.set()
        if self.thread is not None and self.thread.is_alive():
            self.thread.join(1.0)
        if not self.counts:
            return
        path = os.path.join(self.out_dir, "python-%d.folded" % os.getpid())
        partial = path + ".partial"
        try:
            with open(partial, "w", encoding="utf-8",
                      errors="backslashreplace") as out:
                out.write(self.folded())
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)


class _Torch:
    """torch.profiler from the import of torch to the exit."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.profiler = None
        self.cuda = False
        self.note = None

    def start(self, torch):
        from torch.profiler import ProfilerActivity, profile

        self.cuda = bool(torch.cuda.is_available())
        activities = [ProfilerActivity.CPU]
        if self.cuda:
            activities.append(ProfilerActivity.CUDA)
            memory = torch.cuda.memory
            if (hasattr(memory, "_dump_snapshot") and
                    hasattr(memory, "_record_memory_history")):
                memory._record_memory_history(True)
        self.profiler = profile(activities=activities)
        self._yield_to_the_programs_own(torch)
        self.profiler.start()
        _torch_profiles.append(self)

    def _yield_to_the_programs_own(self, torch):
        # torch runs one profiler at a time: the program's wins, ours is
        # stopped (and its table written) before the program's starts
        autograd_profile = torch.autograd.profiler.profile
        start_trace = getattr(autograd_profile, "_start_trace", None)
        if start_trace is None:
            return
        torch_hook = self

        def _start_trace(profile, *args, **kwargs):
            ours = torch_hook.profiler
            if ours is not None and profile is not getattr(ours, "profiler",
                                                           None):
                torch_hook.note = ("stopped where the program started a "
                                   "torch profiler of its own")
                torch_hook.finish()
            return start_trace(profile, *args, **kwargs)

        autograd_profile._start_trace = _start_trace

    def finish(self):
        profiler, self.profiler = self.profiler, None
        if profiler is None:
            return
        try:
            profiler.stop()
            sort = "self_cuda_time_total" if self.cuda else \
                "self_cpu_time_total"
            table = profiler.key_averages().table(sort_by=sort,
                                                  row_limit=50)
            with open(os.path.join(self.out_dir, "torch-ops.txt"), "w",
                      encoding="utf-8") as out:
                out.write("torch.profiler operators of process %d, by %s%s\n"
                          % (os.getpid(), sort,
                             " (%s)" % self.note if self.note else ""))
                out.write(table)
                out.write("\n")
        except Exception as error:
            _warn("no torch operator table", error)
        if self.cuda:
            try:
                import torch

                memory = torch.cuda.memory
                if hasattr(memory, "_dump_snapshot"):
                    memory._dump_snapshot(os.path.join(self.out_dir,
                                                       "cuda-memory.pickle"))
            except Exception as error:
                _warn("no CUDA memory snapshot", error)


class _WatchTorch:
    """A finder that starts _Torch once `import torch` has run."""

    def __init__(self, out_dir):
        self.out_dir = out_dir

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or \
                not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        out_dir = self.out_dir

        def exec_then_profile(module):
            exec_module(module)
            try:
                _Torch(out_dir).start(module)
            except Exception as error:
                _warn("no torch profile", error)

        spec.loader.exec_module = exec_then_profile
        return spec


# the _Torch started in this process (one, or none)
_torch_profiles = []


def _start(out_dir):
    sampler = _Sampler(out_dir, INTERVAL)

    def finish():
        # the sampler stops first, so the profile ends where the program
        # did, without the writing of torch's table
        sampler.stopping.set()
        for profile in _torch_profiles:
            profile.finish()
        try:
            sampler.stop_and_write()
        except Exception as error:
            _warn("no Python stacks", error)

    sampler.start()
    atexit.register(finish)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=sampler.restart_in_child)
    if "torch" not in sys.modules:
        sys.meta_path.insert(0, _WatchTorch(out_dir))


def _chain_next_sitecustomize():
    # the sitecustomize this one shadows (Debian's, a virtualenv's) still
    # runs, found on the path without this file's directory
    here = os.path.dirname(os.path.abspath(__file__))
    module = sys.modules.get(__name__)
    saved = sys.path[:]
    try:
        sys.path[:] = [p for p in sys.path
                       if os.path.abspath(p or ".") != here]
        del sys.modules[__name__]
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    except Exception as error:
        _warn("the next sitecustomize failed", error)
    finally:
        sys.path[:] = saved
        if module is not None:
            sys.modules[__name__] = module


if __name__ == "sitecustomize":
    _out_dir = os.environ.get("BENCHGATE_PROFILE_DIR")
    if _out_dir and os.path.isdir(_out_dir):
        try:
            _start(_out_dir)
        except Exception as _error:
            _warn("not started", _error)
    _chain_next_sitecustomize()
