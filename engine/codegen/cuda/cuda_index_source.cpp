#include "engine/codegen/cuda/cuda_index_source.h"

namespace kiln::codegen::cuda {

namespace {

// One entry point per element type, stamped from these bodies (T: the C type, S: the suffix).
constexpr const char* kGather = R"(
extern "C" __global__ void kiln_gather_rows_S(const T* src, const long long* idx, T* out, long long total, long long n,
                                              long long srcRows, long long inner, unsigned int* bad) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % inner, r = t / inner, i = r % n, o = r / n;
    const long long k = idx[i];
    if (k < 0 || k >= srcRows) {
      *bad = 1u;
      out[t] = (T)0;
      continue;
    }
    out[t] = src[(o * srcRows + k) * inner + j];
  }
}
)";

constexpr const char* kIndexAdd = R"(
extern "C" __global__ void kiln_index_add_rows_S(const T* src, const long long* idx, T* out, long long total, long long n,
                                                 long long outRows, long long inner, long long skip, const int* counts,
                                                 unsigned int* bad) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % inner, r = t / inner, i = r % n, o = r / n;
    const long long k = idx[i];
    if (k == skip) continue;
    if (k < 0 || k >= outRows) {
      *bad = 1u;
      continue;
    }
    T v = src[t];
    if (counts) v = v / (T)counts[k];
    atomicAdd(&out[(o * outRows + k) * inner + j], v);
  }
}
)";

constexpr const char* kScatter = R"(
extern "C" __global__ void kiln_scatter_rows_S(const T* src, const long long* idx, T* out, long long total, long long n,
                                               long long outRows, long long inner, unsigned int* bad) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % inner, r = t / inner, i = r % n, o = r / n;
    const long long k = idx[i];
    if (k < 0 || k >= outRows) {
      *bad = 1u;
      continue;
    }
    out[(o * outRows + k) * inner + j] = src[t];
  }
}
)";

// scatter_add along a dim: idx has src's sizes (one index per element, unlike the row kernels).
constexpr const char* kScatterAdd = R"(
extern "C" __global__ void kiln_scatter_add_S(const T* src, const long long* idx, T* out, long long total, long long n,
                                              long long outRows, long long inner, unsigned int* bad) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % inner, o = t / inner / n;
    const long long k = idx[t];
    if (k < 0 || k >= outRows) {
      *bad = 1u;
      continue;
    }
    atomicAdd(&out[(o * outRows + k) * inner + j], src[t]);
  }
}
)";

constexpr const char* kCount = R"(
extern "C" __global__ void kiln_count_indices(const long long* idx, int* counts, long long n, long long rows, unsigned int* bad) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n; t += (long long)gridDim.x * blockDim.x) {
    const long long k = idx[t];
    if (k < 0 || k >= rows) {
      *bad = 1u;
      continue;
    }
    atomicAdd(&counts[k], 1);
  }
}
)";

}  // namespace

std::string stampCudaKernel(std::string body, const std::string& type, const std::string& suffix) {
  for (size_t p; (p = body.find("_S(")) != std::string::npos;) body.replace(p, 3, "_" + suffix + "(");
  std::string out;
  // T as a whole word only ("T* src", "(T)0"): a letter or digit beside it is part of a name.
  auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  for (size_t i = 0; i < body.size(); ++i) {
    const bool alone = body[i] == 'T' && (i == 0 || !word(body[i - 1])) && (i + 1 == body.size() || !word(body[i + 1]));
    out += alone ? type : std::string(1, body[i]);
  }
  return out;
}

const std::string& cudaIndexKernelsSource() {
  static const std::string src = [] {
    std::string s = "// Kiln index kernels (engine/codegen/cuda/cuda_index_source.h)\n";
    s +=
        stampCudaKernel(kGather, "float", "f32") + stampCudaKernel(kGather, "double", "f64") + stampCudaKernel(kGather, "long long", "i64");
    s += stampCudaKernel(kIndexAdd, "float", "f32") + stampCudaKernel(kIndexAdd, "double", "f64");
    s += stampCudaKernel(kScatter, "float", "f32") + stampCudaKernel(kScatter, "double", "f64") +
         stampCudaKernel(kScatter, "long long", "i64");
    s += stampCudaKernel(kScatterAdd, "float", "f32") + stampCudaKernel(kScatterAdd, "double", "f64");
    s += kCount;
    return s;
  }();
  return src;
}

std::string cudaIndexSuffix(ir::DType dtype, bool accumulate) {
  switch (dtype) {
    case ir::DType::Float32: return "f32";
    case ir::DType::Float64: return "f64";
    case ir::DType::Int64: return accumulate ? "" : "i64";
    default: return "";
  }
}

}  // namespace kiln::codegen::cuda
