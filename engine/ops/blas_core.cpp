#include "engine/ops/blas_core.h"

#include <algorithm>
#include <cctype>

// OpenBLAS's own query; weak, so that a build on another BLAS links and reports no core.
extern "C" char* openblas_get_corename(void) __attribute__((weak));

namespace kiln::ops {

std::string openBlasCore() {
  if (!openblas_get_corename) return "";
  const char* name = openblas_get_corename();
  return name ? name : "";
}

std::string betterBlasCore(const std::string& core, bool avx2Fma, bool avx512) {
  std::string c = core;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  // The x86-64 cores OpenBLAS falls back to, or picks for CPUs older than AVX2: none of them uses
  // the AVX2 or AVX-512 kernels a newer CPU runs 4-9x faster.
  static const char* const kGeneric[] = {"prescott",  "core2",     "penryn",  "dunnington",   "nehalem",    "sandybridge",
                                         "atom",      "barcelona", "bobcat",  "bulldozer",    "piledriver", "steamroller",
                                         "excavator", "nano",      "opteron", "opteron_sse3", "katmai",     "coppermine",
                                         "northwood", "banias",    "generic", "unknown"};
  if (std::find(std::begin(kGeneric), std::end(kGeneric), c) == std::end(kGeneric)) return "";
  if (avx512) return "SkylakeX";
  if (avx2Fma) return "Haswell";
  return "";
}

std::string betterBlasCoreHere() {
  const std::string core = openBlasCore();
  if (core.empty()) return "";
  const bool avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  return betterBlasCore(core, avx2Fma, avx512);
}

}  // namespace kiln::ops
