// The kernel IR verifier and op table.
#include "engine/kir/kernel_ir.h"
#include "tests/codegen/kernel_builder.h"

#include <gtest/gtest.h>

namespace kiln::kir {
namespace {

using ir::DType;
using testing::KernelBuilder;

TEST(KernelIrOps, NamesRoundTripAndArities) {
  for (int i = 0; i <= static_cast<int>(Op::ReduceMin); ++i) {
    Op op = static_cast<Op>(i), back = Op::Const;
    ASSERT_TRUE(opFromName(opName(op), &back)) << opName(op);
    EXPECT_EQ(back, op);
  }
  EXPECT_FALSE(opFromName("frobnicate", nullptr));
  EXPECT_EQ(opArity(Op::Load), 0);
  EXPECT_EQ(opArity(Op::Store), 1);
  EXPECT_EQ(opArity(Op::Exp), 1);
  EXPECT_EQ(opArity(Op::Mod), 2);
  EXPECT_EQ(opArity(Op::Where), 3);
  EXPECT_EQ(opArity(Op::ReduceMax), 1);
  EXPECT_EQ(opName(Op::ReduceSum), "reduce_sum");
}

KernelBuilder softmaxLike() {
  KernelBuilder b("k", "reduction");
  b.input("x", DType::Float32, {4, 8});
  b.output("y", DType::Float32, {4});
  b.loop("i0", 4);
  b.loop("r0", 8, true);
  return b;
}

TEST(KernelIrVerify, AcceptsWellFormedReduction) {
  KernelBuilder b = softmaxLike();
  int v = b.load(0, KernelBuilder::index({{0, 8}, {1, 1}}));
  int s = b.reduce(Op::ReduceSum, b.unary(Op::Exp, v));
  b.store(1, KernelBuilder::index({{0, 1}}), b.unary(Op::Log, s));
  EXPECT_EQ(verify(b.kernel()), "");
  EXPECT_EQ(b.kernel().pointCount(), 32);
}

// softmax over rows: max (nest 0), sum of exp(x - max) (nest 1), store exp(x - max) / sum
// (nest 2); x and exp(x - max) are recomputed in the nests that need them.
TEST(KernelIrPlace, ChainedReductionsGetOneNestEach) {
  KernelBuilder b("softmax", "reduction");
  b.input("x", DType::Float32, {4, 8});
  b.output("y", DType::Float32, {4, 8});
  b.output("m", DType::Float32, {4});
  b.loop("i0", 4);
  b.loop("r0", 8, true);
  int x = b.load(0, KernelBuilder::index({{0, 8}, {1, 1}}));                    // 0
  int m = b.reduce(Op::ReduceMax, x);                                           // 1
  int e = b.unary(Op::Exp, b.binary(Op::Sub, x, m));                            // 2, 3
  int s = b.reduce(Op::ReduceSum, e);                                           // 4
  b.store(1, KernelBuilder::index({{0, 8}, {1, 1}}), b.binary(Op::Div, e, s));  // 5, 6
  b.store(2, KernelBuilder::index({{0, 1}}), m);                                // 7
  ASSERT_EQ(verify(b.kernel()), "");
  Placement p = place(b.kernel());
  EXPECT_EQ(p.nests, 3);
  EXPECT_EQ(p.nestBody, (std::vector<std::vector<int>>{{0, 1}, {0, 2, 3, 4}, {0, 2, 3, 5, 6}}));
  EXPECT_FALSE(p.inner[7]);
  EXPECT_EQ(p.stage[7], 1);  // the max is stored in the gap after nest 0
  EXPECT_EQ(p.stage[5], 2);
}

// softmax's exp(x - max) is computed in the sum's nest, stored to y there, and the last nest
// divides what it loads back from y: one exp per element instead of two.
TEST(KernelIrReuse, ExpIsStoredOnceAndReloaded) {
  KernelBuilder b("softmax", "reduction");
  b.input("x", DType::Float32, {4, 8});
  b.output("y", DType::Float32, {4, 8});
  b.loop("i0", 4);
  b.loop("r0", 8, true);
  int x = b.load(0, KernelBuilder::index({{0, 8}, {1, 1}}));
  int m = b.reduce(Op::ReduceMax, x);
  int e = b.unary(Op::Exp, b.binary(Op::Sub, x, m));
  int s = b.reduce(Op::ReduceSum, e);
  b.store(1, KernelBuilder::index({{0, 8}, {1, 1}}), b.binary(Op::Div, e, s));
  Kernel k = b.kernel();
  storeOnceReloadLater(k);
  ASSERT_EQ(verify(k), "");
  Placement p = place(k);
  ASSERT_EQ(p.nests, 3);
  auto count = [&](int nest, Op op) {
    int n = 0;
    for (int i : p.nestBody[size_t(nest)]) n += k.body[size_t(i)].op == op;
    return n;
  };
  EXPECT_EQ(count(1, Op::Exp), 1);
  EXPECT_EQ(count(1, Op::Store), 1);  // exp(x - max) into y
  EXPECT_EQ(count(2, Op::Exp), 0);
  EXPECT_EQ(count(2, Op::Load), 1);  // read back from y (x is not needed there any more)
  EXPECT_EQ(count(2, Op::Store), 1);
  // A pointwise kernel or a cheap recomputation is left alone.
  Kernel plain = b.kernel();
  plain.body[3].op = Op::Neg;  // exp -> neg
  Kernel before = plain;
  storeOnceReloadLater(plain);
  EXPECT_EQ(plain, before);
}

TEST(KernelIrPlace, PointwiseKernelHasNoNest) {
  KernelBuilder b("k");
  b.input("x", DType::Float32, {16});
  b.output("y", DType::Float32, {16});
  b.loop("i0", 16);
  b.store(1, KernelBuilder::index({{0, 1}}), b.unary(Op::Exp, b.load(0, KernelBuilder::index({{0, 1}}))));
  Placement p = place(b.kernel());
  EXPECT_EQ(p.nests, 0);
  EXPECT_EQ(p.stage, (std::vector<int>{0, 0, 0}));
}

TEST(KernelIrCollapse, MergesContiguousLoopsAndDropsUnitLoops) {
  KernelBuilder b("k", "reduction");
  b.input("x", DType::Float32, {2, 1, 3, 4, 5});
  b.output("y", DType::Float32, {2, 3});
  b.loop("a", 2);
  b.loop("u", 1);
  b.loop("c", 3);
  b.loop("r", 4, true);
  b.loop("s", 5, true);
  int x = b.load(0, KernelBuilder::index({{0, 60}, {2, 20}, {3, 5}, {4, 1}}));
  b.store(1, KernelBuilder::index({{0, 3}, {2, 1}}), b.reduce(Op::ReduceSum, x));
  Kernel k = b.kernel();
  collapseLoops(k);
  ASSERT_EQ(verify(k), "");
  ASSERT_EQ(k.loops.size(), 2u);
  EXPECT_EQ(k.loops[0], (Loop{.var = "i0", .extent = 6, .reduction = false}));
  EXPECT_EQ(k.loops[1], (Loop{.var = "r0", .extent = 20, .reduction = true}));
  EXPECT_EQ(k.body[0].index, KernelBuilder::index({{0, 20}, {1, 1}}));
  EXPECT_EQ(k.body[2].index, KernelBuilder::index({{0, 1}}));
}

TEST(KernelIrCollapse, KeepsStridedLoopsApart) {
  KernelBuilder b("k");
  b.input("x", DType::Float32, {4, 8});
  b.output("y", DType::Float32, {8, 4});
  b.loop("i0", 8);
  b.loop("i1", 4);
  b.store(1, KernelBuilder::index({{0, 4}, {1, 1}}), b.load(0, KernelBuilder::index({{0, 1}, {1, 8}})));
  Kernel k = b.kernel();
  collapseLoops(k);
  EXPECT_EQ(k.loops.size(), 2u);
}

TEST(KernelIrVerify, RejectsStructuralErrors) {
  {
    KernelBuilder b = softmaxLike();
    b.store(1, KernelBuilder::index({{0, 1}}), 7);
    EXPECT_NE(verify(b.kernel()).find("%7 is not defined"), std::string::npos);
  }
  {
    KernelBuilder b = softmaxLike();
    int v = b.load(0, KernelBuilder::index({{5, 1}}));
    b.store(1, KernelBuilder::index({{0, 1}}), v);
    EXPECT_NE(verify(b.kernel()).find("loop 5"), std::string::npos);
  }
  {
    KernelBuilder b = softmaxLike();
    int v = b.load(0, KernelBuilder::index({{0, 1}}));
    b.store(0, KernelBuilder::index({{0, 1}}), v);
    EXPECT_NE(verify(b.kernel()).find("store to input buffer x"), std::string::npos);
  }
  {
    KernelBuilder b = softmaxLike();
    int v = b.load(0, KernelBuilder::index({{0, 1}}));
    b.kernel().body.back().operands = {v};
    EXPECT_NE(verify(b.kernel()).find("takes 0 operand"), std::string::npos);
  }
  {
    KernelBuilder b("k");
    b.loop("r0", 4, true);
    b.loop("i0", 4);
    EXPECT_NE(verify(b.kernel()).find("nested inside a reduction"), std::string::npos);
  }
  {
    KernelBuilder b("bad name");
    EXPECT_NE(verify(b.kernel()).find("not an identifier"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::kir
