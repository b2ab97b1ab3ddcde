#!/usr/bin/env bash
# Long fuzzing runs of every libFuzzer target at once, on a machine with more cores than this
# one (the GPU machine: 16 cores, no clang there, so the fuzzers are built here and carried).
#
#   tools/fuzz_campaign.sh pack WORK BUNDLE_DIR
#       here: the targets built by tests/fuzz/run_fuzzer.sh in WORK/build, the shared libraries
#       they need that a bare Ubuntu may lack, their corpora (WORK/corpus/T without inputs over
#       64 KiB, 300 KiB for the store), the dictionaries and this script, into BUNDLE_DIR/fuzz.tar.xz.
#   tools/fuzz_campaign.sh run BUNDLE_DIR SECONDS WORKERS OUT [TARGET...]
#       there: unpacks, runs each target with WORKERS processes for SECONDS (libFuzzer -jobs),
#       and writes OUT/summary.txt (per target: executions, exec/s, the coverage (cov, ft)
#       each process reached, corpus size, findings), OUT/findings.tar.xz and OUT/corpus.tar.xz (the new
#       corpus, to bring back).
set -euo pipefail
TARGETS_ALL=(parser kernel_ir graph_text graph_json store interpreter tensor)
HERE=$(cd "$(dirname "$0")/.." && pwd)

pack() {
  local work=$1 out=$2 tmp
  tmp=$(mktemp -d)
  mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/corpus" "$out"
  for t in "${TARGETS_ALL[@]}"; do
    cp "$work/build/${t}_fuzzer" "$tmp/bin/"
    mkdir -p "$tmp/corpus/$t"
    local cap=64k
    [ "$t" != store ] || cap=300k
    find "$work/corpus/$t" -maxdepth 1 -type f -size -"$cap" -exec cp -t "$tmp/corpus/$t" {} +
  done
  # Libraries beyond glibc and libstdc++ (which every Ubuntu has).
  for lib in $(ldd "$tmp"/bin/* | awk '/=>/ {print $3}' | sort -u); do
    case "$(basename "$lib")" in libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*) ;; *) cp -L "$lib" "$tmp/lib/" ;; esac
  done
  cp -r "$HERE/tests/fuzz/dicts" "$tmp/dicts"
  cp "$HERE/tests/fuzz/fuzz_args.sh" "$0" "$tmp/"
  tar -C "$tmp" -cJf "$out/fuzz.tar.xz" .
  rm -rf "$tmp"
  ls -la "$out/fuzz.tar.xz"
}

run() {
  local bundle=$1 seconds=$2 workers=$3 out=$4
  shift 4
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=("${TARGETS_ALL[@]}")
  local dir
  dir=$(mktemp -d)
  tar -C "$dir" -xJf "$bundle/fuzz.tar.xz"
  mkdir -p "$out"
  # shellcheck source=/dev/null
  . "$dir/fuzz_args.sh"
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" OPENBLAS_NUM_THREADS=1
  export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
  for t in "${targets[@]}"; do
    mkdir -p "$dir/run/$t" "$dir/findings/$t"
    read -r -a args <<<"$(kiln_fuzz_args "$t" "$dir/dicts")"
    (cd "$dir/run/$t" && "$dir/bin/${t}_fuzzer" "${args[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      -jobs="$workers" -workers="$workers" -artifact_prefix="$dir/findings/$t/" "$dir/corpus/$t" >driver.log 2>&1 || true) &
  done
  wait
  # The corpora and findings first: the summary must not cost them if the time runs out.
  tar -C "$dir" -I "xz -T0" -cf "$out/findings.tar.xz" findings run
  tar -C "$dir" -I "xz -T0" -cf "$out/corpus.tar.xz" corpus
  {
    echo "fuzz campaign: ${seconds} s x ${workers} processes per target, $(nproc) cores, ended $(date -u +%FT%TZ)"
    for t in "${targets[@]}"; do
      local execs cov files finds
      execs=$(cat "$dir/run/$t"/fuzz-*.log 2>/dev/null | grep -a '^stat::number_of_executed_units' | awk '{s += $NF} END {print s + 0}' || true)
      # Each process's last coverage line; the largest stands for the target (processes share
      # the corpus, so they end close to each other).
      cov=$(cat "$dir/run/$t"/fuzz-*.log 2>/dev/null | grep -aEo 'DONE +cov: [0-9]+ ft: [0-9]+' | sort -t: -k2 -n | tail -1 | tr -s ' ' || true)
      files=$(find "$dir/corpus/$t" -type f | wc -l)
      finds=$(find "$dir/findings/$t" -type f | wc -l)
      echo "$t: executions $execs ($((execs / seconds / workers))/s per process), ${cov:-cov: ?}, corpus $files files, findings $finds"
    done
    for t in "${targets[@]}"; do
      [ -z "$(ls -A "$dir/findings/$t")" ] || { echo "== $t findings: $(ls "$dir/findings/$t" | tr '\n' ' ')"; cat "$dir/run/$t"/fuzz-*.log | grep -aE -A12 'ERROR: |runtime error|==ERROR|deadly signal' | head -60; }
    done
  } | tee "$out/summary.txt"
  ls -la "$out"
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack WORK BUNDLE_DIR | run BUNDLE_DIR SECONDS WORKERS OUT [TARGET...]" >&2; exit 2 ;;
esac
