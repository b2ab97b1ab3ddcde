#!/usr/bin/env bash
# The side-by-side GPU benchmark in one command, on the GPU machine: the same workloads
# (workloads.py) under real PyTorch (python3: eager and torch.compile) and under Kiln (the
# bundle's kiln, or $KILN), then one Markdown table (table.py) on stdout and in $OUT_DIR.
#
#   tools/gpu_bench/run.sh     (KILN="/tmp/kiln/run.sh kiln" by default)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kiln=${KILN:-/tmp/kiln/run.sh kiln}
out=${OUT_DIR:-/tmp/gpu_bench}
mkdir -p "$out"
# Cold compiles are cold for both: each run gets empty compile caches of its own (PyTorch:
# Inductor's and Triton's; Kiln: its kernel cache; both: the driver's JIT cache), as on a machine
# that never compiled these workloads. BENCH_WARM=1 keeps the caches where they are.
cold=$(mktemp -d)
trap 'rm -rf "$cold"' EXIT
torch_env=() kiln_env=()
if [ "${BENCH_WARM:-0}" != 1 ]; then
  torch_env=(TORCHINDUCTOR_CACHE_DIR="$cold/inductor" TRITON_CACHE_DIR="$cold/triton" CUDA_CACHE_PATH="$cold/torch-cuda")
  kiln_env=(KILN_CACHE_DIR="$cold/kiln" CUDA_CACHE_PATH="$cold/kiln-cuda")
fi
env "${torch_env[@]}" python3 "$here/workloads.py" >"$out/torch.txt" 2>"$out/torch.err" || echo "PyTorch run failed: $(tail -3 "$out/torch.err")" >&2
env "${kiln_env[@]}" $kiln run "$here/workloads.py" --db "$out/kiln.db" >"$out/kiln.txt" 2>"$out/kiln.err" || echo "Kiln run failed: $(tail -3 "$out/kiln.err")" >&2
python3 -c 'import torch; print("PyTorch", torch.__version__, "on", torch.cuda.get_device_name())' | tee "$out/device.txt"
python3 "$here/table.py" "$out/torch.txt" "$out/kiln.txt" | tee "$out/table.md"
