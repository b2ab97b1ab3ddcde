#include "engine/ops/gemm_algos.h"

namespace kiln::ops {

namespace {
thread_local std::string tPinned;
thread_local std::string tLast;
}  // namespace

const std::vector<GemmAlgo>& gemmAlgos() {
  static const std::vector<GemmAlgo> kAlgos = {
      {"openblas", "OpenBLAS sgemm/dgemm: packs both operands into blocks, then its assembly kernels"},
      {"few_rows", "Kiln's AVX2 dot-product kernel (engine/ops/skinny_gemm.h): up to 32 float32 rows against a weight read row by row"},
      {"onednn", "oneDNN's dnnl_sgemm (float32): its JIT-compiled GEMM kernels for this CPU"},
  };
  return kAlgos;
}

bool isGemmAlgo(const std::string& name) {
  for (const auto& a : gemmAlgos())
    if (name == a.name) return true;
  return false;
}

GemmAlgoScope::GemmAlgoScope(std::string name) : previous_(std::move(tPinned)) { tPinned = std::move(name); }
GemmAlgoScope::~GemmAlgoScope() { tPinned = std::move(previous_); }

const std::string& pinnedGemmAlgo() { return tPinned; }
const std::string& lastGemmAlgo() { return tLast; }
void noteGemmAlgo(const char* name) {
  if (tLast != name) tLast = name;
}

}  // namespace kiln::ops
