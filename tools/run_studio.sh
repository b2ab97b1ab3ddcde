#!/usr/bin/env bash
# make run: opens kiln-studio on the bundled example with the default store. Without a display
# (CI, ssh) it runs the studio under Xvfb, saves a screenshot and says where.
set -euo pipefail
BUILD=${1:-build}
EXAMPLE=${2:-examples/mul_add_relu.py}
STUDIO="$BUILD/app/kiln-studio"
[ -x "$STUDIO" ] || { echo "run_studio: $STUDIO is missing; build first (make build)" >&2; exit 1; }
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$STUDIO" "$EXAMPLE"
fi
SHOT="$BUILD/studio.png"
echo "run_studio: no display; running the studio under Xvfb and saving a screenshot to $SHOT"
xvfb-run -a -s "-screen 0 1600x1000x24" "$STUDIO" "$EXAMPLE" --screenshot "$SHOT"
echo "run_studio: screenshot written to $SHOT"
