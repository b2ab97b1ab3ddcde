// Graph text as real PyTorch 2.11 writes it in TORCH_TRACE logs (the importer's input): strides
// and devices in types, Sym(...) ints, multi-line signatures with comments, untyped tuple nodes,
// in-place operators, get_attr, layouts/devices as arguments, AOT joint graphs' pytree forms.
#include "engine/ir/text.h"
#include "engine/support/error.h"

#include <gtest/gtest.h>

using namespace kiln;
using namespace kiln::ir;

namespace {

const char* kAotForward = R"GRAPH(class GraphModule(torch.nn.Module):
    def forward(
        self,
        primals_1: "f32[512, 256][256, 1]cuda:0",  # PlainAOTInput(idx=0)
        primals_2: "Sym(s77)",  # PlainAOTInput(idx=1)
        primals_3: "f32[s77, 4*s70**2][4*s70**2, 1]cpu",  # PlainAOTInput(idx=2)
        primals_4: "u8[4][1]cpu",  # PlainAOTInput(idx=3)
    ):
        # No stacktrace found for following nodes
        permute: "f32[256, 512][1, 256]cuda:0" = torch.ops.aten.permute.default(primals_1, [1, 0]);  primals_1 = None
        var_mean = torch.ops.aten.var_mean.correction(permute, [1], correction = 0, keepdim = True)
        getitem: "f32[256, 1][1, 1]cuda:0" = var_mean[0];  var_mean = None
        empty: "f32[4][1]cpu" = torch.ops.aten.empty.memory_format([4], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        _tensor_constant0 = self._tensor_constant0
        primals_2 += 1;  iadd: "Sym(s77 + 1)" = primals_2;  primals_2 = None
        return (
            getitem,  # PlainAOTOutput(idx=0)
            empty,  # SavedForBackwardsAOTOutput(idx=0)
            iadd,
        )
)GRAPH";

const char* kJoint = R"GRAPH(class inner_f(torch.nn.Module):
    def forward(
        self,
        primals,
        tangents,
    ):
        primals_1: "f32[5, 2][2, 1]cpu"  # PlainAOTInput(idx=0)
        tangents_1: "f32[5, 2][2, 1]cpu"  # TangentAOTInput(output=PlainAOTOutput(idx=0))
        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        mul: "f32[5, 2][2, 1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, primals_1);  tangents_1 = primals_1 = None
        return pytree.tree_unflatten([
            mul,  # PlainAOTOutput(idx=0)
            None,  # None
        ], self._out_spec)
)GRAPH";

}  // namespace

TEST(PyTorchForms, AotForwardReadsNodeForNode) {
  Graph g = parseGraph(kAotForward, "aot_forward_graph");
  ASSERT_EQ(g.nodes.size(), 11u);  // 4 inputs, 6 nodes, output
  EXPECT_EQ(g.nodes[0].types.at(0).device, "cuda:0");
  EXPECT_EQ(g.nodes[0].types.at(0).strides.size(), 2u);
  EXPECT_TRUE(g.nodes[1].types.empty());  // Sym(s77)
  EXPECT_EQ(g.nodes[2].types.at(0).sizes.at(1).str(), "4*s70**2");
  ASSERT_EQ(g.nodes[3].types.size(), 1u);  // u8: a Kiln dtype since the narrow integer types
  EXPECT_EQ(g.nodes[3].types.at(0).dtype, DType::UInt8);
  EXPECT_EQ(g.nodes[5].name, "var_mean");
  EXPECT_TRUE(g.nodes[5].types.empty());
  const Node& empty = g.nodes[7];
  ASSERT_EQ(empty.kwargs.size(), 4u);
  EXPECT_EQ(empty.kwargs[1].second.kind, Arg::Kind::Expr);
  EXPECT_EQ(printArg(g, empty.kwargs[2].second), "device(type='cpu')");
  EXPECT_EQ(g.nodes[8].kind, NodeKind::GetAttr);
  EXPECT_EQ(g.nodes[9].target, "_operator.iadd");
  EXPECT_EQ(g.nodes[9].name, "iadd");
  EXPECT_EQ(g.output()->args.at(0).list.size(), 3u);
  // Kiln's printing of it reads back to itself.
  std::string printed = printGraph(g);
  EXPECT_EQ(printGraph(parseGraph(printed)), printed) << printed;
  EXPECT_NE(printed.find("primals_2 += 1;  iadd = primals_2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("_tensor_constant0 = self._tensor_constant0"), std::string::npos) << printed;
}

TEST(PyTorchForms, JointGraphPytreeInputsAndOutputs) {
  Graph g = parseGraph(kJoint, "aot_joint_graph");
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[0].name, "primals_1");
  EXPECT_EQ(g.nodes[0].kind, NodeKind::Placeholder);
  EXPECT_EQ(g.nodes[1].name, "tangents_1");
  EXPECT_EQ(g.nodes[1].types.at(0).sizes.size(), 2u);
  EXPECT_EQ(g.output()->args.at(0).list.size(), 2u);
}

TEST(PyTorchForms, BadFormsStillFailWithLines) {
  for (const char* bad : {
           "def forward(self, x: \"f32[4][1]cpu!\"):\n    return (x,)\n",         // bad device
           "def forward(self, x: \"f32[Max(1, s0]\"):\n    return (x,)\n",        // unbalanced
           "def forward(self, x):\n    x += 1;  iadd = y\n    return (iadd,)\n",  // wrong alias
           "def forward(self, x):\n    y += 1;  iadd = y\n    return (iadd,)\n",  // unknown value
           "def forward(\n    self,\n    x,\n",                                   // never closed
       }) {
    try {
      parseGraph(bad, "t.graph");
      ADD_FAILURE() << "parsed: " << bad;
    } catch (const ParseError& e) { EXPECT_GT(e.where().line, 0) << bad; }
  }
}
