// Timings of the float32 linalg paths (not a test; speed is measured, not asserted):
// a 1024x1024 sgemm through aten.mm, the seed MLP's addmm, and the seed CNN's convolutions and classifier.
// Prints the best of several runs and the achieved GFLOP/s.
#include "engine/ops/op_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

using kiln::ops::Val;
using kiln::tensor::Shape;
using kiln::tensor::Tensor;

namespace {

Tensor filled(const Shape& s) {
  Tensor t = Tensor::empty(s, kiln::ir::DType::Float32);
  float* p = t.ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = float((i * 7919) % 10007) / 10007.0f - 0.5f;
  return t;
}

Val ints(const Shape& s) {
  std::vector<Val> v;
  for (auto x : s) v.push_back(Val::integer(x));
  return Val::listOf(v);
}

void bench(const char* name, double flops, int reps, const std::function<void()>& f) {
  f();  // warm-up (BLAS thread start, page faults)
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  std::printf("%-44s %9.3f ms  %7.1f GFLOP/s\n", name, best * 1e3, flops / best * 1e-9);
}

}  // namespace

int main() {
  kiln::ops::EagerDispatcher d;
  Tensor a = filled({1024, 1024}), b = filled({1024, 1024});
  bench("mm 1024x1024x1024 (f32)", 2.0 * 1024 * 1024 * 1024, 10, [&] { d.call("aten.mm.default", {Val::of(a), Val::of(b)}); });
  Tensor x = filled({16, 1024}), bias = filled({1024});
  Tensor wt = filled({1024, 1024});
  Tensor w = wt.view({1024, 1024}, {1, 1024}, 0);  // the t() view F.linear passes
  bench("addmm 16x1024 @ t(1024x1024) (seed MLP)", 2.0 * 16 * 1024 * 1024, 50, [&] {
    d.call("aten.addmm.default", {Val::of(bias), Val::of(x), Val::of(w)});
  });
  Tensor fx = filled({2, 131072}), fb = filled({10}), fwt = filled({10, 131072});
  Tensor fw = fwt.view({131072, 10}, {1, 131072}, 0);
  bench("addmm 2x131072 @ t(10x131072) (seed CNN's fc)", 2.0 * 2 * 131072 * 10, 50, [&] {
    d.call("aten.addmm.default", {Val::of(fb), Val::of(fx), Val::of(fw)});
  });
  auto conv = [&](const Tensor& in, const Tensor& wgt, const Tensor& bi) {
    d.call("aten.convolution.default", {Val::of(in), Val::of(wgt), Val::of(bi), ints({1, 1}), ints({1, 1}), ints({1, 1}),
                                        Val::boolean(false), ints({0, 0}), Val::integer(1)});
  };
  Tensor in1 = filled({2, 3, 32, 32}), w1 = filled({64, 3, 3, 3}), b1 = filled({64});
  bench("conv 2x3x32x32 -> 64, 3x3 pad 1 (seed CNN)", 2.0 * 2 * 64 * 32 * 32 * 27, 20, [&] { conv(in1, w1, b1); });
  Tensor in2 = filled({2, 64, 32, 32}), w2 = filled({128, 64, 3, 3}), b2 = filled({128});
  bench("conv 2x64x32x32 -> 128, 3x3 pad 1 (seed CNN)", 2.0 * 2 * 128 * 32 * 32 * 576, 10, [&] { conv(in2, w2, b2); });
  Tensor q = filled({6, 6, 8}), k = filled({6, 8, 6});
  bench("bmm 6x(6x8 @ 8x6) (attention scores)", 2.0 * 6 * 6 * 8 * 6, 1000, [&] { d.call("aten.bmm.default", {Val::of(q), Val::of(k)}); });
  return 0;
}
