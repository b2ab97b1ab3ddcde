#!/usr/bin/env bash
# Builds one libFuzzer target with clang (libFuzzer + AddressSanitizer + UBSan) and runs it.
#   run_fuzzer.sh SOURCE_DIR WORK_DIR SECONDS [TARGET]
# TARGET: parser (default), kernel_ir, graph_text, graph_json, store, interpreter, tensor.
#
# The targets are built by the CMake project tests/fuzz/clang/ in WORK_DIR/build (configured on
# first use, then rebuilt only where sources changed; engine objects are shared between the
# targets). Builds are serialized by WORK_DIR/build.lock, so runs may start together. The corpus
# is WORK_DIR/corpus/TARGET, seeded from the repository (and, for the store, from small stores
# made by `kiln run`: $KILN_BIN, default SOURCE_DIR/build/app/kiln). Findings go to
# WORK_DIR/findings/TARGET/. Exit 0 when nothing was found; non-zero on a finding, a failed
# build, or when clang is missing.
#
# Environment: FUZZ_CXX / FUZZ_CC (default clang++ / clang), FUZZ_JOBS (build jobs, default 2),
# FUZZ_OPT (-O1; -O0 builds faster and runs slower: it gets its own build tree),
# FUZZ_ARGS (more libFuzzer flags, e.g. "-jobs=2 -workers=2").
set -euo pipefail
SRC=$(cd "$1" && pwd); WORK=$2; SECONDS_TO_RUN=${3:-20}; TARGET=${4:-parser}
CXX=${FUZZ_CXX:-clang++}
CC=${FUZZ_CC:-clang}
OPT=${FUZZ_OPT:--O1}
if ! command -v "$CXX" >/dev/null; then echo "run_fuzzer: $CXX not found (install clang and libclang-rt-14-dev)" >&2; exit 1; fi
case "$TARGET" in
  parser|kernel_ir|graph_text|graph_json|store|interpreter|tensor|trace_import) ;;
  *) echo "run_fuzzer: unknown target '$TARGET'" >&2; exit 2 ;;
esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
BUILD="$WORK/build"
[ "$OPT" = "-O1" ] || BUILD="$WORK/build${OPT}"
BIN="$BUILD/${TARGET}_fuzzer"

# --- build ---------------------------------------------------------------------------------------
build() {
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    local gen=() launcher=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$SRC/tests/fuzz/clang" -B "$BUILD" "${gen[@]}" "${launcher[@]}" -DCMAKE_CXX_COMPILER="$CXX" \
      -DCMAKE_C_COMPILER="$CC" -DFUZZ_OPT="$OPT" >"$WORK/configure.log" 2>&1 ||
      { cat "$WORK/configure.log" >&2; echo "run_fuzzer: configuring the fuzz build failed" >&2; return 1; }
  fi
  local t0=$SECONDS
  if ! cmake --build "$BUILD" --target "${TARGET}_fuzzer" -j "${FUZZ_JOBS:-2}" >"$WORK/build-$TARGET.log" 2>&1; then
    tail -40 "$WORK/build-$TARGET.log" >&2
    echo "run_fuzzer: building ${TARGET}_fuzzer failed (log: $WORK/build-$TARGET.log)" >&2
    return 1
  fi
  echo "run_fuzzer: ${TARGET}_fuzzer built in $((SECONDS - t0)) s"
}
exec 9>"$WORK/build.lock"
flock 9
build
flock -u 9

# --- seeds ---------------------------------------------------------------------------------------
CORPUS="$WORK/corpus/$TARGET"
mkdir -p "$CORPUS" "$WORK/findings/$TARGET"
FUZZ="$SRC/tests/fuzz"
copy_seeds() {
  for f in "$@"; do
    [ -f "$f" ] && cp -n "$f" "$CORPUS/" 2>/dev/null || true
  done
}
# Committed seeds and the inputs of fixed findings (each short run replays them first).
copy_seeds "$FUZZ"/seeds/"$TARGET"/*
# libFuzzer flags per target: tests/fuzz/fuzz_args.sh (shared with tools/fuzz_campaign.sh).
# shellcheck source=fuzz_args.sh
. "$FUZZ/fuzz_args.sh"
read -r -a ARGS <<<"$(kiln_fuzz_args "$TARGET" "$FUZZ/dicts")"
case "$TARGET" in
  parser)
    copy_seeds "$SRC"/../shared/corpus/public/*.py "$SRC"/examples/*.py "$SRC"/tests/errors/scripts/*.py ;;
  interpreter)
    copy_seeds "$SRC"/../shared/corpus/public/*.py "$SRC"/examples/*.py "$SRC"/tests/python/cpython/*.py \
      "$SRC"/tests/errors/scripts/*.py
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
  kernel_ir)
    for f in "$SRC"/tests/kernels/golden/*.txt; do
      [ -f "$CORPUS/$(basename "$f")" ] || awk '/^kernel /{p=1} p{print} /^end$/{p=0}' "$f" >"$CORPUS/$(basename "$f")"
    done ;;
  graph_text)
    copy_seeds "$SRC"/tests/passes/golden/*/*.in "$SRC"/tests/passes/golden/*/*.out ;;
  trace_import)
    # The first 200 lines of a few real logs (whole ones are 100 KB - 1 MB: too slow to mutate).
    for d in gb_explicit_graph_break rc_dtype_change seed_dynamic_shape_model model_gru_cell_manual; do
      for f in "$SRC"/../shared/fixtures/torch_trace/cpu/$d/*.log; do
        [ -f "$f" ] && [ ! -f "$CORPUS/$d.log" ] && head -200 "$f" >"$CORPUS/$d.log"
      done
    done ;;
  store)
    # Two small real stores of two sessions each (a profiled run, a verified run with a graph
    # break; a recompile, automatic dynamic shapes), made by `kiln run`, then shrunk: outputs
    # dropped, rollback-journal mode (a WAL store keeps its last commits in the -wal file, which
    # the target does not write), 512-byte pages, vacuumed. Made afresh on every run: a seed of an
    # older schema is refused by the read-only open the target does (the schema-6 bump left a
    # campaign fuzzing nothing but that refusal), so the seeds must follow the schema.
    KILN_BIN=${KILN_BIN:-$SRC/build/app/kiln}
    PUB="$SRC/../shared/corpus/public"
    if [ -x "$KILN_BIN" ] && command -v sqlite3 >/dev/null && [ -d "$PUB" ]; then
      tmp=$(mktemp -d)
      export KILN_CACHE=0
      "$KILN_BIN" run "$PUB/seed_sin_plus_one.py" --db "$tmp/a.db" --profile 1 >/dev/null 2>&1 || true
      "$KILN_BIN" run "$PUB/gb_explicit_graph_break.py" --db "$tmp/a.db" --verify >/dev/null 2>&1 || true
      "$KILN_BIN" run "$PUB/rc_dtype_change.py" --db "$tmp/b.db" >/dev/null 2>&1 || true
      "$KILN_BIN" run "$PUB/rc_shape_change_auto_dynamic.py" --db "$tmp/b.db" >/dev/null 2>&1 || true
      unset KILN_CACHE
      for db in "$tmp"/a.db "$tmp"/b.db; do
        [ -f "$db" ] && sqlite3 "$db" "UPDATE sessions SET outputs_json = '{}'; PRAGMA journal_mode=DELETE;
          PRAGMA page_size=512; VACUUM;" >/dev/null && cp "$db" "$CORPUS/store_$(basename "$db")"
      done
      rm -rf "$tmp"
    else
      echo "run_fuzzer: no seed stores ($KILN_BIN or sqlite3 missing): starting from an empty corpus" >&2
    fi ;;
esac

# --- run -----------------------------------------------------------------------------------------
# OpenBLAS must not start a thread pool in the fuzzer's process.
export OPENBLAS_NUM_THREADS=1
# UBSan reports with the stack that led there.
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# shellcheck disable=SC2086
"$BIN" "${ARGS[@]}" -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 \
  -artifact_prefix="$WORK/findings/$TARGET/" ${FUZZ_ARGS:-} "$CORPUS" >"$WORK/run-$TARGET.log" 2>&1 && rc=0 || rc=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$WORK/run-$TARGET.log" | tail -2 || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$WORK/run-$TARGET.log" || true
if [ "$rc" != 0 ]; then
  # The report: the sanitizer's or the target's message and the input that caused it.
  grep -vE '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)|[[:space:]]+NEW_FUNC)' "$WORK/run-$TARGET.log" | tail -60
  echo "run_fuzzer: $TARGET found a problem (exit $rc); the input is in $WORK/findings/$TARGET/ (log: $WORK/run-$TARGET.log)" >&2
fi
exit "$rc"
