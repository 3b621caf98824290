#!/usr/bin/env python3
"""PowerTrain Workbench launcher: times a PyTorch training script's minibatches without any
change to the script.

  python3 ptwb_launch.py SCRIPT [ARGS...]
  python3 ptwb_launch.py -m MODULE [ARGS...]

The agent runs it (a `command` workload recognised "by": "launcher", docs/device-protocol.md)
with the script's own interpreter, with PTWB_EVENTS_FD naming the write end of a pipe. Before
the script's code runs it wraps `torch.optim.Optimizer.step` (and the `step` of every optimizer
class when its first instance is made, since SGD, Adam, ... define their own), then runs the
script as `__main__` with its own arguments (runpy), as `python3 SCRIPT ARGS` would: sys.argv,
sys.path[0] (the script's directory, or the working directory for -m) and the exit status are
the script's. Each return from `step()` writes `step T` (T: time.monotonic(), the agent's clock
too) on the pipe; the agent takes a minibatch as the time between two steps, so the first step
is warm-up and has no time. The pipe is never the script's stdout or stderr, which are left
alone. If torch.optim cannot be imported it writes `error launcher: cannot import torch.optim
with PYTHON: ...` and exits with status 3 before running the script.

CUDA: when torch.cuda is initialised, each step is followed by torch.cuda.synchronize() before
its time is taken, so a step is timed when the GPU has finished it, not when it was queued. That
removes the overlap of one step's GPU work with the next step's Python (a few percent slower
than unlaunched on some scripts).

Limits:
- It counts optimizer steps, not minibatches: with gradient accumulation (step() every k
  minibatches) a "minibatch" is k of them; with a skipped step (an AMP GradScaler that finds
  inf gradients) two minibatches are one.
- Several optimizers (a GAN's two, per-parameter-group optimizers): only the first optimizer
  instance whose step() returns is counted; the others' steps are ignored, so one "minibatch"
  is one step of that first optimizer.
- A step() called from within another step() (a subclass that calls its base) counts once.
- Frameworks that do not call torch.optim's step (JAX, TensorFlow, a hand-written update):
  nothing is recognised; use the regex recogniser on the script's own progress output.
- Interpreter options other than flags (-u, -O, ...) and -X/-W, and `-c`, are not supported.
- As with any runpy launcher, a script that pickles functions of its __main__ for a `spawn`
  multiprocessing start (not a DataLoader's default `fork` on Linux) may not find them.

Standard library only; Python 3.8+.
"""

import functools
import os
import runpy
import sys
import threading
import time

EXIT_NO_TORCH = 3
EXIT_USAGE = 2


class Events(object):
    """The agent's pipe; writes are whole lines and never raise into the script."""

    def __init__(self, fd):
        self.f = None
        if fd is not None:
            try:
                # Not inherited by what the script execs (its subprocesses), only by its forks.
                os.set_inheritable(fd, False)
                self.f = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
            except (OSError, ValueError):
                self.f = None
        self.lock = threading.Lock()

    def send(self, line):
        if self.f is None:
            return
        with self.lock:
            try:
                self.f.write(line.replace("\n", " ").replace("\r", " ") + "\n")
                self.f.flush()
            except (OSError, ValueError):
                self.f = None  # the agent is gone: keep training, stop reporting


class StepTimer(object):
    """Wraps optimizer step() functions; reports the returns of the first instance's steps."""

    def __init__(self, torch, events):
        self.torch = torch
        self.events = events
        self.first = None          # id() of the optimizer instance whose steps count
        self.local = threading.local()

    def _synchronize(self):
        cuda = getattr(self.torch, "cuda", None)
        try:
            if cuda is not None and cuda.is_initialized():
                cuda.synchronize()
        except Exception:
            pass  # timing must never break the script

    def wrap(self, step):
        if getattr(step, "_ptwb_timed", False):
            return step
        timer = self

        @functools.wraps(step)
        def timed_step(opt, *args, **kwargs):
            depth = getattr(timer.local, "depth", 0)
            timer.local.depth = depth + 1
            try:
                result = step(opt, *args, **kwargs)
            finally:
                timer.local.depth = depth
            if depth == 0:
                timer.stepped(opt)
            return result

        timed_step._ptwb_timed = True
        return timed_step

    def stepped(self, opt):
        if self.first is None:
            self.first = id(opt)
        if id(opt) != self.first:
            return
        self._synchronize()
        self.events.send("step %.9f" % time.monotonic())

    def install(self):
        """Wraps Optimizer.step now, and each optimizer class's own step() when its first
        instance is made (before the script's code runs, so every optimizer is covered)."""
        base = self.torch.optim.Optimizer
        base.step = self.wrap(base.step)
        init = base.__init__
        timer = self

        @functools.wraps(init)
        def init_and_wrap(opt, *args, **kwargs):
            init(opt, *args, **kwargs)
            for cls in type(opt).__mro__:
                if "step" in vars(cls) and cls is not object:
                    step = vars(cls)["step"]
                    if callable(step) and not getattr(step, "_ptwb_timed", False):
                        setattr(cls, "step", timer.wrap(step))

        base.__init__ = init_and_wrap


def split_args(argv):
    """(kind, target, script argv): ("path", SCRIPT, [SCRIPT, ARGS...]) or ("module", MODULE,
    [MODULE, ARGS...]); None when argv names neither."""
    if not argv:
        return None
    if argv[0] == "-m":
        if len(argv) < 2:
            return None
        return "module", argv[1], [argv[1]] + argv[2:]
    if argv[0].startswith("-") and argv[0] != "--":
        return None
    if argv[0] == "--":
        argv = argv[1:]
        if not argv:
            return None
    return "path", argv[0], list(argv)


def main():
    fd_text = os.environ.pop("PTWB_EVENTS_FD", None)
    try:
        fd = int(fd_text) if fd_text is not None else None
    except ValueError:
        fd = None
    events = Events(fd)
    what = split_args(sys.argv[1:])
    if what is None:
        sys.stderr.write("usage: ptwb_launch.py SCRIPT [ARGS...] | -m MODULE [ARGS...]\n")
        events.send("error launcher: expected a script or -m module after the interpreter")
        return EXIT_USAGE
    kind, target, script_argv = what
    # The script's directory replaces the launcher's on sys.path before torch is imported,
    # as for `python3 SCRIPT` (a local module named like a package of torch's wins there too).
    sys.path[0] = os.path.dirname(os.path.abspath(target)) if kind == "path" else os.getcwd()
    try:
        import torch
        import torch.optim  # noqa: F401
    except Exception as e:  # ImportError, or a broken install raising anything
        message = "launcher: cannot import torch.optim with %s: %s" % (sys.executable, e)
        sys.stderr.write(message + "\n")
        events.send("error " + message)
        return EXIT_NO_TORCH
    StepTimer(torch, events).install()
    sys.argv = script_argv
    if kind == "module":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
