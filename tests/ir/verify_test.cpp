#include "engine/ir/verify.h"
#include "engine/ir/text.h"

#include <gtest/gtest.h>

namespace kiln::ir {
namespace {

TEST(Verify, AcceptsParsedGraph) {
  Graph g = parseGraph("def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x)\n    return (y,)\n");
  EXPECT_EQ(verify(g), "");
}

TEST(Verify, RejectsUseBeforeDefinition) {
  Graph g = parseGraph(
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x)\n    z: \"f32[4]\" = torch.sin(y)\n    return (z,)\n");
  std::swap(g.nodes[1], g.nodes[2]);
  EXPECT_NE(verify(g).find("before it is defined"), std::string::npos);
}

TEST(Verify, RejectsMissingOutputAndDuplicates) {
  Graph g = parseGraph("def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x)\n    return (y,)\n");
  Graph noOut = g;
  noOut.nodes.pop_back();
  EXPECT_NE(verify(noOut), "");
  Graph dup = g;
  dup.nodes[1].name = "x";
  EXPECT_NE(verify(dup).find("duplicate"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ir
