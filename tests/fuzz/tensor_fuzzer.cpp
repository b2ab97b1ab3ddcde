// libFuzzer target: the eager tensor runtime and the op table on tensors of any layout. The input
// is decoded (FuzzedDataProvider) into
//   - a few tensors: dtype, shape, strides (contiguous, permuted, with gaps, broadcast 0, negative,
//     or raw fuzz values) and storage offset over a storage of fuzz-chosen size and values, made
//     with tensor::Tensor::view (which checks bounds and throws TorchError for a view outside its
//     storage); some require grad;
//   - a few calls of torch-level functions (torchapi::torchFns(): torch.cos, Tensor.view,
//     F.conv2d, x.add_ ... the functions scripts call, which call the ATen ops of the op table
//     through a Dispatcher), with tensors, ints, floats, bools, None, dtypes, strings and lists
//     as arguments and keyword arguments; results join the tensors; now and then a backward.
// Any TorchError is fine; so is another C++ exception (see run(); KILN_FUZZ_STRICT=1 makes those
// findings too). A crash or a sanitizer report is a finding.
//
// Each ATen op a function calls also runs a second time through the op table (the helper the op
// tests use: EagerDispatcher::call(name, args)) on copies of its tensor arguments laid out
// differently in memory — same sizes and values, other strides and offset, chosen by the input.
// Where both runs succeed the results must agree (sizes, dtype, values; floats within rounding):
// an op's result must not depend on how its inputs are laid out. Set KILN_FUZZ_RELAYOUT=0 to
// skip that second run, KILN_FUZZ_TRACE=1 to print each tensor and call (to write a finding up as
// a script), KILN_FUZZ_LIST=1 to list the functions.
#include "engine/autograd/engine.h"
#include "engine/autograd/grad_mode.h"
#include "engine/ops/op_table.h"
#include "engine/ops/random.h"
#include "engine/tensor/tensor.h"
#include "engine/torch/torch_functions.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace kiln;
using ir::DType;
using ops::Val;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

constexpr uint64_t kMemoryLimit = uint64_t{256} << 20;
constexpr int64_t kMaxStorage = 4096;  // elements of a fuzz-made storage
constexpr size_t kMaxPool = 10;
bool relayoutEnabled = true;

const DType kDTypes[] = {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::Bool, DType::Float16, DType::BFloat16};

double specialValue(FuzzedDataProvider& in) {
  static const double kValues[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   2.0,
                                   0.5,
                                   3.0,
                                   -7.0,
                                   1e30,
                                   -1e30,
                                   1e-40,
                                   65504.0,
                                   1e300,
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN(),
                                   2147483647.0,
                                   -2147483648.0,
                                   9.2233720368547758e18,
                                   -9.2233720368547758e18};
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return in.PickValueInArray(kValues);
    case 1: return in.ConsumeFloatingPoint<double>();
    default: return static_cast<double>(in.ConsumeIntegralInRange<int>(-10, 10));
  }
}

int64_t smallInt(FuzzedDataProvider& in) {
  static const int64_t kEdges[] = {0,
                                   1,
                                   -1,
                                   2,
                                   3,
                                   4,
                                   8,
                                   16,
                                   -2,
                                   -3,
                                   1000,
                                   1 << 20,
                                   int64_t{1} << 31,
                                   int64_t{1} << 32,
                                   int64_t{1} << 62,
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  if (in.ConsumeIntegralInRange(0, 7) == 0) return in.PickValueInArray(kEdges);
  return in.ConsumeIntegralInRange<int64_t>(-3, 8);
}

// Strides for `sizes`: contiguous, permuted, with gaps, broadcast (0), negative, or raw.
Shape makeStrides(FuzzedDataProvider& in, const Shape& sizes) {
  const size_t nd = sizes.size();
  Shape strides(nd, 0);
  int kind = in.ConsumeIntegralInRange(0, 5);
  if (kind == 5) {  // raw: anything, out-of-bounds views included (view() must refuse those)
    for (auto& s : strides) s = smallInt(in);
    return strides;
  }
  std::vector<size_t> order(nd);
  std::iota(order.begin(), order.end(), 0);
  if (kind >= 1)  // a permutation: the memory order of the dims
    for (size_t i = nd; i > 1; --i) std::swap(order[i - 1], order[in.ConsumeIntegralInRange<size_t>(0, i - 1)]);
  int64_t acc = 1;
  for (size_t k = nd; k-- > 0;) {
    size_t d = order[k];
    strides[d] = acc;
    int64_t gap = kind >= 2 ? in.ConsumeIntegralInRange<int64_t>(1, 3) : 1;
    if (__builtin_mul_overflow(acc, std::max<int64_t>(sizes[d], 1), &acc) || __builtin_mul_overflow(acc, gap, &acc))
      acc = int64_t{1} << 62;  // view() refuses what this leads to
  }
  if (kind == 3 && nd)  // broadcast a dim
    strides[in.ConsumeIntegralInRange<size_t>(0, nd - 1)] = 0;
  if (kind == 4 && nd) {  // walk a dim backwards
    int64_t& st = strides[in.ConsumeIntegralInRange<size_t>(0, nd - 1)];
    st = -st;
  }
  return strides;
}

// The lowest and highest element offsets a view reaches (without its storage offset); false on
// overflow or for an empty view.
bool span(const Shape& sizes, const Shape& strides, int64_t* lo, int64_t* hi) {
  *lo = *hi = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 0) return false;
    int64_t reach;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach)) return false;
    if (reach >= 0 ? __builtin_add_overflow(*hi, reach, hi) : __builtin_add_overflow(*lo, reach, lo)) return false;
  }
  return true;
}

// Reads a tensor's elements — all of them when there are few, else the lowest and highest
// addressed (a broadcast view may have 2^40 elements over one): a view that reaches outside its
// storage trips AddressSanitizer here.
constexpr int64_t kMaxTouched = int64_t{1} << 16;
void touch(const Tensor& t) {
  if (!t.defined() || t.numel() == 0) return;
  if (t.numel() <= kMaxTouched) {
    (void)t.toDoubles();
    return;
  }
  int64_t lo = 0, hi = 0;
  if (!span(t.sizes(), t.strides(), &lo, &hi)) return;
  (void)t.loadAt(lo);
  (void)t.loadAt(hi);
}

void fill(FuzzedDataProvider& in, Tensor& base) {
  const int64_t n = base.numel();
  int pattern = in.ConsumeIntegralInRange(0, 2);
  for (int64_t i = 0; i < n; ++i) {
    double v = pattern == 0 ? double(i % 7) - 3.0 : pattern == 1 ? specialValue(in) : double(in.ConsumeIntegral<int8_t>());
    if (base.dtype() == DType::Int64 || base.dtype() == DType::Int32 || base.dtype() == DType::Bool) {
      if (!std::isfinite(v)) v = 0;
      v = std::clamp(v, -2147483648.0, 2147483647.0);
      base.storeIntAt(i, base.dtype() == DType::Bool ? v != 0 : static_cast<int64_t>(v));
    } else {
      base.storeAt(i, v);
    }
  }
}

// A tensor of `sizes` and `dtype` over a fresh storage, laid out as the input says. Throws
// TorchError where the view does not fit its storage.
Tensor makeLayout(FuzzedDataProvider& in, const Shape& sizes, DType dtype, bool fillValues) {
  Shape strides = makeStrides(in, sizes);
  int64_t lo = 0, hi = 0;
  int64_t offset = in.ConsumeIntegralInRange<int64_t>(0, 5);
  int64_t need = 1;
  if (span(sizes, strides, &lo, &hi) &&
      (__builtin_sub_overflow(offset, lo, &offset) || __builtin_add_overflow(offset, hi, &need) || __builtin_add_overflow(need, 1, &need)))
    need = kMaxStorage;  // too far apart for any storage here: view() refuses it
  if (in.ConsumeIntegralInRange(0, 15) == 0) need = in.ConsumeIntegralInRange<int64_t>(0, 64);  // too small, maybe
  if (in.ConsumeIntegralInRange(0, 15) == 0) offset = smallInt(in);
  need = std::clamp<int64_t>(need, 0, kMaxStorage);
  Tensor base = Tensor::empty({need}, dtype);
  if (fillValues) fill(in, base);
  return base.view(sizes, strides, offset);
}

Shape makeSizes(FuzzedDataProvider& in) {
  size_t nd = in.ConsumeIntegralInRange<size_t>(0, 4);
  Shape sizes(nd);
  for (auto& s : sizes) {
    static const int64_t kSizes[] = {1, 2, 3, 4, 5, 0, 7, 8, 16, 1};
    s = in.ConsumeIntegralInRange(0, 31) == 0 ? smallInt(in) : in.PickValueInArray(kSizes);
  }
  return sizes;
}

// An empty tensor with an astronomically long dim or stride ([2^62, 5, 0], [1, 2^63-1, 0], strides
// of 2^62): PyTorch allows it, and so does Kiln, since an empty view reaches no memory. About
// twenty size products, view offsets and row walks computed from them overflowed (a finding,
// fixed: tests/runtime/huge_empty_test.cpp), so they are fuzzed; KILN_FUZZ_HUGE_EMPTY=0 leaves
// them out (to look past a new finding of this kind).
bool hugeEmptyEnabled = true;
bool hugeEmpty(const Tensor& t) {
  int64_t n = 1;
  bool overflow = false, zero = false;
  for (auto s : t.sizes()) {
    if (s == 0) zero = true;
    else overflow |= __builtin_mul_overflow(n, s, &n) || s > (int64_t{1} << 32);
  }
  for (auto s : t.strides()) overflow |= s > (int64_t{1} << 32) || s < -(int64_t{1} << 32);
  return zero && overflow && !hugeEmptyEnabled;
}

// A copy of `t` (same sizes, dtype and values) laid out differently, or `t` itself when no such
// layout fits kMaxStorage.
Tensor relayout(FuzzedDataProvider& in, const Tensor& t) {
  if (t.numel() > kMaxTouched) return t;
  Tensor out;
  try {
    out = makeLayout(in, t.sizes(), t.dtype(), false);
  } catch (const TorchError&) { return t; }
  if (hugeEmpty(out)) return t;  // an open finding the fuzzer steps around (see hugeEmpty)
  // Broadcast (stride 0) and overlapping layouts cannot hold every value of t.
  Shape os = out.strides(), ts = t.strides();
  bool ints = !ir::isFloating(t.dtype());
  std::vector<int64_t> seen;
  tensor::forEachIndex<2>(t.sizes(), {&os, &ts}, [&](const std::array<int64_t, 2>& o) {
    seen.push_back(o[0]);
    if (ints) out.storeIntAt(o[0], t.loadIntAt(o[1]));
    else out.storeAt(o[0], t.loadAt(o[1]));
  });
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) return t;
  return out;
}

bool isRandomOrUninitialized(const std::string& name) {
  for (const char* w : {"rand", "normal", "bernoulli", "dropout", "uniform", "multinomial", "exponential", "empty", "as_strided"})
    if (name.find(w) != std::string::npos) return true;
  return false;
}

bool close(double a, double b, DType d) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  double tol = d == DType::Float64 ? 1e-12 : d == DType::Float32 ? 1e-5 : 1e-2;
  return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

[[noreturn]] void mismatch(const std::string& op, const std::string& what) {
  std::fprintf(stderr, "tensor_fuzzer: %s gives a different result on relaid-out inputs: %s\n", op.c_str(), what.c_str());
  std::abort();
}

void compare(const std::string& op, const Val& a, const Val& b) {
  if (a.kind != b.kind) mismatch(op, "result kinds differ");
  switch (a.kind) {
    case Val::Kind::Tensor: {
      if (a.t.defined() != b.t.defined()) mismatch(op, "one result is undefined");
      if (!a.t.defined()) return;
      if (a.t.sizes() != b.t.sizes()) mismatch(op, "sizes " + tensor::shapeStr(a.t.sizes()) + " vs " + tensor::shapeStr(b.t.sizes()));
      if (a.t.dtype() != b.t.dtype()) mismatch(op, "dtypes differ");
      if (a.t.numel() > kMaxTouched) return;
      std::vector<double> x = a.t.toDoubles(), y = b.t.toDoubles();
      for (size_t i = 0; i < x.size(); ++i)
        if (!close(x[i], y[i], a.t.dtype()))
          mismatch(op, "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]));
      return;
    }
    case Val::Kind::List:
      if (a.list.size() != b.list.size()) mismatch(op, "list lengths differ");
      for (size_t i = 0; i < a.list.size(); ++i) compare(op, a.list[i], b.list[i]);
      return;
    case Val::Kind::Int:
    case Val::Kind::Bool:
    case Val::Kind::Float:
      if (!close(a.number(), b.number(), DType::Float64)) mismatch(op, "scalars differ");
      return;
    default: return;
  }
}

bool sharesStorage(const std::vector<Val>& args) {
  std::vector<const void*> seen;
  for (const auto& a : args) {
    std::vector<const Val*> ts;
    if (a.kind == Val::Kind::Tensor) ts.push_back(&a);
    if (a.kind == Val::Kind::List)
      for (const auto& x : a.list)
        if (x.kind == Val::Kind::Tensor) ts.push_back(&x);
    for (const Val* t : ts) {
      if (!t->t.defined()) continue;
      const void* s = t->t.storage().get();
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) return true;
      seen.push_back(s);
    }
  }
  return false;
}

// Runs every op eagerly; each top-level op (not the ops inside a decomposition) is run again on
// relaid-out copies of its tensor arguments and the two results compared.
class RelayoutDispatcher : public ops::EagerDispatcher {
 public:
  explicit RelayoutDispatcher(FuzzedDataProvider& in) : in_(in) {}
  using Dispatcher::call;
  Val call(const ops::OpDef& op, const std::vector<Val>& args) override {
    if (!relayoutEnabled || depth_ > 0 || isRandomOrUninitialized(op.name) || sharesStorage(args) || in_.ConsumeIntegralInRange(0, 3) == 0)
      return forward(op, args);
    // The copies are made before the op runs: an in-place op changes its first argument.
    std::vector<Val> copies = args;
    bool any = false;
    for (auto& a : copies) {
      if (a.kind == Val::Kind::Tensor && a.t.defined()) {
        a.t = relayout(in_, a.t.detach());
        any = true;
      } else if (a.kind == Val::Kind::List) {
        for (auto& x : a.list)
          if (x.kind == Val::Kind::Tensor && x.t.defined()) {
            x.t = relayout(in_, x.t.detach());
            any = true;
          }
      }
    }
    Val r = forward(op, args);
    if (!any) return r;
    Val r2;
    try {
      autograd::GradModeGuard noGrad(false);
      r2 = forward(op, copies);
    } catch (const std::exception&) {
      return r;  // e.g. view() of a layout it cannot view: an error where the original had none
    }
    compare(op.name, r, r2);
    return r;
  }

 private:
  Val forward(const ops::OpDef& op, const std::vector<Val>& args) {
    ++depth_;
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    return EagerDispatcher::call(op, args);
  }
  FuzzedDataProvider& in_;
  int depth_ = 0;
};

const char* const kKwargNames[] = {"dim",
                                   "keepdim",
                                   "dtype",
                                   "alpha",
                                   "value",
                                   "p",
                                   "eps",
                                   "weight",
                                   "bias",
                                   "reduction",
                                   "min",
                                   "max",
                                   "size",
                                   "mode",
                                   "padding",
                                   "stride",
                                   "groups",
                                   "correction",
                                   "unbiased",
                                   "descending",
                                   "k",
                                   "largest",
                                   "sorted",
                                   "num_classes",
                                   "beta",
                                   "approximate",
                                   "negative_slope",
                                   "diagonal",
                                   "offset",
                                   "dim0",
                                   "dim1",
                                   "dim2",
                                   "start_dim",
                                   "end_dim",
                                   "index",
                                   "src",
                                   "mask",
                                   "other",
                                   "exponent",
                                   "input",
                                   "decimals",
                                   "rounding_mode",
                                   "training",
                                   "momentum",
                                   "running_mean",
                                   "running_var",
                                   "normalized_shape",
                                   "is_causal",
                                   "scale",
                                   "dropout_p",
                                   "attn_mask",
                                   "equal_nan",
                                   "atol",
                                   "rtol",
                                   "chunks",
                                   "dims",
                                   "shifts",
                                   "repeats",
                                   "pad",
                                   "ignore_index",
                                   "label_smoothing",
                                   "target",
                                   "out",
                                   "end",
                                   "start",
                                   "step",
                                   "fill_value",
                                   "kernel_size",
                                   "dilation",
                                   "ceil_mode",
                                   "count_include_pad",
                                   "output_size",
                                   "scale_factor",
                                   "align_corners",
                                   "split_size",
                                   "sections",
                                   "tensors",
                                   "upper",
                                   "lower",
                                   "diagonal",
                                   "threshold",
                                   "lambd",
                                   "inplace",
                                   "memory_format",
                                   "storage_offset"};
const char* const kStrings[] = {"mean", "sum",     "none",     "constant", "reflect", "replicate", "circular",
                                "tanh", "nearest", "bilinear", "floor",    "trunc",   "",          "x"};

// KILN_FUZZ_TRACE=1: each tensor made and each call, to stderr (to turn a finding into a script).
bool trace = false;
bool strict = false;

std::string describe(const Val& v) {
  switch (v.kind) {
    case Val::Kind::Tensor:
      if (!v.t.defined()) return "<undefined tensor>";
      return std::string(ir::shortName(v.t.dtype())) + tensor::shapeStr(v.t.sizes()) + " strides " + tensor::shapeStr(v.t.strides()) +
             " offset " + std::to_string(v.t.offset()) + (v.t.requiresGrad() ? " requires_grad" : "");
    case Val::Kind::Int: return std::to_string(v.i);
    case Val::Kind::Float: return std::to_string(v.f);
    case Val::Kind::Bool: return v.b ? "True" : "False";
    case Val::Kind::None: return "None";
    case Val::Kind::DType: return std::string(ir::torchName(v.dtype));
    case Val::Kind::String: return "'" + v.s + "'";
    case Val::Kind::List: {
      std::string out = "[";
      for (size_t i = 0; i < v.list.size(); ++i) out += (i ? ", " : "") + describe(v.list[i]);
      return out + "]";
    }
    default: return "?";
  }
}

constexpr int64_t kMaxCallNumel = int64_t{1} << 22;

// Many elements, or one dim so long that walking it takes ages even when the tensor is empty
// (unbind of a [2^62, 0] tensor makes 2^62 tensors, as PyTorch's would; of [2^20, 0], a
// minute's worth under the sanitizers).
bool huge(const Tensor& t) {
  if (t.numel() > kMaxCallNumel) return true;
  for (auto s : t.sizes())
    if (s > (int64_t{1} << 16)) return true;
  return false;
}

// A contraction (matmul, linear, conv, einsum ...) of two large operands: its work is about the
// product of their sizes — two i32[1000, 1000] through linear are 10^9 multiply-adds, a minute
// under the sanitizers (a fuzzer timeout, not a bug: PyTorch's is as slow without BLAS). The
// target skips such calls so that one input stays within libFuzzer's time limit.
bool tooMuchWork(const torchapi::TorchFn& fn, const torchapi::TArgs& a) {
  static const char* kContractions[] = {"mm",    "matmul",   "linear", "einsum", "conv",    "tensordot", "inner", "kron",
                                        "cdist", "bilinear", "dot",    "mv",     "baddbmm", "addbmm",    "addmv", "addr"};
  bool contraction = false;
  for (const char* c : kContractions) contraction = contraction || fn.target.find(c) != std::string::npos;
  if (!contraction) return false;
  int64_t largest = 0, second = 0;
  auto see = [&](const Val& v) {
    if (v.kind != Val::Kind::Tensor || !v.t.defined()) return;
    const int64_t n = v.t.numel();
    if (n > largest) second = std::exchange(largest, n);
    else if (n > second) second = n;
  };
  for (const auto& v : a.args) see(v);
  for (const auto& [k, v] : a.kwargs) see(v);
  return largest > 0 && second > 0 && largest > (int64_t{1} << 24) / second;
}

bool anyHuge(const std::vector<Tensor>& pool) {
  for (const auto& t : pool)
    if (huge(t)) return true;
  return false;
}

// Functions that make a view or read metadata: cheap whatever the element count.
bool hugeOk(const torchapi::TorchFn& fn) {
  std::string n = fn.target;
  if (n.rfind("torch.", 0) == 0) n = n.substr(6);
  for (const char* v :
       {"view",   "expand",     "expand_as",     "permute",        "transpose",         "t",        "unsqueeze", "squeeze",       "narrow",
        "select", "as_strided", "diagonal",      "unfold",         "movedim",           "swapaxes", "swapdims",  "size",          "stride",
        "dim",    "numel",      "is_contiguous", "storage_offset", "_operator.getitem", "alias",    "detach",    "requires_grad_"})
    if (n == v) return true;
  return false;
}

struct State {
  FuzzedDataProvider& in;
  std::vector<Tensor> pool;
};

Val makeArg(State& s, int depth);

Val tensorArg(State& s) {
  if (s.pool.empty()) return Val::of(Tensor::scalar(1.0, DType::Float32));
  return Val::of(s.pool[s.in.ConsumeIntegralInRange<size_t>(0, s.pool.size() - 1)]);
}

Val makeArg(State& s, int depth) {
  switch (s.in.ConsumeIntegralInRange(0, 11)) {
    case 0:
    case 1:
    case 2:
    case 3: return tensorArg(s);
    case 4:
    case 5: return Val::integer(smallInt(s.in));
    case 6: return Val::real(specialValue(s.in));
    case 7: return Val::boolean(s.in.ConsumeBool());
    case 8: return s.in.ConsumeBool() ? Val::none() : Val::dtypeVal(s.in.PickValueInArray(kDTypes));
    case 9: return Val::string(s.in.PickValueInArray(kStrings));
    default: {
      std::vector<Val> items;
      size_t n = s.in.ConsumeIntegralInRange<size_t>(0, 4);
      bool tensors = s.in.ConsumeIntegralInRange(0, 3) == 0;
      for (size_t i = 0; i < n; ++i)
        items.push_back(depth > 0                           ? Val::integer(smallInt(s.in))
                        : tensors                           ? tensorArg(s)
                        : s.in.ConsumeIntegralInRange(0, 5) ? Val::integer(smallInt(s.in))
                                                            : makeArg(s, depth + 1));
      return Val::listOf(std::move(items));
    }
  }
}

void keep(State& s, const Val& v) {
  if (v.kind == Val::Kind::Tensor && v.t.defined() && !hugeEmpty(v.t)) {
    touch(v.t);
    if (s.pool.size() < kMaxPool) s.pool.push_back(v.t);
    else s.pool[s.in.ConsumeIntegralInRange<size_t>(0, kMaxPool - 1)] = v.t;
  } else if (v.kind == Val::Kind::List) {
    for (const auto& x : v.list) keep(s, x);
  }
}

void run(FuzzedDataProvider& in) {
  State s{in, {}};
  const auto& fns = torchapi::torchFns();
  size_t tensors = in.ConsumeIntegralInRange<size_t>(1, 4);
  for (size_t i = 0; i < tensors; ++i) {
    DType d = in.ConsumeIntegralInRange(0, 2) == 0 ? in.PickValueInArray(kDTypes) : DType::Float32;
    try {
      Tensor t = makeLayout(in, makeSizes(in), d, true);
      if (hugeEmpty(t)) continue;
      if (ir::isFloating(d) && in.ConsumeIntegralInRange(0, 3) == 0) t.setRequiresGrad(true);
      touch(t);
      if (trace) std::fprintf(stderr, "tensor %zu: %s\n", s.pool.size(), describe(Val::of(t)).c_str());
      s.pool.push_back(t);
    } catch (const TorchError&) {}
  }
  RelayoutDispatcher dispatcher(in);
  size_t calls = in.ConsumeIntegralInRange<size_t>(1, 6);
  for (size_t c = 0; c < calls && in.remaining_bytes() > 0; ++c) {
    if (in.ConsumeIntegralInRange(0, 15) == 0) {  // backward from some result
      if (s.pool.empty()) continue;
      Tensor root = s.pool[in.ConsumeIntegralInRange<size_t>(0, s.pool.size() - 1)];
      if (trace) std::fprintf(stderr, "backward from %s\n", describe(Val::of(root)).c_str());
      try {
        if (root.requiresGrad()) autograd::backward({root}, {}, false, false);
      } catch (const TorchError&) {}
      continue;
    }
    const torchapi::TorchFn& fn = fns[in.ConsumeIntegralInRange<size_t>(0, fns.size() - 1)];
    if (!hugeOk(fn) && anyHuge(s.pool)) {
      // A broadcast view can have 2^62 elements over one; an op that walks them runs for ages
      // (and reductions first build a vector of every offset: an open finding, README). Only
      // functions that make views or read metadata get such tensors; the others drop them.
      s.pool.erase(std::remove_if(s.pool.begin(), s.pool.end(), huge), s.pool.end());
    }
    torchapi::TArgs a;
    if (fn.target.rfind("_operator.", 0) == 0) {
      // Python operators (x + y, -x, x[i]): the interpreter calls these with one operand (neg,
      // invert) or two, at least one a tensor, and no keywords.
      bool unary = fn.target == "_operator.neg" || fn.target == "_operator.invert";
      a.args.push_back(tensorArg(s));
      if (!unary) {
        a.args.push_back(makeArg(s, 0));
        if (in.ConsumeBool()) std::swap(a.args[0], a.args[1]);
      }
    } else {
      // torch.f(...) and Tensor methods take whatever a script passes (a method its tensor first).
      size_t nargs = in.ConsumeIntegralInRange<size_t>(0, 4);
      if (fn.kind == ir::NodeKind::CallMethod || in.ConsumeBool()) a.args.push_back(tensorArg(s));
      for (size_t i = 0; i < nargs; ++i) a.args.push_back(makeArg(s, 0));
      size_t nkw = in.ConsumeIntegralInRange<size_t>(0, 2);
      for (size_t i = 0; i < nkw; ++i) a.kwargs.emplace_back(in.PickValueInArray(kKwargNames), makeArg(s, 0));
    }
    if (tooMuchWork(fn, a)) continue;
    if (trace) {
      std::string line = (fn.kind == ir::NodeKind::CallMethod ? "Tensor." : "") + fn.target + "(";
      for (size_t i = 0; i < a.args.size(); ++i) line += (i ? ", " : "") + describe(a.args[i]);
      for (const auto& [k, v] : a.kwargs) line += ", " + k + "=" + describe(v);
      std::fprintf(stderr, "call %s)\n", line.c_str());
    }
    try {
      Val r = fn.impl(dispatcher, a);
      if (trace) std::fprintf(stderr, "  -> %s\n", describe(r).c_str());
      keep(s, r);
    } catch (const TorchError& e) {
      if (trace) std::fprintf(stderr, "  -> %s: %s\n", e.type().c_str(), e.what());
    } catch (const std::exception& e) {
      // Another exception (std::out_of_range from args.at(i) ...): the target calls functions
      // with argument lists scripts cannot always make (torch.arange() is checked by the
      // interpreter's own torch.arange before the function runs), so these are not findings
      // unless KILN_FUZZ_STRICT=1; the interpreter target counts them.
      if (trace) std::fprintf(stderr, "  -> C++ exception: %s\n", e.what());
      if (strict) {
        std::fprintf(stderr, "tensor_fuzzer: %s threw a C++ exception that is not a TorchError: %s\n", fn.target.c_str(), e.what());
        std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tensor::setMemoryLimit(kMemoryLimit);
  if (const char* e = std::getenv("KILN_FUZZ_RELAYOUT")) relayoutEnabled = std::string(e) != "0";
  trace = std::getenv("KILN_FUZZ_TRACE") != nullptr;
  strict = std::getenv("KILN_FUZZ_STRICT") != nullptr;
  if (const char* e = std::getenv("KILN_FUZZ_HUGE_EMPTY")) hugeEmptyEnabled = std::string(e) != "0";
  if (std::getenv("KILN_FUZZ_LIST")) {  // the functions the target calls
    for (const auto& f : torchapi::torchFns()) std::printf("%s%s\n", f.kind == ir::NodeKind::CallMethod ? "Tensor." : "", f.target.c_str());
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchapi::defaultGenerator() = torchapi::Generator{};
  autograd::setGradEnabled(true);
  tensor::setInferenceModeEnabled(false);
  FuzzedDataProvider in(data, size);
  run(in);
  return 0;
}
