// Empty tensors whose other dims or strides are astronomically large ([2^62, 5, 0], strides near
// 2^62): PyTorch allows them and so does Kiln, since an empty view reaches no memory. The ops
// must neither overflow int64 computing sizes, offsets and counts from them (undefined
// behaviour; found by tests/fuzz, tensor_fuzzer with KILN_FUZZ_HUGE_EMPTY, issue 13) nor walk
// their 2^62 empty rows: they give the empty (or filled) result PyTorch gives, or its error.
#include "engine/ops/op_table.h"
#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/tensor/tensor.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>

namespace kiln::tensor {
namespace {

using ops::Val;

const int64_t kHuge = int64_t{1} << 62;

Val ints(std::vector<int64_t> v) {
  std::vector<Val> items;
  for (auto x : v) items.push_back(Val::integer(x));
  return Val::listOf(std::move(items));
}

void expectError(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const TorchError& e) { EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what(); }
}

// [4, 3, 0] with strides near 2^62: an empty view, so any strides are allowed.
Tensor hugeStrided() {
  Tensor base = Tensor::zeros({1}, DType::Float32);
  return base.view({4, 3, 0}, {kHuge, kHuge / 2, 1}, 0);
}

// c10 checks an empty tensor's contiguous strides: [2, 0, 2^63-1] is made, its transpose made
// contiguous is "Stride calculation overflowed" (PyTorch's own test of it).
TEST(HugeEmpty, ContiguousStridesMustFit) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Tensor x = Tensor::zeros({2, 0, max}, DType::Float32);
  EXPECT_EQ(x.strides(), (Shape{max, max, 1}));
  Tensor t = x.view({0, 2, max}, {max, max, 1}, 0);  // x.transpose(0, 1)
  EXPECT_NO_THROW(t.contiguous());                   // an empty view is contiguous: itself
  ops::EagerDispatcher d;
  expectError([&] { d.call("aten.neg.default", {Val::of(t)}); }, "Stride calculation overflowed");  // a new [0, 2, max]
  expectError([&] { Tensor::empty({5, kHuge, kHuge, 0}, DType::Float32); }, "Stride calculation overflowed");
}

TEST(HugeEmpty, ViewsAndReshapes) {
  ops::EagerDispatcher d;
  Tensor x = Tensor::zeros({kHuge, 5, 0}, DType::Float32);
  // reshape_as / view to the same shape: the numel of the sizes is 0, not a wrapped product.
  EXPECT_EQ(d.call("aten.view.default", {Val::of(x), ints({kHuge, 5, 0})}).t.sizes(), (Shape{kHuge, 5, 0}));
  EXPECT_EQ(d.call("aten.view.default", {Val::of(x), ints({-1})}).t.sizes(), Shape{0});
  // As PyTorch: -1 cannot be inferred beside a 0.
  expectError([&] { d.call("aten.view.default", {Val::of(x), ints({0, -1})}); }, "is invalid for input of size 0");
  // A select / slice offset past int64 is no offset (the view's strides are huge).
  Tensor h = hugeStrided();
  expectError([&] { d.call("aten.select.int", {Val::of(h), Val::integer(0), Val::integer(3)}); }, "invalid storage offset");
  expectError(
      [&] {
        d.call("aten.slice.Tensor", {Val::of(h), Val::integer(1), Val::integer(2), Val::integer(3), Val::integer(1)});
      },
      "invalid storage offset");
  EXPECT_EQ(d.call("aten.select.int", {Val::of(h), Val::integer(1), Val::integer(0)}).t.sizes(), (Shape{4, 0}));
}

// A step near 2^63 overflowed computing the slice's size ((end - start + step - 1) / step).
TEST(HugeEmpty, SliceWithAHugeStep) {
  ops::EagerDispatcher d;
  Tensor x = Tensor::zeros({5}, DType::Int64);
  for (int64_t i = 0; i < 5; ++i) x.storeIntAt(i, 10 + i);
  const int64_t max = std::numeric_limits<int64_t>::max();
  Tensor s = d.call("aten.slice.Tensor", {Val::of(x), Val::integer(0), Val::integer(1), Val::integer(5), Val::integer(max)}).t;
  ASSERT_EQ(s.sizes(), Shape{1});
  EXPECT_EQ(s.loadIntAt(0), 11);
}

TEST(HugeEmpty, ReductionsReadNothing) {
  ops::EagerDispatcher d;
  // Summing away the empty dim of a huge-strided view: zeros of the kept [4, 3], without walking
  // the kept dims' strides.
  Tensor s = d.call("aten.sum.dim_IntList", {Val::of(hugeStrided()), ints({2})}).t;
  ASSERT_EQ(s.sizes(), (Shape{4, 3}));
  for (double v : s.toDoubles()) EXPECT_EQ(v, 0.0);
  // Summing the huge dims away leaves the empty one; keeping them is a storage too large.
  Tensor x = Tensor::zeros({kHuge, 5, 0}, DType::Float32);
  EXPECT_EQ(d.call("aten.sum.dim_IntList", {Val::of(x), ints({0, 1})}).t.sizes(), Shape{0});
  expectError([&] { d.call("aten.sum.dim_IntList", {Val::of(x), ints({2})}); }, "Storage size calculation overflowed");
  EXPECT_EQ(d.call("aten.mean.dim", {Val::of(x), ints({0, 1})}).t.sizes(), Shape{0});
  // argmax over the empty dim of [2^40, 0] is PyTorch's IndexError, before allocating 2^40 results.
  Tensor y = Tensor::zeros({int64_t{1} << 40, 0}, DType::Float32);
  try {
    d.call("aten.argmax.default", {Val::of(y), Val::integer(1), Val::boolean(false)});
    ADD_FAILURE() << "no error";
  } catch (const TorchError& e) {
    EXPECT_EQ(e.type(), "IndexError");
    EXPECT_NE(std::string(e.what()).find("Expected reduction dim 1 to have non-zero size"), std::string::npos) << e.what();
  }
}

// Ops that work row by row along a dim walked every row of an empty tensor: 2^40 of them here.
TEST(HugeEmpty, RowWiseOpsDoNotWalkEmptyRows) {
  ops::EagerDispatcher d;
  Tensor x = Tensor::zeros({int64_t{1} << 40, 0}, DType::Float32);
  EXPECT_EQ(d.call("aten._softmax.default", {Val::of(x), Val::integer(1), Val::boolean(false)}).t.sizes(), (Shape{int64_t{1} << 40, 0}));
  EXPECT_EQ(d.call("aten.cumsum.default", {Val::of(x), Val::integer(1)}).t.sizes(), (Shape{int64_t{1} << 40, 0}));
  Tensor idx = Tensor::zeros({2}, DType::Int64);
  EXPECT_EQ(
      d.call("aten.index_select.default", {Val::of(Tensor::zeros({kHuge, 3, 0}, DType::Float32)), Val::integer(1), Val::of(idx)}).t.sizes(),
      (Shape{kHuge, 2, 0}));
  // bmm walked 2^40 empty batches; argsort sized its line buffer by the 2^40-long sorted dim.
  Tensor a = Tensor::zeros({int64_t{1} << 40, 0, 3}, DType::Float32), b = Tensor::zeros({int64_t{1} << 40, 3, 0}, DType::Float32);
  EXPECT_EQ(d.call("aten.bmm.default", {Val::of(a), Val::of(b)}).t.sizes(), (Shape{int64_t{1} << 40, 0, 0}));
  EXPECT_EQ(d.call("aten.argsort.stable", {Val::of(x), Val::boolean(true), Val::integer(0), Val::boolean(false)}).t.sizes(),
            (Shape{int64_t{1} << 40, 0}));
  // layer_norm over the empty dim keeps one statistic per row: 5 * 2^62 rows cannot exist.
  Tensor y = Tensor::zeros({kHuge, 5, 0}, DType::Float32);
  expectError(
      [&] {
        d.call("aten.native_layer_norm.default", {Val::of(y), ints({0}), Val::none(), Val::none(), Val::real(1e-5)});
      },
      "overflow");
}

TEST(HugeEmpty, OutputSizesAreChecked) {
  ops::EagerDispatcher d;
  Tensor x = Tensor::zeros({kHuge, 0}, DType::Float32);
  // cat: the sizes along the dim add up past int64.
  expectError([&] { d.call("aten.cat.default", {Val::listOf({Val::of(x), Val::of(x)}), Val::integer(0)}); }, "past int64");
  EXPECT_EQ(d.call("aten.cat.default", {Val::listOf({Val::of(x), Val::of(x)}), Val::integer(1)}).t.sizes(), (Shape{kHuge, 0}));
  // convolution: an empty batch of huge images with a huge padding; the output size does not fit.
  Tensor img = Tensor::zeros({0, 1, kHuge, 1}, DType::Float32), w = Tensor::zeros({1, 1, 1, 1}, DType::Float32);
  expectError(
      [&] {
        d.call("aten.convolution.default", {Val::of(img), Val::of(w), Val::none(), ints({1, 1}), ints({kHuge, 0}), ints({1, 1}),
                                            Val::boolean(false), ints({0, 0}), Val::integer(1)});
      },
      "does not fit int64");
  Tensor out = d.call("aten.convolution.default", {Val::of(img), Val::of(w), Val::none(), ints({1, 1}), ints({0, 0}), ints({1, 1}),
                                                   Val::boolean(false), ints({0, 0}), Val::integer(1)})
                   .t;
  EXPECT_EQ(out.sizes(), (Shape{0, 1, kHuge, 1}));
}

// tolist() of an empty tensor walked views at offsets i * stride (past int64 for huge strides)
// and counted only elements against the memory limit, so 2^62 empty lists ran until killed.
TEST(HugeEmpty, TolistOfEmptyTensors) {
  std::ostringstream out;
  py::Interpreter in(out);
  kiln::torchapi::install(in);
  const std::string src =
      "import torch\n"
      "print(torch.zeros(3, 0, 5).tolist(), torch.zeros(2, 3, 0).tolist(), torch.zeros(0).tolist())\n"
      "print(torch.zeros(1).as_strided((4, 0), (2**62, 1)).tolist())\n"
      "try:\n"
      "    torch.zeros(2**62, 5, 0).tolist()\n"
      "except MemoryError:\n"
      "    print('MemoryError')\n";
  in.runModule(py::parseModule(src, "t.py"));
  EXPECT_EQ(out.str(), "[[], [], []] [[[], [], []], [[], [], []]] []\n[[], [], [], []]\nMemoryError\n");
}

// Backward through ops on an empty tensor with a huge other dim computes and allocates nothing:
// softmax's formula summed g * y over dim 1 into 2^40 values (4 TiB) and ran out of memory. The
// gradient of an empty input is empty, as ATen's backward kernels give it.
TEST(HugeEmpty, BackwardOfEmptyInputsComputesNothing) {
  std::ostringstream out;
  py::Interpreter in(out);
  kiln::torchapi::install(in);
  const std::string src =
      "import torch\n"
      "fns = [('softmax', lambda x: torch.softmax(x, 1)), ('log_softmax', lambda x: torch.log_softmax(x, -1)),\n"
      "       ('neg', lambda x: -x), ('exp', lambda x: x.exp() * 2), ('t', lambda x: x.t().relu()),\n"
      "       ('cat', lambda x: torch.cat([x, x], 1)), ('sigmoid', lambda x: torch.sigmoid(x).pow(2))]\n"
      "for name, f in fns:\n"
      "    x = torch.zeros(2**40, 0, requires_grad=True)\n"
      "    f(x).sum().backward()\n"
      "    print(name, tuple(x.grad.shape), x.grad.numel())\n"
      "w = torch.ones(3, requires_grad=True)\n"
      "e = torch.zeros(2**40, 0, 3, requires_grad=True)\n"
      "(torch.softmax(e * w, 1)).sum().backward()\n"
      "print(tuple(e.grad.shape), w.grad.tolist())\n";
  in.runModule(py::parseModule(src, "t.py"));
  EXPECT_EQ(out.str(),
            "softmax (1099511627776, 0) 0\nlog_softmax (1099511627776, 0) 0\nneg (1099511627776, 0) 0\n"
            "exp (1099511627776, 0) 0\nt (1099511627776, 0) 0\ncat (1099511627776, 0) 0\nsigmoid (1099511627776, 0) 0\n"
            "(1099511627776, 0, 3) [0.0, 0.0, 0.0]\n");
}

}  // namespace
}  // namespace kiln::tensor
