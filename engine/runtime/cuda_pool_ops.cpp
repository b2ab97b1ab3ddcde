// The pooling ops of cuda_pool_ops.h: each op's CPU meta checks the arguments and gives the
// output's sizes, the input is laid out contiguously on the device (a strided or channels-last
// view is copied by the generated copy kernel), and one kernel of cuda_pool_source.h runs a
// thread per output point (forward) or per input point (backward, so no two threads add into
// one element and the order of the adds is the CPU loop's). Nothing is computed on the CPU.
#include "engine/runtime/cuda_pool_ops.h"

#include "engine/codegen/cuda/cuda_pool_source.h"
#include "engine/ops/shape_util.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <string>
#include <utility>

namespace kiln::runtime::cuda {

namespace {

using ops::Val;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace cg = codegen::cuda;

// Window geometry as the kernels take it (every scalar parameter is a long long).
struct Window {
  long long H = 0, W = 0, OH = 0, OW = 0, kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// An int-or-pair argument (kernel_size, stride, padding, dilation); `dflt` when absent or [].
std::pair<long long, long long> pairArg(const std::vector<Val>& a, size_t i, std::pair<long long, long long> dflt) {
  if (a.size() <= i || a[i].isNone()) return dflt;
  const Shape v = a[i].ints();
  if (v.empty()) return dflt;
  return v.size() == 1 ? std::pair<long long, long long>{v[0], v[0]} : std::pair<long long, long long>{v[0], v[1]};
}

// kernel_size, stride (default: the kernel), padding and, for max pooling, dilation, read from
// args[first], args[first + 1] ...; the planes' sizes from the input and the output.
Window windowOf(const std::vector<Val>& a, size_t first, bool dilation, const Shape& in, const Shape& out) {
  Window g;
  std::tie(g.kh, g.kw) = pairArg(a, first, {1, 1});
  std::tie(g.sh, g.sw) = pairArg(a, first + 1, {g.kh, g.kw});
  std::tie(g.ph, g.pw) = pairArg(a, first + 2, {0, 0});
  if (dilation) std::tie(g.dh, g.dw) = pairArg(a, first + 3, {1, 1});
  g.H = in[in.size() - 2], g.W = in[in.size() - 1], g.OH = out[out.size() - 2], g.OW = out[out.size() - 1];
  return g;
}

// The op's result sizes from its CPU meta (which checks the arguments as the CPU op does).
Shape metaSizes(const ir::TensorType& ty) { return ops::sizesOf(Val::sym(ty)); }

Tensor dense(const Tensor& t) { return t.isContiguous() ? t : relayoutOnDevice(t, Tensor::contiguousStrides(t.sizes())); }

void launch(const std::string& symbol, long long total, std::vector<void*> params) {
  if (total <= 0) return;
  void* fn = deviceFunction(cg::cudaPoolKernelsSource(), "kiln_pool", symbol);
  constexpr long long kBlock = 256;
  // Grid-stride loops: a grid of at most 2^20 blocks covers any size.
  const auto grid = static_cast<unsigned>(std::min<long long>((total + kBlock - 1) / kBlock, 1LL << 20));
  driver().launch(fn, grid, static_cast<unsigned>(kBlock), params.data());
}

[[noreturn]] void notImplemented(const char* op, ir::DType dt) {
  throw TorchError("RuntimeError", std::string("\"") + op + "\" not implemented for '" + ir::scalarTypeName(dt) + "'");
}

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode) and its _with_indices form.
Val maxPool(const ops::OpDef& op, const std::vector<Val>& a, bool withIndices) {
  const Shape outSizes = metaSizes(withIndices ? op.metaMulti(a).at(0) : op.meta(a));
  const Tensor& x0 = a.at(0).t;
  const std::string sfx = cg::cudaPoolSuffix(x0.dtype(), "max");
  if (sfx.empty()) notImplemented("max_pool2d", x0.dtype());
  Tensor y = Tensor::empty(outSizes, x0.dtype(), x0.device());
  Tensor ind = withIndices ? Tensor::empty(outSizes, ir::DType::Int64, x0.device()) : Tensor();
  long long total = y.numel();
  if (total > 0) {
    const Tensor x = dense(x0);
    Window g = windowOf(a, 1, true, x.sizes(), outSizes);
    unsigned long long px = devicePtr(x), py = devicePtr(y), pi = withIndices ? devicePtr(ind) : 0ULL;
    launch("kiln_max_pool2d_" + sfx, total,
           {&px, &py, &pi, &total, &g.H, &g.W, &g.OH, &g.OW, &g.kh, &g.kw, &g.sh, &g.sw, &g.ph, &g.pw, &g.dh, &g.dw});
  }
  if (!withIndices) return Val::of(y);
  return Val::listOf({Val::of(y), Val::of(ind)});
}

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override).
Val avgPool(const ops::OpDef& op, const std::vector<Val>& a) {
  const Shape outSizes = metaSizes(op.meta(a));
  const Tensor& x0 = a.at(0).t;
  const std::string sfx = cg::cudaPoolSuffix(x0.dtype(), "avg");
  // PyTorch's CUDA kernel dispatches floating types only (its CPU one also takes int64).
  if (sfx.empty()) notImplemented("avg_pool2d_out_cuda_frame", x0.dtype());
  long long includePad = a.size() > 5 && a[5].kind == Val::Kind::Bool ? a[5].b : 1;
  long long divisor = a.size() > 6 && !a[6].isNone() ? a[6].i : 0;
  if (a.size() > 6 && !a[6].isNone() && divisor == 0) throw TorchError("RuntimeError", "divisor must be not zero");
  Tensor y = Tensor::empty(outSizes, x0.dtype(), x0.device());
  long long total = y.numel();
  if (total > 0) {
    const Tensor x = dense(x0);
    Window g = windowOf(a, 1, false, x.sizes(), outSizes);
    unsigned long long px = devicePtr(x), py = devicePtr(y);
    launch("kiln_avg_pool2d_" + sfx, total,
           {&px, &py, &total, &g.H, &g.W, &g.OH, &g.OW, &g.kh, &g.kw, &g.sh, &g.sw, &g.ph, &g.pw, &includePad, &divisor});
  }
  return Val::of(y);
}

// A backward op's (grad, self, ...) buffers: self's gradient (one kernel thread per element
// writes all of it) and the contiguous grad; nullopt where the kernels do not take the dtype.
// `done` when there is nothing to launch (an empty gradient, or zeros for an empty grad).
struct Backward {
  Tensor out, g;
  std::string suffix;
  bool done = false;
};

std::optional<Backward> backwardBuffers(const std::vector<Val>& a) {
  const Tensor& x = a.at(1).t;
  const Tensor& g = a.at(0).t;
  Backward b;
  b.suffix = cg::cudaPoolSuffix(x.dtype(), "backward");
  if (b.suffix.empty() || g.dtype() != x.dtype() || x.dim() < 2 || g.dim() != x.dim()) return std::nullopt;
  b.out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  if (b.out.numel() == 0) b.done = true;
  else if (g.numel() == 0) fillOnDevice(b.out, 0.0), b.done = true;
  else b.g = dense(g);
  return b;
}

// avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override).
std::optional<Val> avgPoolBackward(const std::vector<Val>& a) {
  std::optional<Backward> b = backwardBuffers(a);
  if (!b || b->done) return b ? std::optional<Val>(Val::of(b->out)) : std::nullopt;
  long long includePad = a.size() > 6 && a[6].kind == Val::Kind::Bool ? a[6].b : 1;
  long long divisor = a.size() > 7 && !a[7].isNone() ? a[7].i : 0;
  long long total = b->out.numel();
  Window w = windowOf(a, 2, false, b->out.sizes(), b->g.sizes());
  unsigned long long pg = devicePtr(b->g), po = devicePtr(b->out);
  launch("kiln_avg_pool2d_backward_" + b->suffix, total,
         {&pg, &po, &total, &w.H, &w.W, &w.OH, &w.OW, &w.kh, &w.kw, &w.sh, &w.sw, &w.ph, &w.pw, &includePad, &divisor});
  return Val::of(b->out);
}

// _adaptive_avg_pool2d(self, output_size).
Val adaptivePool(const ops::OpDef& op, const std::vector<Val>& a) {
  const Shape outSizes = metaSizes(op.meta(a));
  const Tensor& x0 = a.at(0).t;
  const std::string sfx = cg::cudaPoolSuffix(x0.dtype(), "adaptive");
  // The CPU kernel's requireFloat message.
  if (sfx.empty()) notImplemented("adaptive_avg_pool2d", x0.dtype());
  Tensor y = Tensor::empty(outSizes, x0.dtype(), x0.device());
  long long total = y.numel();
  if (total > 0) {
    const Tensor x = dense(x0);
    Window g = windowOf(a, 2, false, x.sizes(), outSizes);  // sizes only: there is no argument at 2
    unsigned long long px = devicePtr(x), py = devicePtr(y);
    launch("kiln_adaptive_avg_pool2d_" + sfx, total, {&px, &py, &total, &g.H, &g.W, &g.OH, &g.OW});
  }
  return Val::of(y);
}

// _adaptive_avg_pool2d_backward(grad, self).
std::optional<Val> adaptivePoolBackward(const std::vector<Val>& a) {
  std::optional<Backward> b = backwardBuffers(a);
  if (!b || b->done) return b ? std::optional<Val>(Val::of(b->out)) : std::nullopt;
  long long total = b->out.numel();
  Window w = windowOf(a, 2, false, b->out.sizes(), b->g.sizes());
  unsigned long long pg = devicePtr(b->g), po = devicePtr(b->out);
  launch("kiln_adaptive_avg_pool2d_backward_" + b->suffix, total, {&pg, &po, &total, &w.H, &w.W, &w.OH, &w.OW});
  return Val::of(b->out);
}

}  // namespace

std::optional<Val> poolOnDevice(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& device) {
  if (device.isCpu() || args.empty() || args[0].kind != Val::Kind::Tensor) return std::nullopt;
  const std::string& n = op.name;
  if (n == "aten.max_pool2d.default") return maxPool(op, args, false);
  if (n == "aten.max_pool2d_with_indices.default") return maxPool(op, args, true);
  if (n == "kiln.max_pool2d_indices.default") return maxPool(ops::op("aten.max_pool2d_with_indices.default"), args, true).list.at(1);
  if (n == "aten.avg_pool2d.default") return avgPool(op, args);
  if (n == "aten._adaptive_avg_pool2d.default") return adaptivePool(op, args);
  if (args.size() < 2 || args[1].kind != Val::Kind::Tensor) return std::nullopt;
  if (n == "aten.avg_pool2d_backward.default") return avgPoolBackward(args);
  if (n == "aten._adaptive_avg_pool2d_backward.default") return adaptivePoolBackward(args);
  return std::nullopt;
}

}  // namespace kiln::runtime::cuda
