// The graph text form: print -> parse -> print is the identity, on captured (FX torch-level),
// ATen and fused forms, and malformed text is a ParseError with a line number.
#include "engine/ir/text.h"
#include "engine/support/error.h"

#include <gtest/gtest.h>

namespace kiln::ir {
namespace {

const char* kCaptured = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[4096]"):
        l_x_ = L_x_

        # File: seed_mul_add_relu.py:20 in forward, code: x = x * 2
        x: "f32[4096]" = l_x_ * 2;  l_x_ = None

        # File: seed_mul_add_relu.py:21 in forward, code: x = x + 1
        x_1: "f32[4096]" = x + 1;  x = None

        # File: seed_mul_add_relu.py:22 in forward, code: return x.relu()
        relu: "f32[4096]" = x_1.relu();  x_1 = None
        return (relu,)
)";

const char* kAten = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 16]", arg1_1: "i64[16]"):
        # File: t.py:3 in f, code: y = x.to(torch.float64) * -2.5e-07
        convert_element_type: "f64[16, 16]" = torch.ops.prims.convert_element_type.default(arg0_1, torch.float64);  arg0_1 = None
        mul: "f64[16, 16]" = torch.ops.aten.mul.Tensor(convert_element_type, -2.5e-07);  convert_element_type = None
        view: "f64[256]" = torch.ops.aten.view.default(mul, [256]);  mul = None
        where: "f64[256]" = torch.ops.aten.where.self(view, nan, -inf)
        sum_1: "i64[]" = torch.ops.aten.sum.dim_IntList(arg1_1, [0], True);  arg1_1 = None
        return (view, where, sum_1)
)";

const char* kFused = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 16]"):
        # File: seed_exp_log.py:9 in f, code: y = torch.exp(torch.log(x))
        lt: "b8[16, 16]" = torch.ops.aten.lt.Tensor(arg0_1, 0)  # cpp_fused_lt_where_0
        where: "f32[16, 16]" = torch.ops.aten.where.self(lt, nan, arg0_1);  lt = arg0_1 = None  # cpp_fused_lt_where_0
        return (where,)
)";

TEST(GraphText, CapturedRoundTrips) {
  Graph g = parseGraph(kCaptured);
  EXPECT_EQ(printGraph(g), kCaptured);
  ASSERT_EQ(g.placeholders().size(), 1u);
  EXPECT_EQ(g.placeholders()[0]->name, "l_x_");
  EXPECT_EQ(g.placeholders()[0]->target, "L_x_");
  EXPECT_EQ(g.opCount(), 3);
  const Node& mul = g.nodes[1];
  EXPECT_EQ(mul.target, "_operator.mul");
  EXPECT_EQ(mul.prov.loc.line, 20);
  EXPECT_EQ(mul.prov.loc.function, "forward");
  EXPECT_EQ(g.nodes[3].kind, NodeKind::CallMethod);
  EXPECT_EQ(g.nodes[3].target, "relu");
}

TEST(GraphText, AtenRoundTrips) {
  Graph g = parseGraph(kAten);
  EXPECT_EQ(printGraph(g), kAten);
  EXPECT_EQ(g.nodes[2].target, "prims.convert_element_type.default");
  EXPECT_EQ(g.nodes[2].args[1].kind, Arg::Kind::DType);
  EXPECT_DOUBLE_EQ(g.nodes[3].args[1].f, -2.5e-07);
  EXPECT_EQ(g.nodes[4].args[1].kind, Arg::Kind::List);
}

TEST(GraphText, FusedKeepsKernels) {
  Graph g = parseGraph(kFused);
  EXPECT_EQ(printGraph(g), kFused);
  EXPECT_EQ(g.nodes[1].kernel, "cpp_fused_lt_where_0");
}

TEST(GraphText, ErrorsCarryLines) {
  const char* cases[] = {
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = z + 1\n    return (y,)\n",  // unknown value
      "def forward(self, x: \"q32[4]\"):\n    return (x,)\n",                             // bad dtype
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = x +\n    return (y,)\n",    // truncated expr
      "def forward(self, x: \"f32[4]\"):\n    y = x\n",                                   // not a placeholder rename
      "    y: \"f32[4]\" = x + 1\n",                                                      // no def
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x)\n",            // no return
      "def forward(self, x: \"f32[4]\"):\n    nan = x\n    return (nan,)\n",              // a literal word as a name
      "def forward(self, inf: \"f32[4]\"):\n    return (inf,)\n",                         // as an input
      "def forward(self, x: \"f32[4]\"):\n    None: \"f32[4]\" = torch.cos(x)\n    return (None,)\n",
  };
  for (const char* c : cases) {
    try {
      parseGraph(c, "t.graph");
      ADD_FAILURE() << "parsed: " << c;
    } catch (const ParseError& e) {
      EXPECT_GT(e.where().line, 0) << c;
      EXPECT_EQ(e.where().file, "t.graph");
    }
  }
}

// Every prefix and single-character corruption of valid texts must be rejected cleanly or
// parse to something that prints and re-parses (never crash or hang).
TEST(GraphText, MutationsNeverCrash) {
  for (const char* text : {kCaptured, kAten, kFused}) {
    std::string s = text;
    for (size_t i = 0; i < s.size(); i += 3) {
      for (char c : std::string("x(\"[,=#\n 9")) {
        std::string m = s;
        m[i] = c;
        try {
          Graph g = parseGraph(m);
          std::string p = printGraph(g);
          EXPECT_EQ(printGraph(parseGraph(p)), p);
        } catch (const ParseError&) {}
      }
      try {
        parseGraph(s.substr(0, i));
      } catch (const ParseError&) {}
    }
  }
}

// Found by tests/fuzz (graph_text_fuzzer): an argument of deeply nested lists overflowed the
// stack of the recursive parser. Nesting is bounded; the text fails with a ParseError.
TEST(GraphText, DeepListsAreAParseError) {
  std::string deep(100000, '[');
  std::string text = "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x, " + deep + ")\n    return (y,)\n";
  EXPECT_THROW(parseGraph(text), ParseError);
  std::string ok = "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = torch.cos(x, " + std::string(50, '[') + std::string(50, ']') +
                   ")\n    return (y,)\n";
  EXPECT_NO_THROW(parseGraph(ok));
}

// Found by tests/fuzz (graph_text_fuzzer, KILN_FUZZ_ROUNDTRIP): `add.Tensor(x)` is a function
// call where no value is named `add` yet and a method call on `add` once one is; a value named so
// later (a node, or an input renamed to it) made the printed text read back as the other kind.
// Such texts are refused; FX never names a value like the head of a call target.
TEST(GraphText, CallTargetNamedLikeAValueIsRefused) {
  const char* refused[] = {
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = add.Tensor(x, 1)\n    add: \"f32[4]\" = y + 1\n    return (add,)\n",
      "def forward(self, x: \"f32[4]\"):\n    y: \"f32[4]\" = add.Tensor(x, 1)\n    add = x\n    return (y,)\n",
      "def forward(self, torch: \"f32[4]\"):\n    y: \"f32[4]\" = torch.ops.aten.cos.default(torch)\n    return (y,)\n",
  };
  for (const char* c : refused) {
    try {
      parseGraph(c, "t.graph");
      ADD_FAILURE() << "parsed: " << c;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("would read back as a method call"), std::string::npos) << e.what();
    }
  }
  // A method call on a value made before stays one and round-trips, text and structure.
  const std::string method =
      "def forward(self, x: \"f32[4]\"):\n    add: \"f32[4]\" = x + 1\n    y: \"f32[4]\" = add.Tensor(x)\n    return (y,)\n";
  Graph g = parseGraph(method);
  ASSERT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.nodes[2].kind, NodeKind::CallMethod);
  EXPECT_EQ(g.nodes[2].target, "Tensor");
  std::string once = printGraph(g);
  Graph back = parseGraph(once);
  EXPECT_EQ(printGraph(back), once);
  EXPECT_EQ(back.nodes[2].kind, NodeKind::CallMethod);
  EXPECT_EQ(back.nodes[2].args.size(), g.nodes[2].args.size());
  // An aten target prints as torch.ops.aten.*, so a value named `aten` is no clash.
  EXPECT_NO_THROW(
      parseGraph("def forward(self, aten: \"f32[4]\"):\n    y: \"f32[4]\" = torch.ops.aten.cos.default(aten)\n    return (y,)\n"));
}

}  // namespace
}  // namespace kiln::ir
