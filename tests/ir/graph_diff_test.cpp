// ir::diffGraphs: what the studio's stepper colours between two stages.
#include "engine/ir/graph_diff.h"
#include "engine/ir/text.h"

#include <gtest/gtest.h>

namespace kiln::ir {
namespace {

const char* kBefore = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8]"):
        log: "f32[8]" = torch.ops.aten.log.default(arg0_1)
        exp: "f32[8]" = torch.ops.aten.exp.default(log);  log = None
        mul: "f32[8]" = torch.ops.aten.mul.Tensor(exp, 2);  exp = None
        return (mul,)
)";

const char* kAfter = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[8]"):
        lt: "b8[8]" = torch.ops.aten.lt.Scalar(arg0_1, 0)
        where: "f32[8]" = torch.ops.aten.where.self(lt, nan, arg0_1);  lt = None
        mul: "f32[8]" = torch.ops.aten.mul.Tensor(where, 2);  where = None
        return (mul,)
)";

std::vector<std::string> names(const Graph& g, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(g.find(id)->name);
  return out;
}

TEST(GraphDiff, AddedChangedAndRemovedByName) {
  Graph before = parseGraph(kBefore), after = parseGraph(kAfter);
  GraphChanges c = diffGraphs(before, after);
  EXPECT_EQ(names(after, c.added), (std::vector<std::string>{"lt", "where"}));
  EXPECT_EQ(names(after, c.changed), (std::vector<std::string>{"mul"}));  // now reads where
  EXPECT_EQ(c.removed, (std::vector<std::string>{"log", "exp"}));
}

TEST(GraphDiff, IdenticalGraphsHaveNoChanges) {
  Graph g = parseGraph(kBefore);
  EXPECT_TRUE(diffGraphs(g, g).empty());
}

}  // namespace
}  // namespace kiln::ir
