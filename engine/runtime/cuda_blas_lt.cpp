// cuBLASLt, loaded with dlopen like cuBLAS (nvidia_libs.h), for one thing: a float32 GEMM whose
// epilogue adds a bias vector (CUBLASLT_EPILOGUE_BIAS), the kernel PyTorch's addmm runs on CUDA
// for a linear layer. The descriptors and the algorithm cuBLASLt's heuristic picks are made once
// per problem (shape, transposes, leading dimensions, TF32) and kept; a call sets the bias
// pointer and launches on Kiln's stream with a workspace of its own.
#include "engine/runtime/cuda_blas_lt.h"

#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/nvidia_libs.h"
#include "engine/tensor/current_device.h"
#include "engine/tensor/tensor.h"

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <type_traits>

namespace kiln::runtime::cuda {

namespace {

// The few cuBLASLt enums and structs used (cublasLt.h / cublas_api.h of CUDA 12 and 13; the
// headers are not needed to build Kiln, as for every NVIDIA library it loads).
using Status = int;
constexpr int kComputeF32 = 68, kComputeF32FastTf32 = 77;  // cublasComputeType_t
constexpr int kRealF32 = 0;                                // cudaDataType_t CUDA_R_32F
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8, kDescBiasDataType = 26;
constexpr uint32_t kEpilogueBias = 4;
constexpr int kPrefMaxWorkspaceBytes = 1;
constexpr size_t kWorkspaceBytes = 4u << 20;  // split-K and stream-K algorithms need some

struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};

struct Lt {
  void* handle = nullptr;
  Status (*create)(void**) = nullptr;
  Status (*descCreate)(void**, int, int) = nullptr;
  Status (*descSet)(void*, int, const void*, size_t) = nullptr;
  Status (*layoutCreate)(void**, int, uint64_t, uint64_t, int64_t) = nullptr;
  Status (*prefCreate)(void**) = nullptr;
  Status (*prefSet)(void*, int, const void*, size_t) = nullptr;
  Status (*heuristic)(void*, void*, void*, void*, void*, void*, void*, int, HeuristicResult*, int*) = nullptr;
  Status (*matmul)(void*, void*, const void*, const void*, void*, const void*, void*, const void*, const void*, void*, void*, void*,
                   const Algo*, void*, size_t, void*) = nullptr;
  tensor::Tensor workspace;
};

// Null where cuBLASLt cannot be loaded or set up: the callers fall back, so this never throws.
Lt* lt() {
  static std::once_flag once;
  static Lt l;
  static bool ok = false;
  std::call_once(once, [] {
    void* lib = openNvidiaLibrary({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, "cublas");
    if (!lib) return;
    auto sym = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      return f != nullptr;
    };
    if (!sym(l.create, "cublasLtCreate") || !sym(l.descCreate, "cublasLtMatmulDescCreate") ||
        !sym(l.descSet, "cublasLtMatmulDescSetAttribute") || !sym(l.layoutCreate, "cublasLtMatrixLayoutCreate") ||
        !sym(l.prefCreate, "cublasLtMatmulPreferenceCreate") || !sym(l.prefSet, "cublasLtMatmulPreferenceSetAttribute") ||
        !sym(l.heuristic, "cublasLtMatmulAlgoGetHeuristic") || !sym(l.matmul, "cublasLtMatmul"))
      return;
    driver().makeCurrent();
    if (l.create(&l.handle) != 0) return;
    try {
      l.workspace = tensor::Tensor::empty({static_cast<int64_t>(kWorkspaceBytes / 4)}, ir::DType::Float32,
                                          tensor::Device::cuda(tensor::currentCudaIndex()));
    } catch (...) { return; }
    ok = true;
  });
  return ok ? &l : nullptr;
}

// One problem's descriptors and chosen algorithm (made once, kept for the process).
struct Plan {
  bool usable = false;
  void* desc = nullptr;
  void *aLayout = nullptr, *bLayout = nullptr, *dLayout = nullptr;
  Algo algo{};
  size_t workspace = 0;
};

Plan makePlan(Lt& l, int opA, long long lda, int opB, long long ldb, long long m, long long k, long long cols, bool tf32) {
  Plan p;
  if (l.descCreate(&p.desc, tf32 ? kComputeF32FastTf32 : kComputeF32, kRealF32) != 0) return p;
  // cuBLASLt's A and B are cuda_blas.cpp's bm^T and a^T: D (cols x m) = op(bm^T) * op(a^T).
  const int32_t transA = opB, transB = opA, biasType = kRealF32;
  const uint32_t epilogue = kEpilogueBias;
  if (l.descSet(p.desc, kDescTransA, &transA, sizeof transA) != 0 || l.descSet(p.desc, kDescTransB, &transB, sizeof transB) != 0 ||
      l.descSet(p.desc, kDescEpilogue, &epilogue, sizeof epilogue) != 0 ||
      l.descSet(p.desc, kDescBiasDataType, &biasType, sizeof biasType) != 0)
    return p;
  // A layout is of the matrix as stored: rows x columns before the transpose.
  if (l.layoutCreate(&p.aLayout, kRealF32, static_cast<uint64_t>(transA ? k : cols), static_cast<uint64_t>(transA ? cols : k), ldb) != 0 ||
      l.layoutCreate(&p.bLayout, kRealF32, static_cast<uint64_t>(transB ? m : k), static_cast<uint64_t>(transB ? k : m), lda) != 0 ||
      l.layoutCreate(&p.dLayout, kRealF32, static_cast<uint64_t>(cols), static_cast<uint64_t>(m), cols) != 0)
    return p;
  void* pref = nullptr;
  const uint64_t ws = kWorkspaceBytes;
  if (l.prefCreate(&pref) != 0 || l.prefSet(pref, kPrefMaxWorkspaceBytes, &ws, sizeof ws) != 0) return p;
  HeuristicResult r{};
  int found = 0;
  if (l.heuristic(l.handle, p.desc, p.aLayout, p.bLayout, p.dLayout, p.dLayout, pref, 1, &r, &found) != 0 || found < 1 || r.state != 0)
    return p;
  p.algo = r.algo;
  p.workspace = r.workspaceSize;
  p.usable = true;
  return p;
}

}  // namespace

bool gemmWithBiasEpilogue(const float* a, int opA, long long lda, const float* bm, int opB, long long ldb, float* out, long long m,
                          long long k, long long cols, const float* bias, float alpha, bool tf32) {
  Lt* l = lt();
  if (!l || m <= 0 || k <= 0 || cols <= 0) return false;
  static std::mutex mu;
  static std::map<std::array<long long, 8>, Plan> plans;
  std::lock_guard<std::mutex> lock(mu);
  const std::array<long long, 8> key = {opA, lda, opB, ldb, m, k, cols, tf32 ? 1 : 0};
  auto it = plans.find(key);
  if (it == plans.end()) it = plans.emplace(key, makePlan(*l, opA, lda, opB, ldb, m, k, cols, tf32)).first;
  Plan& p = it->second;
  if (!p.usable) return false;
  if (l->descSet(p.desc, kDescBiasPointer, &bias, sizeof bias) != 0) return false;
  driver().makeCurrent();
  const float beta = 0.0f;
  return l->matmul(l->handle, p.desc, &alpha, bm, p.aLayout, a, p.bLayout, &beta, out, p.dLayout, out, p.dLayout, &p.algo,
                   l->workspace.storage()->devicePtr(), p.workspace, driver().stream()) == 0;
}

}  // namespace kiln::runtime::cuda
