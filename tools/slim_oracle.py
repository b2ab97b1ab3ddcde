#!/usr/bin/env python3
"""Copies what the oracle (../shared/tools/oracle) recorded into a folder of the repo, slimmed:
the fields Kiln's tests and studio read, without process logs, timings, machine paths or the
FX node dumps (the readable graph text stays).

usage: slim_oracle.py ORACLE_OUTDIR DEST_DIR [--strip PREFIX]...
Writes DEST_DIR/NAME.json and DEST_DIR/NAME.outs.json for every NAME.json in ORACLE_OUTDIR."""
import glob
import json
import math
import os
import sys

DROP = {"compiled_process", "eager_process", "compile_times", "dynamo_config", "versions", "child_timing",
        "child_notes", "outs_npz", "source_path", "trace_dir", "other_logs", "python_warnings"}
GRAPH_DROP = {"nodes", "code", "example_inputs", "inductor_config_patches"}


def finite(v):
    """NaN and infinities as the strings the corpus format uses ("nan", "inf", "-inf"): JSON has
    no literal for them (Python writes NaN/Infinity, which strict parsers refuse)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [finite(x) for x in v]
    return v


def clip(s, n=4000):
    return s if not isinstance(s, str) or len(s) <= n else s[:n] + "…"


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    src, dst = argv[1], argv[2]
    strips = [argv[i + 1] for i, a in enumerate(argv) if a == "--strip" and i + 1 < len(argv)]
    os.makedirs(dst, exist_ok=True)
    n = 0
    for f in sorted(glob.glob(os.path.join(src, "*.json"))):
        base = os.path.basename(f)
        if base.endswith(".outs.json") or base.startswith("summary"):
            continue
        name = base[: -len(".json")]
        text = open(f, encoding="utf-8").read()
        for p in strips:
            text = text.replace(p, "")
        d = json.loads(text)
        for k in DROP:
            d.pop(k, None)
        for g in d.get("graphs", []):
            for k in GRAPH_DROP:
                g.pop(k, None)
        for side in ("eager", "compiled"):
            e = (d.get("exceptions") or {}).get(side)
            if e:
                e.pop("traceback", None)
                e["message"] = clip(e.get("message", ""), 2000)
        with open(os.path.join(dst, base), "w", encoding="utf-8") as fh:
            json.dump(finite(d), fh, indent=1, sort_keys=True, allow_nan=False)
        outs = os.path.join(src, name + ".outs.json")
        if os.path.exists(outs):
            with open(outs, encoding="utf-8") as fi:
                o = json.load(fi)
            with open(os.path.join(dst, name + ".outs.json"), "w", encoding="utf-8") as fo:
                json.dump(finite(o), fo, allow_nan=False)
        n += 1
    print("slim_oracle: %d programs -> %s" % (n, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
