// The tensor runtime's memory safety: every count is checked, and no view can reach outside
// its storage, whatever sizes, strides and offset it is given (issue 13).
#include "engine/ops/op_table.h"
#include "engine/tensor/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln::tensor {
namespace {

void expectError(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const TorchError& e) { EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what(); }
}

TEST(TensorBounds, ElementAndByteCountsAreChecked) {
  expectError(
      [] {
        Tensor::zeros({int64_t{1} << 62, 4}, DType::Int64);
      },
      "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
  expectError([] { Tensor::empty({int64_t{1} << 40, int64_t{1} << 40}, DType::Float32); }, "Storage size calculation overflowed");
  expectError([] { Tensor::empty({-1, 3}, DType::Float32); }, "negative dimension -1");
  // A zero dimension makes an empty tensor whatever the others are.
  EXPECT_EQ(Tensor::empty({0, int64_t{1} << 62}, DType::Float32).numel(), 0);
  EXPECT_EQ(checkedNumel({int64_t{1} << 62, 0, 8}), 0);
  expectError([] { checkedNumel({int64_t{1} << 33, int64_t{1} << 31}); }, "numel: integer multiplication overflow");
}

// Found by tests/fuzz (tensor_fuzzer): an empty tensor may have other dims whose product does not
// fit int64 (PyTorch allows it too); numel(), isContiguous() and the contiguous strides of one
// multiplied them with signed overflow (undefined behaviour, reported by UBSan).
TEST(TensorBounds, EmptyTensorsWithHugeDims) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = Tensor::empty({4, big, 0}, DType::Float32);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_TRUE(t.toDoubles().empty());
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(Tensor::empty({int64_t{1} << 62, 4, 0}, DType::Int64).numel(), 0);
  EXPECT_EQ(Tensor::contiguousStrides({0, int64_t{1} << 62, 4}).size(), 3u);
  EXPECT_EQ(t.view({big, 4, 0}, {0, 0, 0}, 0).numel(), 0);
}

// Found by tests/fuzz (tensor_fuzzer): an empty view skipped every check, so a negative storage
// offset was accepted and data() pointed before the allocation (x.mean_() then computed it).
TEST(TensorBounds, EmptyViewsNeedAValidOffset) {
  Tensor t = Tensor::zeros({4}, DType::Float32);
  EXPECT_NO_THROW(t.view({0}, {1}, 4));
  expectError([&] { t.view({0}, {1}, -3); }, "Tensor: invalid storage offset -3");
  expectError([&] { t.view({0, 5}, {1, 1}, std::numeric_limits<int64_t>::max()); }, "Tensor: invalid storage offset");
}

// Found by tests/fuzz (tensor_fuzzer): storing NaN, an infinity or an out-of-range value into an
// integer tensor was a float-to-int conversion with undefined behaviour. It now gives what
// PyTorch's x86 kernels give: truncation toward zero, and the type's minimum where that is not
// a value of the type.
TEST(TensorBounds, FloatToIntConversionsAreDefined) {
  Tensor f = Tensor::empty({6}, DType::Float64);
  const double values[] = {NAN, INFINITY, -INFINITY, 1e30, 2.9, -2.9};
  for (int i = 0; i < 6; ++i) f.storeAt(i, values[i]);
  const int64_t m64 = std::numeric_limits<int64_t>::min();
  const int32_t m32 = std::numeric_limits<int32_t>::min();
  Tensor i64 = f.to(DType::Int64), i32 = f.to(DType::Int32);
  const int64_t want64[] = {m64, m64, m64, m64, 2, -2};
  const int64_t want32[] = {m32, m32, m32, m32, 2, -2};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(i64.loadIntAt(i), want64[i]) << i;
    EXPECT_EQ(i32.loadIntAt(i), want32[i]) << i;
  }
  EXPECT_EQ(f.loadIntAt(0), m64);
  EXPECT_EQ(truncToInt<int32_t>(3e9), m32);
  EXPECT_EQ(truncToInt<int32_t>(-2147483648.5), m32);
  EXPECT_EQ(truncToInt<int32_t>(2147483647.9), 2147483647);
}

// Found by tests/fuzz (tensor_fuzzer): int64 add, sub, mul and pow overflowed with signed
// overflow (undefined behaviour). They wrap around as PyTorch's integer tensors do.
TEST(TensorBounds, IntegerTensorArithmeticWraps) {
  const int64_t big = int64_t{1} << 62, max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  auto scalar = [](int64_t v) {
    Tensor t = Tensor::empty({}, DType::Int64);
    t.storeIntAt(0, v);
    return ops::Val::of(t);
  };
  ops::EagerDispatcher d;
  EXPECT_EQ(d.call("aten.add.Tensor", {scalar(big), scalar(big)}).t.loadIntAt(0), min);
  EXPECT_EQ(d.call("aten.sub.Tensor", {scalar(min), scalar(1)}).t.loadIntAt(0), max);
  EXPECT_EQ(d.call("aten.mul.Tensor", {scalar(big), scalar(4)}).t.loadIntAt(0), 0);
  EXPECT_EQ(d.call("aten.pow.Tensor_Scalar", {scalar(3), ops::Val::integer(41)}).t.loadIntAt(0), -420491770248316829);
  // ... and so do matmul, sum, prod and cumsum of int64 tensors.
  Tensor v = Tensor::empty({2}, DType::Int64);
  v.storeIntAt(0, big);
  v.storeIntAt(1, big);
  Tensor row = v.view({1, 2}, {2, 1}, 0), col = v.view({2, 1}, {1, 2}, 0);
  EXPECT_EQ(d.call("aten.mm.default", {ops::Val::of(row), ops::Val::of(col)}).t.loadIntAt(0), 0);
  EXPECT_EQ(d.call("aten.sum.default", {ops::Val::of(v)}).t.loadIntAt(0), min);
  EXPECT_EQ(d.call("aten.prod.default", {ops::Val::of(v)}).t.loadIntAt(0), 0);
  EXPECT_EQ(d.call("aten.cumsum.default", {ops::Val::of(v), ops::Val::integer(0)}).t.loadIntAt(1), min);
}

// Found by tests/fuzz (tensor_fuzzer): a size-1 dim may have any stride, and the strided
// iterator stepped one past each dim's end before stepping back, overflowing int64 on such a view.
TEST(TensorBounds, IterationNeverStepsPastADim) {
  Tensor t = Tensor::zeros({4}, DType::Float32);
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor v = t.view({1, 2}, {big, 1}, 2);
  EXPECT_EQ(v.toDoubles().size(), 2u);
  EXPECT_EQ(t.view({2, 1}, {1, big}, 2).contiguous().numel(), 2);
  // diagonal adds the two strides: of a size-1 dim with such a stride, they overflowed.
  ops::EagerDispatcher d;
  Tensor diag = d.call("aten.diagonal.default", {ops::Val::of(t.view({1, 1}, {big, 2}, 3))}).t;
  EXPECT_EQ(diag.numel(), 1);
}

TEST(TensorBounds, ViewsStayInsideTheirStorage) {
  Tensor t = Tensor::zeros({4, 5}, DType::Float32);  // 20 elements, 80 bytes
  EXPECT_NO_THROW(t.view({5, 4}, {1, 5}, 0));        // the transpose reaches element 19
  EXPECT_NO_THROW(t.view({20}, {1}, 0));
  EXPECT_NO_THROW(t.view({3}, {-1}, 2));              // elements 2, 1, 0
  EXPECT_NO_THROW(t.view({0, 100}, {100, 1}, 1000));  // empty: reaches nothing
  EXPECT_NO_THROW(t.view({1000000, 20}, {0, 1}, 0));  // broadcast rows (stride 0)
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({21}, {1}, 0); }, "out of bounds for storage of size 80");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({5}, {1}, 16); }, "out of bounds");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({3}, {-1}, 1); }, "out of bounds");  // would read element -1
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({2}, {1}, -1); }, "out of bounds");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({2, 2}, {int64_t{1} << 62, 1}, 0); }, "out of bounds");
  expectError(
      [] {
        Tensor::zeros({1}, DType::Float32).view({int64_t{1} << 33, int64_t{1} << 31}, {0, 0}, 0);
      },
      "numel: integer multiplication overflow");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({4, 5}, {5}, 0); }, "mismatch in length of strides and shape");
}

TEST(TensorBounds, MemoryLimitIsAnAllocatorError) {
  uint64_t before = memoryLimit();
  setMemoryLimit(uint64_t{1} << 20);
  expectError([] { Tensor::empty({1 << 20}, DType::Float32); },
              "DefaultCPUAllocator: not enough memory: you tried to allocate 4194304 bytes");
  EXPECT_NO_THROW(Tensor::empty({1 << 10}, DType::Float32));
  setMemoryLimit(before);
}

}  // namespace
}  // namespace kiln::tensor
