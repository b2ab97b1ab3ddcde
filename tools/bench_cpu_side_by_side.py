#!/usr/bin/env python3
"""Kiln vs PyTorch on the CPU, side by side: one command, one markdown table.

For each workload (a script that calls a torch.compile'd function or module) and each thread
count, per call of the compiled region on the inputs of its first call, median after warm-up:

  Kiln eager / compiled   `kiln bench SCRIPT`: its per-frame table (the captured graph op by op
                          with Kiln's eager kernels, and compiled), frame [0/0]
  torch eager / compile   real PyTorch: the script runs with torch.compile replaced by a recorder
                          that keeps the compiled callable and the arguments of its first call
                          (and whether grad was on); then that call is timed eagerly and under
                          the real torch.compile (Inductor), after warm-up calls that compile

Threads: PyTorch gets torch.set_num_threads(N). Kiln has no thread setting of its own: its pool,
OpenBLAS and oneDNN's OpenMP all size themselves from the process's CPU affinity, so Kiln runs
under `taskset -c 0..N-1` with OMP_NUM_THREADS=N and OPENBLAS_NUM_THREADS=N. PyTorch runs under
the same taskset, so both sides have the same CPUs.

Usage:
  tools/bench_cpu_side_by_side.py [--threads 1,16] [--repeat 20] [--kiln build/app/kiln]
                                  [--corpus ../shared/corpus/public] [--only NAME,...]
                                  [--no-torch] [--no-kiln]
The PyTorch side needs `import torch` to work in the python3 that runs this script (or --python).
A side that cannot run a workload shows n/a, with the reason on stderr.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, path relative to the repository or to --corpus)
WORKLOADS = [
    ("elementwise 2^24", "bench/elementwise_2p24.py"),
    ("softmax 4096x4096", "bench/softmax_4096.py"),
    ("layer_norm 4096x4096", "bench/layer_norm_4096.py"),
    ("seed_mini_transformer", "corpus:seed_mini_transformer.py"),
    ("model_residual_block", "corpus:model_residual_block.py"),
    ("seed_cnn_simple_model", "corpus:seed_cnn_simple_model.py"),
    ("seed_simple_model_mlp", "corpus:seed_simple_model_mlp.py"),
]


def cpu_env(threads):
    """The taskset prefix and environment that give a process `threads` CPUs."""
    cpus = sorted(os.sched_getaffinity(0))
    if threads > len(cpus):
        print(f"bench_cpu_side_by_side: {threads} threads asked, {len(cpus)} CPUs available; using them all", file=sys.stderr)
    chosen = cpus[:threads]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    return ["taskset", "-c", ",".join(str(c) for c in chosen)], env


FRAME_ROW = re.compile(r"^(\S+) \[(\d+/\d+)\]\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+x")


def kiln_side(kiln, script, threads, repeat):
    """(eager ms, compiled ms) of the script's first compiled frame under `kiln bench`."""
    prefix, env = cpu_env(threads)
    cmd = prefix + [kiln, "bench", script, "--repeat", str(repeat)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    rows = [FRAME_ROW.match(line) for line in p.stdout.splitlines()]
    rows = [m for m in rows if m]
    if not rows:
        print(f"kiln: {os.path.basename(script)}: no frame timed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-300:]}",
              file=sys.stderr)
        return None, None
    first = next((m for m in rows if m.group(2) == "0/0"), rows[0])
    return float(first.group(3)), float(first.group(4))


def torch_side(python, script, threads, repeat):
    """(eager ms, torch.compile ms) from a worker process (this file with --torch-worker)."""
    prefix, env = cpu_env(threads)
    cmd = prefix + [python, os.path.abspath(__file__), "--torch-worker", script, str(threads), str(repeat)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0 or not lines:
        print(f"torch: {os.path.basename(script)}: {(p.stderr or p.stdout).strip()[-400:]}", file=sys.stderr)
        return None, None
    r = json.loads(lines[-1])
    return r.get("eager_ms"), r.get("compiled_ms")


def torch_worker(script, threads, repeat):
    """Runs in its own process: records the first call of the script's compiled callable, then
    times it eagerly and under torch.compile. Prints one JSON line."""
    import runpy

    import torch

    torch.set_num_threads(threads)
    real_compile = torch.compile
    recorded = []  # [(callable, args, kwargs, grad_enabled)]

    class Recorder:
        """Stands for torch.compile's result while the script runs: calls the original eagerly
        (so the script goes on as it would) and keeps the arguments of the first call."""

        def __init__(self, fn):
            self._fn = fn

        def __call__(self, *args, **kwargs):
            if not recorded:
                recorded.append((self._fn, args, kwargs, torch.is_grad_enabled()))
            return self._fn(*args, **kwargs)

        def __getattr__(self, name):  # a compiled module's attributes are the module's
            return getattr(self._fn, name)

    def fake_compile(model=None, **kwargs):
        if model is None:  # @torch.compile(...) with arguments
            return lambda f: Recorder(f)
        return Recorder(model)

    torch.compile = fake_compile
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        torch.compile = real_compile
    if not recorded:
        raise SystemExit("the script called no torch.compile'd function")
    fn, args, kwargs, grad = recorded[0]

    def median_ms(call, warmup):
        with torch.set_grad_enabled(grad):
            for _ in range(warmup):
                call(*args, **kwargs)
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                call(*args, **kwargs)
                times.append((time.perf_counter() - t0) * 1000.0)
        return statistics.median(times)

    result = {"eager_ms": median_ms(fn, 2)}
    try:
        torch._dynamo.reset()
        compiled = real_compile(fn)
        result["compiled_ms"] = median_ms(compiled, 3)  # the first warm-up call compiles
    except Exception as e:  # the table shows n/a; the reason goes to stderr
        print(f"torch.compile failed: {type(e).__name__}: {e}", file=sys.stderr)
        result["compiled_ms"] = None
    print(json.dumps(result))


def fmt(v):
    return "n/a" if v is None else f"{v:.3f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b <= 0 else f"{a / b:.2f}x"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,16", help="comma-separated thread counts (default 1,16)")
    ap.add_argument("--repeat", type=int, default=20, help="timed calls per measurement (median)")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "app", "kiln"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "public"))
    ap.add_argument("--python", default=sys.executable, help="the python3 with PyTorch installed")
    ap.add_argument("--only", default="", help="comma-separated workload names (substrings)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-kiln", action="store_true")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",") if t]
    only = [s for s in a.only.split(",") if s]
    print(f"CPU: {os.cpu_count()} CPUs, {len(os.sched_getaffinity(0))} in this process's affinity; "
          f"load average {os.getloadavg()[0]:.2f}; medians of {a.repeat} calls after warm-up, ms per call\n")
    print("| workload | threads | Kiln eager | Kiln compiled | torch eager | torch.compile | Kiln compiled / torch.compile |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rel in WORKLOADS:
        if only and not any(s in name for s in only):
            continue
        script = os.path.join(a.corpus, rel[len("corpus:"):]) if rel.startswith("corpus:") else os.path.join(ROOT, rel)
        if not os.path.exists(script):
            print(f"bench_cpu_side_by_side: {script} not found", file=sys.stderr)
            continue
        for t in threads:
            ke, kc = (None, None) if a.no_kiln else kiln_side(a.kiln, script, t, a.repeat)
            te, tc = (None, None) if a.no_torch else torch_side(a.python, script, t, a.repeat)
            print(f"| {name} | {t} | {fmt(ke)} | {fmt(kc)} | {fmt(te)} | {fmt(tc)} | {ratio(kc, tc)} |", flush=True)


if __name__ == "__main__":
    main()
