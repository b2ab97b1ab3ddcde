// Matrix products (aten.mm, addmm, bmm, mv, dot) and aten.embedding (a row gather from a weight matrix). float32/float64 products run on
// OpenBLAS, reading strided operands in place when BLAS can (row- or column-major with a leading dimension) and copying them otherwise;
// integer dtypes use a plain loop, as PyTorch supports integer matmul on the CPU. Errors are worded like PyTorch's meta functions.
#include "engine/ops/gemm_algos.h"
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"
#include "engine/ops/skinny_gemm.h"
#include "engine/tensor/half.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <optional>

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

// Convolution, pooling and padding (conv_ops.cpp) register with this family.
void registerConvOps(std::vector<OpDef>& t);

namespace {

// A symbolic dim may equal anything: the guards of the captured graph decide, not the meta.
bool sameDim(const ir::Dim& a, const ir::Dim& b) { return a == b || a.symbolic() || b.symbolic(); }

std::string shapeOf(const ir::TensorType& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) s += (i ? ", " : "") + t.sizes[i].str();
  return s + "]";
}

ir::TensorType typeOf(ir::DType dt, std::vector<ir::Dim> sizes) {
  ir::TensorType t;
  t.dtype = dt;
  t.sizes = std::move(sizes);
  return t;
}

double scalarArg(const std::vector<Val>& a, size_t i, double dflt) { return a.size() > i && !a[i].isNone() ? a[i].number() : dflt; }

// Which dtypes the product kernels handle; the message is PyTorch's for Bool.
void checkMatmulDtype(ir::DType d) {
  if (d == ir::DType::Bool) throw TorchError("RuntimeError", "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  if (d == ir::DType::Int16 || d == ir::DType::Int8 || d == ir::DType::UInt8)
    throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(d)) + " is not supported by Kiln's eager kernels yet");
}

// ---- GEMM on strided operands -------------------------------------------------------------

// A matrix operand: element (i, j) is at p[i * rs + j * cs] (element units).
struct Mat {
  const void* p;
  int64_t rows, cols, rs, cs;
};

// How BLAS reads a strided matrix without a copy: row-major with leading dimension `ld`, or
// transposed (column-major). Strides of size-1 dims do not matter.
struct BlasView {
  bool trans;
  int64_t ld;
};

std::optional<BlasView> blasView(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols)))
    return BlasView{false, rows <= 1 ? std::max<int64_t>(1, cols) : rs};
  if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows)))
    return BlasView{true, cols <= 1 ? std::max<int64_t>(1, rows) : cs};
  return std::nullopt;
}

bool blasType(ir::DType d) { return d == ir::DType::Float32 || d == ir::DType::Float64; }

// The matrices of `x` (2-D, or 3-D batched) in a layout BLAS can read: `x` itself when its
// inner two strides allow it, else a contiguous copy. Integer kernels read any strides.
Tensor forGemm(const Tensor& x) {
  if (!blasType(x.dtype())) return x;
  int64_t nd = x.dim();
  if (blasView(x.sizes()[nd - 2], x.sizes()[nd - 1], x.strides()[nd - 2], x.strides()[nd - 1])) return x;
  return x.clone();
}

template <typename T>
void gemmInt(const Mat& a, const Mat& b, T* c, int64_t ldc, double alpha, double beta) {
  const T* pa = static_cast<const T*>(a.p);
  const T* pb = static_cast<const T*>(b.p);
  const int64_t ia = tensor::truncToInt<int64_t>(alpha), ib = tensor::truncToInt<int64_t>(beta);
  std::vector<int64_t> acc(static_cast<size_t>(b.cols));
  for (int64_t i = 0; i < a.rows; ++i) {
    tensor::checkStop();  // a row is k * n multiply-adds: the check is free
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t k = 0; k < a.cols; ++k) {
      int64_t av = pa[i * a.rs + k * a.cs];
      if (av == 0) continue;
      for (int64_t j = 0; j < b.cols; ++j) acc[j] = wrapAdd(acc[j], wrapMul(av, static_cast<int64_t>(pb[k * b.rs + j * b.cs])));
    }
    T* row = c + i * ldc;
    for (int64_t j = 0; j < b.cols; ++j)
      row[j] = static_cast<T>(wrapAdd(ib == 0 ? 0 : wrapMul(ib, static_cast<int64_t>(row[j])), wrapMul(ia, acc[j])));
  }
}

// A big product runs in blocks of rows of about 2^31 multiply-adds (a fraction of a second) with
// a stop check between them (engine/tensor/stop.h), so Ctrl-C or a time limit stops it. Rows are
// independent, so the blocks compute what one call would. `block(rows, a's first row, c's first
// row)` runs one; false from the first block (a library refusing the call, nothing written) is
// returned, from a later one it is an error.
template <class Block>
bool forRowBlocks(int64_t m, int64_t n, int64_t k, const Mat& a, void* c, int64_t ldc, size_t item, Block&& block) {
  constexpr double kBlockWork = 2147483648.0;
  const double work = double(m) * double(n) * double(k);
  const int64_t rowsPerBlock = work <= kBlockWork ? m : std::max<int64_t>(1, int64_t(kBlockWork / (double(n) * double(k))));
  for (int64_t i0 = 0; i0 < m; i0 += rowsPerBlock) {
    if (rowsPerBlock < m) tensor::checkStop();
    const int64_t mb = std::min(rowsPerBlock, m - i0);
    const void* ap = static_cast<const char*>(a.p) + i0 * a.rs * static_cast<int64_t>(item);
    void* cp = static_cast<char*>(c) + i0 * ldc * static_cast<int64_t>(item);
    if (!block(mb, ap, cp)) {
      if (i0 == 0) return false;
      throw std::runtime_error("a GEMM library failed part of the way through a product");
    }
  }
  return true;
}

// c[m, n] (row stride ldc) = alpha * a @ b + beta * c. With beta == 0, c is not read (NaN in
// it does not propagate), as in PyTorch's addmm.
void gemm(ir::DType dt, const Mat& a, const Mat& b, void* c, int64_t ldc, double alpha, double beta) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0) return;
  if (ir::isReducedFloat(dt)) {
    // 16-bit floats: widened to float32, multiplied with float32 accumulation and rounded once
    // on store, as PyTorch's CPU bf16/f16 GEMM (oneDNN) accumulates in float32.
    auto load = [dt](const void* p, int64_t o) {
      uint16_t h = static_cast<const uint16_t*>(p)[o];
      return dt == ir::DType::BFloat16 ? tensor::bf16ToFloat(h) : tensor::f16ToFloat(h);
    };
    auto widen = [&](const Mat& x) {
      std::vector<float> v(static_cast<size_t>(x.rows * x.cols));
      for (int64_t i = 0; i < x.rows; ++i)
        for (int64_t j = 0; j < x.cols; ++j) v[static_cast<size_t>(i * x.cols + j)] = load(x.p, i * x.rs + j * x.cs);
      return v;
    };
    std::vector<float> fa = widen(a), fb = widen(b), fc(static_cast<size_t>(m * n), 0.0f);
    uint16_t* pc = static_cast<uint16_t*>(c);
    if (beta != 0.0)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) fc[static_cast<size_t>(i * n + j)] = load(pc, i * ldc + j);
    gemm(ir::DType::Float32, Mat{fa.data(), m, k, k, 1}, Mat{fb.data(), k, n, n, 1}, fc.data(), n, alpha, beta);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float v = fc[static_cast<size_t>(i * n + j)];
        pc[i * ldc + j] = dt == ir::DType::BFloat16 ? tensor::floatToBf16(v) : tensor::floatToF16(v);
      }
    return;
  }
  if (k == 0) {
    // No products: c is beta * c, or zeros when beta is 0. (With k > 0 every path below writes
    // c without reading it when beta is 0: BLAS's beta-0 rule, the skinny kernel, gemmInt.)
    if (beta == 0.0)
      for (int64_t i = 0; i < m; ++i) std::memset(static_cast<char*>(c) + i * ldc * ir::itemSize(dt), 0, n * ir::itemSize(dt));
    if (beta != 0.0 && beta != 1.0) {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          if (dt == ir::DType::Float32) static_cast<float*>(c)[i * ldc + j] *= static_cast<float>(beta);
          else if (dt == ir::DType::Float64) static_cast<double*>(c)[i * ldc + j] *= beta;
          else if (dt == ir::DType::Int64) static_cast<int64_t*>(c)[i * ldc + j] *= static_cast<int64_t>(beta);
          else static_cast<int32_t*>(c)[i * ldc + j] *= static_cast<int32_t>(beta);
        }
    }
    return;
  }
  if (blasType(dt)) {
    auto va = blasView(a.rows, a.cols, a.rs, a.cs);
    auto vb = blasView(b.rows, b.cols, b.rs, b.cs);
    if (!va || !vb) throw std::logic_error("gemm: operand layout not prepared for BLAS");
    auto ta = va->trans ? CblasTrans : CblasNoTrans, tb = vb->trans ? CblasTrans : CblasNoTrans;
    const size_t item = ir::itemSize(dt);
    // Which implementation (gemm_algos.h): the one max-autotune pinned to this product's step,
    // else the rule below.
    const std::string& pinned = pinnedGemmAlgo();
    // A few rows against a row-major weight read transposed (x @ w.t()): dot products, which
    // do not pack the weight as OpenBLAS does (skinny_gemm.h).
    if (dt == ir::DType::Float32 && !va->trans && vb->trans && (pinned == "few_rows" || (pinned.empty() && skinnyPays(m, k))) &&
        skinnySgemmNT(m, n, k, float(alpha), static_cast<const float*>(a.p), va->ld, static_cast<const float*>(b.p), vb->ld, float(beta),
                      static_cast<float*>(c), ldc)) {
      noteGemmAlgo("few_rows");
      return;
    }
    // oneDNN's row-major sgemm; where it refuses a call, OpenBLAS runs it.
    if (dt == ir::DType::Float32 && pinned == "onednn" && forRowBlocks(m, n, k, a, c, ldc, item, [&](int64_t mb, const void* ap, void* cp) {
          return dnnl_sgemm(va->trans ? 'T' : 'N', vb->trans ? 'T' : 'N', mb, n, k, float(alpha), static_cast<const float*>(ap), va->ld,
                            static_cast<const float*>(b.p), vb->ld, float(beta), static_cast<float*>(cp), ldc) == dnnl_success;
        })) {
      noteGemmAlgo("onednn");
      return;
    }
    noteGemmAlgo("openblas");
    forRowBlocks(m, n, k, a, c, ldc, item, [&](int64_t mb, const void* ap, void* cp) {
      if (dt == ir::DType::Float32)
        cblas_sgemm(CblasRowMajor, ta, tb, int(mb), int(n), int(k), float(alpha), static_cast<const float*>(ap), int(va->ld),
                    static_cast<const float*>(b.p), int(vb->ld), float(beta), static_cast<float*>(cp), int(ldc));
      else
        cblas_dgemm(CblasRowMajor, ta, tb, int(mb), int(n), int(k), alpha, static_cast<const double*>(ap), int(va->ld),
                    static_cast<const double*>(b.p), int(vb->ld), beta, static_cast<double*>(cp), int(ldc));
      return true;
    });
    return;
  }
  if (dt == ir::DType::Int64) gemmInt<int64_t>(a, b, static_cast<int64_t*>(c), ldc, alpha, beta);
  else gemmInt<int32_t>(a, b, static_cast<int32_t*>(c), ldc, alpha, beta);
}

Mat matOf(const Tensor& x) {
  int64_t nd = x.dim();
  return {x.data(), x.sizes()[nd - 2], x.sizes()[nd - 1], x.strides()[nd - 2], x.strides()[nd - 1]};
}

// Batch `i` of a 3-D tensor as a matrix.
Mat batchOf(const Tensor& x, int64_t i) {
  Mat m = matOf(x);
  m.p = static_cast<const char*>(x.data()) + i * x.strides()[0] * static_cast<int64_t>(ir::itemSize(x.dtype()));  // strides may be negative
  return m;
}

// ---- checks (shared by meta and eager) ---------------------------------------------------

void checkMm(const ir::TensorType& a, const ir::TensorType& b) {
  if (a.sizes.size() != 2) throw TorchError("RuntimeError", "self must be a matrix");
  if (b.sizes.size() != 2) throw TorchError("RuntimeError", "mat2 must be a matrix");
  if (!sameDim(a.sizes[1], b.sizes[0]))
    throw TorchError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (" + a.sizes[0].str() + "x" + a.sizes[1].str() + " and " +
                                         b.sizes[0].str() + "x" + b.sizes[1].str() + ")");
  if (a.dtype != b.dtype)
    throw TorchError("RuntimeError", std::string("expected m1 and m2 to have the same dtype, but got: ") + ir::typeMetaName(a.dtype) +
                                         " != " + ir::typeMetaName(b.dtype));
}

// The expand of addmm's `self` to [m, n]; PyTorch's expand wording.
void checkExpandable(const ir::TensorType& self, const std::vector<ir::Dim>& to) {
  if (self.sizes.size() > to.size())
    throw TorchError("RuntimeError", "expand(torch." + std::string(ir::scalarTypeName(self.dtype)) + "Tensor{" + shapeOf(self) +
                                         "}, size=[" + to[0].str() + ", " + to[1].str() + "]): the number of sizes provided (" +
                                         std::to_string(to.size()) +
                                         ") must be greater or equal to the number of dimensions in the tensor (" +
                                         std::to_string(self.sizes.size()) + ")");
  size_t lead = to.size() - self.sizes.size();
  for (size_t i = 0; i < self.sizes.size(); ++i) {
    const ir::Dim& s = self.sizes[i];
    const ir::Dim& t = to[lead + i];
    if (!(s == ir::Dim(1)) && !sameDim(s, t))
      throw TorchError("RuntimeError", "The expanded size of the tensor (" + t.str() + ") must match the existing size (" + s.str() +
                                           ") at non-singleton dimension " + std::to_string(lead + i) + ".  Target sizes: [" + to[0].str() +
                                           ", " + to[1].str() + "].  Tensor sizes: " + shapeOf(self));
  }
}

void checkAddmm(const ir::TensorType& self, const ir::TensorType& m1, const ir::TensorType& m2) {
  if (self.dtype != m2.dtype)
    throw TorchError("RuntimeError", std::string("self and mat2 must have the same dtype, but got ") + ir::scalarTypeName(self.dtype) +
                                         " and " + ir::scalarTypeName(m2.dtype));
  if (m1.dtype != m2.dtype)
    throw TorchError("RuntimeError", std::string("mat1 and mat2 must have the same dtype, but got ") + ir::scalarTypeName(m1.dtype) +
                                         " and " + ir::scalarTypeName(m2.dtype));
  if (m1.sizes.size() != 2) throw TorchError("RuntimeError", "mat1 must be a matrix, got " + std::to_string(m1.sizes.size()) + "-D tensor");
  if (m2.sizes.size() != 2) throw TorchError("RuntimeError", "mat2 must be a matrix, got " + std::to_string(m2.sizes.size()) + "-D tensor");
  if (!sameDim(m1.sizes[1], m2.sizes[0]))
    throw TorchError("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (" + m1.sizes[0].str() + "x" + m1.sizes[1].str() + " and " +
                                         m2.sizes[0].str() + "x" + m2.sizes[1].str() + ")");
  checkExpandable(self, {m1.sizes[0], m2.sizes[1]});
}

void checkBmm(const ir::TensorType& a, const ir::TensorType& b) {
  if (a.sizes.size() != 3) throw TorchError("RuntimeError", "batch1 must be a 3D tensor");
  if (b.sizes.size() != 3) throw TorchError("RuntimeError", "batch2 must be a 3D tensor");
  if (!sameDim(b.sizes[0], a.sizes[0]) || !sameDim(b.sizes[1], a.sizes[2]))
    throw TorchError("RuntimeError", "Expected size for first two dimensions of batch2 tensor to be: [" + a.sizes[0].str() + ", " +
                                         a.sizes[2].str() + "] but got: [" + b.sizes[0].str() + ", " + b.sizes[1].str() + "].");
  if (a.dtype != b.dtype)
    throw TorchError("RuntimeError",
                     std::string("expected scalar type ") + ir::scalarTypeName(a.dtype) + " but found " + ir::scalarTypeName(b.dtype));
}

void checkMv(const ir::TensorType& m, const ir::TensorType& v) {
  if (m.sizes.size() != 2 || v.sizes.size() != 1)
    throw TorchError("RuntimeError",
                     "vector + matrix @ vector expected, got 1, " + std::to_string(m.sizes.size()) + ", " + std::to_string(v.sizes.size()));
  if (!sameDim(m.sizes[1], v.sizes[0]))
    throw TorchError("RuntimeError", "size mismatch, got input (" + m.sizes[0].str() + "), mat (" + m.sizes[0].str() + "x" +
                                         m.sizes[1].str() + "), vec (" + v.sizes[0].str() + ")");
  if (m.dtype != v.dtype)
    throw TorchError("RuntimeError",
                     std::string("expected scalar type ") + ir::scalarTypeName(m.dtype) + " but found " + ir::scalarTypeName(v.dtype));
}

void checkDot(const ir::TensorType& a, const ir::TensorType& b) {
  if (a.sizes.size() != 1 || b.sizes.size() != 1)
    throw TorchError("RuntimeError", "1D tensors expected, but got " + std::to_string(a.sizes.size()) + "D and " +
                                         std::to_string(b.sizes.size()) + "D tensors");
  if (a.dtype != b.dtype)
    throw TorchError("RuntimeError", std::string("dot : expected both vectors to have same dtype, but found ") +
                                         ir::scalarTypeName(a.dtype) + " and " + ir::scalarTypeName(b.dtype));
  if (!sameDim(a.sizes[0], b.sizes[0]))
    throw TorchError("RuntimeError", "inconsistent tensor size, expected tensor [" + a.sizes[0].str() + "] and src [" + b.sizes[0].str() +
                                         "] to have the same number of elements, but got " + a.sizes[0].str() + " and " + b.sizes[0].str() +
                                         " elements respectively");
}

// ---- kernels ----------------------------------------------------------------------------

Tensor mmKernel(const Tensor& a, const Tensor& b) {
  checkMm(a.type(), b.type());
  checkMatmulDtype(a.dtype());
  Tensor out = Tensor::empty({a.sizes()[0], b.sizes()[1]}, a.dtype());
  Tensor pa = forGemm(a), pb = forGemm(b);
  gemm(a.dtype(), matOf(pa), matOf(pb), out.data(), std::max<int64_t>(1, out.sizes()[1]), 1.0, 0.0);
  return out;
}

// Copies `src` broadcast to `dst`'s shape into the contiguous `dst`: a row at a time for a bias row, else element by element
// (bias rows of addmm; any dtype, bit-exact).
void fillBroadcast(Tensor& dst, const Tensor& src) {
  const int64_t n = dst.dim() == 2 ? dst.sizes()[1] : -1;
  const bool row = src.dim() >= 1 && src.sizes().back() == n && (n <= 1 || src.strides().back() == 1) && src.numel() == n;
  if (row && dst.isContiguous()) {
    // The usual bias: one contiguous row copied into every output row (memcpy, not element by element).
    const size_t bytes = static_cast<size_t>(n) * ir::itemSize(dst.dtype());
    char* d = static_cast<char*>(dst.data());
    for (int64_t i = 0; i < dst.sizes()[0]; ++i) std::memcpy(d + static_cast<size_t>(i) * bytes, src.data(), bytes);
    return;
  }
  Shape ds = dst.strides(), ss = tensor::broadcastStrides(src, dst.sizes());
  const int64_t item = static_cast<int64_t>(ir::itemSize(dst.dtype()));  // signed: strides may be negative
  char* d = static_cast<char*>(dst.data());
  const char* s = static_cast<const char*>(src.data());
  tensor::forEachIndex<2>(dst.sizes(), {&ds, &ss},
                          [&](const std::array<int64_t, 2>& o) { std::memcpy(d + o[0] * item, s + o[1] * item, item); });
}

Tensor addmmKernel(const Tensor& self, const Tensor& m1, const Tensor& m2, double beta, double alpha) {
  checkAddmm(self.type(), m1.type(), m2.type());
  checkMatmulDtype(m1.dtype());
  Tensor out = Tensor::empty({m1.sizes()[0], m2.sizes()[1]}, m1.dtype());
  if (beta != 0.0) fillBroadcast(out, self);
  Tensor pa = forGemm(m1), pb = forGemm(m2);
  gemm(m1.dtype(), matOf(pa), matOf(pb), out.data(), std::max<int64_t>(1, out.sizes()[1]), alpha, beta);
  return out;
}

Tensor bmmKernel(const Tensor& a, const Tensor& b) {
  checkBmm(a.type(), b.type());
  checkMatmulDtype(a.dtype());
  const int64_t batch = a.sizes()[0], m = a.sizes()[1], n = b.sizes()[2];
  Tensor out = Tensor::empty({batch, m, n}, a.dtype());
  if (out.numel() == 0) return out;  // 2^40 empty batches are no work to walk
  Tensor pa = forGemm(a), pb = forGemm(b);
  const size_t item = ir::itemSize(a.dtype());
  for (int64_t i = 0; i < batch; ++i)
    tensor::checkStop(), gemm(a.dtype(), batchOf(pa, i), batchOf(pb, i), static_cast<char*>(out.data()) + i * m * n * item,
                              std::max<int64_t>(1, n), 1.0, 0.0);
  return out;
}

// A vector as an [n, 1] column matrix (mv, dot); BLAS reads any positive stride in place.
Mat column(const Tensor& v) { return {v.data(), v.sizes()[0], 1, v.strides()[0], 1}; }

Tensor asStrided1d(const Tensor& v) {
  // A stride-0 (expanded) vector has no BLAS layout: materialize it.
  return blasType(v.dtype()) && v.sizes()[0] > 1 && v.strides()[0] == 0 ? v.clone() : v;
}

Tensor mvKernel(const Tensor& m, const Tensor& v) {
  checkMv(m.type(), v.type());
  checkMatmulDtype(m.dtype());
  Tensor out = Tensor::empty({m.sizes()[0]}, m.dtype());
  Tensor pm = forGemm(m), pv = asStrided1d(v);
  gemm(m.dtype(), matOf(pm), column(pv), out.data(), 1, 1.0, 0.0);
  return out;
}

Tensor dotKernel(const Tensor& a, const Tensor& b) {
  checkDot(a.type(), b.type());
  checkMatmulDtype(a.dtype());
  Tensor out = Tensor::empty({}, a.dtype());
  Tensor pa = asStrided1d(a), pb = asStrided1d(b);
  Mat row{pa.data(), 1, pa.sizes()[0], std::max<int64_t>(1, pa.sizes()[0]), pa.strides()[0]};
  gemm(a.dtype(), row, column(pb), out.data(), 1, 1.0, 0.0);
  return out;
}

// ---- embedding ---------------------------------------------------------------------------

void checkEmbedding(const ir::TensorType& weight, const ir::TensorType& indices) {
  if (indices.dtype != ir::DType::Int64 && indices.dtype != ir::DType::Int32) {
    std::string legacy = std::string("torch.") + ir::scalarTypeName(indices.dtype) + "Tensor";
    throw TorchError("RuntimeError",
                     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got " + legacy +
                         " instead (while checking arguments for embedding)");
  }
  if (weight.sizes.size() != 2) throw TorchError("RuntimeError", "'weight' must be 2-D");
}

Tensor embeddingKernel(const Tensor& weight, const Tensor& indices) {
  checkEmbedding(weight.type(), indices.type());
  Shape outSizes = indices.sizes();
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  outSizes.push_back(dim);
  Tensor out = Tensor::empty(outSizes, weight.dtype());
  const int64_t item = static_cast<int64_t>(ir::itemSize(weight.dtype()));  // signed: strides may be negative
  const int64_t ws0 = weight.strides()[0], ws1 = weight.strides()[1];
  const char* w = static_cast<const char*>(weight.data());
  char* o = static_cast<char*>(out.data());
  int64_t r = 0;
  tensor::forEachIndex<1>(indices.sizes(), {&indices.strides()}, [&](const std::array<int64_t, 1>& off) {
    int64_t idx = indices.loadIntAt(off[0]);
    if (idx < 0 || idx >= rows) throw TorchError("IndexError", "index out of range in self");
    char* dst = o + r * dim * item;
    const char* src = w + idx * ws0 * item;
    if (ws1 == 1) std::memcpy(dst, src, dim * item);
    else
      for (int64_t j = 0; j < dim; ++j) std::memcpy(dst + j * item, src + j * ws1 * item, item);
    ++r;
  });
  return out;
}

}  // namespace

void registerLinalgOps(std::vector<OpDef>& t) {
  {
    OpDef d;  // mm(self, mat2)
    d.name = "aten.mm.default";
    d.meta = [](const std::vector<Val>& a) {
      auto x = a.at(0).tensorType(), y = a.at(1).tensorType();
      checkMm(x, y);
      return typeOf(x.dtype, {x.sizes[0], y.sizes[1]});
    };
    d.eager = [](const std::vector<Val>& a) { return mmKernel(a.at(0).t, a.at(1).t); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // addmm(self, mat1, mat2, *, beta=1, alpha=1) = beta * self + alpha * (mat1 @ mat2)
    d.name = "aten.addmm.default";
    d.meta = [](const std::vector<Val>& a) {
      auto s = a.at(0).tensorType(), x = a.at(1).tensorType(), y = a.at(2).tensorType();
      checkAddmm(s, x, y);
      return typeOf(x.dtype, {x.sizes[0], y.sizes[1]});
    };
    d.eager = [](const std::vector<Val>& a) {
      return addmmKernel(a.at(0).t, a.at(1).t, a.at(2).t, scalarArg(a, 3, 1.0), scalarArg(a, 4, 1.0));
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // bmm(self, mat2): [b, n, m] @ [b, m, p]
    d.name = "aten.bmm.default";
    d.meta = [](const std::vector<Val>& a) {
      auto x = a.at(0).tensorType(), y = a.at(1).tensorType();
      checkBmm(x, y);
      return typeOf(x.dtype, {x.sizes[0], x.sizes[1], y.sizes[2]});
    };
    d.eager = [](const std::vector<Val>& a) { return bmmKernel(a.at(0).t, a.at(1).t); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // mv(self, vec)
    d.name = "aten.mv.default";
    d.meta = [](const std::vector<Val>& a) {
      auto x = a.at(0).tensorType(), y = a.at(1).tensorType();
      checkMv(x, y);
      return typeOf(x.dtype, {x.sizes[0]});
    };
    d.eager = [](const std::vector<Val>& a) { return mvKernel(a.at(0).t, a.at(1).t); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // dot(self, tensor): 0-dim result
    d.name = "aten.dot.default";
    d.meta = [](const std::vector<Val>& a) {
      auto x = a.at(0).tensorType(), y = a.at(1).tensorType();
      checkDot(x, y);
      return typeOf(x.dtype, {});
    };
    d.eager = [](const std::vector<Val>& a) { return dotKernel(a.at(0).t, a.at(1).t); };
    t.push_back(std::move(d));
  }
  {
    OpDef d;  // embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)
    d.name = "aten.embedding.default";
    d.meta = [](const std::vector<Val>& a) {
      auto w = a.at(0).tensorType(), idx = a.at(1).tensorType();
      checkEmbedding(w, idx);
      std::vector<ir::Dim> sizes = idx.sizes;
      sizes.push_back(w.sizes[1]);
      return typeOf(w.dtype, sizes);
    };
    // padding_idx only affects the gradient; the forward is a plain gather.
    d.eager = [](const std::vector<Val>& a) { return embeddingKernel(a.at(0).t, a.at(1).t); };
    t.push_back(std::move(d));
  }
  registerConvOps(t);
}

}  // namespace kiln::ops
