// LLVM CPU backend: the optimized IR and assembly dumps show vectorized code.
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>

namespace kiln::codegen {
namespace {

using testing::jit;

std::string unary(const char* op) {
  return std::string(
             "kernel k pointwise\n  in x: f32[4096]\n  out y: f32[4096]\n"
             "  loop i0 in 0..4096\n  %0 = load x[i0]\n  %1 = ") +
         op + " %0\n  store y[i0], %1\nend\n";
}

TEST(LlvmDump, MulKernelIsVectorized) {
  auto k = jit(R"(kernel kernel_mul pointwise
  in buf0: f32[4096]
  in buf1: f32[4096]
  out buf2: f32[4096]
  loop i0 in 0..4096
  %0 = load buf0[i0]
  %1 = load buf1[i0]
  %2 = mul %0, %1
  store buf2[i0], %2
end
)");
  const CompiledKernel& ck = k.kernel();
  EXPECT_GT(ck.compileMs, 0.0);
  EXPECT_NE(ck.llvmIr.find("define void @kiln.kernel_mul(ptr"), std::string::npos) << ck.llvmIr;
  EXPECT_NE(ck.llvmIr.find("fmul <"), std::string::npos) << ck.llvmIr;
  // noalias buffers: the vectorizer needs no runtime overlap checks.
  EXPECT_EQ(ck.llvmIr.find("vector.memcheck"), std::string::npos) << ck.llvmIr;
  ASSERT_FALSE(ck.assembly.empty());
  EXPECT_NE(ck.assembly.find("kiln.kernel_mul:"), std::string::npos);
#if defined(__x86_64__)
  EXPECT_NE(ck.assembly.find("mulps"), std::string::npos) << ck.assembly;
#endif
}

// Instructions keep the graph node they came from (@N in kernel IR): `; @N` comments in the
// LLVM IR and `# @N` lines in the assembly, from line-table debug info that is not shown itself.
TEST(LlvmDump, NodeProvenanceReachesIrAndAssembly) {
  auto k = jit(R"(kernel kernel_prov pointwise
  in buf0: f32[4096]
  out buf1: f32[4096]
  loop i0 in 0..4096
  %0 = load buf0[i0] @41
  %1 = exp %0 @41
  %2 = mul %1, %1 @42
  store buf1[i0], %2 @42
end
)");
  const CompiledKernel& ck = k.kernel();
  EXPECT_NE(ck.llvmIr.find(" ; @41"), std::string::npos) << ck.llvmIr;
  EXPECT_NE(ck.llvmIr.find(" ; @42"), std::string::npos) << ck.llvmIr;
  EXPECT_EQ(ck.llvmIr.find("!dbg"), std::string::npos) << ck.llvmIr;
  EXPECT_NE(ck.assembly.find("\t# @42\n"), std::string::npos) << ck.assembly;
  EXPECT_EQ(ck.assembly.find(".loc\t"), std::string::npos) << ck.assembly;
  EXPECT_EQ(ck.assembly.find(".section\t.debug"), std::string::npos) << ck.assembly;
}

TEST(LlvmDump, TranscendentalsUseLibmvecWithAvx2) {
#if defined(__x86_64__) && defined(__linux__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "libmvec needs AVX2 here";
  for (const char* op : {"exp", "log", "sin", "cos", "tanh", "erf"}) {
    auto k = jit(unary(op));
    EXPECT_NE(k.kernel().assembly.find("_ZGV"), std::string::npos) << op << " not vectorized:\n" << k.kernel().llvmIr;
    // With AVX-512 the 16-lane glibc variants ("e") are listed too (llvm_jit.cpp).
    if (__builtin_cpu_supports("avx512f")) {
      EXPECT_NE(k.kernel().assembly.find("_ZGVeN16v_"), std::string::npos) << op << " not 16 lanes wide:\n" << k.kernel().assembly;
    }
  }
#else
  GTEST_SKIP() << "libmvec is x86-64 Linux only";
#endif
}

TEST(LlvmDump, RowSumReductionIsVectorized) {
  auto k = jit(R"(kernel rsum reduction
  in x: f32[64, 1024]
  out s: f32[64]
  loop i0 in 0..64
  loop r0 in 0..1024 reduce
  %0 = load x[i0*1024 + r0]
  %1 = reduce_sum %0
  store s[i0], %1
end
)");
  EXPECT_NE(k.kernel().llvmIr.find("fadd reassoc <"), std::string::npos) << k.kernel().llvmIr;
}

}  // namespace
}  // namespace kiln::codegen
