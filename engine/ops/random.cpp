#include "engine/ops/random.h"

#include "engine/tensor/parallel.h"
#include "engine/tensor/stop.h"

#include <algorithm>
#include <limits>
#include <vector>

#include <cmath>

namespace kiln::torchapi {

using tensor::Tensor;
using tensor::TorchError;

void Generator::manualSeed(uint64_t seed) {
  seed_ = seed;
  engine_.seed(static_cast<uint32_t>(seed & 0xffffffffu));
  nextDoubleNormal.reset();
}

Generator& defaultGenerator() {
  static Generator g;
  return g;
}

Generator& deviceGenerator() {
  static Generator g;
  return g;
}

namespace {

// transformation::uniform_real: the low `digits` bits scaled to [0, 1), then to [from, to),
// in float for float tensors and double for double tensors.
float uniformFloat(Generator& g, float from, float to) {
  float x = static_cast<float>(g.random() & ((1u << 24) - 1)) * (1.0f / static_cast<float>(1u << 24));
  return std::fma(x, to - from, from);  // ATen's kernels are built with FMA contraction
}
double uniformDouble(Generator& g, double from, double to) {
  double x = static_cast<double>(g.random64() & ((uint64_t(1) << 53) - 1)) * (1.0 / static_cast<double>(uint64_t(1) << 53));
  return std::fma(x, to - from, from);
}

template <typename F>
void forEachElement(Tensor& t, F&& f) {
  tensor::forEachIndex<1>(t.sizes(), {&t.strides()}, [&](const std::array<int64_t, 1>& o) { f(o[0]); });
}

void floatingOnly(const Tensor& t, const char* what) {
  if (!ir::isFloating(t.dtype()) || t.dtype() == ir::DType::Float16 || t.dtype() == ir::DType::BFloat16)
    throw TorchError("RuntimeError",
                     std::string(what) + " not implemented for '" + std::string(std::string(ir::torchName(t.dtype()))) + "'");
}

// normal_fill_16: Box-Muller on 16 uniforms in place, the first 8 giving cos, the last 8 sin.
template <typename T>
void normalFill16(T* data, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - data[j];  // [0, 1) -> (0, 1] for log
    const T u2 = data[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(2.0f * M_PI * u2);
    data[j] = radius * std::cos(theta) * std + mean;
    data[j + 8] = radius * std::sin(theta) * std + mean;
  }
}

template <typename T>
void normalFillContiguous(T* data, int64_t size, T mean, T std, Generator& g) {
  auto uniform = [&]() -> T {
    if constexpr (std::is_same_v<T, float>) return uniformFloat(g, 0.0f, 1.0f);
    else return uniformDouble(g, 0.0, 1.0);
  };
  // The uniforms come from one generator, in order (PyTorch's values); the Box-Muller transform
  // of each block of 16 is independent, so it is split over the thread pool (tensor/parallel.h).
  for (int64_t b = 0; b < size; b += tensor::kStopChunk) {
    tensor::checkStop();
    for (int64_t i = b, e = std::min(size, b + tensor::kStopChunk); i < e; ++i) data[i] = uniform();
  }
  tensor::parallelRanges(size / 16, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) normalFill16<T>(data + 16 * k, mean, std);
  });
  if (size % 16 != 0) {
    // PyTorch recomputes the last 16 values from fresh uniforms.
    T* tail = data + size - 16;
    for (int i = 0; i < 16; ++i) tail[i] = uniform();
    normalFill16<T>(tail, mean, std);
  }
}

// at::normal_distribution<double>: Box-Muller with the sine half cached in the generator.
double normalSample(Generator& g, double mean, double std) {
  if (g.nextDoubleNormal) {
    double r = *g.nextDoubleNormal;
    g.nextDoubleNormal.reset();
    return r * std + mean;
  }
  double u1 = uniformDouble(g, 0.0, 1.0);
  double u2 = uniformDouble(g, 0.0, 1.0);
  double r = std::sqrt(-2.0 * std::log1p(-u2));
  double theta = 2.0 * M_PI * u1;
  g.nextDoubleNormal = r * std::sin(theta);
  return r * std::cos(theta) * std + mean;
}

}  // namespace

void uniformFill(Tensor& t, double from, double to, Generator& g) {
  floatingOnly(t, "\"uniform_kernel_cpu\"");
  if (from > to)
    throw TorchError("RuntimeError", "uniform_ expects to return a [from, to) range, but found from=" + std::to_string(from) +
                                         " > to=" + std::to_string(to));
  if (t.dtype() == ir::DType::Float32) {
    float f = static_cast<float>(from), e = static_cast<float>(to);
    forEachElement(t, [&](int64_t o) { t.ptr<float>()[o] = uniformFloat(g, f, e); });
  } else {
    forEachElement(t, [&](int64_t o) { t.ptr<double>()[o] = uniformDouble(g, from, to); });
  }
}

void normalFill(Tensor& t, double mean, double std, Generator& g) {
  floatingOnly(t, "\"normal_kernel_cpu\"");
  if (std < 0) throw TorchError("RuntimeError", "normal expects std >= 0.0, but found std " + std::to_string(std));
  int64_t n = t.numel();
  if (n >= 16 && t.isContiguous()) {
    if (t.dtype() == ir::DType::Float32)
      normalFillContiguous<float>(t.ptr<float>(), n, static_cast<float>(mean), static_cast<float>(std), g);
    else normalFillContiguous<double>(t.ptr<double>(), n, mean, std, g);
    return;
  }
  forEachElement(t, [&](int64_t o) { t.storeAt(o, normalSample(g, mean, std)); });
}

void randomFromToFill(Tensor& t, int64_t from, int64_t to, Generator& g) {
  if (from >= to)
    throw TorchError("RuntimeError",
                     "random_ expects 'from' to be less than 'to', but got from=" + std::to_string(from) + " >= to=" + std::to_string(to));
  uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  bool wide =
      range >= (uint64_t(1) << 32) && (t.dtype() == ir::DType::Int64 || t.dtype() == ir::DType::Float64 || t.dtype() == ir::DType::Float32);
  forEachElement(t, [&](int64_t o) {
    uint64_t v = wide ? g.random64() : g.random();
    t.storeIntAt(o, static_cast<int64_t>(v % range) + from);
  });
}

void randomFullFill(Tensor& t, Generator& g) {
  // ATen's random_kernel: uniform_int_distribution<T> takes random64() for int64 and double,
  // random() (32 bits) for the others, then transformation::uniform_int<T>.
  const ir::DType d = t.dtype();
  const bool wide = d == ir::DType::Int64 || d == ir::DType::Float64;
  uint64_t modulus = 0;  // 0: the low bit (bool)
  switch (d) {
    case ir::DType::Int64: modulus = uint64_t(1) << 63; break;
    case ir::DType::Int32: modulus = uint64_t(1) << 31; break;
    case ir::DType::Int16: modulus = uint64_t(1) << 15; break;
    case ir::DType::Int8: modulus = uint64_t(1) << 7; break;
    case ir::DType::UInt8: modulus = uint64_t(1) << 8; break;
    case ir::DType::Float64: modulus = (uint64_t(1) << 53) + 1; break;
    case ir::DType::Float32: modulus = (uint64_t(1) << 24) + 1; break;
    case ir::DType::Float16: modulus = (uint64_t(1) << 11) + 1; break;
    case ir::DType::BFloat16: modulus = (uint64_t(1) << 8) + 1; break;
    case ir::DType::Bool: break;
    default: throw TorchError("RuntimeError", "random_ is not implemented for " + std::string(ir::torchName(d)) + " in Kiln");
  }
  forEachElement(t, [&](int64_t o) {
    const uint64_t v = wide ? g.random64() : g.random();
    if (d == ir::DType::Bool) t.storeIntAt(o, int64_t(v & 1));
    else if (ir::isFloating(d)) t.storeAt(o, double(v % modulus));
    else t.storeIntAt(o, static_cast<int64_t>(v % modulus));
  });
}

void randpermFill(Tensor& t, int64_t n, Generator& g) {
  // ATen's randperm_cpu: indices 0..n-1, then a Fisher-Yates pass that swaps i with
  // i + random() % (n - i) on 32-bit draws. From n >= 2^32 / 20 on, 32-bit draws would skew the
  // result, and ATen switches to the inside-out variant on 64-bit draws; so does this.
  std::vector<int64_t> r(static_cast<size_t>(n));
  if (n < static_cast<int64_t>(std::numeric_limits<uint32_t>::max() / 20)) {
    for (int64_t i = 0; i < n; ++i) r[i] = i;
    for (int64_t i = 0; i + 1 < n; ++i) std::swap(r[i], r[static_cast<int64_t>(g.random() % static_cast<uint64_t>(n - i)) + i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      int64_t z = static_cast<int64_t>(g.random64() % static_cast<uint64_t>(i + 1));
      r[i] = r[z];
      r[z] = i;
    }
  }
  for (int64_t i = 0; i < n; ++i) t.storeIntAt(i, r[i]);
}

void bernoulliFill(Tensor& t, double p, Generator& g) {
  if (!(p >= 0 && p <= 1)) throw TorchError("RuntimeError", "bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
  forEachElement(t, [&](int64_t o) { t.storeAt(o, uniformDouble(g, 0.0, 1.0) < p ? 1.0 : 0.0); });
}

}  // namespace kiln::torchapi

namespace kiln::ops {

void registerRandomOps(std::vector<OpDef>& table) {
  OpDef d;
  d.name = "aten.bernoulli.p";
  d.kind = OpKind::Extern;
  d.meta = [](const std::vector<Val>& a) {
    ir::TensorType ty = a.at(0).tensorType();
    ty.strides.clear();
    ty.requiresGrad = false;
    return ty;
  };
  d.eager = [](const std::vector<Val>& a) {
    tensor::Tensor out = tensor::Tensor::empty(a.at(0).t.sizes(), a[0].t.dtype());
    torchapi::bernoulliFill(out, a.size() > 1 && !a[1].isNone() ? a[1].number() : 0.5, torchapi::defaultGenerator());
    return out;
  };
  table.push_back(std::move(d));
  // rand_like(self) / randn_like(self): uniform [0, 1) / standard normal draws shaped like self.
  for (bool normal : {false, true}) {
    OpDef r;
    r.name = normal ? "aten.randn_like.default" : "aten.rand_like.default";
    r.kind = OpKind::Extern;
    r.meta = [](const std::vector<Val>& a) {
      ir::TensorType ty = a.at(0).tensorType();
      ty.strides.clear();
      ty.requiresGrad = false;
      return ty;
    };
    r.eager = [normal](const std::vector<Val>& a) {
      tensor::Tensor out = tensor::Tensor::empty(a.at(0).t.sizes(), a[0].t.dtype());
      if (normal) torchapi::normalFill(out, 0.0, 1.0, torchapi::defaultGenerator());
      else torchapi::uniformFill(out, 0.0, 1.0, torchapi::defaultGenerator());
      return out;
    };
    table.push_back(std::move(r));
  }
}

}  // namespace kiln::ops
