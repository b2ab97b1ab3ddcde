// The kernel IR verifier and op table.
#include "engine/schedule/kernel_ir.h"
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

TEST(KernelIrVerify, RejectsStructuralErrors) {
  {
    KernelBuilder b = softmaxLike();
    int v = b.load(0, KernelBuilder::index({{0, 8}, {1, 1}}));
    int s = b.reduce(Op::ReduceMax, v);
    b.store(1, KernelBuilder::index({{0, 1}}), b.binary(Op::Sub, v, s));
    EXPECT_NE(verify(b.kernel()).find("mixes values of the reduction nest"), std::string::npos);
  }
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
