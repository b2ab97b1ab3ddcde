// The generator: torch.manual_seed + rand/randn/randint/randperm/uniform_/bernoulli_ and the default
// initialization of layers give PyTorch's numbers.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {
#include "tests/nn/reference_values.inc"

TEST(Random, MatchesPyTorchGenerator) {
  Script r(R"(
import torch
torch.manual_seed(0)
a = torch.rand(5)
torch.manual_seed(0)
b = torch.randn(5)
torch.manual_seed(0)
c = torch.randn(20)
torch.manual_seed(0)
d = torch.rand(3, dtype=torch.float64)
torch.manual_seed(0)
e = torch.randint(0, 10, (5,))
torch.manual_seed(1)
f = torch.randn(5, dtype=torch.float64)
torch.manual_seed(3)
g = torch.empty(6).uniform_(-2.0, 3.0)
torch.manual_seed(0)
h = torch.empty(40).bernoulli_(0.3)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), kRand5, 0, 0);  // bit-exact: 24 random bits * 2^-24
  expectNear(r.values("b"), kRandn5, 1e-12, 0);
  // 16 and more elements take the vectorized Box-Muller path (float math: a few ulp).
  expectNear(r.values("c"), kRandn20, 1e-6, 1e-7);
  expectNear(r.values("d"), kRandDouble3, 0, 0);
  expectNear(r.values("e"), kRandint5, 0, 0);
  expectNear(r.values("f"), kRandnDouble5, 1e-14, 1e-15);
  expectNear(r.values("g"), kUniformRange, 1e-7, 1e-7);
  expectNear(r.values("h"), kBern, 0, 0);
}

// torch.randperm: ATen's Fisher-Yates on 32-bit draws. The expected values are what PyTorch 2.11
// printed for the same lines on the GPU machine (CPU generator, 2026-11-26).
TEST(Random, RandpermMatchesPyTorch) {
  Script r(R"(
import torch
torch.manual_seed(0)
a = torch.randperm(10)
b = torch.randperm(5, dtype=torch.float32)
g = torch.Generator().manual_seed(3)
c = torch.randperm(6, generator=g)
e = torch.randperm(0)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), {4, 1, 7, 5, 3, 9, 0, 8, 6, 2}, 0, 0);
  expectNear(r.values("b"), {3, 2, 4, 0, 1}, 0, 0);
  expectNear(r.values("c"), {4, 0, 3, 2, 1, 5}, 0, 0);
  EXPECT_TRUE(r.values("e").empty());
  Script bad("import torch\ntorch.randperm(-1)\n");
  EXPECT_NE(bad.error.find("RuntimeError: n must be non-negative, got-1"), std::string::npos) << bad.error;
}

TEST(Random, DefaultInitialization) {
  Script r(R"(
import torch
import torch.nn as nn
torch.manual_seed(0)
l = nn.Linear(4, 3)
lw, lb = l.weight, l.bias
torch.manual_seed(0)
c = nn.Conv2d(2, 3, 3)
cw, cb = c.weight, c.bias
torch.manual_seed(0)
e = nn.Embedding(5, 4, padding_idx=1)
ew = e.weight
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("lw"), kLinearW, 1e-7, 1e-8);
  expectNear(r.values("lb"), kLinearB, 1e-7, 1e-8);
  expectNear(r.values("cw"), kConvW, 1e-7, 1e-8);
  expectNear(r.values("cb"), kConvB, 1e-7, 1e-8);
  expectNear(r.values("ew"), kEmbW, 1e-6, 1e-7);
}

TEST(Random, SeedResetsTheCachedNormal) {
  Script r(R"(
import torch
torch.manual_seed(5)
a = torch.randn(3, dtype=torch.float64)
torch.manual_seed(5)
b = torch.randn(3, dtype=torch.float64)
torch.manual_seed(5)
c = torch.randn(2, 2)
torch.manual_seed(5)
d = torch.randn_like(c)
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("a"), r.values("b"), 0, 0);
  expectNear(r.values("c"), r.values("d"), 0, 0);
}

}  // namespace
}  // namespace kiln::nntest
