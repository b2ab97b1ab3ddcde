// Spatial window ops over [N, C, *spatial] tensors: aten.convolution (1-D and 2-D, groups,
// stride, padding, dilation, transposed), aten.max_pool2d, aten.avg_pool2d,
// aten._adaptive_avg_pool2d and aten.constant_pad_nd, and kiln.convolution_weight_grad (a
// convolution's weight gradient, autograd's on every device: cuDNN's backward filter on CUDA).
// f32 convolutions (forward with its bias, transposed, weight gradient) run on oneDNN
// (onednn_conv.h), as Inductor's do on the CPU; f64, and any problem oneDNN declines, is im2col +
// GEMM on OpenBLAS (col2im for the transposed case): oneDNN has no f64 convolution. Pooling is a
// direct loop per plane.
//
// Max pooling is registered twice: aten.max_pool2d_with_indices (values and int64 indices,
// a multi-result op) for F.max_pool2d(return_indices=True), and aten.max_pool2d (values only)
// for the common case, which keeps graphs single-result until graph lowering handles
// multi-result nodes (AOTAutograd shows max_pool2d_with_indices + getitem there); the indices
// alone are kiln.max_pool2d_indices, what a compiled backward of max_pool2d records.
#include "engine/ops/onednn_conv.h"
#include "engine/ops/op_table.h"

#include <cblas.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

std::string str(const Shape& s) { return tensor::shapeStr(s); }

std::string dimsStr(const ir::TensorType& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) s += (i ? ", " : "") + t.sizes[i].str();
  return s + "]";
}

Shape concrete(const ir::TensorType& t, const char* what) {
  Shape s;
  for (const auto& d : t.sizes) {
    if (d.symbolic()) throw TorchError("NotImplementedError", std::string(what) + " with symbolic sizes is not supported by Kiln yet");
    s.push_back(d.value);
  }
  return s;
}

// An int list argument expanded to `n` entries (PyTorch's expand_param_if_needed); a missing
// or empty argument takes `dflt`.
Shape params(const std::vector<Val>& a, size_t i, size_t n, int64_t dflt, const std::string& name, const char* op) {
  if (a.size() <= i || a[i].isNone()) return Shape(n, dflt);
  Shape v = a[i].ints();
  if (v.empty()) return Shape(n, dflt);
  if (v.size() == 1) return Shape(n, v[0]);
  if (v.size() != n)
    throw TorchError("RuntimeError", std::string(op) + ": expected " + name + " to be a single integer value or a list of " +
                                         std::to_string(n) + " values to match the convolution dimensions, but got " + name + "=" + str(v));
  return v;
}

void requireFloat(ir::DType d, const char* kernel) {
  if (d != ir::DType::Float32 && d != ir::DType::Float64)
    throw TorchError("RuntimeError", std::string("\"") + kernel + "\" not implemented for '" + ir::scalarTypeName(d) + "'");
}

// ---- convolution ------------------------------------------------------------------------

struct ConvParams {
  Shape stride, padding, dilation, outputPadding;
  bool transposed = false;
  int64_t groups = 1;
};

ConvParams convParams(const std::vector<Val>& a, size_t spatial) {
  ConvParams p;
  p.stride = params(a, 3, spatial, 1, "stride", "convolution");
  p.padding = params(a, 4, spatial, 0, "padding", "convolution");
  p.dilation = params(a, 5, spatial, 1, "dilation", "convolution");
  p.transposed = a.size() > 6 && a[6].kind == Val::Kind::Bool && a[6].b;
  p.outputPadding = params(a, 7, spatial, 0, "output_padding", "convolution");
  p.groups = a.size() > 8 && !a[8].isNone() ? a[8].i : 1;
  return p;
}

// PyTorch's check_shape_forward, then the output shape. Shared by meta and eager.
Shape convOutputShape(const ir::TensorType& inT, const ir::TensorType& wT, const Val& bias, const ConvParams& p) {
  Shape w = concrete(wT, "convolution");
  const size_t k = w.size();
  if (k != 3 && k != 4)
    throw TorchError("NotImplementedError",
                     "convolution with a " + std::to_string(k) + "-dimensional weight is not supported by Kiln yet (1-D and 2-D only)");
  for (auto v : p.padding)
    if (v < 0) throw TorchError("RuntimeError", "negative padding is not supported");
  for (auto v : p.outputPadding)
    if (v < 0) throw TorchError("RuntimeError", "negative output_padding is not supported");
  for (auto v : p.stride)
    if (v <= 0) throw TorchError("RuntimeError", "non-positive stride is not supported");
  for (auto v : p.dilation)
    if (v <= 0) throw TorchError("RuntimeError", "dilation should be greater than zero");
  if (p.groups <= 0) throw TorchError("RuntimeError", "non-positive groups is not supported");
  if (inT.sizes.size() != k)
    throw TorchError("RuntimeError", "Expected " + std::to_string(k) + "-dimensional input for " + std::to_string(k) +
                                         "-dimensional weight " + str(w) + ", but got " + std::to_string(inT.sizes.size()) +
                                         "-dimensional input of size " + dimsStr(inT) + " instead");
  // The batch dim may be symbolic; everything else must be concrete.
  ir::TensorType rest = inT;
  rest.sizes.erase(rest.sizes.begin());
  Shape in = concrete(rest, "convolution");
  in.insert(in.begin(), inT.sizes[0].symbolic() ? 1 : inT.sizes[0].value);
  const std::string inStr = dimsStr(inT);
  if (w[0] < p.groups)
    throw TorchError("RuntimeError", "Given groups=" + std::to_string(p.groups) + ", expected weight to be at least " +
                                         std::to_string(p.groups) + " at dimension 0, but got weight of size " + str(w) + " instead");
  if (w[0] % p.groups != 0)
    throw TorchError("RuntimeError", "Given groups=" + std::to_string(p.groups) + ", expected weight to be divisible by " +
                                         std::to_string(p.groups) + " at dimension 0, but got weight of size [" + str(w) + "] instead");
  ir::TensorType bT;
  bool hasBias = bias.isTensor();
  if (hasBias) bT = bias.tensorType();
  Shape out{in[0]};
  // Sizes in 128 bits: an empty input or weight may have other dims near 2^63, and a script may
  // pass paddings and dilations as large; their sums and products overflow int64.
  using Wide = __int128;
  auto fit = [&](Wide v) {
    if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
      throw TorchError("RuntimeError",
                       "convolution: a size computed from input " + inStr + " and weight " + str(w) + " does not fit int64");
    return static_cast<int64_t>(v);
  };
  if (!p.transposed) {
    if (Wide(in[1]) != Wide(w[1]) * p.groups)
      throw TorchError("RuntimeError", "Given groups=" + std::to_string(p.groups) + ", weight of size " + str(w) + ", expected input" +
                                           inStr + " to have " + std::to_string(fit(Wide(w[1]) * p.groups)) + " channels, but got " +
                                           std::to_string(in[1]) + " channels instead");
    if (hasBias && (bT.sizes.size() != 1 || !(bT.sizes[0] == ir::Dim(w[0]))))
      throw TorchError("RuntimeError", "Given weight of size " + str(w) + ", expected bias to be 1-dimensional with " +
                                           std::to_string(w[0]) + " elements, but got bias of size " + str(concrete(bT, "convolution")) +
                                           " instead");
    std::string inShape, kShape;
    bool ok = true;
    for (size_t i = 2; i < k; ++i) {
      const Wide padded = Wide(in[i]) + Wide(2) * p.padding[i - 2], kernel = Wide(p.dilation[i - 2]) * (Wide(w[i]) - 1) + 1;
      inShape += (i > 2 ? " x " : "") + std::to_string(fit(padded));
      kShape += (i > 2 ? " x " : "") + std::to_string(fit(kernel));
      if (padded < kernel) ok = false;
    }
    if (!ok)
      throw TorchError("RuntimeError", "Calculated padded input size per channel: (" + inShape + "). Kernel size: (" + kShape +
                                           "). Kernel size can't be greater than actual input size");
    out.push_back(w[0]);
    for (size_t i = 2; i < k; ++i)
      out.push_back(fit((Wide(in[i]) + Wide(2) * p.padding[i - 2] - Wide(p.dilation[i - 2]) * (Wide(w[i]) - 1) - 1) / p.stride[i - 2] + 1));
  } else {
    if (in[1] != w[0])
      throw TorchError("RuntimeError", "Given transposed=1, weight of size " + str(w) + ", expected input" + inStr + " to have " +
                                           std::to_string(w[0]) + " channels, but got " + std::to_string(in[1]) + " channels instead");
    if (hasBias && (bT.sizes.size() != 1 || !(bT.sizes[0] == ir::Dim(fit(Wide(w[1]) * p.groups)))))
      throw TorchError("RuntimeError", "Given transposed=1, weight of size " + str(w) + ", expected bias to be 1-dimensional with " +
                                           std::to_string(fit(Wide(w[1]) * p.groups)) + " elements, but got bias of size " +
                                           str(concrete(bT, "convolution")) + " instead");
    out.push_back(fit(Wide(w[1]) * p.groups));
    for (size_t i = 2; i < k; ++i) {
      if (p.outputPadding[i - 2] >= p.stride[i - 2] && p.outputPadding[i - 2] >= p.dilation[i - 2])
        throw TorchError("RuntimeError", "output padding must be smaller than either stride or dilation, but got output_padding_height: " +
                                             std::to_string(p.outputPadding[i - 2]) + " stride: " + std::to_string(p.stride[i - 2]) +
                                             " dilation: " + std::to_string(p.dilation[i - 2]));
      out.push_back(fit((Wide(in[i]) - 1) * p.stride[i - 2] - Wide(2) * p.padding[i - 2] + Wide(p.dilation[i - 2]) * (Wide(w[i]) - 1) +
                        p.outputPadding[i - 2] + 1));
    }
  }
  for (size_t i = 2; i < out.size(); ++i)
    if (out[i] <= 0)
      throw TorchError("RuntimeError", "Given input size per channel: " + str(Shape(in.begin() + 2, in.end())) +
                                           ". Calculated output size per channel: " + str(Shape(out.begin() + 2, out.end())) +
                                           ". Output size is too small");
  return out;
}

// One 2-D geometry (1-D convolutions are 2-D with height 1).
struct Geometry {
  int64_t C, H, W;  // input plane (channels of one group)
  int64_t KH, KW;   // kernel
  int64_t OH, OW;   // output plane
  int64_t sh, sw, ph, pw, dh, dw;
};

// col[(c*KH + i)*KW + j, oh*OW + ow] = x[c, oh*sh - ph + i*dh, ow*sw - pw + j*dw] (0 outside).
template <typename T>
void im2col(const T* x, const Geometry& g, T* col) {
  const int64_t L = g.OH * g.OW;
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.KH; ++i)
      for (int64_t j = 0; j < g.KW; ++j) {
        T* row = col + ((c * g.KH + i) * g.KW + j) * L;
        const T* plane = x + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          int64_t ih = oh * g.sh - g.ph + i * g.dh;
          T* dst = row + oh * g.OW;
          if (ih < 0 || ih >= g.H) {
            std::fill(dst, dst + g.OW, T(0));
            continue;
          }
          const T* src = plane + ih * g.W;
          if (g.sw == 1) {
            // Contiguous run: only the borders fall outside the input.
            int64_t off = -g.pw + j * g.dw;
            for (int64_t ow = 0; ow < g.OW; ++ow) {
              int64_t iw = ow + off;
              dst[ow] = iw >= 0 && iw < g.W ? src[iw] : T(0);
            }
          } else {
            for (int64_t ow = 0; ow < g.OW; ++ow) {
              int64_t iw = ow * g.sw - g.pw + j * g.dw;
              dst[ow] = iw >= 0 && iw < g.W ? src[iw] : T(0);
            }
          }
        }
      }
}

// The adjoint of im2col: accumulates col into y (the transposed convolution's output plane,
// here described by the geometry of the forward convolution that maps y -> col).
template <typename T>
void col2im(const T* col, const Geometry& g, T* y) {
  const int64_t L = g.OH * g.OW;
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.KH; ++i)
      for (int64_t j = 0; j < g.KW; ++j) {
        const T* row = col + ((c * g.KH + i) * g.KW + j) * L;
        T* plane = y + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          int64_t ih = oh * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.H) continue;
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            int64_t iw = ow * g.sw - g.pw + j * g.dw;
            if (iw >= 0 && iw < g.W) plane[ih * g.W + iw] += row[oh * g.OW + ow];
          }
        }
      }
}

template <typename T>
void gemmT(bool transA, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  auto ta = transA ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
  else cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

// x [N, Cin, H, W] (contiguous), w contiguous, out [N, Cout, OH, OW] (contiguous, 4-D views of
// 1-D problems).
template <typename T>
void convForward(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  if (out.numel() == 0) return;  // an empty output's other dims (and the weight's) may multiply past int64
  const int64_t N = x.sizes()[0], G = p.groups;
  const Shape& os = out.sizes();
  Geometry g{x.sizes()[1] / G, x.sizes()[2], x.sizes()[3], w.sizes()[2], w.sizes()[3],  os[2],        os[3],
             p.stride[0],      p.stride[1],  p.padding[0], p.padding[1], p.dilation[0], p.dilation[1]};
  const int64_t Og = os[1] / G, K = g.C * g.KH * g.KW, L = g.OH * g.OW;
  // A 1x1, stride-1, unpadded kernel reads the input plane as is: no im2col.
  const bool direct = g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  std::vector<T> col(direct ? 0 : static_cast<size_t>(K * L));
  const T* xp = x.ptr<T>();
  const T* wp = w.ptr<T>();
  T* op = out.ptr<T>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < G; ++gi) {
      tensor::checkStop();  // Ctrl-C / a time limit, between two (image, group) GEMMs
      const T* xin = xp + (n * x.sizes()[1] + gi * g.C) * g.H * g.W;
      T* dst = op + (n * os[1] + gi * Og) * L;
      const T* colp = xin;
      if (!direct) {
        im2col(xin, g, col.data());
        colp = col.data();
      }
      T beta = 0;
      if (bias) {
        const T* bp = bias->ptr<T>();
        const int64_t bs = bias->strides()[0];
        for (int64_t o = 0; o < Og; ++o) std::fill(dst + o * L, dst + (o + 1) * L, bp[(gi * Og + o) * bs]);
        beta = 1;
      }
      if (K == 0) {
        if (!bias) std::fill(dst, dst + Og * L, T(0));
        continue;
      }
      gemmT<T>(false, Og, L, K, wp + gi * Og * K, K, colp, L, beta, dst, L);
    }
}

// Transposed convolution: out = col2im(W_g^T @ x_g). w is [Cin, Cout/G, KH, KW].
template <typename T>
void convTransposed(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  if (out.numel() == 0) return;  // an empty output's other dims (and the weight's) may multiply past int64
  const int64_t N = x.sizes()[0], G = p.groups, Cin = x.sizes()[1], Cing = Cin / G;
  const Shape& os = out.sizes();
  const int64_t Coutg = w.sizes()[1];
  // The forward convolution out -> x has this geometry; col2im is its adjoint.
  Geometry g{Coutg,       os[2],       os[3],        w.sizes()[2], w.sizes()[3],  x.sizes()[2], x.sizes()[3],
             p.stride[0], p.stride[1], p.padding[0], p.padding[1], p.dilation[0], p.dilation[1]};
  const int64_t K = Coutg * g.KH * g.KW, L = g.OH * g.OW;
  std::vector<T> col(static_cast<size_t>(K * L));
  const T* xp = x.ptr<T>();
  const T* wp = w.ptr<T>();
  T* op = out.ptr<T>();
  std::fill(op, op + out.numel(), T(0));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < G; ++gi) {
      tensor::checkStop();  // Ctrl-C / a time limit, between two (image, group) GEMMs
      const T* xin = xp + (n * Cin + gi * Cing) * L;
      T* dst = op + (n * os[1] + gi * Coutg) * os[2] * os[3];
      if (Cing > 0) gemmT<T>(true, K, L, Cing, wp + gi * Cing * K, K, xin, L, T(0), col.data(), L);
      else std::fill(col.begin(), col.end(), T(0));
      col2im(col.data(), g, dst);
      if (bias) {
        const T* bp = bias->ptr<T>();
        const int64_t bs = bias->strides()[0], plane = os[2] * os[3];
        for (int64_t o = 0; o < Coutg; ++o) {
          T b = bp[(gi * Coutg + o) * bs];
          for (int64_t i = 0; i < plane; ++i) dst[o * plane + i] += b;
        }
      }
    }
}

// A 1-D problem [N, C, L] as 2-D [N, C, 1, L].
Tensor as4d(const Tensor& t) {
  if (t.dim() == 4) return t;
  Shape s{t.sizes()[0], t.sizes()[1], 1, t.sizes()[2]};
  return t.view(s, Tensor::contiguousStrides(s), t.offset());
}

// The oneDNN problem of the convolution x * w -> y (4-D, contiguous), with its parameters.
onednn::ConvShape dnnlShape(const Shape& x, const Shape& w, const Shape& y, const ConvParams& p) {
  return {x[0], x[1],     x[2],        x[3],        w[0],         w[2],         w[3],          y[2],
          y[3], p.groups, p.stride[0], p.stride[1], p.padding[0], p.padding[1], p.dilation[0], p.dilation[1]};
}

// f32 convolution and transposed convolution on oneDNN; false where it declines the problem.
bool convOnednn(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  if (x.dtype() != ir::DType::Float32) return false;
  if (!p.transposed) {
    Tensor b = bias ? bias->contiguous() : Tensor();
    return onednn::convForward(dnnlShape(x.sizes(), w.sizes(), out.sizes(), p), x.ptr<float>(), w.ptr<float>(),
                               bias ? b.ptr<float>() : nullptr, out.ptr<float>());
  }
  // A transposed convolution is the input gradient of the convolution out -> x, whose weight
  // [Cin, Cout/G, KH, KW] is w as it is; the bias is added after (oneDNN's backward data has none).
  const Shape& os = out.sizes();
  const Shape fwdW{x.sizes()[1], os[1] / p.groups, w.sizes()[2], w.sizes()[3]};
  if (!onednn::convBackwardData(dnnlShape(os, fwdW, x.sizes(), p), x.ptr<float>(), w.ptr<float>(), out.ptr<float>())) return false;
  if (bias) {
    const float* bp = bias->ptr<float>();
    const int64_t bs = bias->strides()[0], plane = os[2] * os[3];
    float* op = out.ptr<float>();
    for (int64_t n = 0; n < os[0]; ++n)
      for (int64_t c = 0; c < os[1]; ++c) {
        float* dst = op + (n * os[1] + c) * plane;
        const float b = bp[c * bs];
        for (int64_t i = 0; i < plane; ++i) dst[i] += b;
      }
  }
  return true;
}

Tensor convolutionKernel(const std::vector<Val>& a) {
  const Tensor& x0 = a.at(0).t;
  const Tensor& w0 = a.at(1).t;
  const Val& biasV = a.at(2);
  const size_t spatial = w0.dim() >= 3 ? static_cast<size_t>(w0.dim() - 2) : 1;
  ConvParams p = convParams(a, spatial);
  if (x0.dtype() != w0.dtype())
    throw TorchError("RuntimeError", std::string("expected scalar type ") + ir::scalarTypeName(x0.dtype()) + " but found " +
                                         ir::scalarTypeName(w0.dtype()));
  if (biasV.isTensor() && biasV.t.dtype() != x0.dtype())
    throw TorchError("RuntimeError", std::string("Input type (") + ir::typeMetaName(x0.dtype()) + ") and bias type (" +
                                         ir::typeMetaName(biasV.t.dtype()) + ") should be the same");
  Shape outShape = convOutputShape(x0.type(), w0.type(), biasV, p);
  requireFloat(x0.dtype(), "slow_conv2d_cpu");
  Tensor out = Tensor::empty(outShape, x0.dtype());
  if (out.numel() == 0) return out;
  if (spatial == 1) {
    // 1-D as 2-D with a unit height: stride/padding/dilation 1/0/1 on the new axis.
    p.stride.insert(p.stride.begin(), 1);
    p.padding.insert(p.padding.begin(), 0);
    p.dilation.insert(p.dilation.begin(), 1);
    p.outputPadding.insert(p.outputPadding.begin(), 0);
  }
  Tensor x = as4d(x0.contiguous()), w = as4d(w0.contiguous()), o4 = as4d(out);
  const Tensor* bias = biasV.isTensor() ? &biasV.t : nullptr;
  if (convOnednn(x, w, bias, p, o4)) return out;
  if (x0.dtype() == ir::DType::Float32) {
    if (p.transposed) convTransposed<float>(x, w, bias, p, o4);
    else convForward<float>(x, w, bias, p, o4);
  } else {
    if (p.transposed) convTransposed<double>(x, w, bias, p, o4);
    else convForward<double>(x, w, bias, p, o4);
  }
  return out;
}

// kiln.convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation,
// groups): the weight gradient of a (non-transposed) convolution, PyTorch's
// convolution_backward with output_mask [False, True, False]; autograd's weight gradient. On
// the CPU: oneDNN's backward weights for f32, else im2col then grad_output @ col^T summed over
// the batch; on CUDA, cuDNN's backward filter (runtime/cuda_conv.cpp).
ConvParams weightGradParams(const std::vector<Val>& a, size_t spatial) {
  ConvParams p;
  p.stride = params(a, 3, spatial, 1, "stride", "convolution_weight_grad");
  p.padding = params(a, 4, spatial, 0, "padding", "convolution_weight_grad");
  p.dilation = params(a, 5, spatial, 1, "dilation", "convolution_weight_grad");
  p.outputPadding = Shape(spatial, 0);
  p.groups = a.size() > 6 && !a[6].isNone() ? a[6].i : 1;
  return p;
}

ir::TensorType weightGradType(const std::vector<Val>& a) {
  const ir::TensorType g = a.at(0).tensorType(), in = a.at(1).tensorType();
  ir::TensorType wT;
  wT.dtype = in.dtype;
  for (auto v : a.at(2).ints()) wT.sizes.emplace_back(v);
  if (g.dtype != in.dtype)
    throw TorchError("RuntimeError",
                     std::string("expected scalar type ") + ir::scalarTypeName(in.dtype) + " but found " + ir::scalarTypeName(g.dtype));
  const size_t spatial = wT.sizes.size() >= 3 ? wT.sizes.size() - 2 : 1;
  Shape expect = convOutputShape(in, wT, Val::none(), weightGradParams(a, spatial));
  ir::TensorType gFixed = g;
  if (!gFixed.sizes.empty() && gFixed.sizes[0].symbolic() && in.sizes[0] == gFixed.sizes[0]) gFixed.sizes[0] = ir::Dim(expect[0]);
  if (concrete(gFixed, "convolution_weight_grad") != expect)
    throw TorchError("RuntimeError", "convolution_weight_grad: grad_output of size " + dimsStr(g) + " does not match the output " +
                                         str(expect) + " of the convolution of input " + dimsStr(in) + " with weight " + dimsStr(wT));
  return wT;
}

template <typename T>
void weightGradPlanes(const Tensor& x, const Tensor& gy, const ConvParams& p, Tensor& dw) {
  const int64_t N = x.sizes()[0], G = p.groups;
  const Shape& ws = dw.sizes();
  const Shape& gs = gy.sizes();
  Geometry g{x.sizes()[1] / G, x.sizes()[2], x.sizes()[3], ws[2],        ws[3],         gs[2],        gs[3],
             p.stride[0],      p.stride[1],  p.padding[0], p.padding[1], p.dilation[0], p.dilation[1]};
  const int64_t Og = ws[0] / G, K = g.C * g.KH * g.KW, L = g.OH * g.OW;
  std::vector<T> col(static_cast<size_t>(K * L));
  T* wp = dw.ptr<T>();
  std::fill(wp, wp + dw.numel(), T(0));
  if (K == 0 || L == 0) return;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t gi = 0; gi < G; ++gi) {
      tensor::checkStop();
      im2col(x.ptr<T>() + (n * x.sizes()[1] + gi * g.C) * g.H * g.W, g, col.data());
      const T* gp = gy.ptr<T>() + (n * gs[1] + gi * Og) * L;
      // dw_g [Og, K] += gy_g [Og, L] @ col^T [L, K]
      if constexpr (std::is_same_v<T, float>)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(Og), int(K), int(L), 1.0f, gp, int(L), col.data(), int(L), 1.0f,
                    wp + gi * Og * K, int(K));
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(Og), int(K), int(L), 1.0, gp, int(L), col.data(), int(L), 1.0,
                    wp + gi * Og * K, int(K));
    }
}

Tensor weightGradKernel(const std::vector<Val>& a) {
  ir::TensorType wT = weightGradType(a);
  Shape ws = concrete(wT, "convolution_weight_grad");
  const size_t spatial = ws.size() - 2;
  ConvParams p = weightGradParams(a, spatial);
  requireFloat(wT.dtype, "convolution_backward_cpu");
  Tensor dw = Tensor::empty(ws, wT.dtype);
  if (dw.numel() == 0) return dw;
  if (spatial == 1) {
    p.stride.insert(p.stride.begin(), 1);
    p.padding.insert(p.padding.begin(), 0);
    p.dilation.insert(p.dilation.begin(), 1);
  }
  Tensor x = as4d(a.at(1).t.contiguous()), gy = as4d(a.at(0).t.contiguous()), w4 = as4d(dw);
  if (wT.dtype == ir::DType::Float32 &&
      onednn::convBackwardWeights(dnnlShape(x.sizes(), w4.sizes(), gy.sizes(), p), x.ptr<float>(), gy.ptr<float>(), w4.ptr<float>()))
    return dw;
  if (wT.dtype == ir::DType::Float32) weightGradPlanes<float>(x, gy, p, w4);
  else weightGradPlanes<double>(x, gy, p, w4);
  return dw;
}

// ---- pooling ----------------------------------------------------------------------------

// PyTorch's pooling_output_shape (Pool.h), with its checks.
int64_t poolOutSize(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  if (s == 0) throw TorchError("RuntimeError", "stride should not be zero");
  if (pad < 0) throw TorchError("RuntimeError", "pad must be non-negative, but got pad: " + std::to_string(pad));
  // In 128 bits: a script may pass sizes, strides and dilations near 2^63, whose sums and
  // products overflow int64 (undefined behaviour, found by the tensor fuzzer).
  using Wide = __int128;
  const Wide span = Wide(k - 1) * d + 1;
  if (pad > span / 2)
    throw TorchError("RuntimeError", "pad should be at most half of effective kernel size, but got pad=" + std::to_string(pad) +
                                         ", kernel_size=" + std::to_string(k) + " and dilation=" + std::to_string(d));
  const Wide num = Wide(in) + Wide(2) * pad - span + (ceil ? Wide(s) - 1 : 0);
  Wide o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;  // floor division
  if (ceil && (o - 1) * s >= Wide(in) + pad) --o;
  if (o > std::numeric_limits<int64_t>::max() || o < std::numeric_limits<int64_t>::min())
    throw TorchError("RuntimeError", "pooling output size is too large (input size " + std::to_string(in) + ", kernel " +
                                         std::to_string(k) + ", stride " + std::to_string(s) + ")");
  return static_cast<int64_t>(o);
}

struct Pool {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil = false;
  // Shape of the input as [batch*channels, H, W], and the full output shape.
  int64_t planes = 1, H = 0, W = 0, OH = 0, OW = 0;
  Shape outShape;
};

Shape pairArg(const std::vector<Val>& a, size_t i, const char* op, const char* name, const char* expect, bool allowEmpty, Shape dflt) {
  if (a.size() <= i || a[i].isNone()) return dflt;
  Shape v = a[i].ints();
  if (v.empty() && allowEmpty) return dflt;
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() != 2) throw TorchError("RuntimeError", std::string(op) + ": " + name + " " + expect);
  return v;
}

// Argument order of max_pool2d: (self, kernel_size, stride, padding, dilation, ceil_mode);
// avg_pool2d: (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override).
Pool poolParams(const ir::TensorType& t, const std::vector<Val>& a, bool isMax) {
  const char* op = isMax ? "max_pool2d" : "avg_pool2d";
  Pool p;
  Shape k = pairArg(a, 1, op, "kernel_size", "must either be a single int, or a tuple of two ints", false, {});
  if (k.empty()) throw TorchError("RuntimeError", std::string(op) + ": kernel_size must either be a single int, or a tuple of two ints");
  Shape s = pairArg(a, 2, op, "stride", "must either be omitted, a single int, or a tuple of two ints", true, k);
  Shape pad = pairArg(a, 3, op, "padding", "must either be a single int, or a tuple of two ints", false, {0, 0});
  p.kh = k[0];
  p.kw = k[1];
  p.sh = s[0];
  p.sw = s[1];
  p.ph = pad[0];
  p.pw = pad[1];
  if (isMax) {
    Shape d = pairArg(a, 4, op, "dilation", "must be either a single int, or a tuple of two ints", false, {1, 1});
    p.dh = d[0];
    p.dw = d[1];
    p.ceil = a.size() > 5 && a[5].kind == Val::Kind::Bool && a[5].b;
  } else {
    p.ceil = a.size() > 4 && a[4].kind == Val::Kind::Bool && a[4].b;
  }
  const size_t nd = t.sizes.size();
  if (nd != 3 && nd != 4) throw TorchError("RuntimeError", "non-empty 3D or 4D (batch mode) tensor expected for input");
  ir::TensorType inner = t;
  inner.sizes.erase(inner.sizes.begin());
  Shape rest = concrete(inner, op);
  if (p.kh <= 0 || p.kw <= 0)
    throw TorchError("RuntimeError",
                     "kernel size should be greater than zero, but got kH: " + std::to_string(p.kh) + " kW: " + std::to_string(p.kw));
  if (p.sh <= 0 || p.sw <= 0)
    throw TorchError("RuntimeError",
                     "stride should be greater than zero, but got dH: " + std::to_string(p.sh) + " dW: " + std::to_string(p.sw));
  if (p.dh <= 0 || p.dw <= 0)
    throw TorchError("RuntimeError", "dilation should be greater than zero, but got dilationH: " + std::to_string(p.dh) +
                                         " dilationW: " + std::to_string(p.dw));
  p.H = rest[rest.size() - 2];
  p.W = rest[rest.size() - 1];
  const int64_t C = nd == 4 ? rest[0] : t.sizes[0].value;
  p.OH = poolOutSize(p.H, p.kh, p.ph, p.sh, p.dh, p.ceil);
  p.OW = poolOutSize(p.W, p.kw, p.pw, p.sw, p.dw, p.ceil);
  if (p.OH < 1 || p.OW < 1)
    throw TorchError("RuntimeError", "Given input size: (" + std::to_string(C) + "x" + std::to_string(p.H) + "x" + std::to_string(p.W) +
                                         "). Calculated output size: (" + std::to_string(C) + "x" + std::to_string(p.OH) + "x" +
                                         std::to_string(p.OW) + "). Output size is too small");
  for (size_t i = 0; i + 2 < nd; ++i) p.outShape.push_back(t.sizes[i].symbolic() ? -1 : t.sizes[i].value);
  p.outShape.push_back(p.OH);
  p.outShape.push_back(p.OW);
  return p;
}

ir::TensorType poolType(const ir::TensorType& in, const Pool& p) {
  ir::TensorType t;
  t.dtype = in.dtype;
  for (size_t i = 0; i + 2 < in.sizes.size(); ++i) t.sizes.push_back(in.sizes[i]);
  t.sizes.emplace_back(p.OH);
  t.sizes.emplace_back(p.OW);
  return t;
}

// Indices (optional) are flat positions h * W + w within the input plane, as PyTorch's.
template <typename T>
void maxPoolPlanes(const T* x, T* y, int64_t* indices, const Pool& p) {
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const T* in = x + pl * p.H * p.W;
    T* out = y + pl * p.OH * p.OW;
    int64_t* idx = indices ? indices + pl * p.OH * p.OW : nullptr;
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const int64_t h0 = oh * p.sh - p.ph, w0 = ow * p.sw - p.pw;
        T best = std::numeric_limits<T>::lowest();
        if constexpr (std::numeric_limits<T>::has_infinity) best = -std::numeric_limits<T>::infinity();
        bool found = false;
        int64_t at = -1;
        for (int64_t i = 0; i < p.kh; ++i) {
          int64_t h = h0 + i * p.dh;
          if (h < 0 || h >= p.H) continue;
          for (int64_t j = 0; j < p.kw; ++j) {
            int64_t w = w0 + j * p.dw;
            if (w < 0 || w >= p.W) continue;
            T v = in[h * p.W + w];
            // NaN wins, as in PyTorch's kernel (val > max || isnan(val)).
            if (!found || v > best || v != v) {
              best = v;
              at = h * p.W + w;
            }
            found = true;
            if (best != best) break;
          }
          if (best != best) break;
        }
        out[oh * p.OW + ow] = best;
        if (idx) idx[oh * p.OW + ow] = at;
      }
  }
}

template <typename T, typename Acc>
void avgPoolPlanes(const T* x, T* y, const Pool& p, bool countIncludePad, int64_t divisorOverride) {
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const T* in = x + pl * p.H * p.W;
    T* out = y + pl * p.OH * p.OW;
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        int64_t hs = oh * p.sh - p.ph, ws = ow * p.sw - p.pw;
        int64_t he = std::min(hs + p.kh, p.H + p.ph), we = std::min(ws + p.kw, p.W + p.pw);
        const int64_t poolSize = (he - hs) * (we - ws);
        hs = std::max<int64_t>(hs, 0);
        ws = std::max<int64_t>(ws, 0);
        he = std::min(he, p.H);
        we = std::min(we, p.W);
        if (hs >= he || ws >= we) {
          out[oh * p.OW + ow] = T(0);
          continue;
        }
        Acc sum = 0;
        for (int64_t h = hs; h < he; ++h)
          for (int64_t w = ws; w < we; ++w) sum += in[h * p.W + w];
        int64_t div = divisorOverride ? divisorOverride : countIncludePad ? poolSize : (he - hs) * (we - ws);
        out[oh * p.OW + ow] = static_cast<T>(sum / static_cast<Acc>(div));
      }
  }
}

// Max pooling: values, and the indices when `indices` is given.
Tensor maxPoolKernel(const std::vector<Val>& a, Tensor* indices) {
  const Tensor& x0 = a.at(0).t;
  Pool p = poolParams(x0.type(), a, true);
  Tensor out = Tensor::empty(p.outShape, x0.dtype());
  if (indices) *indices = Tensor::empty(p.outShape, ir::DType::Int64);
  p.planes = x0.numel() == 0 ? 0 : x0.numel() / (p.H * p.W);  // H * W fits for a non-empty input
  if (out.numel() == 0) return out;
  Tensor x = x0.contiguous();
  int64_t* ip = indices ? indices->ptr<int64_t>() : nullptr;
  switch (x.dtype()) {
    case ir::DType::Float32: maxPoolPlanes(x.ptr<float>(), out.ptr<float>(), ip, p); break;
    case ir::DType::Float64: maxPoolPlanes(x.ptr<double>(), out.ptr<double>(), ip, p); break;
    case ir::DType::Int64: maxPoolPlanes(x.ptr<int64_t>(), out.ptr<int64_t>(), ip, p); break;
    case ir::DType::Int32: maxPoolPlanes(x.ptr<int32_t>(), out.ptr<int32_t>(), ip, p); break;
    default: throw TorchError("RuntimeError", std::string("\"max_pool2d\" not implemented for '") + ir::scalarTypeName(x.dtype()) + "'");
  }
  return out;
}

Tensor avgPoolKernel(const std::vector<Val>& a) {
  const Tensor& x0 = a.at(0).t;
  Pool p = poolParams(x0.type(), a, false);
  Tensor out = Tensor::empty(p.outShape, x0.dtype());
  p.planes = x0.numel() == 0 ? 0 : x0.numel() / (p.H * p.W);  // H * W fits for a non-empty input
  if (out.numel() == 0) return out;
  Tensor x = x0.contiguous();
  const bool countIncludePad = a.size() > 5 && a[5].kind == Val::Kind::Bool ? a[5].b : true;
  const int64_t divisor = a.size() > 6 && !a[6].isNone() ? a[6].i : 0;
  if (a.size() > 6 && !a[6].isNone() && divisor == 0) throw TorchError("RuntimeError", "divisor must be not zero");
  switch (x.dtype()) {
    case ir::DType::Float32: avgPoolPlanes<float, float>(x.ptr<float>(), out.ptr<float>(), p, countIncludePad, divisor); break;
    case ir::DType::Float64: avgPoolPlanes<double, double>(x.ptr<double>(), out.ptr<double>(), p, countIncludePad, divisor); break;
    case ir::DType::Int64: avgPoolPlanes<int64_t, int64_t>(x.ptr<int64_t>(), out.ptr<int64_t>(), p, countIncludePad, divisor); break;
    default: throw TorchError("RuntimeError", std::string("\"avg_pool2d\" not implemented for '") + ir::scalarTypeName(x.dtype()) + "'");
  }
  return out;
}

// ---- adaptive average pooling -----------------------------------------------------------

ir::TensorType adaptiveType(const ir::TensorType& in, const Val& size) {
  const size_t nd = in.sizes.size();
  if (nd != 3 && nd != 4) {
    std::string s = "[";
    for (size_t i = 0; i < nd; ++i) s += (i ? ", " : "") + in.sizes[i].str();
    throw TorchError("RuntimeError", "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got " + s + "]");
  }
  Shape os = size.ints();
  if (os.size() != 2) throw TorchError("RuntimeError", "adaptive_avg_pool2d: output_size must be 2");
  for (size_t i = 1; i < nd; ++i)
    if (in.sizes[i] == ir::Dim(0)) {
      std::string s = "[";
      for (size_t j = 0; j < nd; ++j) s += (j ? ", " : "") + in.sizes[j].str();
      throw TorchError("RuntimeError",
                       "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes " + s +
                           "] with dimension " + std::to_string(i) + " being empty");
    }
  for (auto v : os)
    if (v < 0)
      throw TorchError("RuntimeError", "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {" +
                                           std::to_string(os[0]) + ", " + std::to_string(os[1]) + "}");
  ir::TensorType t;
  t.dtype = in.dtype;
  for (size_t i = 0; i + 2 < nd; ++i) t.sizes.push_back(in.sizes[i]);
  t.sizes.emplace_back(os[0]);
  t.sizes.emplace_back(os[1]);
  return t;
}

template <typename T>
void adaptiveAvgPlanes(const T* x, T* y, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* in = x + pl * H * W;
    T* out = y + pl * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t hs = (oh * H) / OH, he = ((oh + 1) * H + OH - 1) / OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t ws = (ow * W) / OW, we = ((ow + 1) * W + OW - 1) / OW;
        T sum = 0;
        for (int64_t h = hs; h < he; ++h)
          for (int64_t w = ws; w < we; ++w) sum += in[h * W + w];
        out[oh * OW + ow] = sum / static_cast<T>((he - hs) * (we - ws));
      }
    }
  }
}

// ---- constant padding ------------------------------------------------------------------

// PyTorch's constant_pad_nd checks and output shape. Pads are (last dim left, right, next ...);
// negative pads crop.
Shape padShape(const Shape& in, const Shape& pad) {
  if (pad.size() % 2 != 0)
    throw TorchError("RuntimeError", "Length of pad must be even but instead it equals " + std::to_string(pad.size()));
  if (pad.size() / 2 > in.size())
    throw TorchError("RuntimeError", "Length of pad should be no more than twice the number of dimensions of the input. Pad length is " +
                                         std::to_string(pad.size()) + "while the input has " + std::to_string(in.size()) + "dimensions.");
  Shape out = in;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    size_t dim = in.size() - 1 - i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1];
    int64_t n = in[dim] + l + r;
    if (n < 0)
      throw TorchError("RuntimeError", "The input size " + std::to_string(in[dim]) + ", plus negative padding " + std::to_string(l) +
                                           " and " + std::to_string(r) +
                                           " resulted in a negative output size, which is invalid. Check dimension " + std::to_string(dim) +
                                           " of your input.");
    out[dim] = n;
  }
  return out;
}

Tensor constantPadKernel(const Tensor& x, const Shape& pad, double value) {
  Shape outShape = padShape(x.sizes(), pad);
  Tensor out = Tensor::full(outShape, value, x.dtype());
  // The overlap of input and output: input [inStart, inStart+len) lands at outStart.
  Shape len = x.sizes();
  int64_t inOff = x.offset(), outOff = 0;
  const Shape outStrides = out.strides();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    size_t dim = x.sizes().size() - 1 - i;
    int64_t l = pad[2 * i], r = pad[2 * i + 1];
    int64_t inStart = std::max<int64_t>(0, -l), outStart = std::max<int64_t>(0, l);
    int64_t n = x.sizes()[dim] - inStart - std::max<int64_t>(0, -r);
    if (n <= 0) return out;
    len[dim] = n;
    inOff += inStart * x.strides()[dim];
    outOff += outStart * outStrides[dim];
  }
  for (auto n : len)
    if (n == 0) return out;
  Tensor src = x.view(len, x.strides(), inOff);
  Tensor dst = out.view(len, outStrides, outOff);
  const int64_t item = static_cast<int64_t>(ir::itemSize(x.dtype()));  // signed: strides may be negative
  char* d = static_cast<char*>(dst.data());
  const char* s = static_cast<const char*>(src.data());
  tensor::forEachIndex<2>(len, {&dst.strides(), &src.strides()},
                          [&](const std::array<int64_t, 2>& o) { std::memcpy(d + o[0] * item, s + o[1] * item, item); });
  return out;
}

}  // namespace

void registerConvOps(std::vector<OpDef>& t) {
  {
    OpDef d;  // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    d.name = "aten.convolution.default";
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType(), w = a.at(1).tensorType();
      const size_t spatial = w.sizes.size() >= 3 ? w.sizes.size() - 2 : 1;
      Shape out = convOutputShape(in, w, a.at(2), convParams(a, spatial));
      ir::TensorType ty;
      ty.dtype = in.dtype;
      for (auto s : out) ty.sizes.emplace_back(s);
      ty.sizes[0] = in.sizes[0];  // the batch dim may be symbolic
      return ty;
    };
    d.eager = convolutionKernel;
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // kiln.convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation, groups)
    d.name = "kiln.convolution_weight_grad.default";
    d.meta = weightGradType;
    d.eager = weightGradKernel;
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)
    d.name = "aten.max_pool2d.default";
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType();
      return poolType(in, poolParams(in, a, true));
    };
    d.eager = [](const std::vector<Val>& a) { return maxPoolKernel(a, nullptr); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // max_pool2d_with_indices(same arguments) -> (values, int64 indices)
    d.name = "aten.max_pool2d_with_indices.default";
    d.metaMulti = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType();
      ir::TensorType v = poolType(in, poolParams(in, a, true)), i = v;
      i.dtype = ir::DType::Int64;
      return std::vector<ir::TensorType>{v, i};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [](const std::vector<Val>& a) {
      Tensor idx;
      Tensor v = maxPoolKernel(a, &idx);
      return std::vector<Tensor>{v, idx};
    };
    t.push_back(std::move(d));
  }
  {
    // kiln.max_pool2d_indices(same arguments) -> int64 indices: the second result alone, for
    // graph-recording dispatchers (no multi-result nodes): max_pool2d's backward in a compiled
    // graph scatters the gradient at these.
    OpDef d;
    d.name = "kiln.max_pool2d_indices.default";
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType();
      ir::TensorType i = poolType(in, poolParams(in, a, true));
      i.dtype = ir::DType::Int64;
      return i;
    };
    d.eager = [](const std::vector<Val>& a) {
      Tensor idx;
      maxPoolKernel(a, &idx);
      return idx;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)
    d.name = "aten.avg_pool2d.default";
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType();
      return poolType(in, poolParams(in, a, false));
    };
    d.eager = avgPoolKernel;
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // _adaptive_avg_pool2d(self, output_size)
    d.name = "aten._adaptive_avg_pool2d.default";
    d.meta = [](const std::vector<Val>& a) { return adaptiveType(a.at(0).tensorType(), a.at(1)); };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x0 = a.at(0).t;
      ir::TensorType ty = adaptiveType(x0.type(), a.at(1));
      Shape os;
      for (const auto& s : ty.sizes) os.push_back(s.value);
      requireFloat(x0.dtype(), "adaptive_avg_pool2d");
      Tensor out = Tensor::empty(os, x0.dtype());
      if (out.numel() == 0) return out;
      Tensor x = x0.contiguous();
      const int64_t H = x.sizes()[x.dim() - 2], W = x.sizes()[x.dim() - 1];
      const int64_t planes = x.numel() / (H * W), OH = os[os.size() - 2], OW = os[os.size() - 1];
      if (x.dtype() == ir::DType::Float32) adaptiveAvgPlanes(x.ptr<float>(), out.ptr<float>(), planes, H, W, OH, OW);
      else adaptiveAvgPlanes(x.ptr<double>(), out.ptr<double>(), planes, H, W, OH, OW);
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // constant_pad_nd(self, pad, value=0)
    d.name = "aten.constant_pad_nd.default";
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType in = a.at(0).tensorType();
      Shape out = padShape(concrete(in, "constant_pad_nd"), a.at(1).ints());
      ir::TensorType ty;
      ty.dtype = in.dtype;
      for (auto s : out) ty.sizes.emplace_back(s);
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) {
      double v = a.size() > 2 && !a[2].isNone() ? a[2].number() : 0.0;
      return constantPadKernel(a.at(0).t, a.at(1).ints(), v);
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
