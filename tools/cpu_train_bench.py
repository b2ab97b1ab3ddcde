#!/usr/bin/env python3
"""Training steps on the CPU, Kiln vs PyTorch, side by side: one command, one markdown table.

bench/train_steps.py runs unchanged under both (`kiln run` and `python3`) and times whole
training steps (zero_grad, forward, cross-entropy, backward, SGD step) eagerly and with the model
torch.compile'd. This runs it on each side at each thread count with the same CPUs (taskset, as
tools/bench_cpu_side_by_side.py does) and prints per model and thread count the four medians,
Kiln compiled / torch.compile, and the geometric mean of that ratio per thread count.

Usage:
  tools/cpu_train_bench.py [--threads 1,16] [--kiln build/app/kiln] [--python python3]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cpu_side_by_side import ROOT, cpu_env  # noqa: E402  (same CPUs and thread settings)

SCRIPT = os.path.join(ROOT, "bench", "train_steps.py")


def results(cmd, env):
    """RESULT lines of one run: {(model, mode): ms or None}; the error is reported on stderr."""
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    out = {}
    for line in p.stdout.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[0] != "RESULT":
            continue
        _, model, mode, value = parts
        try:
            out[(model, mode)] = float(value)
        except ValueError:
            out[(model, mode)] = None
            print(f"cpu_train_bench: {cmd[0]} {model} {mode}: {value}", file=sys.stderr)
    if p.returncode != 0:
        print(f"cpu_train_bench: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-300:]}", file=sys.stderr)
    return out


def fmt(v):
    return "n/a" if v is None else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default=f"1,{len(os.sched_getaffinity(0))}")
    ap.add_argument("--kiln", default=os.path.join(ROOT, "build", "app", "kiln"))
    ap.add_argument("--python", default="python3")
    a = ap.parse_args()
    kiln = a.kiln.split()
    print("| model | threads | torch eager ms | torch.compile ms | Kiln eager ms | Kiln compiled ms | Kiln compiled / torch.compile |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    geo = {}
    for threads in [int(t) for t in a.threads.split(",")]:
        prefix, env = cpu_env(threads)
        torch_r = results(prefix + [a.python, SCRIPT], env)
        with tempfile.TemporaryDirectory() as tmp:
            kiln_r = results(prefix + kiln + ["run", SCRIPT, "--db", os.path.join(tmp, "train.db")], env)
        models = []
        for (model, _mode) in list(torch_r) + list(kiln_r):
            if model not in models:
                models.append(model)
        for model in models:
            tc, kc = torch_r.get((model, "compiled")), kiln_r.get((model, "compiled"))
            r = kc / tc if tc and kc else None
            if r:
                geo.setdefault(threads, []).append(r)
            print(f"| {model.replace('_', ' ')} | {threads} | {fmt(torch_r.get((model, 'eager')))} | {fmt(tc)} | "
                  f"{fmt(kiln_r.get((model, 'eager')))} | {fmt(kc)} | {'n/a' if r is None else f'{r:.2f}x'} |")
    for threads, rs in geo.items():
        print(f"\ngeometric mean of Kiln compiled / torch.compile at {threads} threads: "
              f"{math.exp(sum(math.log(x) for x in rs) / len(rs)):.2f}x over {len(rs)} models")


if __name__ == "__main__":
    main()
