#!/usr/bin/env python3
"""Rewrites tests/conformance/known_failures.txt from a conformance test log: every
`[ DIFFERS  ] NAME MODE: reason` line becomes `NAME MODE reason`.

usage: build/tests/conformance/kiln_conformance_tests > LOG; tools/conformance_known.py LOG"""
import re
import sys

HEADER = """# Program/mode pairs that do not match real PyTorch 2.11 yet: NAME MODE what differs.
# The conformance test fails on any other difference and on a listed pair that matches, so
# this list only shrinks. Regenerate the reasons with tools/conformance_known.py after a change.
"""


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    rows = []
    for line in open(argv[1], encoding="utf-8"):
        m = re.match(r"\[ DIFFERS  \] (\S+) (eager|compiled|counts): (.*)", line.rstrip("\n"))
        if m:
            rows.append("%s %s %s" % (m.group(1), m.group(2), m.group(3)[:200]))
    path = __file__.rsplit("/tools/", 1)[0] + "/tests/conformance/known_failures.txt"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(HEADER + "\n".join(rows) + "\n")
    print("%d known failures -> %s" % (len(rows), path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
