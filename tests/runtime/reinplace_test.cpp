// Mutated inputs written in place (runtime/reinplace.h): which of a functional graph's mutations
// the kernel computing the new value may write straight into the input.
#include "engine/runtime/reinplace.h"
#include "engine/ir/text.h"
#include "engine/schedule/kernel_builder.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

std::map<int, size_t> inPlace(const std::string& text, const std::vector<std::pair<int, int>>& mutations, ir::Graph& g) {
  g = ir::parseGraph(text);
  return runtime::inPlaceMutations(g, schedule::scheduleGraph(g), mutations);
}

int idOf(const ir::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n.id;
  return -1;
}

// y.copy_(x) and y.add_(x): the kernel reads y (if at all) only at the element it writes.
TEST(Reinplace, PointwiseNewValuesAreWrittenIntoTheInput) {
  ir::Graph g;
  auto copy = inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[64]", arg1_1: "f32[64]"):
        clone: "f32[64]" = torch.ops.aten.clone.default(arg1_1)  # k0
        return (clone,)
)",
                      {{0, 0}}, g);
  EXPECT_EQ(copy, (std::map<int, size_t>{{idOf(g, "clone"), 0}}));
  auto add = inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 8]", arg1_1: "f32[8]"):
        add: "f32[8, 8]" = torch.ops.aten.add.Tensor(arg0_1, arg1_1)  # k0
        mul: "f32[8, 8]" = torch.ops.aten.mul.Tensor(add, 2.0)  # k0
        return (mul, add)
)",
                     {{0, 0}}, g);
  EXPECT_EQ(add, (std::map<int, size_t>{{idOf(g, "mul"), 0}}));
}

// Reading another element of the input (y.copy_(y.t() * 2)), a later step reading its old value, or the
// new value returned twice: the output gets a buffer of its own.
TEST(Reinplace, HazardsKeepAFreshBuffer) {
  ir::Graph g;
  EXPECT_TRUE(inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 8]"):
        permute: "f32[8, 8]" = torch.ops.aten.permute.default(arg0_1, [1, 0])
        mul: "f32[8, 8]" = torch.ops.aten.mul.Tensor(permute, 2.0)  # k0
        return (mul,)
)",
                      {{0, 0}}, g)
                  .empty());
  EXPECT_TRUE(inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[64]"):
        mul: "f32[64]" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)  # k0
        sum_1: "f32[]" = torch.ops.aten.sum.default(arg0_1)
        return (mul, sum_1)
)",
                      {{0, 0}}, g)
                  .empty());
  EXPECT_TRUE(inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[64]"):
        mul: "f32[64]" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)  # k0
        return (mul, mul)
)",
                      {{0, 0}}, g)
                  .empty());
  // No mutation: nothing is written in place.
  EXPECT_TRUE(inPlace(R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[64]"):
        mul: "f32[64]" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)  # k0
        return (mul,)
)",
                      {}, g)
                  .empty());
}

// At the call: the input must hold the output as it is laid out.
TEST(Reinplace, TheInputMustMatchAtTheCall) {
  ir::TensorType t;
  t.dtype = ir::DType::Float32;
  t.sizes = {ir::Dim(4), ir::Dim(6)};
  const tensor::Device cpu = tensor::Device::cpu();
  tensor::Tensor x = tensor::Tensor::zeros({4, 6}, ir::DType::Float32);
  EXPECT_TRUE(runtime::canWriteInto(x, t, cpu));
  EXPECT_FALSE(runtime::canWriteInto(x.view({6, 4}, {1, 6}, 0), t, cpu));  // a transpose's layout
  EXPECT_FALSE(runtime::canWriteInto(tensor::Tensor::zeros({4, 6}, ir::DType::Float64), t, cpu));
  EXPECT_FALSE(runtime::canWriteInto(tensor::Tensor::zeros({4, 7}, ir::DType::Float32), t, cpu));
  EXPECT_FALSE(runtime::canWriteInto(x, t, tensor::Device::cuda(0)));
}

}  // namespace
}  // namespace kiln
