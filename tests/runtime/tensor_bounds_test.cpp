// The tensor runtime's memory safety: every count is checked, and no view can reach outside
// its storage, whatever sizes, strides and offset it is given (issue 13).
#include "engine/tensor/tensor.h"

#include <gtest/gtest.h>

namespace kiln::tensor {
namespace {

void expectError(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const TorchError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(TensorBounds, ElementAndByteCountsAreChecked) {
  expectError([] { Tensor::zeros({int64_t{1} << 62, 4}, DType::Int64); }, "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
  expectError([] { Tensor::empty({int64_t{1} << 40, int64_t{1} << 40}, DType::Float32); }, "Storage size calculation overflowed");
  expectError([] { Tensor::empty({-1, 3}, DType::Float32); }, "negative dimension -1");
  // A zero dimension makes an empty tensor whatever the others are.
  EXPECT_EQ(Tensor::empty({0, int64_t{1} << 62}, DType::Float32).numel(), 0);
  EXPECT_EQ(checkedNumel({int64_t{1} << 62, 0, 8}), 0);
  expectError([] { checkedNumel({int64_t{1} << 33, int64_t{1} << 31}); }, "numel: integer multiplication overflow");
}

TEST(TensorBounds, ViewsStayInsideTheirStorage) {
  Tensor t = Tensor::zeros({4, 5}, DType::Float32);  // 20 elements, 80 bytes
  EXPECT_NO_THROW(t.view({5, 4}, {1, 5}, 0));          // the transpose reaches element 19
  EXPECT_NO_THROW(t.view({20}, {1}, 0));
  EXPECT_NO_THROW(t.view({3}, {-1}, 2));               // elements 2, 1, 0
  EXPECT_NO_THROW(t.view({0, 100}, {100, 1}, 1000));   // empty: reaches nothing
  EXPECT_NO_THROW(t.view({1000000, 20}, {0, 1}, 0));   // broadcast rows (stride 0)
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({21}, {1}, 0); }, "out of bounds for storage of size 80");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({5}, {1}, 16); }, "out of bounds");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({3}, {-1}, 1); }, "out of bounds");  // would read element -1
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({2}, {1}, -1); }, "out of bounds");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({2, 2}, {int64_t{1} << 62, 1}, 0); }, "out of bounds");
  expectError([] { Tensor::zeros({1}, DType::Float32).view({int64_t{1} << 33, int64_t{1} << 31}, {0, 0}, 0); }, "numel: integer multiplication overflow");
  expectError([] { Tensor::zeros({4, 5}, DType::Float32).view({4, 5}, {5}, 0); }, "mismatch in length of strides and shape");
}

TEST(TensorBounds, MemoryLimitIsAnAllocatorError) {
  uint64_t before = memoryLimit();
  setMemoryLimit(uint64_t{1} << 20);
  expectError([] { Tensor::empty({1 << 20}, DType::Float32); }, "DefaultCPUAllocator: not enough memory: you tried to allocate 4194304 bytes");
  EXPECT_NO_THROW(Tensor::empty({1 << 10}, DType::Float32));
  setMemoryLimit(before);
}

}  // namespace
}  // namespace kiln::tensor
