// The generator: torch.manual_seed + rand/randn/randint/randperm/uniform_/bernoulli_ and the default
// initialization of layers give PyTorch's numbers.
#include "tests/nn/nn_test_util.h"

#include <algorithm>

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

// Tensor.random_() without bounds and DataLoader's shuffle, against PyTorch 2.11 (printed on the
// GPU machine by the same script): the int64 draw is a 64-bit draw mod 2^63, and RandomSampler
// seeds a fresh generator from such a draw after iter(loader) drew the workers' base seed.
TEST(Random, UnboundedRandomAndDataLoaderShuffleMatchPyTorch) {
  Script r(R"(
import torch
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
print(torch.empty((), dtype=torch.int64).random_().item())
g = torch.Generator()
g.manual_seed(5)
print(torch.empty((3,), dtype=torch.int64).random_(generator=g).tolist(), torch.empty((2,)).random_().tolist(),
      torch.empty((2,), dtype=torch.int32).random_().tolist(), torch.empty((3,), dtype=torch.bool).random_().tolist())
torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.arange(10)), batch_size=4, shuffle=True)
it = iter(loader)
first = next(it)[0].tolist()
rest = [b[0].tolist() for b in it]
after = torch.randint(0, 1000, (2,)).tolist()
)");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.out.str().substr(0, r.out.str().find('\n', r.out.str().find('\n') + 1) + 1),
            "900450186894289455\n[4095051218741643470, 6838803925648402109, 3813295331020233846] [1484222.0, 2214888.0] "
            "[441365315, 1537364731] [True, True, True]\n");
  // The shuffle: every index once, in batches of 4, 4, 2; and it moved the default generator
  // (two int64 draws) as PyTorch's does, so what the script draws next differs from a run
  // without the loader.
  std::vector<double> all = r.values("first");
  ASSERT_EQ(all.size(), 4u);
  py::Value rest = r.var("rest");
  ASSERT_TRUE(rest);
  std::vector<py::Value> batches = r.in->iterate(rest);
  ASSERT_EQ(batches.size(), 2u);
  for (const auto& b : batches)
    for (const auto& x : r.in->iterate(b)) all.push_back(double(py::as<py::IntObj>(x)->small()));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Script plain(R"(
import torch
torch.manual_seed(0)
after = torch.randint(0, 1000, (2,)).tolist()
)");
  EXPECT_NE(r.values("after"), plain.values("after"));
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
