#!/usr/bin/env python3
"""Differential fuzzer: Kiln's compiled run against Kiln's eager run of random programs.

For each seed, generate.py writes a program; it is run twice,

    kiln run --eager --db DB --dump-outputs E PROGRAM      (torch.compile is the identity)
    kiln run         --db DB --dump-outputs C PROGRAM      (plus --verify with --verify)

and the two runs must agree: the same exit code, the same exception type when both fail, the
same printed output, and the same out* values (structure, shapes, dtypes, integers and bools
exactly, floats within rtol 1e-4 / atol 1e-5, NaN equal to NaN). Any difference is a Kiln bug.

    difffuzz.py --kiln build/app/kiln --seeds 1:60                  # seeds 1..60
    difffuzz.py --kiln build/app/kiln --minutes 60 --jobs 2 --verify --keep-failures /tmp/fails

Seeds listed in known_failures.txt (next to this file) are known Kiln bugs: when they fail they
are reported as "known" and do not fail the run; when they pass they are reported so that the
list can shrink. Exit status: 1 when a program failed, else 0.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import generate  # noqa: E402

RTOL = 1e-4
ATOL = 1e-5
HERE = os.path.dirname(os.path.abspath(__file__))
# Eager failures that mean "the generator used something Kiln does not have".
UNSUPPORTED = re.compile(r"^(NotImplementedError|AttributeError|Unsupported)\b")


# ----------------------------------------------------------------------------- comparison

def _num(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v)
    return v


def _close(a, b, exact):
    a, b = _num(a), _num(b)
    if isinstance(a, bool) or isinstance(b, bool) or exact:
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= ATOL + RTOL * abs(b)


def compare_value(name, e, c):
    """None when equal, else a one-line description of the first difference."""
    if isinstance(e, dict) and isinstance(c, dict) and "data" in e and "data" in c:
        if e.get("dtype") != c.get("dtype"):
            return "%s: dtype %s vs %s" % (name, e.get("dtype"), c.get("dtype"))
        if e.get("shape") != c.get("shape"):
            return "%s: shape %s vs %s" % (name, e.get("shape"), c.get("shape"))
        de, dc = e["data"], c["data"]
        if len(de) != len(dc):
            return "%s: %d vs %d elements" % (name, len(de), len(dc))
        exact = not str(e.get("dtype", "")).startswith(("float", "bfloat", "complex"))
        bad = [i for i, (x, y) in enumerate(zip(de, dc)) if not _close(x, y, exact)]
        if bad:
            i = bad[0]
            worst = 0.0
            for j in bad:
                x, y = _num(de[j]), _num(dc[j])
                if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
                    d = abs(x - y)
                    worst = max(worst, d if not math.isnan(d) else math.inf)
            return "%s: %d of %d elements differ, first at flat index %d: eager %s, compiled %s (max abs diff %.3g)" % (
                name, len(bad), len(de), i, de[i], dc[i], worst)
        return None
    if e != c:
        return "%s: eager %s, compiled %s" % (name, json.dumps(e)[:80], json.dumps(c)[:80])
    return None


def compare_outs(e, c):
    """Differences between two outs.json objects (flattened names -> values)."""
    diffs = []
    ke, kc = set(e), set(c)
    if ke != kc:
        only_e, only_c = sorted(ke - kc), sorted(kc - ke)
        diffs.append("outputs differ in structure: only eager %s, only compiled %s" % (only_e[:4], only_c[:4]))
    for k in sorted(ke & kc, key=_natural):
        d = compare_value(k, e[k], c[k])
        if d:
            diffs.append(d)
    return diffs


def _natural(k):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", k)]


# ----------------------------------------------------------------------------- running

def last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def program_stdout(text):
    """The script's own printing: kiln's trailing 'session N' line removed."""
    lines = text.splitlines()
    if lines and re.match(r"^session \d+$", lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines)


class Run:
    def __init__(self, rc, stdout, stderr, outs, timed_out, seconds):
        self.rc, self.stdout, self.stderr, self.outs = rc, stdout, stderr, outs
        self.timed_out, self.seconds = timed_out, seconds

    def describe(self):
        if self.timed_out:
            return "timed out"
        if self.rc < 0:
            return "killed by signal %d" % -self.rc
        return "exit %d%s" % (self.rc, (": " + last_line(self.stderr)) if self.rc else "")


def run_kiln(kiln, prog, d, eager, verify, timeout, env):
    os.makedirs(d, exist_ok=True)
    cmd = [kiln, "run"]
    if eager:
        cmd.append("--eager")
    if verify and not eager:
        cmd.append("--verify")
    cmd += ["--db", os.path.join(d, "kiln.db"), "--dump-outputs", d, prog]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           cwd=os.path.dirname(prog), errors="replace")
        rc, so, se, to = p.returncode, p.stdout, p.stderr, False
    except subprocess.TimeoutExpired as ex:
        so = ex.stdout.decode(errors="replace") if isinstance(ex.stdout, bytes) else (ex.stdout or "")
        se = ex.stderr.decode(errors="replace") if isinstance(ex.stderr, bytes) else (ex.stderr or "")
        rc, to = -9, True
    outs = None
    path = os.path.join(d, "outs.json")
    if os.path.exists(path):
        try:
            with open(path) as f:
                outs = json.load(f)
        except ValueError as ex:
            outs = {"<unreadable outs.json>": str(ex)}
    return Run(rc, so, se, outs, to, time.time() - t0)


def check(e, c, verify):
    """('pass'|'fail'|'invalid', reason)."""
    if e.timed_out or e.rc < 0:
        return "fail", "eager run " + e.describe()
    if c.timed_out or c.rc < 0:
        return "fail", "compiled run " + c.describe()
    if e.rc != 0 and UNSUPPORTED.match(last_line(e.stderr)):
        return "invalid", "eager: " + last_line(e.stderr)
    if verify and c.rc == 3:
        lines = c.stderr.splitlines()
        i = next((k for k, ln in enumerate(lines) if ln.startswith("kiln verify:")), None)
        detail = lines[i + 1].strip() if i is not None and i + 1 < len(lines) else last_line(c.stderr)
        return "fail", "verify: " + detail
    if e.rc != c.rc:
        return "fail", "exit codes differ: eager %s, compiled %s" % (e.describe(), c.describe())
    if e.rc != 0:
        le, lc = last_line(e.stderr), last_line(c.stderr)
        if le.split(":")[0] != lc.split(":")[0]:
            return "fail", "different errors: eager %r, compiled %r" % (le, lc)
        return "pass", "both fail with " + le.split(":")[0]
    so_e, so_c = program_stdout(e.stdout), program_stdout(c.stdout)
    if so_e != so_c:
        le, lc = so_e.splitlines(), so_c.splitlines()
        i = next((k for k in range(max(len(le), len(lc)))
                  if k >= len(le) or k >= len(lc) or le[k] != lc[k]), 0)
        return "fail", "printed output differs at line %d: eager %r, compiled %r" % (
            i + 1, le[i] if i < len(le) else "<end>", lc[i] if i < len(lc) else "<end>")
    if e.outs is None or c.outs is None:
        return "fail", "missing outs.json (eager %s, compiled %s)" % (e.outs is not None, c.outs is not None)
    diffs = compare_outs(e.outs, c.outs)
    if diffs:
        more = " (+%d more)" % (len(diffs) - 1) if len(diffs) > 1 else ""
        return "fail", diffs[0] + more
    return "pass", ""


def run_seed(args, seed, env):
    if isinstance(seed, str):  # --programs: a file of the regression suite
        with open(seed) as f:
            src = f.read()
        seed = os.path.splitext(os.path.basename(seed))[0]
    else:
        src = generate(seed)
    d = os.path.join(args.workdir, "seed_%s" % seed)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prog = os.path.join(d, "prog_%s.py" % seed)
    with open(prog, "w") as f:
        f.write(src)
    e = run_kiln(args.kiln, prog, os.path.join(d, "eager"), True, False, args.timeout, env)
    c = run_kiln(args.kiln, prog, os.path.join(d, "compiled"), False, args.verify, args.timeout, env)
    status, reason = check(e, c, args.verify)
    if status == "fail" and args.keep_failures:
        keep(args.keep_failures, seed, src, e, c, reason)
    if not args.keep_workdir:
        shutil.rmtree(d, ignore_errors=True)
    return status, reason, e.seconds + c.seconds


def keep(dirname, seed, src, e, c, reason):
    os.makedirs(dirname, exist_ok=True)
    base = os.path.join(dirname, "seed_%s" % seed)
    with open(base + ".py", "w") as f:
        f.write(src)
    for tag, r in (("eager", e), ("compiled", c)):
        if r.outs is not None:
            with open("%s.%s.outs.json" % (base, tag), "w") as f:
                json.dump(r.outs, f)
        with open("%s.%s.log" % (base, tag), "w") as f:
            f.write("# %s\n--- stdout\n%s\n--- stderr\n%s" % (r.describe(), r.stdout, r.stderr))
    with open(base + ".txt", "w") as f:
        f.write("seed %s: %s\n" % (seed, reason))


def load_known(path):
    known = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
                if not line:
                    continue
                parts = line.split(None, 1)
                try:
                    known[int(parts[0])] = parts[1] if len(parts) > 1 else ""
                except ValueError:
                    pass
    return known


def parse_seeds(s):
    if ":" in s:
        a, b = s.split(":", 1)
        return int(a), (int(b) if b else None)
    return int(s), int(s)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True, help="path to the kiln binary")
    ap.add_argument("--seeds", default=None, help="A:B runs seeds A..B inclusive; A: runs from A on (with --minutes)")
    ap.add_argument("--programs", default=None, metavar="DIR",
                    help="run the .py files of DIR (written by hand or reduced from failures) instead of generated seeds")
    ap.add_argument("--minutes", type=float, default=None, help="stop starting programs after this many minutes")
    ap.add_argument("--workdir", default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--keep-failures", default=None, metavar="DIR", help="save failing programs and their outputs here")
    ap.add_argument("--keep-workdir", action="store_true", help="leave every program's run folder in the workdir")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--verify", action="store_true", help="pass --verify to the compiled run (exit 3 is a failure)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per kiln run")
    ap.add_argument("--known", default=os.path.join(HERE, "known_failures.txt"), help="known failing seeds")
    ap.add_argument("--kernel-cache", action="store_true",
                    help="let Kiln cache compiled kernels (per job, under the workdir); off by default")
    ap.add_argument("-v", "--verbose", action="store_true", help="print a line for every program")
    args = ap.parse_args(argv)

    args.kiln = os.path.abspath(args.kiln)
    if not os.access(args.kiln, os.X_OK):
        ap.error("no executable kiln at %s" % args.kiln)
    files = None
    if args.programs:
        files = sorted(os.path.join(args.programs, f) for f in os.listdir(args.programs) if f.endswith(".py"))
        if not files:
            ap.error("no .py files in %s" % args.programs)
        args.seeds = "0:%d" % (len(files) - 1)
    if args.seeds is None:
        if args.minutes is None:
            ap.error("give --seeds A:B or --minutes M")
        first, last = 1000, None
    else:
        first, last = parse_seeds(args.seeds)
    if last is None and args.minutes is None:
        ap.error("an open seed range needs --minutes")
    tmp = None
    if args.workdir is None:
        tmp = args.workdir = tempfile.mkdtemp(prefix="difffuzz-")
    args.workdir = os.path.abspath(args.workdir)
    os.makedirs(args.workdir, exist_ok=True)
    if args.keep_failures:
        args.keep_failures = os.path.abspath(args.keep_failures)
    known = load_known(args.known)

    start = time.time()
    deadline = start + args.minutes * 60 if args.minutes is not None else None
    lock = threading.Lock()
    state = {"next": first}
    counts = {"pass": 0, "fail": 0, "invalid": 0, "known": 0}
    known_passing = []
    failed_seeds = []

    def take():
        with lock:
            s = state["next"]
            if last is not None and s > last:
                return None
            if deadline is not None and time.time() >= deadline:
                return None
            state["next"] = s + 1
            return files[s] if files else s

    def worker(job):
        env = dict(os.environ)
        if args.kernel_cache:
            env["KILN_CACHE_DIR"] = os.path.join(args.workdir, "kernel-cache-%d" % job)
        else:
            env["KILN_CACHE"] = "0"
        env.pop("KILN_DB", None)
        while True:
            seed = take()
            if seed is None:
                return
            try:
                status, reason, secs = run_seed(args, seed, env)
            except Exception as ex:  # a generator or harness error must not go unnoticed
                status, reason, secs = "fail", "harness error: %r" % ex, 0.0
            with lock:
                if status == "fail" and seed in known:
                    counts["known"] += 1
                    print("seed %s: known (%s): %s" % (seed, known[seed], reason), flush=True)
                    continue
                if status == "pass" and seed in known:
                    known_passing.append(seed)
                    print("seed %s: listed in known_failures.txt but passes now" % seed, flush=True)
                counts[status] += 1
                if status == "fail":
                    failed_seeds.append(seed)
                    print("seed %s: FAIL %s" % (seed, reason), flush=True)
                elif status == "invalid":
                    print("seed %s: invalid (generator produced unsupported code): %s" % (seed, reason), flush=True)
                elif args.verbose:
                    print("seed %s: ok %.1fs %s" % (seed, secs, reason), flush=True)

    threads = [threading.Thread(target=worker, args=(j,)) for j in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    n = sum(counts.values())
    secs = time.time() - start
    if counts["known"]:
        print("difffuzz: %d known failures (known_failures.txt)" % counts["known"])
    if known_passing:
        print("difffuzz: known failing seeds that pass now: %s" % " ".join(map(str, sorted(known_passing))))
    if failed_seeds:
        print("difffuzz: failing seeds: %s" % " ".join(map(str, sorted(failed_seeds, key=str))))
    print("difffuzz: %d programs, %d passed, %d failed, %d invalid, %.0f seconds" % (
        n, counts["pass"], counts["fail"], counts["invalid"], secs))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
