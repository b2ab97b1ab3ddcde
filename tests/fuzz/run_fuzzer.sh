#!/usr/bin/env bash
# Builds the parser fuzzer with clang (libFuzzer + AddressSanitizer + UBSan) and runs it.
#   run_fuzzer.sh SOURCE_DIR WORK_DIR SECONDS
# The corpus is seeded with the shared corpus programs. Exit 0 when nothing was found.
set -euo pipefail
SRC=$1; WORK=$2; SECONDS_TO_RUN=${3:-20}
mkdir -p "$WORK/corpus"
CXX=${FUZZ_CXX:-clang++}
if ! command -v "$CXX" >/dev/null; then echo "run_fuzzer: $CXX not found (install clang and libclang-rt-14-dev)" >&2; exit 1; fi
BIN="$WORK/parser_fuzzer"
if [ ! -x "$BIN" ] || [ -n "$(find "$SRC/engine/python" "$SRC/tests/fuzz" -newer "$BIN" -name '*.[ch]*' | head -1)" ]; then
  "$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$SRC" \
    "$SRC/tests/fuzz/parser_fuzzer.cpp" "$SRC/engine/python/lexer.cpp" "$SRC/engine/python/parser.cpp" -o "$BIN"
fi
for f in "$SRC"/../shared/corpus/public/*.py "$SRC"/examples/*.py "$SRC"/tests/errors/scripts/*.py; do
  [ -f "$f" ] && cp -n "$f" "$WORK/corpus/" 2>/dev/null || true
done
"$BIN" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=5 -rss_limit_mb=2048 "$WORK/corpus" 2>&1 | tail -5
