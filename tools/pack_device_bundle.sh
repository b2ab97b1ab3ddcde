#!/usr/bin/env bash
# Packs a carryable Kiln for the GPU machine (a bare Ubuntu 24.04 with the NVIDIA driver and a
# Python install holding the CUDA libraries, but no compiler and no LLVM):
#
#   tools/pack_device_bundle.sh [BUILD_DIR] [OUT_DIR]
#
# builds the kiln CLI and the GPU test binaries (ctest label `gpu`) in BUILD_DIR (default
# build-bundle: Release, studio off, its own folder so the everyday build is untouched), strips
# them, and writes OUT_DIR/kiln-bundle.tar.xz (default .devbundle/, ignored by git): bin/ (linked
# statically against LLVM), the shared libraries beyond glibc and libstdc++ that they load in lib/, and
# run.sh. It fails if the archive is over 60 MiB. KILN_BUNDLE_REUSE=1 packs BUILD_DIR as it is
# (no configure, no build), e.g. the everyday `build`.
#
# There (README, "On a GPU machine"): tar -C /tmp/kiln -xJf .devbundle/kiln-bundle.tar.xz and
# /tmp/kiln/run.sh kiln_cuda_runtime_tests (or kiln run script.py). run.sh finds NVRTC in
# CUDA_HOME, /usr/local/cuda or the NVIDIA wheels of the Python install (the driver, libcuda, is
# the machine's own) and links this checkout at the path the binaries were built in, so the
# tests that read tests/kernels/golden find it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$HERE/build-bundle}
OUT=${2:-$HERE/.devbundle}
# KILN_BUNDLE_TARGETS="kiln kiln_distributed_gpu_tests" packs fewer (the carry limit is 64 MiB
# with the checkout).
read -r -a TARGETS <<<"${KILN_BUNDLE_TARGETS:-kiln kiln_cuda_codegen_tests kiln_cuda_runtime_tests kiln_distributed_gpu_tests}"
LIMIT_MIB=60

if [ "${KILN_BUNDLE_REUSE:-0}" != 1 ]; then
  cmake -S "$HERE" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_STUDIO=OFF -DKILN_BUILD_TESTS=ON >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target "${TARGETS[@]}"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$OUT"
# Each binary is linked again here with LLVM's static libraries in place of libLLVM.so (the
# build's own link line, from CMake's link.txt): only the LLVM code Kiln uses comes along, and
# none of libLLVM's dependencies (z3, libxml2, ICU), which keeps the bundle and the checkout
# under the device's 64 MiB carry limit.
llvm_static="-L$(llvm-config-19 --libdir) $(llvm-config-19 --link-static --libs all | tr ' ' '\n' | grep -v Polly | tr '\n' ' ') $(llvm-config-19 --link-static --system-libs | tr '\n' ' ')"
relink() {  # relink DIR NAME: $BUILD/DIR/NAME, linked statically against LLVM, into $tmp/bin
  local dir="$BUILD/$1" name=$2 line
  line=$(sed -E "s#[^ ]*libLLVM[^ ]*\.so[^ ]*#${llvm_static}#; s# -o $name # -o $tmp/bin/$name #" "$dir/CMakeFiles/$name.dir/link.txt")
  (cd "$dir" && eval "$line -Wl,--as-needed")
}
for t in "${TARGETS[@]}"; do
  case "$t" in
    kiln) relink app kiln ;;
    kiln_cuda_codegen_tests) relink tests/codegen "$t" ;;
    kiln_cuda_runtime_tests) relink tests/runtime "$t" ;;
    kiln_distributed_gpu_tests) relink tests/cli "$t" ;;
    # GPU views made by `kiln cuda-views` children: there nvdisasm makes SASS, so they compare it too.
    kiln_cuda_views_child_tests | kiln_cuda_views_child_gpu_tests) relink tests/cli "$t" ;;
    *) echo "pack_device_bundle: unknown target $t" >&2; exit 2 ;;
  esac
done
# KILN_BUNDLE_SYMBOLS=DIR keeps the unstripped binaries there (this machine only): a profile
# taken on the GPU machine (gperftools' libprofiler, carried beside the bundle) is symbolized
# against them, since the bundle's binaries are stripped and the relinked ones exist only here.
if [ -n "${KILN_BUNDLE_SYMBOLS:-}" ]; then mkdir -p "$KILN_BUNDLE_SYMBOLS" && cp "$tmp"/bin/* "$KILN_BUNDLE_SYMBOLS"/; fi
strip --strip-unneeded "$tmp"/bin/*
# Libraries a bare Ubuntu 24.04 lacks: not glibc, libstdc++ and the base system's (zlib, xz,
# zstd, libbsd, libmd, ncurses, libffi, GMP, OpenSSL: same sonames, newer there). libcuda and
# NVRTC are loaded with dlopen, so ldd does not list them: the driver is the machine's, NVRTC is
# found there. What is copied includes libopenblas, oneDNN's libdnnl.so.2 (CPU convolutions,
# engine/ops/onednn_conv.cpp; not on a bare Ubuntu 24.04) with its
# libgomp (OpenMP) and libOpenCL (ocl-icd loader, linked by Debian's build, unused for the CPU).
for lib in $(ldd "$tmp"/bin/* | awk '/=>/ {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libstdc++* | libgcc_s* | ld-linux* | libpthread* | libdl.so* | librt.so*) ;;
    libz.so* | liblzma.so* | libzstd.so* | libbsd.so* | libmd.so* | libtinfo.so* | libffi.so* | libgmp.so* | libcrypto.so*) ;;
    *) cp -L "$lib" "$tmp/lib/" ;;
  esac
done
strip --strip-unneeded "$tmp"/lib/* 2>/dev/null || true

cat >"$tmp/run.sh" <<EOF
#!/usr/bin/env bash
# Runs a bundled binary (kiln, kiln_cuda_runtime_tests ...) with the bundle's libraries.
set -e
dir=\$(cd "\$(dirname "\$0")" && pwd)
nvrtc=""
for d in "\${CUDA_HOME:-/nonexistent}/lib64" /usr/local/cuda/lib64 \$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, s, "lib") for p in nvidia.__path__ for s in os.listdir(p)))' 2>/dev/null); do
  if ls "\$d"/libnvrtc.so* >/dev/null 2>&1; then nvrtc="\$d"; break; fi
done
# cuBLAS (matmuls on CUDA tensors) likewise: the toolkit's, or the nvidia/cublas wheel's.
cublas=""
for d in "\${CUDA_HOME:-/nonexistent}/lib64" /usr/local/cuda/lib64 \$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, s, "lib") for p in nvidia.__path__ for s in os.listdir(p)))' 2>/dev/null); do
  if ls "\$d"/libcublas.so* >/dev/null 2>&1; then cublas="\$d"; break; fi
done
# cuDNN (convolutions on CUDA tensors) likewise: the toolkit's, or the nvidia/cudnn wheel's.
cudnn=""
for d in "\${CUDA_HOME:-/nonexistent}/lib64" /usr/local/cuda/lib64 \$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, s, "lib") for p in nvidia.__path__ for s in os.listdir(p)))' 2>/dev/null); do
  if ls "\$d"/libcudnn.so.9* >/dev/null 2>&1; then cudnn="\$d"; break; fi
done
# NCCL (torch.distributed's nccl backend) likewise: the toolkit's, or the nvidia/nccl wheel's.
nccl=""
for d in "\${CUDA_HOME:-/nonexistent}/lib64" /usr/local/cuda/lib64 \$(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, s, "lib") for p in nvidia.__path__ for s in os.listdir(p)))' 2>/dev/null); do
  if ls "\$d"/libnccl.so* >/dev/null 2>&1; then nccl="\$d"; break; fi
done
export LD_LIBRARY_PATH="\$dir/lib\${nvrtc:+:\$nvrtc}\${cublas:+:\$cublas}\${cudnn:+:\$cudnn}\${nccl:+:\$nccl}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
# The tests that start kiln (kiln_distributed_gpu_tests) start this bundle's.
export KILN_CLI_PATH="\$dir/run.sh"
# The tests read their data from the checkout they were built in ($HERE).
if [ ! -e "$HERE" ] && [ -n "\${KILN_CHECKOUT:-}" ]; then mkdir -p "\$(dirname "$HERE")" && ln -s "\$KILN_CHECKOUT" "$HERE"; fi
# As KILN_CLI_PATH, run.sh is called with kiln's own arguments (run, show ...: no bundled binary).
if [ ! -x "\$dir/bin/\${1:-none}" ]; then
  exec "\$dir/bin/kiln" "\$@"
fi
bin=\$1
shift
exec "\$dir/bin/\$bin" "\$@"
EOF
chmod +x "$tmp/run.sh"
tar -C "$tmp" -I "xz -9 -T0" -cf "$OUT/kiln-bundle.tar.xz" .
size=$(stat -c %s "$OUT/kiln-bundle.tar.xz")
echo "$OUT/kiln-bundle.tar.xz: $((size / 1024 / 1024)) MiB ($(ls "$tmp/lib" | tr '\n' ' '))"
if [ "$size" -gt $((LIMIT_MIB * 1024 * 1024)) ]; then
  echo "the bundle is over ${LIMIT_MIB} MiB" >&2
  exit 1
fi
