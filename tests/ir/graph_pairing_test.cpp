// ir::pairGraphs: two compilers' graphs of one program paired node by node by op and source
// line (names differ between them), what the fidelity diff and the studio's graph diff show.
#include "engine/ir/graph_pairing.h"
#include "engine/ir/text.h"

#include <gtest/gtest.h>

namespace kiln::ir {
namespace {

// PyTorch's Dynamo graph as its log prints it (strides, device, its own names and symbols).
const char* kTorch = R"G(class GraphModule(torch.nn.Module):
    def forward(self, s77: "Sym(s77)", L_x_: "f32[s77, 4][4, 1]cpu"):
        l_x_ = L_x_

        # File: /home/user/corpus/p.py:20 in forward, code: y = x.relu()
        relu_1: "f32[s77, 4][4, 1]cpu" = l_x_.relu()

        # File: /home/user/corpus/p.py:21 in forward, code: y = y * 2
        mul_3: "f32[s77, 4][4, 1]cpu" = relu_1 * 2;  relu_1 = None

        # File: /home/user/corpus/p.py:22 in forward, code: return y + x
        add: "f32[s77, 4][4, 1]cpu" = mul_3 + l_x_;  mul_3 = l_x_ = None
        return (add,)
)G";

// Kiln's capture of the same script, run from another folder: other names, another symbol,
// the multiplier 3 instead of 2, and an extra op on line 22.
const char* kKiln = R"G(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[s0, 4]"):
        l_x_ = L_x_

        # File: /work/p.py:20 in forward, code: y = x.relu()
        relu: "f32[s0, 4]" = l_x_.relu()

        # File: /work/p.py:21 in forward, code: y = y * 2
        mul: "f32[s0, 4]" = relu * 3;  relu = None

        # File: /work/p.py:22 in forward, code: return y + x
        neg: "f32[s0, 4]" = -l_x_
        add: "f32[s0, 4]" = mul + neg;  mul = neg = None
        return (add,)
)G";

std::string nameOf(const Graph& g, int id) { return g.find(id)->name; }

TEST(GraphPairing, PairsByOpAndSourceLineNotByName) {
  Graph a = parseGraph(kTorch), b = parseGraph(kKiln);
  GraphPairing p = pairGraphs(a, b);
  std::map<std::string, std::string> pairs;
  std::map<std::string, std::vector<std::string>> diffs;
  for (const auto& q : p.pairs) {
    pairs[nameOf(a, q.a)] = nameOf(b, q.b);
    diffs[nameOf(a, q.a)] = q.differences;
  }
  EXPECT_EQ(pairs, (std::map<std::string, std::string>{
                       {"l_x_", "l_x_"}, {"relu_1", "relu"}, {"mul_3", "mul"}, {"add", "add"}, {"output", "output"}}));
  // relu agrees (s77 is s0: symbols pair one to one); mul reads another constant; add reads
  // what Kiln's neg computes instead of the input.
  EXPECT_TRUE(diffs["relu_1"].empty());
  EXPECT_TRUE(diffs["l_x_"].empty());
  EXPECT_EQ(diffs["mul_3"], (std::vector<std::string>{"argument 1 2 vs 3"}));
  EXPECT_EQ(diffs["add"], (std::vector<std::string>{"argument 1 l_x_ vs neg"}));
  EXPECT_TRUE(diffs["output"].empty());
  ASSERT_EQ(p.onlyA.size(), 1u);
  EXPECT_EQ(describeNode(*a.find(p.onlyA[0])), "s77 (input s77)");
  ASSERT_EQ(p.onlyB.size(), 1u);
  EXPECT_EQ(describeNode(*b.find(p.onlyB[0])), "neg (_operator.neg) at p.py:22");
  EXPECT_EQ(p.differing(), 2);
  EXPECT_FALSE(p.complete());
  EXPECT_EQ(p.aToB.at(p.pairs[1].a), p.pairs[1].b);
  EXPECT_EQ(p.bToA.at(p.pairs[1].b), p.pairs[1].a);
}

TEST(GraphPairing, AGraphPairsCompletelyWithItself) {
  Graph a = parseGraph(kKiln);
  GraphPairing p = pairGraphs(a, a);
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.pairs.size(), a.nodes.size());
}

// Same op on another line: paired in order in the second pass, the line listed as the difference;
// a symbol that pairs with two different symbols is a shape difference.
TEST(GraphPairing, LinesAndSymbolsThatDisagree) {
  Graph a = parseGraph(R"G(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[s1, s1]"):
        l_x_ = L_x_
        # File: p.py:5 in f, code: return x.cos()
        cos: "f32[s1, s1]" = l_x_.cos();  l_x_ = None
        return (cos,)
)G");
  Graph b = parseGraph(R"G(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[s0, s2]"):
        l_x_ = L_x_
        # File: p.py:6 in f, code: return x.cos()
        cos: "f32[s0, s2]" = l_x_.cos();  l_x_ = None
        return (cos,)
)G");
  GraphPairing p = pairGraphs(a, b);
  ASSERT_EQ(p.pairs.size(), 3u);
  EXPECT_TRUE(p.onlyA.empty() && p.onlyB.empty());
  EXPECT_EQ(p.pairs[0].differences, (std::vector<std::string>{"type f32[s1, s1] vs f32[s0, s2]"}));
  EXPECT_EQ(p.pairs[1].differences, (std::vector<std::string>{"source line p.py:5 vs p.py:6", "type f32[s1, s1] vs f32[s0, s2]"}));
}

}  // namespace
}  // namespace kiln::ir
