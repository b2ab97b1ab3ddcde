// Kernel IR text form: canonical printing and exact round trips.
#include "engine/kir/kernel_ir.h"
#include "engine/support/error.h"
#include "tests/codegen/kernel_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln::kir {
namespace {

using ir::DType;
using testing::KernelBuilder;

// The example from the kernel_ir.h header comment.
constexpr const char* kHeaderExample = R"(kernel kernel_0 pointwise
  in buf0: f32[4096]
  out buf1: f32[4096]
  loop i0 in 0..4096
  %0 = load buf0[i0]
  %1 = const 2.0 : f32
  %2 = mul %0, %1
  store buf1[i0], %2
end
)";

void expectRoundTrip(const Kernel& k) {
  ASSERT_EQ(verify(k), "");
  std::string text = print(k);
  Kernel back = parseKernel(text);
  EXPECT_EQ(back, k) << text;
  EXPECT_EQ(print(back), text);
}

Kernel rowSum() {
  KernelBuilder b("kernel_3", "reduction");
  int x = b.input("buf0", DType::Float32, {8, 32});
  int out = b.output("buf1", DType::Float64, {8});
  int i0 = b.loop("i0", 8);
  int r0 = b.loop("r0", 32, true);
  int v = b.load(x, KernelBuilder::index({{i0, 32}, {r0, 1}}));
  int c = b.cast(v, DType::Float64);
  int s = b.reduce(Op::ReduceSum, c);
  int m = b.reduce(Op::ReduceMax, c);
  int d = b.binary(Op::Sub, m, s);
  b.store(out, KernelBuilder::index({{i0, 1}}), d);
  b.kernel().sourceNodes = {3, 4, 5};
  return b.kernel();
}

TEST(KernelIrText, HeaderExampleIsCanonical) {
  Kernel k = parseKernel(kHeaderExample);
  EXPECT_EQ(print(k), kHeaderExample);
  EXPECT_EQ(verify(k), "");
  ASSERT_EQ(k.body.size(), 4u);
  EXPECT_EQ(k.body[2].op, Op::Mul);
  EXPECT_EQ(k.body[1].constant, 2.0);
  EXPECT_EQ(k.body[3].id, -1);
  EXPECT_EQ(k.pointCount(), 4096);
}

TEST(KernelIrText, ReductionPrintsReduceLoopAndNodes) {
  Kernel k = rowSum();
  std::string text = print(k);
  EXPECT_NE(text.find("  nodes 3, 4, 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  loop r0 in 0..32 reduce\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%0 = load buf0[i0*32 + r0]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%1 = cast %0 : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%2 = reduce_sum %1\n"), std::string::npos) << text;
  expectRoundTrip(k);
}

TEST(KernelIrText, IndexExpressions) {
  KernelBuilder b("k");
  int x = b.input("buf0", DType::Float32, {64});
  int y = b.output("buf1", DType::Float32, {64});
  int i0 = b.loop("i0", 4), i1 = b.loop("i1", 16);
  int a = b.load(x, KernelBuilder::index({{i0, 32}, {i1, 1}}, 5));
  int c = b.load(x, KernelBuilder::index({}));
  int d = b.load(x, KernelBuilder::index({{i0, -1}, {i1, 0}}, 7));
  int e = b.load(x, KernelBuilder::index({{i1, -16}}, -3));
  int f = b.load(x, KernelBuilder::index({}, std::numeric_limits<int64_t>::min()));
  int g = b.load(x, KernelBuilder::index({{i0, std::numeric_limits<int64_t>::min()}}, -1));
  (void)a, (void)c, (void)d, (void)e, (void)f;
  b.store(y, KernelBuilder::index({{i0, 16}, {i1, 1}}), g);
  std::string text = print(b.kernel());
  EXPECT_NE(text.find("load buf0[i0*32 + i1 + 5]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load buf0[0]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load buf0[-i0 + i1*0 + 7]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load buf0[-i1*16 - 3]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load buf0[-9223372036854775808]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("load buf0[-i0*9223372036854775808 - 1]\n"), std::string::npos) << text;
  expectRoundTrip(b.kernel());
}

// Instructions name the graph node they come from as a trailing @N, which parses back; an
// inout buffer (in-place reuse) too.
TEST(KernelIrText, ProvenanceAndInoutBuffersRoundTrip) {
  const char* text =
      "kernel k pointwise\n"
      "  inout in_out_x: f32[8]\n"
      "  loop i0 in 0..8\n"
      "  %0 = load in_out_x[i0] @12\n"
      "  %1 = exp %0 @13\n"
      "  store in_out_x[i0], %1 @13\n"
      "end\n";
  Kernel k = parseKernel(text);
  ASSERT_EQ(k.body.size(), 3u);
  EXPECT_EQ(k.body[0].node, 12);
  EXPECT_EQ(k.body[2].node, 13);
  EXPECT_TRUE(k.buffers[0].inOut && k.buffers[0].output);
  EXPECT_EQ(print(k), text);
  EXPECT_EQ(verify(k), "");
  EXPECT_THROW(parseKernel(std::string(text).replace(std::string(text).find("@12"), 3, "@x")), ParseError);
}

TEST(KernelIrText, ConstantsAreShortAndExact) {
  const double values[] = {2.0,
                           0.1,
                           -0.5,
                           1e20,
                           1e-300,
                           5e-324,
                           1.0 / 3,
                           123456789.0,
                           -0.0,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           3.4028234663852886e38};
  KernelBuilder b("consts");
  int y = b.output("buf0", DType::Float64, {});
  int acc = b.constant(0.0, DType::Float64);
  for (double v : values) acc = b.binary(Op::Add, acc, b.constant(v, DType::Float64));
  int n = b.constant(-7, DType::Int64);
  int t = b.constant(1, DType::Bool);
  int w = b.where(t, b.cast(n, DType::Float64), acc);
  b.store(y, KernelBuilder::index({}), w);
  std::string text = print(b.kernel());
  EXPECT_NE(text.find("const 2.0 : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const 0.1 : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const 1e+20 : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const -0.0 : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const -inf : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const -7 : i64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("const 1 : b8\n"), std::string::npos) << text;
  expectRoundTrip(b.kernel());
  Kernel back = parseKernel(text);
  EXPECT_TRUE(std::signbit(back.body[17].constant));  // -0.0 keeps its sign
}

TEST(KernelIrText, NanConstantPrintsStably) {
  KernelBuilder b("nan");
  int y = b.output("buf0", DType::Float32, {});
  b.store(y, KernelBuilder::index({}), b.constant(std::nan(""), DType::Float32));
  std::string text = print(b.kernel());
  EXPECT_NE(text.find("const nan : f32"), std::string::npos);
  EXPECT_TRUE(std::isnan(parseKernel(text).body[0].constant));
  EXPECT_EQ(print(parseKernel(text)), text);
}

TEST(KernelIrText, CastsComparisonsAndExplicitTypes) {
  KernelBuilder b("casts");
  int x = b.input("x", DType::Float32, {16});
  int m = b.input("m", DType::Bool, {16});
  int y = b.output("y", DType::Int32, {16});
  int z = b.output("z", DType::Float32, {16});
  int i0 = b.loop("i0", 16);
  auto at = KernelBuilder::index({{i0, 1}});
  int v = b.load(x, at);
  int mk = b.load(m, at);
  int gt = b.binary(Op::Gt, v, b.constant(0.5, DType::Float32));
  int both = b.binary(Op::And, gt, mk);
  int ci = b.cast(v, DType::Int32);
  int sel = b.where(both, ci, b.constant(-1, DType::Int32));
  b.store(y, at, sel);
  // A load read as f64 and a store whose dtype differs from its buffer spell their type.
  Instr ld;
  ld.id = 100;
  ld.op = Op::Load;
  ld.buffer = x;
  ld.index = at;
  ld.dtype = DType::Float64;
  b.kernel().body.push_back(ld);
  Instr st;
  st.op = Op::Store;
  st.operands = {100};
  st.buffer = z;
  st.index = at;
  st.dtype = DType::Float64;
  b.kernel().body.push_back(st);
  std::string text = print(b.kernel());
  EXPECT_NE(text.find("%3 = gt %0, %2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("%100 = load x[i0] : f64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("store z[i0], %100 : f64\n"), std::string::npos) << text;
  expectRoundTrip(b.kernel());
}

TEST(KernelIrText, SeveralKernels) {
  std::vector<Kernel> ks = {parseKernel(kHeaderExample), rowSum()};
  std::string text = print(ks);
  EXPECT_EQ(parseKernels(text), ks);
  EXPECT_EQ(print(parseKernels(text)), text);
  EXPECT_TRUE(parseKernels("").empty());
  EXPECT_TRUE(parseKernels("\n\n# only a comment\n").empty());
  EXPECT_THROW(parseKernel(text), ParseError);  // two kernels where one was expected
}

TEST(KernelIrText, ToleratesCommentsBlankLinesAndCrLf) {
  std::string text =
      "# leading comment\r\nkernel k pointwise   # trailing\r\n\r\n"
      "  out b: f32[]\r\n  %0 = const 1 : f32\r\n  store b[0], %0\r\nend";
  Kernel k = parseKernel(text);
  EXPECT_EQ(k.body.size(), 2u);
  EXPECT_EQ(print(k),
            "kernel k pointwise\n  out b: f32[]\n  %0 = const 1.0 : f32\n"
            "  store b[0], %0\nend\n");
}

struct BadText {
  const char* text;
  int line, col;
  const char* message;
};

TEST(KernelIrText, ParseErrorsCarryLineAndColumn) {
  const BadText cases[] = {
      {"kernel k pointwise\n  in b: f32[4\nend\n", 2, 14, "expected ']'"},
      {"kernel k pointwise\n  in b: f99[4]\nend\n", 2, 9, "unknown dtype 'f99'"},
      {"kernel k pointwise\n  out b: f32[4]\n  store b[j0], %0\nend\n", 3, 11, "unknown loop variable 'j0'"},
      {"kernel k pointwise\n  out b: f32[4]\n  %0 = const 1 : f32\n  store b[0], %1\nend\n", 4, 15, "%1 is not defined"},
      {"kernel k pointwise\n  %0 = frobnicate %1\nend\n", 2, 8, "unknown op 'frobnicate'"},
      {"kernel k pointwise\n  loop i0 in 1..4\nend\n", 2, 14, "loops start at 0"},
      {"kernel k pointwise\n  in b: f32[4]\n  in b: f32[4]\nend\n", 3, 6, "already declared"},
      {"kernel k pointwise\n  out b: f32[4]\n  %0 = const 1e999 : f32\nend\n", 3, 14, "number out of range"},
      {"kernel k pointwise\n  out b: f32[99999999999999999999]\nend\n", 2, 14, "integer out of range"},
      {"kernel k pointwise\n  in b: f32[4] $\nend\n", 2, 16, "unexpected character '$'"},
      {"kernel k pointwise\n  in b: f32[4]\n", 3, 1, "expected 'end', got end of input"},
      {"kernel k\n", 1, 9, "expected a kernel kind"},
  };
  for (const auto& c : cases) {
    try {
      parseKernel(c.text);
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.where().line, c.line) << e.what();
      EXPECT_EQ(e.where().col, c.col) << e.what();
      std::string prefix = std::to_string(c.line) + ":" + std::to_string(c.col) + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::kir

namespace kiln::kir {
namespace {

// Dynamic shapes: extents, coefficients, buffer dims and constants may be size expressions;
// the text form reads them back, and the verifier rejects anything else where one stands.
TEST(KernelIrText, SizeExpressionsRoundTrip) {
  constexpr const char* kText = R"(kernel k_dyn reduction
  in x: f32[s0, 16*s1]
  out y: f32[s0]
  loop i0 in 0..s0
  loop r0 in 0..16*s1 reduce
  %0 = load x[i0*16*s1 + r0]
  %1 = cast %0 : f64
  %2 = reduce_sum %1
  %3 = const 16*s1 : f64
  %4 = div %2, %3
  store y[i0], %4
end
)";
  Kernel k = parseKernel(kText);
  EXPECT_EQ(verify(k), "");
  EXPECT_TRUE(k.symbolic());
  EXPECT_EQ(k.loops[1].extentSym, "16*s1");
  EXPECT_EQ(k.body[0].index.terms[0].coeffSym, "16*s1");
  EXPECT_EQ(k.buffers[0].shapeSym, (std::vector<std::string>{"s0", "16*s1"}));
  EXPECT_EQ(print(k), kText);
  EXPECT_EQ(k.pointCountAt({3, 2}), 3 * 32);
  Kernel bad = k;
  bad.loops[0].extentSym = "s0+1";
  EXPECT_NE(verify(bad).find("is not a size expression"), std::string::npos);
  // A loop variable is not a size symbol.
  EXPECT_THROW(parseKernel("kernel k pointwise\n  in x: f32[i0]\n  loop i0 in 0..4\nend\n"), ParseError);
  // A size expression coefficient cannot be negative; names must not read as size symbols.
  EXPECT_THROW(parseKernel("kernel k pointwise\n  in x: f32[s0]\n  out y: f32[s0]\n  loop i0 in 0..s0\n"
                           "  %0 = load x[-i0*16*s0]\n  store y[i0], %0\nend\n"),
               ParseError);
  Kernel named = k;
  named.buffers[0].name = "s1";
  EXPECT_NE(verify(named).find("reads as a size symbol"), std::string::npos);
}

// A load indexed by a reduction loop through a size expression runs inside the reduction nest,
// also when read from text (no hint): x.sum(0) over [s0, s1].
TEST(KernelIrText, SymbolicCoefficientPlacesLoadInTheNest) {
  Kernel k = parseKernel(R"(kernel colsum reduction
  in x: f32[s0, s1]
  out y: f32[s1]
  loop i0 in 0..s1
  loop r0 in 0..s0 reduce
  %0 = load x[i0 + r0*s1]
  %1 = reduce_sum %0
  store y[i0], %1
end
)");
  Placement p = place(k);
  EXPECT_TRUE(p.inner[0]);
  EXPECT_EQ(p.nests, 1);
}

}  // namespace
}  // namespace kiln::kir
