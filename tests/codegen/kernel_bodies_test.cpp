// Kernels that are the same code but for names and provenance compile once (kernel_bodies.h):
// they share one entry point, each gives its own right result, and each kernel's texts name its
// own graph nodes; kernels differing in a constant, a size, a stride or a dtype do not share.
#include "engine/codegen/kernel_bodies.h"
#include "engine/codegen/kernel_cache.h"
#include "tests/codegen/jit_test_util.h"

#include <cmath>
#include <regex>

namespace kiln::codegen {
namespace {

// y = exp(x) * C over 64 points, named `name`, with buffers `in`/`out` and provenance nodes
// `node` (load, exp) and `node + 1` (the rest).
std::string scaleKernel(const std::string& name, const std::string& in, const std::string& out, int node, const std::string& c = "3.0",
                        const std::string& size = "64", const std::string& stride = "1", const std::string& outType = "f32") {
  const std::string a = " @" + std::to_string(node), b = " @" + std::to_string(node + 1);
  return "kernel " + name + " pointwise\n  in " + in + ": f32[" + size + "]\n  out " + out + ": " + outType + "[" + size +
         "]\n  loop i0 in 0.." + size + "\n  %0 = load " + in + "[i0*" + stride + "]" + a + "\n  %1 = exp %0" + a + "\n  %2 = const " + c +
         " : f32" + b + "\n  %3 = mul %1, %2" + b + "\n  store " + out + "[i0], %3" + b + "\nend\n";
}

// Compiles without the on-disk cache, so every body is compiled here.
std::shared_ptr<CompiledModule> compileUncached(const std::string& text) {
  KernelCache* before = KernelCache::use(nullptr);
  std::shared_ptr<CompiledModule> m = makeLlvmCpuCompiler()->compile(kir::parseKernels(text), "bodies");
  KernelCache::use(before);
  return m;
}

// Runs kernel i of `m` over 64 points and checks y = exp(x) * c.
void expectScales(const CompiledModule& m, size_t i, float c, float lo) {
  std::vector<float> x = testing::ramp(64, lo, lo + 2), y(64);
  std::vector<void*> b = {x.data(), y.data()};
  m.kernels[i].fn(b.data(), 0, 64);
  for (size_t j = 0; j < 64; ++j) EXPECT_FLOAT_EQ(y[j], std::exp(x[j]) * c) << m.kernels[i].name << " " << j;
}

TEST(KernelBodies, KernelsDifferingOnlyInNamesAndProvenanceCompileOnce) {
  std::shared_ptr<CompiledModule> m =
      compileUncached(scaleKernel("scale_a", "x", "y", 5) + scaleKernel("scale_b", "in_x_7", "out_y_7", 17));
  ASSERT_EQ(m->kernels.size(), 2u);
  EXPECT_EQ(m->bodiesCompiled, 1u);
  EXPECT_EQ(m->kernels[0].fn, m->kernels[1].fn);
  EXPECT_EQ(m->kernels[0].sharesCodeOf, "");
  EXPECT_EQ(m->kernels[1].sharesCodeOf, "scale_a");
  expectScales(*m, 0, 3.0f, -2.0f);
  expectScales(*m, 1, 3.0f, 0.5f);

  // The first kernel's texts are its own; the second's say whose code they are and name its nodes.
  const CompiledKernel& a = m->kernels[0];
  const CompiledKernel& b = m->kernels[1];
  EXPECT_NE(a.llvmIr.find("define void @kiln.scale_a("), std::string::npos) << a.llvmIr;
  EXPECT_NE(a.llvmIr.find("; @5\n"), std::string::npos) << a.llvmIr;
  EXPECT_NE(a.assembly.find("# @6\n"), std::string::npos) << a.assembly;
  EXPECT_EQ(b.llvmIr.rfind("; scale_b runs the code compiled for kernel scale_a: ", 0), 0u) << b.llvmIr;
  EXPECT_EQ(b.assembly.rfind("# scale_b runs the code compiled for kernel scale_a: ", 0), 0u) << b.assembly;
  EXPECT_NE(b.llvmIr.find("; @17\n"), std::string::npos) << b.llvmIr;
  EXPECT_NE(b.assembly.find("# @18\n"), std::string::npos) << b.assembly;
  EXPECT_EQ(b.llvmIr.find("; @5\n"), std::string::npos) << b.llvmIr;
  EXPECT_EQ(b.assembly.find("# @6\n"), std::string::npos) << b.assembly;
  // Apart from the note and the node ids, the texts are the first kernel's.
  auto renamed = [](const std::string& t) {
    return std::regex_replace(std::regex_replace(t, std::regex("([;#] @)5\\b"), "$0117"), std::regex("([;#] @)6\\b"), "$0118");
  };
  EXPECT_EQ(renamed(a.llvmIr), b.llvmIr.substr(b.llvmIr.find('\n') + 1));
  EXPECT_EQ(renamed(a.assembly), b.assembly.substr(b.assembly.find('\n') + 1));
}

TEST(KernelBodies, KernelsDifferingInCodeDoNotShare) {
  struct Variant {
    const char* what;
    std::string text;
  };
  const Variant variants[] = {
      {"a constant", scaleKernel("other", "x", "y", 9, "4.0")},
      {"a size", scaleKernel("other", "x", "y", 9, "3.0", "32")},
      {"a stride", scaleKernel("other", "x", "y", 9, "3.0", "64", "0")},
      {"a dtype", scaleKernel("other", "x", "y", 9, "3.0", "64", "1", "f64")},
  };
  for (const auto& v : variants) {
    SCOPED_TRACE(v.what);
    std::shared_ptr<CompiledModule> m = compileUncached(scaleKernel("scale", "x", "y", 5) + v.text);
    ASSERT_EQ(m->kernels.size(), 2u);
    EXPECT_EQ(m->bodiesCompiled, 2u);
    EXPECT_NE(m->kernels[0].fn, m->kernels[1].fn);
    EXPECT_EQ(m->kernels[1].sharesCodeOf, "");
    expectScales(*m, 0, 3.0f, -2.0f);
  }
  std::shared_ptr<CompiledModule> m = compileUncached(scaleKernel("scale", "x", "y", 5) + scaleKernel("scale4", "x", "y", 5, "4.0"));
  expectScales(*m, 1, 4.0f, -1.0f);
}

TEST(KernelBodies, GroupsByBodyInOrderOfFirstUse) {
  const std::vector<kir::Kernel> ks = kir::parseKernels(scaleKernel("k0", "x", "y", 1) + scaleKernel("k1", "x", "y", 1, "2.0") +
                                                        scaleKernel("k2", "p", "q", 40) + scaleKernel("k3", "x", "y", 7, "2.0"));
  const KernelBodies g = groupByBody(ks);
  EXPECT_EQ(g.first, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(g.bodyOf, (std::vector<size_t>{0, 1, 0, 1}));
  EXPECT_EQ(g.text[0], bodyText(ks[2]));
  EXPECT_EQ(provenanceNodes(ks[2]), (std::vector<int>{40, 41}));
}

TEST(KernelBodies, ProvenanceMarksAreRenumberedAndNothingElse) {
  const std::string text =
      "define void @kiln.k(ptr %a) {\n  %1 = fadd float %0, 1.0 ; @2\n\t# @1\n  call void @7(ptr %a) ; @x\n"
      "  ret void ; @9\n\tmovq %rax, %rbx # @1\n";
  EXPECT_EQ(withProvenance(text, {40, 50}),
            "define void @kiln.k(ptr %a) {\n  %1 = fadd float %0, 1.0 ; @50\n\t# @40\n"
            "  call void @7(ptr %a) ; @x\n  ret void ; @9\n\tmovq %rax, %rbx # @40\n");
}

}  // namespace
}  // namespace kiln::codegen
