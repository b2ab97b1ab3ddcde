#include "engine/codegen/cuda/cuda_tri_nonzero_source.h"

#include "engine/codegen/cuda/cuda_index_source.h"

namespace kiln::codegen::cuda {

namespace {

// KilnStrided mirrors CudaStrided (the header): rank, then sizes, then element strides.
constexpr const char* kPrelude = R"(
struct KilnStrided {
  long long rank;
  long long size[KILN_MAX_DIMS];
  long long stride[KILN_MAX_DIMS];
};
// Element i (row-major over s.size) of the view: its offset from the first element.
__device__ inline long long kiln_strided_offset(const KilnStrided& s, long long i) {
  long long off = 0;
  for (long long d = s.rank - 1; d >= 0; --d) {
    const long long q = i / s.size[d];
    off += (i - q * s.size[d]) * s.stride[d];
    i = q;
  }
  return off;
}
)";

// index_ops.cpp triangle(): keep col - row <= k (tril) or >= k (triu), zero elsewhere.
constexpr const char* kTriangle = R"(
extern "C" __global__ void kiln_triangle_S(const T* x, T* y, KilnStrided s, long long total, long long rows, long long cols,
                                           long long k, long long lower) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % cols, i = (t / cols) % rows;
    const bool keep = lower ? j - i <= k : j - i >= k;
    y[t] = keep ? x[kiln_strided_offset(s, t)] : (T)0;
  }
}
)";

// Pass 1 of nonzero: one count per block. The tile loop's trip count is the same for every
// thread of a block, as __syncthreads_count needs.
constexpr const char* kNonzeroCount = R"(
extern "C" __global__ void kiln_nonzero_count_S(const T* x, KilnStrided s, long long total, long long chunk, long long* counts) {
  const long long begin = blockIdx.x * chunk, end = min(begin + chunk, total);
  long long n = 0;
  for (long long base = begin; base < end; base += blockDim.x) {
    const long long i = base + threadIdx.x;
    n += __syncthreads_count(i < end && (x[kiln_strided_offset(s, i)] & (T)(KILN_MASK)) != 0);
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = n;
}
)";

// Pass 2: each tile's nonzero elements ranked by warp ballots (within a warp) and the counts of
// the warps before (within the tile), after the rows the block's earlier tiles wrote.
constexpr const char* kNonzeroWrite = R"(
extern "C" __global__ void kiln_nonzero_write_S(const T* x, KilnStrided s, long long total, long long chunk, const long long* starts,
                                                long long* out) {
  __shared__ int warpCount[32];
  const long long begin = blockIdx.x * chunk, end = min(begin + chunk, total);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  long long at = starts[blockIdx.x];
  for (long long base = begin; base < end; base += blockDim.x) {
    const long long i = base + threadIdx.x;
    const bool p = i < end && (x[kiln_strided_offset(s, i)] & (T)(KILN_MASK)) != 0;
    const unsigned int ballot = __ballot_sync(0xffffffffu, p);
    if (lane == 0) warpCount[warp] = __popc(ballot);
    __syncthreads();
    int before = __popc(ballot & ((1u << lane) - 1u)), tile = 0;
    for (int w = 0; w < warps; ++w) {
      if (w < warp) before += warpCount[w];
      tile += warpCount[w];
    }
    if (p) {
      long long* row = out + (at + before) * s.rank;
      long long rest = i;
      for (long long d = s.rank - 1; d >= 0; --d) {
        row[d] = rest % s.size[d];
        rest /= s.size[d];
      }
    }
    at += tile;
    __syncthreads();  // the next tile rewrites warpCount
  }
}
)";

struct Bits {
  const char* type;
  const char* suffix;
};
constexpr Bits kBits[] = {{"unsigned char", "u8"}, {"unsigned short", "u16"}, {"unsigned int", "u32"}, {"unsigned long long", "u64"}};

// `body` stamped for `type` / `suffix` with KILN_MASK made `mask`: the bits that make a value
// nonzero (all of them, or all but a floating type's sign).
std::string stampNonzero(const char* body, const std::string& type, const std::string& suffix, const std::string& mask) {
  std::string s = stampCudaKernel(body, type, suffix);
  for (size_t p; (p = s.find("KILN_MASK")) != std::string::npos;) s.replace(p, 9, mask);
  return s;
}

}  // namespace

const std::string& cudaTriNonzeroKernelsSource() {
  static const std::string src = [] {
    std::string s = "// Kiln tril/triu and nonzero kernels (engine/codegen/cuda/cuda_tri_nonzero_source.h)\n";
    s += "#define KILN_MAX_DIMS " + std::to_string(kCudaMaxDims) + "\n";
    s += kPrelude;
    for (const Bits& b : kBits) s += stampCudaKernel(kTriangle, b.type, b.suffix);
    // Integers and bool: every bit counts; floating types: all but the sign.
    const std::pair<Bits, const char*> nonzero[] = {{kBits[0], "0xffu"},
                                                    {kBits[1], "0xffffu"},
                                                    {kBits[2], "0xffffffffu"},
                                                    {kBits[3], "0xffffffffffffffffull"},
                                                    {{"unsigned short", "f16"}, "0x7fffu"},
                                                    {{"unsigned int", "f32"}, "0x7fffffffu"},
                                                    {{"unsigned long long", "f64"}, "0x7fffffffffffffffull"}};
    for (const auto& [b, mask] : nonzero)
      s += stampNonzero(kNonzeroCount, b.type, b.suffix, mask) + stampNonzero(kNonzeroWrite, b.type, b.suffix, mask);
    return s;
  }();
  return src;
}

std::string cudaTriangleSuffix(ir::DType dtype) {
  switch (ir::itemSize(dtype)) {
    case 1: return "u8";
    case 2: return "u16";
    case 4: return "u32";
    case 8: return "u64";
    default: return "";
  }
}

std::string cudaNonzeroSuffix(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::Float16:
    case ir::DType::BFloat16: return "f16";
    case ir::DType::Float32: return "f32";
    case ir::DType::Float64: return "f64";
    default: return cudaTriangleSuffix(dtype);
  }
}

}  // namespace kiln::codegen::cuda
