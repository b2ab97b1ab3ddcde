// In-place methods and augmented assignment: writes go through views into shared storage,
// with PyTorch's broadcasting, dtype and leaf rules.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {

TEST(Inplace, WritesThroughViews) {
  Script r(R"(
import torch
a = torch.zeros(2, 3)
row = a[1]
row.add_(torch.tensor([1.0, 2.0, 3.0]), alpha=2)
a[0].fill_(7)
col = a[:, 2]
col.mul_(10)
same = row.sub_(1) is row
b = torch.ones(2, 3, dtype=torch.float64)
b.copy_(torch.tensor([1, 2, 3]))
c = torch.arange(6.0).reshape(2, 3)
c.clamp_(min=1.0, max=4.0)
d = torch.arange(4.0)
d.masked_fill_(d > 1.5, -1.0)
e = torch.ones(3)
e.addcmul_(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 2.0, 2.0]), value=0.5)
e.addcdiv_(torch.tensor([3.0, 3.0, 3.0]), torch.tensor([1.0, 2.0, 4.0]), value=-1)
f = torch.full((2,), 3.0)
g = f
f += torch.tensor(1.0)
f *= 2
alias = g is f
f.zero_()
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), {7, 7, 70, 1, 3, 59});
  expectNear(r.values("same"), {1});
  expectNear(r.values("b"), {1, 2, 3, 1, 2, 3});
  expectNear(r.values("c"), {1, 1, 2, 3, 4, 4});
  expectNear(r.values("d"), {0, 1, -1, -1});
  expectNear(r.values("e"), {-1, 1.5, 3.25});
  expectNear(r.values("alias"), {1});
  expectNear(r.values("f"), {0, 0});
  expectNear(r.values("g"), {0, 0});
}

TEST(Inplace, Errors) {
  EXPECT_EQ(Script("import torch\nx = torch.ones(3, requires_grad=True)\nx.add_(1)").error,
            "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(Script("import torch\nx = torch.ones(3, dtype=torch.int64)\nx += 1.5").error,
            "RuntimeError: result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(Script("import torch\nx = torch.ones(3)\nx.add_(torch.ones(2, 3))").error,
            "RuntimeError: output with shape [3] doesn't match the broadcast shape [2, 3]");
  // Under no_grad a leaf may be updated in place (what optimizers do).
  Script ok("import torch\nx = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    x -= 0.5\ny = x.detach()");
  EXPECT_EQ(ok.error, "");
  expectNear(ok.values("y"), {0.5, 0.5, 0.5});
}

TEST(Inplace, RebasesHistory) {
  // y = 2x; y += x*x; d(sum y)/dx = 2 + 2x
  Script r(R"(
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y += x * x
y.sum().backward()
g = x.grad
z = x * 1
z.zero_()
z.sum().backward()
g2 = x.grad
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("g"), {4, 6, 8});
  expectNear(r.values("g2"), {4, 6, 8});  // zero_ cuts the gradient: nothing added
}

}  // namespace
}  // namespace kiln::nntest
