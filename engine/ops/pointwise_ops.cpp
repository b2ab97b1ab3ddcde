// Pointwise ops: unary and binary elementwise math, comparisons, where, casts.
// Each entry gives meta (broadcast + promotion), the eager kernel and the codegen body.
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"
#include "engine/tensor/parallel.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace kiln::ops {

using tensor::forEachIndex;

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

ir::TensorType broadcastType(const std::vector<Val>& args, ir::DType dtype) {
  Shape sizes;
  bool first = true;
  ir::TensorType out;
  for (const auto& a : args) {
    if (!a.isTensor()) continue;
    ir::TensorType t = a.tensorType();
    Shape s;
    for (const auto& d : t.sizes) s.push_back(d.value);
    sizes = first ? s : tensor::broadcastShapes(sizes, s);
    first = false;
  }
  out.dtype = dtype;
  for (auto s : sizes) out.sizes.emplace_back(s);
  return out;
}

Tensor asTensor(const Val& v, ir::DType dtype) {
  if (v.kind == Val::Kind::Tensor) return v.t;
  return Tensor::scalar(v.number(), dtype);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double pyFmod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

struct Unary {
  const char* name;
  kir::Op op;
  double (*fn)(double);
  bool floatOnly;  // integer inputs produce float (exp of an int tensor is float32)
};

const Unary kUnary[] = {
    {"aten.neg.default", kir::Op::Neg, [](double x) { return -x; }, false},
    {"aten.exp.default", kir::Op::Exp, [](double x) { return std::exp(x); }, true},
    {"aten.log.default", kir::Op::Log, [](double x) { return std::log(x); }, true},
    {"aten.sin.default", kir::Op::Sin, [](double x) { return std::sin(x); }, true},
    {"aten.cos.default", kir::Op::Cos, [](double x) { return std::cos(x); }, true},
    {"aten.tanh.default", kir::Op::Tanh, [](double x) { return std::tanh(x); }, true},
    {"aten.sqrt.default", kir::Op::Sqrt, [](double x) { return std::sqrt(x); }, true},
    {"aten.rsqrt.default", kir::Op::Rsqrt, [](double x) { return 1.0 / std::sqrt(x); }, true},
    {"aten.abs.default", kir::Op::Abs, [](double x) { return std::fabs(x); }, false},
    {"aten.sigmoid.default", kir::Op::Sigmoid, sigmoid, true},
    {"aten.erf.default", kir::Op::Erf, [](double x) { return std::erf(x); }, true},
    {"aten.reciprocal.default", kir::Op::Recip, [](double x) { return 1.0 / x; }, true},
    {"aten.floor.default", kir::Op::Floor, [](double x) { return std::floor(x); }, false},
    {"aten.ceil.default", kir::Op::Ceil, [](double x) { return std::ceil(x); }, false},
    {"aten.sign.default", kir::Op::Const, [](double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }, false},
    {"aten.log1p.default", kir::Op::Const, [](double x) { return std::log1p(x); }, true},
    {"aten.expm1.default", kir::Op::Const, [](double x) { return std::expm1(x); }, true},
    {"aten.log2.default", kir::Op::Const, [](double x) { return std::log2(x); }, true},
    {"aten.trunc.default", kir::Op::Const, [](double x) { return std::trunc(x); }, false},
    {"aten.round.default", kir::Op::Const, [](double x) { return std::nearbyint(x); }, false},
    {"aten.tan.default", kir::Op::Const, [](double x) { return std::tan(x); }, true},
    {"aten.atan.default", kir::Op::Const, [](double x) { return std::atan(x); }, true},
};

// A float32 loop over [b, e) of a flat binary op: each operand's flat stride is 1 (elementwise)
// or 0 (one value broadcast everywhere).
using FloatLoop = void (*)(float* o, const float* x, const float* y, int fx, int fy, int64_t b, int64_t e);

// `F` on float32 inlined, which the compiler vectorizes (an eager optimizer step is mostly these).
template <class F>
void floatLoop(float* op, const float* xp, const float* yp, int fx, int fy, int64_t b, int64_t e) {
  const F f;
  if (fx && fy)
    for (int64_t i = b; i < e; ++i) op[i] = f(xp[i], yp[i]);
  else if (const float y0 = yp[0]; fx)
    for (int64_t i = b; i < e; ++i) op[i] = f(xp[i], y0);
  else if (const float x0 = xp[0]; fy)
    for (int64_t i = b; i < e; ++i) op[i] = f(x0, yp[i]);
  else
    for (int64_t i = b; i < e; ++i) op[i] = f(x0, y0);
}

struct Binary {
  const char* name;
  kir::Op op;
  double (*fn)(double, double);
  int64_t (*ifn)(int64_t, int64_t);  // integer path (exact); null: compute in double
  enum Result { Promote, Float, Bool } result;
  // float32 computed in float32: only where it gives fn's bits (a float +, -, *, / rounded once
  // from double is the correctly rounded float result); null: through fn, per element.
  FloatLoop floatFn = nullptr;
};

int64_t floorDivMod(int64_t a, int64_t b) {
  if (b == 0) throw TorchError("ZeroDivisionError", "ZeroDivisionError");
  if (b == -1) return 0;  // x86 idiv traps on INT64_MIN % -1; the remainder is 0 for every a
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0) throw TorchError("RuntimeError", "ZeroDivisionError");
  // x86 idiv traps on INT64_MIN / -1; the quotient wraps, as compiled kernels make it (llvm_ops).
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
double powFloat(double a, double b) { return std::pow(a, b); }
int64_t ipow(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2) ? -1 : 1;
    throw TorchError("RuntimeError", "Integers to negative integer powers are not allowed.");
  }
  int64_t r = 1;
  while (b) {
    if (b & 1) r = wrapMul(r, a);
    a = wrapMul(a, a);
    b >>= 1;
  }
  return r;
}

const Binary kBinary[] = {
    {"aten.add.Tensor", kir::Op::Add, [](double a, double b) { return a + b; }, wrapAdd, Binary::Promote, floatLoop<std::plus<float>>},
    {"aten.sub.Tensor", kir::Op::Sub, [](double a, double b) { return a - b; }, wrapSub, Binary::Promote, floatLoop<std::minus<float>>},
    {"aten.mul.Tensor", kir::Op::Mul, [](double a, double b) { return a * b; }, wrapMul, Binary::Promote,
     floatLoop<std::multiplies<float>>},
    {"aten.div.Tensor", kir::Op::Div, [](double a, double b) { return a / b; }, nullptr, Binary::Float, floatLoop<std::divides<float>>},
    {"aten.remainder.Tensor", kir::Op::Mod, pyFmod, floorDivMod, Binary::Promote},
    {"aten.maximum.default", kir::Op::Max, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); },
     [](int64_t a, int64_t b) { return std::max(a, b); }, Binary::Promote},
    {"aten.minimum.default", kir::Op::Min, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); },
     [](int64_t a, int64_t b) { return std::min(a, b); }, Binary::Promote},
    {"aten.pow.Tensor_Tensor", kir::Op::Pow, [](double a, double b) { return std::pow(a, b); }, nullptr, Binary::Promote},
    {"aten.lt.Tensor", kir::Op::Lt, [](double a, double b) { return double(a < b); }, nullptr, Binary::Bool},
    {"aten.le.Tensor", kir::Op::Le, [](double a, double b) { return double(a <= b); }, nullptr, Binary::Bool},
    {"aten.gt.Tensor", kir::Op::Gt, [](double a, double b) { return double(a > b); }, nullptr, Binary::Bool},
    {"aten.ge.Tensor", kir::Op::Ge, [](double a, double b) { return double(a >= b); }, nullptr, Binary::Bool},
    {"aten.eq.Tensor", kir::Op::Eq, [](double a, double b) { return double(a == b); }, nullptr, Binary::Bool},
    {"aten.ne.Tensor", kir::Op::Ne, [](double a, double b) { return double(a != b); }, nullptr, Binary::Bool},
    // pow(x, scalar): ints stay exact (x ** 2 of an int64 tensor is int64).
    {"aten.pow.Tensor_Scalar", kir::Op::Pow, powFloat, ipow, Binary::Promote},
    // clamp_min/clamp_max: NaN in x propagates, as torch.clamp does.
    {"aten.clamp_min.default", kir::Op::Max, [](double a, double b) { return std::isnan(a) ? a : std::max(a, b); },
     [](int64_t a, int64_t b) { return std::max(a, b); }, Binary::Promote},
    {"aten.clamp_max.default", kir::Op::Min, [](double a, double b) { return std::isnan(a) ? a : std::min(a, b); },
     [](int64_t a, int64_t b) { return std::min(a, b); }, Binary::Promote},
    {"aten.logical_and.default", kir::Op::And, [](double a, double b) { return double(a != 0 && b != 0); }, nullptr, Binary::Bool},
    {"aten.logical_or.default", kir::Op::Or, [](double a, double b) { return double(a != 0 || b != 0); }, nullptr, Binary::Bool},
    {"aten.logical_xor.default", kir::Op::Ne, [](double a, double b) { return double((a != 0) != (b != 0)); }, nullptr, Binary::Bool},
    {"aten.bitwise_and.Tensor", kir::Op::And, nullptr, [](int64_t a, int64_t b) { return a & b; }, Binary::Promote},
    {"aten.bitwise_or.Tensor", kir::Op::Or, nullptr, [](int64_t a, int64_t b) { return a | b; }, Binary::Promote},
    {"aten.bitwise_xor.Tensor", kir::Op::Ne, nullptr, [](int64_t a, int64_t b) { return a ^ b; }, Binary::Promote},
    // fmod: C's remainder, with the dividend's sign (remainder takes the divisor's).
    {"aten.fmod.Tensor", kir::Op::Const, [](double a, double b) { return std::fmod(a, b); },
     [](int64_t a, int64_t b) {
       if (b == 0) throw TorchError("RuntimeError", "ZeroDivisionError");
       return b == -1 ? int64_t{0} : a % b;
     },
     Binary::Promote},
    // ATen's shifts (c10 lshift/rshift): a shift by a negative count or past the width gives 0,
    // or the sign for >>; integers only.
    {"aten.bitwise_left_shift.Tensor", kir::Op::Const, nullptr,
     [](int64_t a, int64_t b) { return b < 0 || b >= 64 ? int64_t{0} : static_cast<int64_t>(static_cast<uint64_t>(a) << b); },
     Binary::Promote},
    {"aten.bitwise_right_shift.Tensor", kir::Op::Const, nullptr, [](int64_t a, int64_t b) { return b < 0 || b >= 64 ? a >> 63 : a >> b; },
     Binary::Promote},
    {"aten.floor_divide.default", kir::Op::Const, [](double a, double b) { return std::floor(a / b); }, floorDiv, Binary::Promote},
    {"aten.atan2.default", kir::Op::Const, [](double a, double b) { return std::atan2(a, b); }, nullptr, Binary::Float},
};

ir::DType unaryType(const Val& x, bool floatOnly) {
  ir::DType d = x.tensorType().dtype;
  return floatOnly && !ir::isFloating(d) ? ir::defaultFloatDType() : d;
}

ir::DType binaryType(const Binary& b, const Val& x, const Val& y) {
  ir::DType p = promoteTypes(x, y);
  if (b.result == Binary::Bool) return ir::DType::Bool;
  if (b.result == Binary::Float && !ir::isFloating(p)) return ir::defaultFloatDType();
  return p;
}

// The flat stride of a float32 operand over a contiguous result of `sizes`: 1 when its elements
// lie in the result's order, 0 when it is one value broadcast everywhere (a Python scalar, the
// expanded ones of sum's backward), -1 otherwise.
int flatStride(const Tensor& t, const Shape& broadcastStrides, const Shape& sizes) {
  if (t.sizes() == sizes && t.isContiguous()) return 1;
  if (std::all_of(broadcastStrides.begin(), broadcastStrides.end(), [](int64_t s) { return s == 0; })) return 0;
  return -1;
}

Tensor unaryKernel(const Unary& u, const Tensor& x, ir::DType outType) {
  Tensor out = Tensor::empty(x.sizes(), outType);
  Shape os = out.strides();
  if (x.dtype() == ir::DType::Float32 && outType == ir::DType::Float32) {
    float* op = out.ptr<float>();
    const float* xp = x.ptr<float>();
    auto fn = u.fn;
    if (x.isContiguous()) {  // split over the thread pool when big (tensor/parallel.h)
      tensor::parallelRanges(out.numel(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) op[i] = static_cast<float>(fn(xp[i]));
      });
      return out;
    }
    forEachIndex<2>(x.sizes(), {&os, &x.strides()}, [&](const std::array<int64_t, 2>& o) { op[o[0]] = static_cast<float>(fn(xp[o[1]])); });
    return out;
  }
  forEachIndex<2>(x.sizes(), {&os, &x.strides()}, [&](const std::array<int64_t, 2>& o) { out.storeAt(o[0], u.fn(x.loadAt(o[1]))); });
  return out;
}

// ATen's CPU kernel name of an integer-only op, as its "not implemented for 'Float'" error says.
const char* integerKernelName(std::string_view op) {
  for (auto [part, kernel] : {std::pair{"bitwise_and", "bitwise_and"},
                              {"bitwise_xor", "bitwise_xor"},
                              {"bitwise_or", "bitwise_or"},
                              {"left_shift", "lshift"},
                              {"right_shift", "rshift"}})
    if (op.find(part) != std::string_view::npos) return kernel;
  return "bitwise";
}

Tensor binaryKernel(const Binary& b, const Val& xv, const Val& yv, ir::DType outType) {
  // Scalars take the computation type so that int math stays exact.
  ir::DType compute = b.result == Binary::Promote ? outType : promoteTypes(xv, yv);
  // A Python scalar meets a 16-bit float tensor as float32, the type PyTorch computes in
  // (opmath): x * 0.1 multiplies by 0.1f, not by 0.1 rounded to bfloat16.
  const ir::DType scalarType = ir::isReducedFloat(compute) ? ir::DType::Float32 : compute;
  Tensor x = asTensor(xv, scalarType), y = asTensor(yv, scalarType);
  Shape sizes = tensor::broadcastShapes(x.sizes(), y.sizes());
  Tensor out = Tensor::empty(sizes, outType);
  Shape os = out.strides(), xs = tensor::broadcastStrides(x, sizes), ys = tensor::broadcastStrides(y, sizes);
  if (!b.fn && ir::isFloating(compute))
    throw TorchError("RuntimeError",
                     std::string("\"") + integerKernelName(b.name) + "_cpu\" not implemented for '" + ir::scalarTypeName(compute) + "'");
  if (compute == ir::DType::Float32 && outType == ir::DType::Float32 && x.dtype() == compute && y.dtype() == compute) {
    // float32 fast path: typed pointers, no per-element dtype switch.
    float* op = out.ptr<float>();
    const float* xp = x.ptr<float>();
    const float* yp = y.ptr<float>();
    auto fn = b.fn;
    const int fx = flatStride(x, xs, sizes), fy = flatStride(y, ys, sizes);
    if (fx >= 0 && fy >= 0) {  // flat: split over the thread pool when big (tensor/parallel.h)
      tensor::parallelRanges(out.numel(), [&](int64_t lo, int64_t hi) {
        if (b.floatFn) return b.floatFn(op, xp, yp, fx, fy, lo, hi);
        for (int64_t i = lo; i < hi; ++i) op[i] = static_cast<float>(fn(xp[i * fx], yp[i * fy]));
      });
    } else {
      forEachIndex<3>(sizes, {&os, &xs, &ys},
                      [&](const std::array<int64_t, 3>& o) { op[o[0]] = static_cast<float>(fn(xp[o[1]], yp[o[2]])); });
    }
    return out;
  }
  if (!ir::isFloating(compute) && b.ifn) {
    forEachIndex<3>(sizes, {&os, &xs, &ys},
                    [&](const std::array<int64_t, 3>& o) { out.storeIntAt(o[0], b.ifn(x.loadIntAt(o[1]), y.loadIntAt(o[2]))); });
  } else {
    forEachIndex<3>(sizes, {&os, &xs, &ys},
                    [&](const std::array<int64_t, 3>& o) { out.storeAt(o[0], b.fn(x.loadAt(o[1]), y.loadAt(o[2]))); });
  }
  return out;
}

}  // namespace

void registerPointwiseOps(std::vector<OpDef>& t) {
  for (const Unary& u : kUnary) {
    OpDef d;
    d.name = u.name;
    d.kind = OpKind::Pointwise;
    d.meta = [&u](const std::vector<Val>& a) {
      ir::TensorType ty = a.at(0).tensorType();
      ty.dtype = unaryType(a[0], u.floatOnly);
      ty.strides.clear();
      ty.requiresGrad = false;
      return ty;
    };
    d.eager = [&u](const std::vector<Val>& a) { return unaryKernel(u, a.at(0).t, unaryType(a[0], u.floatOnly)); };
    // Ops without a kernel-IR instruction (marked Const) run as extern calls for now.
    if (u.op != kir::Op::Const)
      d.pointwise = [&u](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>&, ir::DType rt) {
        return e.emit(u.op, {in.at(0)}, rt);
      };
    t.push_back(std::move(d));
  }

  // relu: Inductor lowers it to maximum(x, 0); the ATen graph keeps aten.relu.
  {
    OpDef d;
    d.name = "aten.relu.default";
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) { return plainType(a.at(0)); };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      Tensor out = Tensor::empty(x.sizes(), x.dtype());
      if (x.dtype() == ir::DType::Float32 && x.isContiguous()) {  // typed, split over the pool when big
        float* op = out.ptr<float>();
        const float* xp = x.ptr<float>();
        tensor::parallelRanges(out.numel(), [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) op[i] = std::isnan(xp[i]) ? xp[i] : std::max(xp[i], 0.0f);  // as the double path
        });
        return out;
      }
      Shape os = out.strides();
      forEachIndex<2>(x.sizes(), {&os, &x.strides()}, [&](const std::array<int64_t, 2>& o) {
        double v = x.loadAt(o[1]);
        out.storeAt(o[0], std::isnan(v) ? v : std::max(v, 0.0));
      });
      return out;
    };
    d.pointwise = [](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>&, ir::DType rt) {
      return e.emit(kir::Op::Max, {in.at(0), e.constant(0.0, rt)}, rt);
    };
    t.push_back(std::move(d));
  }

  for (const Binary& b : kBinary) {
    OpDef d;
    d.name = b.name;
    d.kind = OpKind::Pointwise;
    d.meta = [&b](const std::vector<Val>& a) { return broadcastType(a, binaryType(b, a.at(0), a.at(1))); };
    d.eager = [&b](const std::vector<Val>& a) { return binaryKernel(b, a.at(0), a.at(1), binaryType(b, a.at(0), a.at(1))); };
    if (b.op == kir::Op::Const || !b.fn) {
      t.push_back(std::move(d));
      continue;
    }
    d.pointwise = [&b](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>& args, ir::DType rt) {
      // Operands are computed in the promoted type; comparisons produce bool. logical_and/or
      // compute in bool (each operand's truth, NaN true as in C): in the promoted type And/Or
      // would be bitwise on integers (2 & 1 == 0).
      const bool logical = b.result == Binary::Bool && (b.op == kir::Op::And || b.op == kir::Op::Or);
      ir::DType compute = logical ? ir::DType::Bool : b.result == Binary::Bool ? promoteTypes(args.at(0), args.at(1)) : rt;
      if (b.result == Binary::Float && !ir::isFloating(compute)) compute = rt;
      size_t next = 0;
      auto operand = [&](const Val& v) {
        if (v.isTensor()) {
          int id = in.at(next++);
          return v.tensorType().dtype == compute ? id : e.emit(kir::Op::Cast, {id}, compute);
        }
        return e.constant(v.number(), compute);
      };
      int x = operand(args.at(0));
      int y = operand(args.at(1));
      return e.emit(b.op, {x, y}, rt);
    };
    t.push_back(std::move(d));
  }

  // logical_not: bool result; bitwise_not: ~x (bool: logical not, integers: two's complement).
  for (bool logical : {true, false}) {
    OpDef d;
    d.name = logical ? "aten.logical_not.default" : "aten.bitwise_not.default";
    d.kind = OpKind::Pointwise;
    d.meta = [logical](const std::vector<Val>& a) {
      ir::TensorType ty = a.at(0).tensorType();
      if (!logical && ir::isFloating(ty.dtype)) throw TorchError("RuntimeError", "\"bitwise_not_cpu\" not implemented for 'Float'");
      if (logical) ty.dtype = ir::DType::Bool;
      ty.strides.clear();
      ty.requiresGrad = false;
      return ty;
    };
    d.eager = [logical, meta = d.meta](const std::vector<Val>& a) {
      ir::DType dt = meta(a).dtype;
      const Tensor& x = a.at(0).t;
      Tensor out = Tensor::empty(x.sizes(), dt);
      Shape os = out.strides();
      forEachIndex<2>(x.sizes(), {&os, &x.strides()}, [&](const std::array<int64_t, 2>& o) {
        if (logical || dt == ir::DType::Bool) out.storeIntAt(o[0], x.loadAt(o[1]) == 0.0);
        else out.storeIntAt(o[0], ~x.loadIntAt(o[1]));
      });
      return out;
    };
    if (logical)
      d.pointwise = [](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>& args, ir::DType rt) {
        ir::DType src = args.at(0).tensorType().dtype;
        return e.emit(kir::Op::Eq, {in.at(0), e.constant(0.0, src)}, rt);
      };
    t.push_back(std::move(d));
  }

  // silu: one of Inductor's default decompositions (x * sigmoid(x)).
  {
    OpDef d;
    d.name = "aten.silu.default";
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) { return plainType(a.at(0)); };
    d.decompose = [](Dispatcher& disp, const std::vector<Val>& a) {
      Val s = disp.call("aten.sigmoid.default", {a.at(0)});
      return disp.call("aten.mul.Tensor", {a.at(0), s});
    };
    // The decomposition's body, for a silu that reaches fusion: the decompose pass expands every
    // silu before, but a later pass may make one (plugins/silu_fusion).
    d.pointwise = [](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>&, ir::DType rt) {
      return e.emit(kir::Op::Mul, {in.at(0), e.emit(kir::Op::Sigmoid, {in.at(0)}, rt)}, rt);
    };
    t.push_back(std::move(d));
  }

  // Dtype conversion as Inductor spells it after decomposition.
  {
    OpDef d;
    d.name = "prims.convert_element_type.default";
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty = a.at(0).tensorType();
      ty.dtype = a.at(1).dtype;
      ty.strides.clear();
      ty.requiresGrad = false;
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) { return a.at(0).t.to(a.at(1).dtype); };
    d.pointwise = [](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>&, ir::DType rt) {
      return e.emit(kir::Op::Cast, {in.at(0)}, rt);
    };
    t.push_back(std::move(d));
  }
  // clone: a copy (eval-mode dropout, contiguous) is pointwise identity.
  {
    OpDef d;
    d.name = "aten.clone.default";
    d.kind = OpKind::Pointwise;
    d.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty = a.at(0).tensorType();
      ty.strides.clear();
      return ty;
    };
    d.eager = [](const std::vector<Val>& a) { return a.at(0).t.clone(); };
    d.pointwise = [](PointwiseEmitter&, const std::vector<int>& in, const std::vector<Val>&, ir::DType) { return in.at(0); };
    t.push_back(std::move(d));
  }
}

// where(cond, a, b): a and b may be tensors or scalars (ATen's where.self / ScalarSelf / ScalarOther).
void registerWhereOp(std::vector<OpDef>& t) {
  OpDef d;
  d.name = "aten.where.self";
  d.kind = OpKind::Pointwise;
  d.meta = [](const std::vector<Val>& a) { return broadcastType(a, promoteTypes(a.at(1), a.at(2))); };
  d.eager = [](const std::vector<Val>& a) {
    ir::DType dt = promoteTypes(a.at(1), a.at(2));
    auto asT = [&](const Val& v, ir::DType d2) { return v.kind == Val::Kind::Tensor ? v.t : tensor::Tensor::scalar(v.number(), d2); };
    tensor::Tensor c = asT(a[0], ir::DType::Bool), x = asT(a[1], dt), y = asT(a[2], dt);
    tensor::Shape sizes = tensor::broadcastShapes(tensor::broadcastShapes(c.sizes(), x.sizes()), y.sizes());
    tensor::Tensor out = tensor::Tensor::empty(sizes, dt);
    tensor::Shape os = out.strides(), cs = tensor::broadcastStrides(c, sizes), xs = tensor::broadcastStrides(x, sizes),
                  ys = tensor::broadcastStrides(y, sizes);
    forEachIndex<4>(sizes, {&os, &cs, &xs, &ys},
                    [&](const std::array<int64_t, 4>& o) { out.storeAt(o[0], c.loadAt(o[1]) != 0 ? x.loadAt(o[2]) : y.loadAt(o[3])); });
    return out;
  };
  d.pointwise = [](PointwiseEmitter& e, const std::vector<int>& in, const std::vector<Val>& args, ir::DType rt) {
    size_t next = 0;
    auto operand = [&](const Val& v, ir::DType want) {
      if (v.isTensor()) {
        int id = in.at(next++);
        return v.tensorType().dtype == want ? id : e.emit(kir::Op::Cast, {id}, want);
      }
      return e.constant(v.number(), want);
    };
    int c = operand(args.at(0), ir::DType::Bool);
    int x = operand(args.at(1), rt);
    int y = operand(args.at(2), rt);
    return e.emit(kir::Op::Where, {c, x, y}, rt);
  };
  t.push_back(std::move(d));
}

}  // namespace kiln::ops
