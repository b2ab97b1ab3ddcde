// Matrix products on CUDA tensors through cuBLAS, loaded with dlopen (never linked): mm, addmm,
// bmm, baddbmm, mv and dot as one (strided-batched) GEMM each, f32 and f64; a linear layer's addmm
// (1-d float32 bias) as one cuBLASLt GEMM with the bias in its epilogue (cuda_blas_lt.h). Row-major operands
// are passed as their column-major transposes (C^T = B^T A^T), so a transposed view (x.t(), the
// weight of a linear layer) is read in place with the transpose flag; other layouts are made
// contiguous on the device first. TF32 follows setCublasAllowTf32(), PyTorch's
// torch.backends.cuda.matmul.allow_tf32 (default False: CUBLAS_DEFAULT_MATH, no TF32). libcublas is looked for by its soname
// (LD_LIBRARY_PATH), in $CUDA_HOME/lib64, /usr/local/cuda/lib64 and the nvidia/cublas/lib
// folder of a Python install's NVIDIA wheels (PyTorch's CUDA wheels bring it there).
#include "engine/ops/op_table.h"
#include "engine/runtime/cuda_blas_lt.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/nvidia_libs.h"
#include "engine/tensor/tensor.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

namespace {

// torch.backends.cuda.matmul.allow_tf32: PyTorch's default is False.
std::atomic<bool> gCublasAllowTf32{false};

using Status = int;
constexpr int kOpN = 0, kOpT = 1;

struct Blas {
  void* handle = nullptr;
  Status (*create)(void**) = nullptr;
  Status (*setStream)(void*, void*) = nullptr;
  Status (*setMathMode)(void*, int) = nullptr;
  int mathMode = 0;  // the handle's: CUBLAS_DEFAULT_MATH when created
  Status (*sgemm)(void*, int, int, int, int, int, const float*, const float*, int, long long, const float*, int, long long, const float*,
                  float*, int, long long, int) = nullptr;
  Status (*dgemm)(void*, int, int, int, int, int, const double*, const double*, int, long long, const double*, int, long long,
                  const double*, double*, int, long long, int) = nullptr;
};

Blas& blas() {
  static std::once_flag once;
  static Blas b;
  static std::string failure;
  std::call_once(once, [] {
    void* lib = openNvidiaLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "cublas");
    if (!lib) {
      failure =
          "cuBLAS (libcublas.so) was not found in LD_LIBRARY_PATH, $CUDA_HOME/lib64, /usr/local/cuda/lib64 or a Python install's nvidia/cublas/lib";
      return;
    }
    b.create = reinterpret_cast<decltype(b.create)>(dlsym(lib, "cublasCreate_v2"));
    b.setStream = reinterpret_cast<decltype(b.setStream)>(dlsym(lib, "cublasSetStream_v2"));
    b.setMathMode = reinterpret_cast<decltype(b.setMathMode)>(dlsym(lib, "cublasSetMathMode"));
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(lib, "cublasSgemmStridedBatched"));
    b.dgemm = reinterpret_cast<decltype(b.dgemm)>(dlsym(lib, "cublasDgemmStridedBatched"));
    if (!b.create || !b.setStream || !b.setMathMode || !b.sgemm || !b.dgemm) {
      failure = "cuBLAS lacks cublasCreate_v2 / cublasSetMathMode / cublasSgemmStridedBatched";
      return;
    }
    driver().makeCurrent();
    if (b.create(&b.handle) != 0 || b.setStream(b.handle, driver().stream()) != 0) {
      failure = "cublasCreate failed";
      b.handle = nullptr;
    }
  });
  if (!b.handle) throw tensor::TorchError("RuntimeError", "Kiln cannot run matrix products on CUDA: " + failure);
  return b;
}

// A row-major r x c matrix (last two dims of x) as cuBLAS reads its transpose: the op flag and
// leading dimension, or false when its layout is neither (then it is made contiguous).
bool asColumnMajorTranspose(const tensor::Tensor& x, int* op, long long* ld) {
  const size_t n = x.sizes().size();
  const int64_t r = x.sizes()[n - 2], c = x.sizes()[n - 1], sr = x.strides()[n - 2], sc = x.strides()[n - 1];
  if ((sc == 1 || c == 1) && (r == 1 || sr >= std::max<int64_t>(1, c))) {
    *op = kOpN, *ld = r == 1 ? std::max<int64_t>(1, c) : sr;
    return true;
  }
  if ((sr == 1 || r == 1) && (c == 1 || sc >= std::max<int64_t>(1, r))) {
    *op = kOpT, *ld = c == 1 ? std::max<int64_t>(1, r) : sc;
    return true;
  }
  return false;
}

// out[b] = alpha * a[b] @ bm[b] + beta * out[b]; a: [B, m, k], bm: [B, k, n], out contiguous [B, m, n]
// (B may be absent: 2-d operands). A batch stride of 0 broadcasts an operand.
// `bias` (addmm's 1-d float32 input, beta 1): added in cuBLASLt's epilogue where it can be, else
// copied into out first for the GEMM to add onto.
void gemm(tensor::Tensor a, tensor::Tensor bm, tensor::Tensor& out, double alpha, double beta, const tensor::Tensor* bias = nullptr) {
  const size_t n = a.sizes().size();
  const int64_t m = a.sizes()[n - 2], k = a.sizes()[n - 1], cols = bm.sizes()[n - 1];
  const int64_t batch = n == 3 ? a.sizes()[0] : 1;
  if (out.numel() == 0) return;
  if (k == 0) {
    // An empty sum: beta * out (out was filled with the bias, or is zeroed here).
    if (bias) {
      copyOnDevice(out, *bias);
    } else if (beta == 0) {
      tensor::Tensor zero = tensor::Tensor::zeros({}, out.dtype()).toDevice(out.device());
      copyOnDevice(out, zero);
    }
    return;
  }
  int opA = 0, opB = 0;
  long long lda = 0, ldb = 0;
  if (!asColumnMajorTranspose(a, &opA, &lda))
    a = relayoutOnDevice(a, tensor::Tensor::contiguousStrides(a.sizes())), asColumnMajorTranspose(a, &opA, &lda);
  if (!asColumnMajorTranspose(bm, &opB, &ldb))
    bm = relayoutOnDevice(bm, tensor::Tensor::contiguousStrides(bm.sizes())), asColumnMajorTranspose(bm, &opB, &ldb);
  const long long sa = n == 3 ? a.strides()[0] : 0, sb = n == 3 ? bm.strides()[0] : 0;
  if (bias) {
    // One kernel, as PyTorch's addmm on CUDA: no copy of the bias, no read of out.
    if (out.dtype() == ir::DType::Float32 && n == 2 &&
        gemmWithBiasEpilogue(reinterpret_cast<const float*>(devicePtr(a)), opA, lda, reinterpret_cast<const float*>(devicePtr(bm)), opB,
                             ldb, reinterpret_cast<float*>(devicePtr(out)), m, k, cols, reinterpret_cast<const float*>(devicePtr(*bias)),
                             static_cast<float>(alpha), gCublasAllowTf32.load()))
      return;
    copyOnDevice(out, *bias);  // beta is 1: the GEMM adds onto it
  }
  Blas& b = blas();
  driver().makeCurrent();
  // C^T (cols x m, ld cols) = B^T (cols x k) * A^T (k x m).
  Status s;
  if (out.dtype() == ir::DType::Float32) {
    // As PyTorch's handle: CUBLAS_TF32_TENSOR_OP_MATH (3) when allowed, else CUBLAS_DEFAULT_MATH (0).
    const int mode = gCublasAllowTf32.load() ? 3 : 0;
    if (b.mathMode != mode) {
      if (b.setMathMode(b.handle, mode) != 0) throw tensor::TorchError("RuntimeError", "CUDA error: cublasSetMathMode failed");
      b.mathMode = mode;
    }
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    s = b.sgemm(b.handle, opB, opA, static_cast<int>(cols), static_cast<int>(m), static_cast<int>(k), &al,
                reinterpret_cast<const float*>(devicePtr(bm)), static_cast<int>(ldb), sb, reinterpret_cast<const float*>(devicePtr(a)),
                static_cast<int>(lda), sa, &be, reinterpret_cast<float*>(devicePtr(out)), static_cast<int>(cols), m * cols,
                static_cast<int>(batch));
  } else {
    s = b.dgemm(b.handle, opB, opA, static_cast<int>(cols), static_cast<int>(m), static_cast<int>(k), &alpha,
                reinterpret_cast<const double*>(devicePtr(bm)), static_cast<int>(ldb), sb, reinterpret_cast<const double*>(devicePtr(a)),
                static_cast<int>(lda), sa, &beta, reinterpret_cast<double*>(devicePtr(out)), static_cast<int>(cols), m * cols,
                static_cast<int>(batch));
  }
  if (s != 0) throw tensor::TorchError("RuntimeError", "CUDA error: cuBLAS GEMM failed with status " + std::to_string(s));
}

double scalar(const std::vector<ops::Val>& a, size_t i, double dflt) { return a.size() > i && a[i].isScalar() ? a[i].number() : dflt; }

tensor::Tensor asMatrix(const tensor::Tensor& v, bool column) {  // a 1-d vector as [1, n] or [n, 1]
  const int64_t n = v.sizes()[0], s = v.strides()[0];
  return column ? v.view({n, 1}, {s, 1}, v.offset()) : v.view({1, n}, {1, s}, v.offset());
}

}  // namespace

void setCublasAllowTf32(bool allow) { gCublasAllowTf32 = allow; }
bool cublasAllowTf32() { return gCublasAllowTf32.load(); }

std::optional<ops::Val> blasOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  static const std::set<std::string> kOps = {"aten.mm.default",      "aten.addmm.default", "aten.bmm.default",
                                             "aten.baddbmm.default", "aten.mv.default",    "aten.dot.default"};
  if (!kOps.count(op.name)) return std::nullopt;
  for (const auto& a : args)
    if (a.kind == ops::Val::Kind::Tensor && (a.t.device() != d || (a.t.dtype() != ir::DType::Float32 && a.t.dtype() != ir::DType::Float64)))
      return std::nullopt;
  const ir::TensorType rt = op.meta(args);  // PyTorch's shape and dtype errors first
  tensor::Shape shape;
  for (const auto& dim : rt.sizes) shape.push_back(dim.value);
  tensor::Tensor out = tensor::Tensor::empty(shape, rt.dtype, d);
  const bool withInput = op.name == "aten.addmm.default" || op.name == "aten.baddbmm.default";
  const size_t first = withInput ? 1 : 0;
  tensor::Tensor a = args.at(first).t, b = args.at(first + 1).t;
  double alpha = 1, beta = 0;
  const tensor::Tensor* bias = nullptr;
  if (withInput) {
    beta = scalar(args, 3, 1.0), alpha = scalar(args, 4, 1.0);
    const tensor::Tensor& in = args.at(0).t;
    if (op.name == "aten.addmm.default" && beta == 1 && rt.dtype == ir::DType::Float32 && in.dtype() == ir::DType::Float32 &&
        in.dim() == 1 && in.sizes()[0] == shape[1] && (in.strides()[0] == 1 || shape[1] == 1))
      bias = &in;                               // a linear layer's: gemm adds it in the epilogue
    else if (beta != 0) copyOnDevice(out, in);  // the bias, broadcast (beta = 0 ignores it, NaNs too)
  }
  if (op.name == "aten.mv.default") {
    tensor::Tensor o2 = out.view({shape[0], 1}, {1, 1}, 0);
    gemm(a, asMatrix(b, true), o2, 1, 0);
  } else if (op.name == "aten.dot.default") {
    tensor::Tensor o2 = out.view({1, 1}, {1, 1}, 0);
    gemm(asMatrix(a, false), asMatrix(b, true), o2, 1, 0);
  } else {
    gemm(a, b, out, alpha, beta, bias);
  }
  return ops::Val::of(out);
}

}  // namespace kiln::runtime::cuda
