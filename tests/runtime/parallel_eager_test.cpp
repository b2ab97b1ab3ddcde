// Eager CPU kernels split big loops over the thread pool (engine/tensor/parallel.h): the split
// must not change a single bit. Each op runs on tensors big enough to be split, once with the
// pool installed and once on the calling thread, and the results must be identical.
#include "engine/ops/op_table.h"
#include "engine/ops/random.h"
#include "engine/ops/shape_util.h"
#include "engine/runtime/thread_pool.h"
#include "engine/tensor/parallel.h"
#include "engine/tensor/tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace kiln {
namespace {

using ops::Val;
using tensor::Tensor;

const int64_t kBig = 3 * tensor::kParallelGrain + 7;  // split, with an uneven tail

Tensor ramp(const tensor::Shape& s) {
  Tensor t = Tensor::empty(s, ir::DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.ptr<float>()[i] = static_cast<float>(std::sin(0.001 * double(i)) * 3.0);
  return t;
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && std::memcmp(a.ptr<float>(), b.ptr<float>(), size_t(a.numel()) * 4) == 0;
}

// f's result with the pool as the runner and without one.
std::pair<Tensor, Tensor> bothWays(const std::function<Tensor()>& f) {
  runtime::ThreadPool::installForEagerKernels();
  Tensor split = f();
  tensor::setParallelRunner(nullptr);
  Tensor serial = f();
  runtime::ThreadPool::installForEagerKernels();
  return {split, serial};
}

Tensor call(const std::string& op, const std::vector<Val>& args) { return ops::EagerDispatcher().call(ops::op(op), args).t; }

TEST(ParallelEager, PointwiseOpsGiveTheSerialBits) {
  Tensor x = ramp({kBig}), y = ramp({kBig});
  Tensor one = Tensor::full({1}, 1.0, ir::DType::Float32);
  Tensor ones = one.view({kBig}, {0}, 0);  // sum's backward: one value broadcast (stride 0)
  for (const auto& f : std::vector<std::function<Tensor()>>{
           [&] { return call("aten.cos.default", {Val::of(x)}); },
           [&] { return call("aten.exp.default", {Val::of(x)}); },
           [&] { return call("aten.relu.default", {Val::of(x)}); },
           [&] {
             return call("aten.mul.Tensor", {Val::of(x), Val::of(y)});
           },
           [&] {
             return call("aten.mul.Tensor", {Val::of(ones), Val::of(x)});
           },
           [&] {
             return call("aten.add.Tensor", {Val::of(x), Val::real(0.5)});
           },
           [&] {
             return call("aten.div.Tensor", {Val::real(2.0), Val::of(x)});
           },
       }) {
    auto [split, serial] = bothWays(f);
    EXPECT_TRUE(sameBits(split, serial));
  }
  // The split loops compute what the strided loop computes: a transposed (non-flat) operand.
  Tensor m = ramp({512, 384}), st = Tensor::empty({384, 512}, ir::DType::Float32);
  for (int64_t i = 0; i < 512; ++i)
    for (int64_t j = 0; j < 384; ++j) st.ptr<float>()[j * 512 + i] = m.ptr<float>()[i * 384 + j];
  Tensor mt = st.view({512, 384}, {1, 512}, 0);  // m's values, column-major
  EXPECT_TRUE(sameBits(call("aten.mul.Tensor", {Val::of(m), Val::real(3.0)}), call("aten.mul.Tensor", {Val::of(mt), Val::real(3.0)})));
  EXPECT_TRUE(sameBits(call("aten.sin.default", {Val::of(m)}), call("aten.sin.default", {Val::of(mt)})));
  EXPECT_TRUE(sameBits(call("aten.relu.default", {Val::of(m)}), call("aten.relu.default", {Val::of(mt)})));
}

TEST(ParallelEager, SumOfEverythingAgreesWithTheSerialSum) {
  Tensor x = ramp({kBig});
  auto [split, serial] = bothWays([&] { return call("aten.sum.default", {Val::of(x)}); });
  // Partial sums in double: the order of additions differs, the float32 result does not here.
  EXPECT_TRUE(sameBits(split, serial)) << split.loadAt(0) << " vs " << serial.loadAt(0);
  double want = 0;
  for (int64_t i = 0; i < x.numel(); ++i) want += double(x.ptr<float>()[i]);
  EXPECT_EQ(split.loadAt(0), double(static_cast<float>(want)));
  Tensor kept = call("aten.sum.dim_IntList", {Val::of(ramp({kBig, 2})), ops::intList({0, 1}), Val::boolean(true)});
  EXPECT_EQ(kept.sizes(), (tensor::Shape{1, 1}));
}

TEST(ParallelEager, NormalFillGivesTheSerialValues) {
  // Big enough that the Box-Muller blocks are split (2^21 + 5 values: an uneven tail of 5).
  auto fill = [] {
    torchapi::Generator g;
    g.manualSeed(0);
    Tensor t = Tensor::empty({(int64_t(1) << 21) + 5}, ir::DType::Float32);
    torchapi::normalFill(t, 0.0, 1.0, g);
    return t;
  };
  auto [split, serial] = bothWays(fill);
  EXPECT_TRUE(sameBits(split, serial));
}

}  // namespace
}  // namespace kiln
