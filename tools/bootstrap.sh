#!/usr/bin/env bash
# Installs the Debian 12 packages Kiln needs, only those that are missing.
# Run as root (make run / make test call it). Safe to run repeatedly.
set -euo pipefail
PKGS=(
  cmake g++ make pkg-config ccache
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
  llvm-19-dev libz3-dev libzstd-dev zlib1g-dev libedit-dev libffi-dev libxml2-dev libcurl4-openssl-dev
  libgraphviz-dev graphviz libsqlite3-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev clang-format
  # ocl-icd-opencl-dev: dnnl-config.cmake finds OpenCL (a Recommends of libdnnl-dev, which
  # --no-install-recommends leaves out; without it configuring fails on a fresh machine).
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev nlohmann-json3-dev libfmt-dev libgmp-dev libgloo-dev
  xvfb x11-apps python3
  chromium-headless-shell
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "bootstrap: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "bootstrap: missing packages and not root; run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
