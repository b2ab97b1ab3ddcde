// Reductions: sum/mean/prod, amax/amin/max/min (+ indices), argmax/argmin, var/std/var_mean,
// logsumexp, vector norms, any/all. Floating sums accumulate in double so results agree with
// PyTorch's float32 results to well under 1e-6 relative. Code generation for these comes with
// the reduction scheduler; until then they run as extern calls to these eager kernels.
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"
#include "engine/tensor/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace kiln::ops {

using tensor::forEachIndex;
using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

std::vector<int64_t> reductionDims(const Val& dims, int64_t nd) {
  std::vector<int64_t> out;
  std::vector<int64_t> given = dims.isNone() ? std::vector<int64_t>{} : dims.ints();
  if (given.empty()) {
    for (int64_t i = 0; i < nd; ++i) out.push_back(i);
    return out;
  }
  for (int64_t d : given) {
    int64_t w = wrapDim(d, nd);
    if (nd == 0) continue;  // dim 0 / -1 of a 0-dim tensor reduces nothing
    if (std::find(out.begin(), out.end(), w) != out.end())
      throw TorchError("RuntimeError", "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    out.push_back(w);
  }
  return out;
}

ir::TensorType reducedType(const ir::TensorType& in, const std::vector<int64_t>& dims, bool keep, ir::DType dt) {
  ir::TensorType t;
  t.dtype = dt;
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    bool red = std::find(dims.begin(), dims.end(), int64_t(i)) != dims.end();
    if (!red) t.sizes.push_back(in.sizes[i]);
    else if (keep) t.sizes.emplace_back(1);
  }
  return t;
}

ir::TensorType contiguousType(const Shape& sizes, ir::DType dt) {
  ir::TensorType t;
  t.dtype = dt;
  for (auto s : sizes) t.sizes.emplace_back(s);
  return t;
}

ir::TensorType plainType(const Val& x) {
  ir::TensorType t = x.tensorType();
  t.strides.clear();
  t.requiresGrad = false;
  return t;
}

namespace {

// Where every output element's inputs live: one base offset per output element (row-major over
// the kept dims) and the offsets of the reduced elements relative to it.
struct Plan {
  Shape outSizes;
  std::vector<int64_t> outer, inner;
};

Plan plan(const Tensor& x, const std::vector<int64_t>& dims, bool keep) {
  Plan p;
  Shape keptSizes, keptStrides, redSizes, redStrides;
  for (int64_t i = 0; i < x.dim(); ++i) {
    bool red = std::find(dims.begin(), dims.end(), i) != dims.end();
    if (red) {
      redSizes.push_back(x.sizes()[i]);
      redStrides.push_back(x.strides()[i]);
      if (keep) p.outSizes.push_back(1);
    } else {
      keptSizes.push_back(x.sizes()[i]);
      keptStrides.push_back(x.strides()[i]);
      p.outSizes.push_back(x.sizes()[i]);
    }
  }
  // The plan lists one offset per element: a reduction over a huge broadcast view (which has no
  // storage of its size) must fail at once as an allocation would, not exhaust the machine.
  if (x.numel() == 0) {
    // Nothing is read (a reduced dim is 0, or there is no output). An empty x's dims may be huge:
    // the reduced ones may multiply past int64 (no count is needed), the kept ones are the
    // output's, refused as its allocation would be; their strides are never walked.
    int64_t outer = 0;
    try {
      outer = tensor::checkedNumel(keptSizes);
    } catch (const TorchError&) {
      throw TorchError("RuntimeError", "Storage size calculation overflowed with sizes=" + tensor::shapeStr(p.outSizes));
    }
    checkOffsetsFit(outer);
    p.outer.assign(static_cast<size_t>(outer), 0);
    return p;
  }
  const int64_t outer = tensor::checkedNumel(keptSizes), inner = tensor::checkedNumel(redSizes);
  checkOffsetsFit(outer);
  checkOffsetsFit(inner);
  p.outer.reserve(static_cast<size_t>(outer));
  p.inner.reserve(static_cast<size_t>(inner));
  forEachIndex<1>(keptSizes, {&keptStrides}, [&](const std::array<int64_t, 1>& o) { p.outer.push_back(o[0]); });
  forEachIndex<1>(redSizes, {&redStrides}, [&](const std::array<int64_t, 1>& o) { p.inner.push_back(o[0]); });
  return p;
}

// Calls f.template operator()<T>(const T* data) with the tensor's element type.
template <typename F>
auto dispatch(const Tensor& x, F&& f) {
  switch (x.dtype()) {
    case ir::DType::Float32: return f(x.ptr<float>());
    case ir::DType::Float64: return f(x.ptr<double>());
    case ir::DType::Int64: return f(x.ptr<int64_t>());
    case ir::DType::Int32: return f(x.ptr<int32_t>());
    case ir::DType::Bool: return f(x.ptr<uint8_t>());
    default: break;
  }
  throw TorchError("RuntimeError", "dtype " + std::string(ir::torchName(x.dtype())) + " is not supported by Kiln's eager kernels yet");
}

enum class Red { Sum, Prod, Max, Min, ArgMax, ArgMin, Any, All, LogSumExp };

const char* redName(Red r) {
  switch (r) {
    case Red::Max: return "max";
    case Red::Min: return "min";
    case Red::ArgMax: return "argmax";
    case Red::ArgMin: return "argmin";
    default: return "reduction";
  }
}

// What a reduction reads: 16-bit floats widened to float32 (the type PyTorch accumulates them
// in), 8- and 16-bit integers to int64 (exact); the result keeps its own dtype.
Tensor reductionInput(const Tensor& x) {
  if (ir::isReducedFloat(x.dtype())) return x.to(ir::DType::Float32);
  if (x.dtype() == ir::DType::Int16 || x.dtype() == ir::DType::Int8 || x.dtype() == ir::DType::UInt8) return x.to(ir::DType::Int64);
  return x;
}

// The sum of every element of a contiguous floating x (out.sum(), a loss): partial sums in double
// over ranges split across the thread pool (tensor/parallel.h), added in range order. The
// general path below lists one offset per element, 8 GB for seed 004_02's 2^30 floats.
Tensor sumAll(const Tensor& x, const std::vector<int64_t>& dims, bool keep, ir::DType outType) {
  Shape outSizes;
  if (keep) outSizes.assign(static_cast<size_t>(x.dim()), 1);
  (void)dims;
  std::mutex mu;
  std::vector<std::pair<int64_t, double>> partial;
  dispatch(x, [&](const auto* data) {
    tensor::parallelRanges(x.numel(), [&](int64_t b, int64_t e) {
      double acc = 0.0;
      for (int64_t i = b; i < e; ++i) acc += double(data[i]);
      std::lock_guard<std::mutex> l(mu);
      partial.emplace_back(b, acc);
    });
    return 0;
  });
  std::sort(partial.begin(), partial.end());
  double total = 0.0;
  for (const auto& [b, v] : partial) total += v;
  Tensor out = Tensor::empty(outSizes, outType);
  out.storeAt(0, total);
  return out;
}

// One reduction of x (already in its compute dtype) over dims; integer sums/products stay exact.
Tensor reduce(const Tensor& x0, const std::vector<int64_t>& dims, bool keep, Red r, ir::DType outType, const char* opName) {
  const Tensor x = reductionInput(x0);
  const bool needsElements = r == Red::Max || r == Red::Min || r == Red::ArgMax || r == Red::ArgMin;
  // max/argmax of an empty x over a 0 dim is PyTorch's IndexError before any allocation: the kept
  // dims may be huge ([2^40, 0].argmax(1) is that error, not an out-of-memory one).
  bool keptEmpty = false;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (x.sizes()[i] == 0 && std::find(dims.begin(), dims.end(), i) == dims.end()) keptEmpty = true;
  if (needsElements && x.numel() == 0 && !keptEmpty) {
    for (auto d : dims)
      if (x.sizes()[d] == 0)
        throw TorchError("IndexError", std::string(opName) + "(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
  }
  if (r == Red::Sum && ir::isFloating(x.dtype()) && ir::isFloating(outType) && x.isContiguous() && x.numel() > 0 &&
      static_cast<int64_t>(dims.size()) == x.dim())
    return sumAll(x, dims, keep, outType);
  Plan p = plan(x, dims, keep);
  if (needsElements && p.inner.empty() && !p.outer.empty()) {
    for (auto d : dims)
      if (x.sizes()[d] == 0)
        throw TorchError("IndexError", std::string(opName) + "(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
    throw TorchError("RuntimeError", std::string(opName) + "(): Expected reduction dim to be specified for input.numel() == 0.");
  }
  Tensor out = Tensor::empty(p.outSizes, outType);
  const int64_t n = static_cast<int64_t>(p.outer.size());
  const bool intOut = !ir::isFloating(outType);
  dispatch(x, [&](const auto* data) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(data)>>;
    constexpr bool isInt = !std::is_floating_point_v<T>;
    for (int64_t o = 0; o < n; ++o) {
      const T* base = data + p.outer[o];
      switch (r) {
        case Red::Sum:
        case Red::Prod: {
          if (isInt && intOut) {
            int64_t acc = r == Red::Sum ? 0 : 1;
            for (int64_t off : p.inner) acc = r == Red::Sum ? wrapAdd(acc, int64_t(base[off])) : wrapMul(acc, int64_t(base[off]));
            out.storeIntAt(o, acc);
          } else {
            double acc = r == Red::Sum ? 0.0 : 1.0;
            for (int64_t off : p.inner) acc = r == Red::Sum ? acc + double(base[off]) : acc * double(base[off]);
            out.storeAt(o, acc);
          }
          break;
        }
        case Red::Max:
        case Red::Min:
        case Red::ArgMax:
        case Red::ArgMin: {
          const bool isMax = r == Red::Max || r == Red::ArgMax;
          T best = base[p.inner[0]];
          int64_t bestAt = 0;
          bool nan = false;
          if constexpr (!isInt) nan = std::isnan(best);
          for (size_t k = 1; k < p.inner.size() && !nan; ++k) {
            T v = base[p.inner[k]];
            if constexpr (!isInt)
              if (std::isnan(v)) {
                best = v;
                bestAt = int64_t(k);
                nan = true;
                break;
              }
            if (isMax ? v > best : v < best) {
              best = v;
              bestAt = int64_t(k);
            }
          }
          if (r == Red::ArgMax || r == Red::ArgMin) out.storeIntAt(o, bestAt);
          else if (intOut) out.storeIntAt(o, int64_t(best));
          else out.storeAt(o, double(best));
          break;
        }
        case Red::Any:
        case Red::All: {
          bool acc = r == Red::All;
          for (int64_t off : p.inner) {
            bool v = base[off] != T(0);
            if (r == Red::Any ? v : !v) {
              acc = !acc;
              break;
            }
          }
          out.storeIntAt(o, acc);
          break;
        }
        case Red::LogSumExp: {
          double m = -std::numeric_limits<double>::infinity();
          for (int64_t off : p.inner) m = std::max(m, double(base[off]));
          if (std::isinf(m)) m = 0.0;  // all -inf (or +inf): avoid inf - inf
          double s = 0.0;
          for (int64_t off : p.inner) s += std::exp(double(base[off]) - m);
          out.storeAt(o, std::log(s) + m);
          break;
        }
      }
    }
  });
  return out;
}

// The index of each max/min (max.dim / min.dim's second result): same as argmax on one dim.
Tensor argReduce(const Tensor& x, int64_t dim, bool keep, bool isMax, const char* opName) {
  if (x.dim() == 0) return Tensor::zeros({}, ir::DType::Int64);
  return reduce(x, {dim}, keep, isMax ? Red::ArgMax : Red::ArgMin, ir::DType::Int64, opName);
}

// Variance with `correction` (Bessel's by default) and mean, two-pass in double.
std::pair<Tensor, Tensor> varMean(const Tensor& x0, const std::vector<int64_t>& dims, double correction, bool keep) {
  const Tensor x = reductionInput(x0);
  Plan p = plan(x, dims, keep);
  Tensor var = Tensor::empty(p.outSizes, x0.dtype()), mean = Tensor::empty(p.outSizes, x0.dtype());
  const double cnt = double(p.inner.size());
  dispatch(x, [&](const auto* data) {
    for (size_t o = 0; o < p.outer.size(); ++o) {
      const auto* base = data + p.outer[o];
      double s = 0.0;
      for (int64_t off : p.inner) s += double(base[off]);
      double m = s / cnt, ss = 0.0;
      for (int64_t off : p.inner) {
        double dv = double(base[off]) - m;
        ss += dv * dv;
      }
      var.storeAt(int64_t(o), ss / std::max(0.0, cnt - correction));
      mean.storeAt(int64_t(o), m);
    }
  });
  return {var, mean};
}

Tensor vectorNorm(const Tensor& x0, double ord, const std::vector<int64_t>& dims, bool keep, ir::DType outType) {
  const Tensor x = reductionInput(x0);
  Plan p = plan(x, dims, keep);
  Tensor out = Tensor::empty(p.outSizes, outType);
  dispatch(x, [&](const auto* data) {
    for (size_t o = 0; o < p.outer.size(); ++o) {
      const auto* base = data + p.outer[o];
      double acc = 0.0;
      if (std::isinf(ord)) {
        acc = ord > 0 ? 0.0 : std::numeric_limits<double>::infinity();
        for (int64_t off : p.inner) {
          double a = std::fabs(double(base[off]));
          acc = ord > 0 ? std::max(acc, a) : std::min(acc, a);
        }
      } else if (ord == 0) {
        for (int64_t off : p.inner) acc += base[off] != 0 ? 1.0 : 0.0;
      } else if (ord == 1) {
        for (int64_t off : p.inner) acc += std::fabs(double(base[off]));
      } else if (ord == 2) {
        for (int64_t off : p.inner) acc += double(base[off]) * double(base[off]);
        acc = std::sqrt(acc);
      } else {
        for (int64_t off : p.inner) acc += std::pow(std::fabs(double(base[off])), ord);
        acc = std::pow(acc, 1.0 / ord);
      }
      out.storeAt(int64_t(o), acc);
    }
  });
  return out;
}

bool keepArg(const std::vector<Val>& a, size_t i) { return a.size() > i && a[i].kind == Val::Kind::Bool && a[i].b; }
const Val& argOr(const std::vector<Val>& a, size_t i) {
  static const Val none;
  return a.size() > i ? a[i] : none;
}
int64_t ndim(const Val& v) { return static_cast<int64_t>(v.tensorType().sizes.size()); }

// sum/prod of ints and bools give int64; an explicit dtype= casts the input first.
ir::DType accumType(const Val& x, const Val& dtype) {
  if (dtype.kind == Val::Kind::DType) return dtype.dtype;
  ir::DType d = x.tensorType().dtype;
  return ir::isFloating(d) ? d : ir::DType::Int64;
}

Tensor castTo(const Tensor& x, ir::DType d) { return x.dtype() == d ? x : x.to(d); }

ir::DType meanType(const Val& x, const Val& dtype, const char* fn) {
  if (dtype.kind == Val::Kind::DType) return dtype.dtype;
  ir::DType d = x.tensorType().dtype;
  if (!ir::isFloating(d))
    throw TorchError("RuntimeError", std::string(fn) +
                                         "(): could not infer output dtype. Input dtype must be either a floating point "
                                         "or complex dtype. Got: " +
                                         ir::scalarTypeName(d));
  return d;
}

void floatOnly(const Val& x, const std::string& msg) {
  if (!ir::isFloating(x.tensorType().dtype)) throw TorchError("RuntimeError", msg + ir::scalarTypeName(x.tensorType().dtype));
}

Tensor meanOf(const Tensor& x, const std::vector<int64_t>& dims, bool keep, ir::DType dt) {
  Tensor xs = castTo(x, dt);
  Tensor s = reduce(xs, dims, keep, Red::Sum, ir::DType::Float64, "mean");
  int64_t cnt = 1;
  for (auto d : dims) cnt = tensor::sizeMul(cnt, x.sizes()[d]);
  Tensor out = Tensor::empty(s.sizes(), dt);
  for (int64_t i = 0; i < s.numel(); ++i) out.storeAt(i, s.ptr<double>()[i] / double(cnt));
  return out;
}

double correctionArg(const Val& v) { return v.isNone() ? 1.0 : v.number(); }

OpDef reductionOp(const std::string& name) {
  OpDef d;
  d.name = name;
  d.kind = OpKind::Reduction;
  return d;
}

}  // namespace

void registerReductionOps(std::vector<OpDef>& t) {
  // sum(x, dtype=None) / sum.dim_IntList(x, dims, keepdim=False, dtype=None)
  for (bool withDims : {false, true}) {
    OpDef d = reductionOp(withDims ? "aten.sum.dim_IntList" : "aten.sum.default");
    size_t dtAt = withDims ? 3 : 1;
    d.meta = [withDims, dtAt](const std::vector<Val>& a) {
      auto in = a.at(0).tensorType();
      return reducedType(in, reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2),
                         accumType(a[0], argOr(a, dtAt)));
    };
    d.eager = [withDims, dtAt](const std::vector<Val>& a) {
      ir::DType dt = accumType(a[0], argOr(a, dtAt));
      return reduce(castTo(a[0].t, dt), reductionDims(withDims ? argOr(a, 1) : Val::none(), a[0].t.dim()), withDims && keepArg(a, 2),
                    Red::Sum, dt, "sum");
    };
    d.reduction = [withDims](const std::vector<Val>& a) {
      return ReductionSpec{kir::Op::ReduceSum, reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2),
                           false};
    };
    t.push_back(std::move(d));
  }
  // prod(x, dtype=None) / prod.dim_int(x, dim, keepdim=False, dtype=None)
  for (bool withDim : {false, true}) {
    OpDef d = reductionOp(withDim ? "aten.prod.dim_int" : "aten.prod.default");
    size_t dtAt = withDim ? 3 : 1;
    d.meta = [withDim, dtAt](const std::vector<Val>& a) {
      return reducedType(a.at(0).tensorType(), reductionDims(withDim ? Val::listOf({a.at(1)}) : Val::none(), ndim(a[0])),
                         withDim && keepArg(a, 2), accumType(a[0], argOr(a, dtAt)));
    };
    d.eager = [withDim, dtAt](const std::vector<Val>& a) {
      ir::DType dt = accumType(a[0], argOr(a, dtAt));
      return reduce(castTo(a[0].t, dt), reductionDims(withDim ? Val::listOf({a.at(1)}) : Val::none(), a[0].t.dim()),
                    withDim && keepArg(a, 2), Red::Prod, dt, "prod");
    };
    t.push_back(std::move(d));
  }
  // mean(x, dtype=None) / mean.dim(x, dims, keepdim=False, dtype=None)
  for (bool withDims : {false, true}) {
    OpDef d = reductionOp(withDims ? "aten.mean.dim" : "aten.mean.default");
    size_t dtAt = withDims ? 3 : 1;
    d.meta = [withDims, dtAt](const std::vector<Val>& a) {
      return reducedType(a.at(0).tensorType(), reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2),
                         meanType(a[0], argOr(a, dtAt), "mean"));
    };
    d.eager = [withDims, dtAt](const std::vector<Val>& a) {
      return meanOf(a[0].t, reductionDims(withDims ? argOr(a, 1) : Val::none(), a[0].t.dim()), withDims && keepArg(a, 2),
                    meanType(a[0], argOr(a, dtAt), "mean"));
    };
    d.reduction = [withDims](const std::vector<Val>& a) {
      return ReductionSpec{kir::Op::ReduceSum, reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2),
                           true};
    };
    t.push_back(std::move(d));
  }
  // amax/amin(x, dims=[], keepdim=False), max/min(x) over everything.
  for (auto [name, r, dimsGiven] : {std::tuple{"aten.amax.default", Red::Max, true},
                                    {"aten.amin.default", Red::Min, true},
                                    {"aten.max.default", Red::Max, false},
                                    {"aten.min.default", Red::Min, false}}) {
    OpDef d = reductionOp(name);
    Red red = r;
    bool withDims = dimsGiven;
    std::string fn = withDims ? (red == Red::Max ? "amax" : "amin") : redName(red);
    d.meta = [withDims](const std::vector<Val>& a) {
      return reducedType(a.at(0).tensorType(), reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2),
                         a[0].tensorType().dtype);
    };
    d.eager = [withDims, red, fn](const std::vector<Val>& a) {
      if (!withDims && a[0].t.numel() == 0)
        throw TorchError(
            "RuntimeError",
            fn + "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
      return reduce(a[0].t, reductionDims(withDims ? argOr(a, 1) : Val::none(), a[0].t.dim()), withDims && keepArg(a, 2), red,
                    a[0].t.dtype(), fn.c_str());
    };
    d.reduction = [withDims, red](const std::vector<Val>& a) {
      return ReductionSpec{red == Red::Max ? kir::Op::ReduceMax : kir::Op::ReduceMin,
                           reductionDims(withDims ? argOr(a, 1) : Val::none(), ndim(a[0])), withDims && keepArg(a, 2), false};
    };
    t.push_back(std::move(d));
  }
  // max.dim / min.dim(x, dim, keepdim=False) -> (values, indices)
  for (bool isMax : {true, false}) {
    OpDef d = reductionOp(isMax ? "aten.max.dim" : "aten.min.dim");
    d.metaMulti = [](const std::vector<Val>& a) {
      auto dims = reductionDims(Val::listOf({a.at(1)}), ndim(a[0]));
      auto v = reducedType(a[0].tensorType(), dims, keepArg(a, 2), a[0].tensorType().dtype);
      auto i = v;
      i.dtype = ir::DType::Int64;
      return std::vector<ir::TensorType>{v, i};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [isMax](const std::vector<Val>& a) {
      const Tensor& x = a[0].t;
      auto dims = reductionDims(Val::listOf({a.at(1)}), x.dim());
      const char* fn = isMax ? "max" : "min";
      Tensor v = reduce(x, dims, keepArg(a, 2), isMax ? Red::Max : Red::Min, x.dtype(), fn);
      Tensor i = dims.empty() ? Tensor::zeros(v.sizes(), ir::DType::Int64) : argReduce(x, dims[0], keepArg(a, 2), isMax, fn);
      return std::vector<Tensor>{v, i};
    };
    t.push_back(std::move(d));
  }
  // argmax/argmin(x, dim=None, keepdim=False): dim=None flattens.
  for (bool isMax : {true, false}) {
    OpDef d = reductionOp(isMax ? "aten.argmax.default" : "aten.argmin.default");
    d.meta = [](const std::vector<Val>& a) {
      const Val& dim = argOr(a, 1);
      if (dim.isNone()) {
        ir::TensorType t;
        t.dtype = ir::DType::Int64;
        if (keepArg(a, 2))
          for (size_t i = 0; i < a[0].tensorType().sizes.size(); ++i) t.sizes.emplace_back(1);
        return t;
      }
      return reducedType(a[0].tensorType(), reductionDims(Val::listOf({dim}), ndim(a[0])), keepArg(a, 2), ir::DType::Int64);
    };
    d.eager = [isMax](const std::vector<Val>& a) {
      const Tensor& x = a[0].t;
      const char* fn = isMax ? "argmax" : "argmin";
      const Val& dim = argOr(a, 1);
      if (dim.isNone()) {
        Tensor flat = x.contiguous();
        flat = flat.view({x.numel()}, {1}, flat.offset());
        Tensor r = reduce(flat, {0}, false, isMax ? Red::ArgMax : Red::ArgMin, ir::DType::Int64, fn);
        if (!keepArg(a, 2)) return r;
        Shape ones(static_cast<size_t>(x.dim()), 1);
        return r.view(ones, Shape(ones.size(), 1), r.offset());
      }
      auto dims = reductionDims(Val::listOf({dim}), x.dim());
      if (dims.empty()) return Tensor::zeros({}, ir::DType::Int64);
      return argReduce(x, dims[0], keepArg(a, 2), isMax, fn);
    };
    t.push_back(std::move(d));
  }
  // any/all: .default (everything), .dim (one dim), .dims (a list).
  for (bool isAny : {true, false}) {
    for (const char* ov : {"default", "dim", "dims"}) {
      std::string overload = ov;
      OpDef d = reductionOp(std::string(isAny ? "aten.any." : "aten.all.") + ov);
      auto dimsOf = [overload](const std::vector<Val>& a) {
        if (overload == "default") return Val::none();
        if (overload == "dim") return Val::listOf({a.at(1)});
        return argOr(a, 1);
      };
      d.meta = [dimsOf, overload](const std::vector<Val>& a) {
        return reducedType(a[0].tensorType(), reductionDims(dimsOf(a), ndim(a[0])), overload != "default" && keepArg(a, 2),
                           ir::DType::Bool);
      };
      d.eager = [dimsOf, overload, isAny](const std::vector<Val>& a) {
        return reduce(a[0].t, reductionDims(dimsOf(a), a[0].t.dim()), overload != "default" && keepArg(a, 2), isAny ? Red::Any : Red::All,
                      ir::DType::Bool, isAny ? "any" : "all");
      };
      t.push_back(std::move(d));
    }
  }
  // var/std.correction(x, dims=None, *, correction=None (=1), keepdim=False)
  for (bool isStd : {false, true}) {
    OpDef d = reductionOp(isStd ? "aten.std.correction" : "aten.var.correction");
    d.meta = [](const std::vector<Val>& a) {
      floatOnly(a.at(0), "std and var only support floating point and complex dtypes, got ");
      return reducedType(a[0].tensorType(), reductionDims(argOr(a, 1), ndim(a[0])), keepArg(a, 3), a[0].tensorType().dtype);
    };
    d.eager = [isStd](const std::vector<Val>& a) {
      floatOnly(a.at(0), "std and var only support floating point and complex dtypes, got ");
      Tensor v = varMean(a[0].t, reductionDims(argOr(a, 1), a[0].t.dim()), correctionArg(argOr(a, 2)), keepArg(a, 3)).first;
      if (isStd)
        for (int64_t i = 0; i < v.numel(); ++i) v.storeAt(i, std::sqrt(v.loadAt(i)));
      return v;
    };
    d.reduction = [isStd](const std::vector<Val>& a) {
      ReductionSpec r{kir::Op::ReduceSum, reductionDims(argOr(a, 1), ndim(a[0])), keepArg(a, 3), false};
      r.variance = true;
      r.sqrt = isStd;
      r.correction = correctionArg(argOr(a, 2));
      return r;
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d = reductionOp("aten.var_mean.correction");  // -> (var, mean)
    d.metaMulti = [](const std::vector<Val>& a) {
      floatOnly(a.at(0), "std and var only support floating point and complex dtypes, got ");
      auto ty = reducedType(a[0].tensorType(), reductionDims(argOr(a, 1), ndim(a[0])), keepArg(a, 3), a[0].tensorType().dtype);
      return std::vector<ir::TensorType>{ty, ty};
    };
    d.meta = [mm = d.metaMulti](const std::vector<Val>& a) { return mm(a)[0]; };
    d.eagerMulti = [](const std::vector<Val>& a) {
      floatOnly(a.at(0), "std and var only support floating point and complex dtypes, got ");
      auto [v, m] = varMean(a[0].t, reductionDims(argOr(a, 1), a[0].t.dim()), correctionArg(argOr(a, 2)), keepArg(a, 3));
      return std::vector<Tensor>{v, m};
    };
    t.push_back(std::move(d));
  }
  {
    OpDef d = reductionOp("aten.logsumexp.default");  // (x, dims, keepdim=False)
    auto outType = [](const Val& x) {
      ir::DType dt = x.tensorType().dtype;
      return ir::isFloating(dt) ? dt : ir::DType::Float32;
    };
    d.meta = [outType](const std::vector<Val>& a) {
      return reducedType(a[0].tensorType(), reductionDims(argOr(a, 1), ndim(a[0])), keepArg(a, 2), outType(a[0]));
    };
    d.eager = [outType](const std::vector<Val>& a) {
      return reduce(a[0].t, reductionDims(argOr(a, 1), a[0].t.dim()), keepArg(a, 2), Red::LogSumExp, outType(a[0]), "logsumexp");
    };
    // Core ATen decomposition: amax, sub, exp, sum, log, add (with the all -inf case masked).
    t.push_back(std::move(d));
  }
  {
    OpDef d = reductionOp("aten.linalg_vector_norm.default");  // (x, ord=2, dim=None, keepdim=False, *, dtype=None)
    auto outType = [](const std::vector<Val>& a) {
      if (argOr(a, 4).kind == Val::Kind::DType) return argOr(a, 4).dtype;
      floatOnly(a.at(0), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ");
      return a[0].tensorType().dtype;
    };
    d.meta = [outType](const std::vector<Val>& a) {
      return reducedType(a[0].tensorType(), reductionDims(argOr(a, 2), ndim(a[0])), keepArg(a, 3), outType(a));
    };
    d.eager = [outType](const std::vector<Val>& a) {
      double ord = argOr(a, 1).isNone() ? 2.0 : argOr(a, 1).number();
      ir::DType dt = outType(a);
      return vectorNorm(castTo(a[0].t, dt), ord, reductionDims(argOr(a, 2), a[0].t.dim()), keepArg(a, 3), dt);
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
