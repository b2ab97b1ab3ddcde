#!/usr/bin/env python3
"""Shrinks a failing difffuzz program by deleting lines while it still fails the same way.

    reduce.py --kiln build/app/kiln PROGRAM.py [--match REGEX] [--verify] [-o OUT.py]

A candidate is kept when the eager and compiled runs still disagree and the failure reason
(as difffuzz.py words it) matches REGEX (default: the reason's first words of the original
failure). Deleting lines that break the program makes both runs fail alike, so such
candidates are rejected by themselves. The result is printed (or written to OUT.py).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difffuzz import check, run_kiln  # noqa: E402


def make_test(kiln, verify, timeout, work):
    env = dict(os.environ)
    env["KILN_CACHE"] = "0"
    count = [0]

    def test(lines):
        count[0] += 1
        d = os.path.join(work, "c%d" % count[0])
        os.makedirs(d)
        prog = os.path.join(d, "prog.py")
        with open(prog, "w") as f:
            f.write("\n".join(lines) + "\n")
        e = run_kiln(kiln, prog, os.path.join(d, "e"), True, False, timeout, env)
        c = run_kiln(kiln, prog, os.path.join(d, "c"), False, verify, timeout, env)
        status, reason = check(e, c, verify)
        shutil.rmtree(d, ignore_errors=True)
        return status, reason
    return test


def default_pattern(reason):
    if reason.startswith("exit codes differ") or reason.startswith("different errors"):
        m = re.search(r"compiled exit \d+: (\w+)", reason)
        return re.escape(reason.split(":")[0]) + (".*" + re.escape(m.group(1)) if m else "")
    if reason.startswith("out"):  # a value differs: keep a value difference (not an error)
        return r"^out\S*: "
    if reason.startswith("verify:"):  # keep the pass --verify blamed
        m = re.search(r"introduced by ([^:;(]+)", reason)
        return r"^verify: " + (".*introduced by " + re.escape(m.group(1).strip()) if m else "")
    return "^" + re.escape(reason.split(":")[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln", required=True)
    ap.add_argument("program")
    ap.add_argument("--match", default=None)
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("-o", "--output", default=None)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="difffuzz-reduce-")
    test = make_test(os.path.abspath(args.kiln), args.verify, args.timeout, work)
    with open(args.program) as f:
        lines = f.read().splitlines()
    status, reason = test(lines)
    if status != "fail":
        print("reduce: the program does not fail (%s %s)" % (status, reason), file=sys.stderr)
        return 1
    pat = re.compile(args.match or default_pattern(reason))
    print("reduce: %s\nreduce: keeping candidates whose failure matches /%s/" % (reason, pat.pattern),
          file=sys.stderr)

    def still_fails(cand):
        s, r = test(cand)
        return s == "fail" and pat.search(r) is not None

    chunk = max(1, len(lines) // 2)
    while True:
        changed = False
        i = 0
        while i < len(lines):
            cand = lines[:i] + lines[i + chunk:]
            if cand and still_fails(cand):
                lines = cand
                changed = True
            else:
                i += chunk
        if not changed:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    # drop blank-line runs
    out = []
    for ln in lines:
        if ln.strip() or (out and out[-1].strip()):
            out.append(ln)
    text = "\n".join(out).rstrip() + "\n"
    s, r = test(out)
    print("reduce: %d lines; %s" % (len(out), r), file=sys.stderr)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
