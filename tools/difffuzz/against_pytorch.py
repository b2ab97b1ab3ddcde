#!/usr/bin/env python3
"""Compares Kiln with what real PyTorch recorded for the same programs.

    against_pytorch.py --kiln build/app/kiln --programs DIR --oracle ORC [--verify]

DIR holds the programs (generated with generate.py, or tests/fuzz/regressions/), ORC what
../shared/tools/oracle/ recorded for them on the GPU machine (NAME.json, NAME.outs.json). Each
program runs in Kiln eagerly and compiled; both runs' out* values are compared with real
PyTorch's eager values (rtol 1e-4 / atol 1e-5, as difffuzz.py compares), and the graph, break
and recompile counts with real torch.compile's (reported, not failed on: the generator does not
aim at Dynamo's exact graph boundaries). Programs real torch.compile failed on are listed.
Exit status 1 when a Kiln output differs from PyTorch's.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difffuzz import compare_outs, run_kiln  # noqa: E402


def kiln_counts(kiln, prog, db):
    p = subprocess.run([kiln, "explain", "--json", "--db", db, prog], capture_output=True, text=True,
                       cwd=os.path.dirname(prog), timeout=120)
    try:
        j = json.loads(p.stdout[p.stdout.index("{"):])
    except ValueError:
        return None
    return (j.get("graph_count"), j.get("graph_break_count"), j.get("recompile_count"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--programs", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    args.kiln = os.path.abspath(args.kiln)
    env = dict(os.environ, KILN_CACHE="0")
    work = tempfile.mkdtemp(prefix="against-pytorch-")
    rows = {"eager": 0, "compiled": 0, "counts": 0, "n": 0}
    torch_failed, bad = [], []
    for f in sorted(os.listdir(args.programs)):
        if not f.endswith(".py"):
            continue
        name = f[:-3]
        rec_path = os.path.join(args.oracle, name + ".json")
        outs_path = os.path.join(args.oracle, name + ".outs.json")
        if not (os.path.exists(rec_path) and os.path.exists(outs_path)):
            continue
        with open(rec_path) as fh:
            rec = json.load(fh)
        with open(outs_path) as fh:
            ref = json.load(fh)
        if not rec.get("eager_ok"):
            continue
        rows["n"] += 1
        prog = os.path.abspath(os.path.join(args.programs, f))
        d = os.path.join(work, name)
        e = run_kiln(args.kiln, prog, os.path.join(d, "eager"), True, False, 120, env)
        c = run_kiln(args.kiln, prog, os.path.join(d, "compiled"), False, args.verify, 120, env)
        for mode, r in (("eager", e), ("compiled", c)):
            diffs = compare_outs(ref, r.outs) if r.outs is not None else ["no outputs: " + r.describe()]
            if r.rc != 0:
                diffs = diffs or ["kiln " + r.describe()]
            if diffs:
                bad.append("%s %s: %s" % (name, mode, diffs[0]))
            else:
                rows[mode] += 1
        if not rec.get("compiled_ok"):
            exc = (rec.get("exceptions") or {}).get("compiled") or {}
            torch_failed.append("%s: %s: %s" % (name, exc.get("type"), (exc.get("message") or "").split("\n")[0][:120]))
            continue
        kc = kiln_counts(args.kiln, prog, os.path.join(d, "compiled", "kiln.db"))
        tc = (rec.get("graph_count"), rec.get("graph_break_count"), rec.get("recompile_count"))
        if kc == tc:
            rows["counts"] += 1
        else:
            print("%s counts: kiln graphs/breaks/recompiles %s, torch %s" % (name, kc, tc))
    for b in bad:
        print("DIFFERS " + b)
    for t in torch_failed:
        print("real torch.compile failed (eager ran): " + t)
    n = rows["n"]
    print("against PyTorch: %d programs; Kiln eager = PyTorch eager: %d; Kiln compiled = PyTorch eager: %d; "
          "graph/break/recompile counts = torch.compile's: %d of %d that torch.compile ran" %
          (n, rows["eager"], rows["compiled"], rows["counts"], n - len(torch_failed)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
