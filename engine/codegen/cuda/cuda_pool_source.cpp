#include "engine/codegen/cuda/cuda_pool_source.h"

#include "engine/codegen/cuda/cuda_index_source.h"

namespace kiln::codegen::cuda {

namespace {

// The start value of a max: -inf where the type has one, else its lowest value (the CPU's
// numeric_limits choice). NVRTC has no <limits>: the bit patterns are spelled out.
constexpr const char* kPrelude = R"(
__device__ inline float kiln_lowest(float) { return __int_as_float(0xff800000); }
__device__ inline double kiln_lowest(double) { return __longlong_as_double(0xfff0000000000000ULL); }
__device__ inline long long kiln_lowest(long long) { return -9223372036854775807LL - 1; }
__device__ inline int kiln_lowest(int) { return -2147483647 - 1; }
// An average window along one dim (conv_ops.cpp avgPoolPlanes): [*lo, *hi) inside the input and
// its extent counting padding (count_include_pad's divisor), for output o.
__device__ inline void kiln_avg_window(long long o, long long s, long long p, long long k, long long n, long long* lo, long long* hi,
                                       long long* padded) {
  const long long a = o * s - p, b = min(a + k, n + p);
  *padded = b - a;
  *lo = max(a, 0LL);
  *hi = min(b, n);
}
#define KILN_GRID_LOOP(t, total) for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x)
)";

// conv_ops.cpp maxPoolPlanes: `!found || v > best || v != v`, stop at a NaN.
constexpr const char* kMax = R"(
extern "C" __global__ void kiln_max_pool2d_S(const T* x, T* y, long long* ind, long long total, long long H, long long W,
                                             long long OH, long long OW, long long kh, long long kw, long long sh, long long sw,
                                             long long ph, long long pw, long long dh, long long dw) {
  KILN_GRID_LOOP(t, total) {
    const long long ow = t % OW, r = t / OW, oh = r % OH, pl = r / OH;
    const T* in = x + pl * H * W;
    const long long h0 = oh * sh - ph, w0 = ow * sw - pw;
    T best = kiln_lowest((T)0);
    bool found = false;
    long long at = -1;
    for (long long i = 0; i < kh; ++i) {
      const long long h = h0 + i * dh;
      if (h < 0 || h >= H) continue;
      for (long long j = 0; j < kw; ++j) {
        const long long w = w0 + j * dw;
        if (w < 0 || w >= W) continue;
        const T v = in[h * W + w];
        if (!found || v > best || v != v) {
          best = v;
          at = h * W + w;
        }
        found = true;
        if (best != best) break;
      }
      if (best != best) break;
    }
    y[t] = best;
    if (ind) ind[t] = at;
  }
}
)";

// conv_ops.cpp avgPoolPlanes (the sum in T, as the CPU's for float and double).
constexpr const char* kAvg = R"(
extern "C" __global__ void kiln_avg_pool2d_S(const T* x, T* y, long long total, long long H, long long W, long long OH, long long OW,
                                             long long kh, long long kw, long long sh, long long sw, long long ph, long long pw,
                                             long long includePad, long long divisorOverride) {
  KILN_GRID_LOOP(t, total) {
    const long long ow = t % OW, r = t / OW, oh = r % OH, pl = r / OH;
    const T* in = x + pl * H * W;
    long long hs, he, hp, ws, we, wp;
    kiln_avg_window(oh, sh, ph, kh, H, &hs, &he, &hp);
    kiln_avg_window(ow, sw, pw, kw, W, &ws, &we, &wp);
    const long long poolSize = hp * wp;
    if (hs >= he || ws >= we) {
      y[t] = (T)0;
      continue;
    }
    T sum = 0;
    for (long long h = hs; h < he; ++h)
      for (long long w = ws; w < we; ++w) sum += in[h * W + w];
    const long long div = divisorOverride ? divisorOverride : includePad ? poolSize : (he - hs) * (we - ws);
    y[t] = (T)(sum / (T)div);
  }
}
)";

// backward_ops.cpp avg_pool2d_backward, turned around: each input point sums the windows that
// hold it, visited in the CPU loop's (output) order, with its double add and rounding.
constexpr const char* kAvgBackward = R"(
extern "C" __global__ void kiln_avg_pool2d_backward_S(const T* g, T* out, long long total, long long H, long long W, long long OH,
                                                      long long OW, long long kh, long long kw, long long sh, long long sw, long long ph,
                                                      long long pw, long long includePad, long long divisorOverride) {
  KILN_GRID_LOOP(t, total) {
    const long long w = t % W, r = t / W, h = r % H, pl = r / H;
    const T* gp = g + pl * OH * OW;
    // Windows [o * s - p, o * s - p + k) that hold h: (h + p - k) / s < o <= (h + p) / s.
    const long long ohLo = h + ph - kh < 0 ? 0 : (h + ph - kh) / sh + 1, ohHi = min((h + ph) / sh + 1, OH);
    const long long owLo = w + pw - kw < 0 ? 0 : (w + pw - kw) / sw + 1, owHi = min((w + pw) / sw + 1, OW);
    T acc = 0;
    for (long long oh = ohLo; oh < ohHi; ++oh)
      for (long long ow = owLo; ow < owHi; ++ow) {
        long long h0, h1, hp, w0, w1, wp;
        kiln_avg_window(oh, sh, ph, kh, H, &h0, &h1, &hp);
        kiln_avg_window(ow, sw, pw, kw, W, &w0, &w1, &wp);
        const long long poolSize = hp * wp;
        if (h < h0 || h >= h1 || w < w0 || w >= w1) continue;
        const long long div = divisorOverride ? divisorOverride : includePad ? poolSize : (h1 - h0) * (w1 - w0);
        acc = (T)((double)acc + (double)gp[oh * OW + ow] / (double)div);
      }
    out[t] = acc;
  }
}
)";

// conv_ops.cpp adaptiveAvgPlanes.
constexpr const char* kAdaptive = R"(
extern "C" __global__ void kiln_adaptive_avg_pool2d_S(const T* x, T* y, long long total, long long H, long long W, long long OH,
                                                      long long OW) {
  KILN_GRID_LOOP(t, total) {
    const long long ow = t % OW, r = t / OW, oh = r % OH, pl = r / OH;
    const T* in = x + pl * H * W;
    const long long hs = (oh * H) / OH, he = ((oh + 1) * H + OH - 1) / OH;
    const long long ws = (ow * W) / OW, we = ((ow + 1) * W + OW - 1) / OW;
    T sum = 0;
    for (long long h = hs; h < he; ++h)
      for (long long w = ws; w < we; ++w) sum += in[h * W + w];
    y[t] = sum / (T)((he - hs) * (we - ws));
  }
}
)";

// backward_ops.cpp _adaptive_avg_pool2d_backward, turned around as the average's: window o holds
// h for floor(h * OH / H) <= o < ceil((h + 1) * OH / H).
constexpr const char* kAdaptiveBackward = R"(
extern "C" __global__ void kiln_adaptive_avg_pool2d_backward_S(const T* g, T* out, long long total, long long H, long long W,
                                                               long long OH, long long OW) {
  KILN_GRID_LOOP(t, total) {
    const long long w = t % W, r = t / W, h = r % H, pl = r / H;
    const T* gp = g + pl * OH * OW;
    const long long ohLo = (h * OH) / H, ohHi = min(((h + 1) * OH + H - 1) / H, OH);
    const long long owLo = (w * OW) / W, owHi = min(((w + 1) * OW + W - 1) / W, OW);
    T acc = 0;
    for (long long oh = ohLo; oh < ohHi; ++oh) {
      const long long h0 = (oh * H) / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
      if (h < h0 || h >= h1) continue;
      for (long long ow = owLo; ow < owHi; ++ow) {
        const long long w0 = (ow * W) / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
        if (w < w0 || w >= w1) continue;
        acc = (T)((double)acc + (double)gp[oh * OW + ow] / (double)((h1 - h0) * (w1 - w0)));
      }
    }
    out[t] = acc;
  }
}
)";

}  // namespace

const std::string& cudaPoolKernelsSource() {
  static const std::string src = [] {
    std::string s = "// Kiln pooling kernels (engine/codegen/cuda/cuda_pool_source.h)\n";
    s += kPrelude;
    s += stampCudaKernel(kMax, "float", "f32") + stampCudaKernel(kMax, "double", "f64") + stampCudaKernel(kMax, "long long", "i64") +
         stampCudaKernel(kMax, "int", "i32");
    s += stampCudaKernel(kAvg, "float", "f32") + stampCudaKernel(kAvg, "double", "f64");
    s += stampCudaKernel(kAdaptive, "float", "f32") + stampCudaKernel(kAdaptive, "double", "f64");
    s += stampCudaKernel(kAvgBackward, "float", "f32") + stampCudaKernel(kAvgBackward, "double", "f64");
    s += stampCudaKernel(kAdaptiveBackward, "float", "f32") + stampCudaKernel(kAdaptiveBackward, "double", "f64");
    return s;
  }();
  return src;
}

std::string cudaPoolSuffix(ir::DType dtype, const std::string& kind) {
  switch (dtype) {
    case ir::DType::Float32: return "f32";
    case ir::DType::Float64: return "f64";
    case ir::DType::Int64: return kind == "max" ? "i64" : "";
    case ir::DType::Int32: return kind == "max" ? "i32" : "";
    default: return "";
  }
}

}  // namespace kiln::codegen::cuda
