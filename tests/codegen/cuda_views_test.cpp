// What the GPU would run, made without a GPU (engine/codegen/cuda/cuda_views.h): PTX with `.loc`
// lines that point at the right CUDA lines, the cubin's resource figures from ptxas, SASS with line
// info when nvdisasm is installed. Needs NVRTC (skips and says so without it), never a device.
#include "engine/codegen/cuda/cuda_views.h"
#include "engine/codegen/cuda/cuda_toolchain.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace kiln::codegen::cuda {
namespace {

// The fused pointwise kernel of examples/mul_add_relu.py (kiln show --stage kernels).
const char* kFused = R"(kernel fused_mul_add_relu_sin_0 pointwise
  nodes 1, 2, 3, 4, 12, 13, 7, 8, 9, 10
  in x: f32[64, 64]
  out y: f32[64, 64]
  loop i0 in 0..4096
  %0 = load x[i0] @1
  %1 = const 2.0 : f32 @1
  %2 = mul %0, %1 @1
  %3 = const 1.0 : f32 @2
  %4 = add %2, %3 @2
  %5 = const 0.0 : f32 @3
  %6 = max %4, %5 @3
  %7 = const 0.5 : f32 @4
  %8 = add %6, %7 @4
  %9 = lt %8, %5 @12
  %10 = const nan : f32 @13
  %11 = where %9, %10, %8 @13
  %12 = sin %11 @7
  %13 = mul %12, %7 @8
  %14 = cos %11 @9
  %15 = add %13, %14 @10
  store y[i0], %15 @10
end
)";

// A row softmax over 4096 columns: the block schedule, with shared memory for the combine.
const char* kSoftmax = R"(kernel softmax_rows reduction
  in x: f32[8, 4096]
  out y: f32[8, 4096]
  loop i0 in 0..8
  loop r0 in 0..4096 reduce
  %0 = load x[i0*4096 + r0] @1
  %1 = reduce_max %0 @2
  %2 = sub %0, %1 @3
  %3 = exp %2 @4
  %4 = reduce_sum %3 @5
  %5 = div %3, %4 @6
  store y[i0*4096 + r0], %5 @6
end
)";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool haveNvrtc() { return Nvrtc::instance(nullptr) != nullptr; }

// Every annotated line-info line names a line of the kernel's CUDA source, and the node it names
// is the one that CUDA line names.
void expectAnnotationsMatchSource(const std::string& text, const std::string& source, const char* what) {
  const std::vector<std::string> src = lines(source);
  static const std::regex note(R"(// cuda line (\d+)(?: @(\d+))?$)");
  int annotated = 0;
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (!std::regex_search(l, m, note)) continue;
    ++annotated;
    const size_t k = std::stoul(m[1]);
    ASSERT_GE(k, 1u) << l;
    ASSERT_LE(k, src.size()) << what << ": " << l;
    if (m[2].matched) {
      EXPECT_NE(src[k - 1].find("// @" + std::string(m[2])), std::string::npos) << what << ": " << l << " -> " << src[k - 1];
    }
  }
  EXPECT_GT(annotated, 0) << what << " has no line info mapped to the kernel:\n" << text;
}

TEST(CudaViews, PtxLocLinesMapToTheFusedKernelsCudaLines) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found: nothing to compile with";
  const kir::Kernel k = kir::parseKernel(kFused);
  const CudaViews v = cudaViews({k}, CudaViewOptions{"sm_90", 132, nullptr});
  ASSERT_EQ(v.kernels.size(), 1u);
  const CudaKernelView& kv = v.kernels[0];
  EXPECT_EQ(v.arch, "sm_90");
  EXPECT_EQ(kv.symbol, "kiln_fused_mul_add_relu_sin_0");
  EXPECT_EQ(kv.source.rfind("// kernel fused_mul_add_relu_sin_0 (", 0), 0u) << kv.source;
  EXPECT_NE(kv.ptx.find(".entry kiln_fused_mul_add_relu_sin_0("), std::string::npos) << kv.ptx;
  EXPECT_EQ(kv.ptx.find(".entry", kv.ptx.find(".entry") + 1), std::string::npos) << "one entry only";
  expectAnnotationsMatchSource(kv.ptx, kv.source, "PTX");
  // The load of x (node 1) and the sin (node 7) have PTX of their own pointing at their lines.
  const std::vector<std::string> src = lines(kv.source);
  auto lineOf = [&](const std::string& piece) {
    for (size_t i = 0; i < src.size(); ++i)
      if (src[i].find(piece) != std::string::npos) return static_cast<int>(i) + 1;
    return 0;
  };
  const int load = lineOf("b0_x[i0]"), sin = lineOf("sinf(");
  ASSERT_GT(load, 0) << kv.source;
  ASSERT_GT(sin, 0) << kv.source;
  EXPECT_NE(kv.ptx.find("// cuda line " + std::to_string(load) + " @1\n"), std::string::npos) << kv.ptx;
  EXPECT_NE(kv.ptx.find("// cuda line " + std::to_string(sin) + " @7\n"), std::string::npos) << kv.ptx;
  // A global load follows the load's .loc before the next .loc.
  const size_t at = kv.ptx.find("// cuda line " + std::to_string(load) + " @1\n");
  const size_t next = kv.ptx.find(".loc", at);
  EXPECT_NE(kv.ptx.substr(at, next - at).find("ld.global"), std::string::npos) << kv.ptx.substr(at, next - at);
  EXPECT_EQ(kv.launch, "grid 4x1, block 256, thread, 4 per thread (as the runtime would choose on 132 SMs)");  // cudaVectorWidth 4
}

TEST(CudaViews, ResourcesComeFromTheCubin) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found: nothing to compile with";
  const CudaViews v = cudaViews({kir::parseKernel(kFused), kir::parseKernel(kSoftmax)}, CudaViewOptions{"sm_90", 132, nullptr});
  ASSERT_EQ(v.kernels.size(), 2u);
  for (const auto& kv : v.kernels) {
    EXPECT_GT(kv.resources.registers, 0) << kv.name << "\n" << v.notes;
    EXPECT_GE(kv.resources.stackBytes, 0) << kv.name;
    EXPECT_EQ(kv.resources.spillStores, 0) << kv.name;
    EXPECT_EQ(kv.resources.spillLoads, 0) << kv.name;
  }
  EXPECT_EQ(v.kernels[0].resources.sharedBytes, 0);  // pointwise: no shared memory
  EXPECT_GT(v.kernels[1].resources.sharedBytes, 0);  // the block reduction's combine
  EXPECT_NE(v.kernels[1].launch.find("block"), std::string::npos) << v.kernels[1].launch;
  // The runtime's launches, when given, are the ones recorded.
  const std::vector<CudaLaunch> runtime = {cudaLaunch(kir::parseKernel(kFused), {}, 4), cudaLaunch(kir::parseKernel(kSoftmax), {}, 4)};
  const CudaViews r = cudaViews({kir::parseKernel(kFused), kir::parseKernel(kSoftmax)}, CudaViewOptions{"sm_90", 132, &runtime});
  EXPECT_EQ(r.kernels[1].launch, runtime[1].str());
}

TEST(CudaViews, SassHasLineInfoMappedToCudaLines) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found: nothing to compile with";
  if (findCudaTool("nvdisasm").empty()) {
    // Without the tool SASS is empty and the views say why.
    const CudaViews v = cudaViews({kir::parseKernel(kFused)}, CudaViewOptions{"sm_90", 132, nullptr});
    EXPECT_TRUE(v.kernels[0].sass.empty());
    EXPECT_NE(v.notes.find("nvdisasm not found"), std::string::npos) << v.notes;
    GTEST_SKIP() << "nvdisasm not found (CUDA_HOME/bin, /usr/local/cuda/bin, PATH): SASS not checked";
  }
  const CudaViews v = cudaViews({kir::parseKernel(kFused)}, CudaViewOptions{"sm_90", 132, nullptr});
  const CudaKernelView& kv = v.kernels[0];
  ASSERT_FALSE(kv.sass.empty()) << v.notes;
  EXPECT_NE(kv.sass.find("//## File"), std::string::npos) << kv.sass;
  EXPECT_NE(kv.sass.find("EXIT"), std::string::npos) << kv.sass;
  expectAnnotationsMatchSource(kv.sass, kv.source, "SASS");
}

// The parsers on the forms the tools print (nvdisasm's inline form cannot be made here without
// the tool: its line is given as CUDA's nvdisasm documents it).
TEST(CudaViews, AnnotationTakesTheCallSiteInsideTheKernel) {
  const std::vector<std::string> unit = {
      "helper() {", "  return x;", "// kernel k (pointwise)", "  v0 = load();  // @4", "  v1 = helper(v0);  // @9", "}"};
  const std::string ptx =
      "\t.loc\t1 2 3, function_name $L__info_string0, inlined_at 1 5 7\n\tmul.f32 %f1, %f2, %f3;\n"
      "\t.loc\t1 4 1\n\t.loc\t2 4 1\n";
  EXPECT_EQ(annotatePtx(ptx, unit, 3, 6, 1),
            "\t.loc\t1 2 3, function_name $L__info_string0, inlined_at 1 5 7  // cuda line 3 @9\n\tmul.f32 %f1, %f2, %f3;\n"
            "\t.loc\t1 4 1  // cuda line 2 @4\n\t.loc\t2 4 1\n");
  const std::string sass =
      "\t//## File \"/usr/include/crt/math.hpp\", line 4 inlined at \"/tmp/kiln_kernels.cu\", line 5\n"
      "        /*0000*/                   FMUL R0, R2, R3 ;\n";
  EXPECT_EQ(annotateSass(sass, unit, 3, 6, "kiln_kernels.cu"),
            "\t//## File \"/usr/include/crt/math.hpp\", line 4 inlined at \"/tmp/kiln_kernels.cu\", line 5  // cuda line 3 @9\n"
            "        /*0000*/                   FMUL R0, R2, R3 ;\n");
}

TEST(CudaViews, PtxasReportIsReadPerEntry) {
  const std::string log =
      "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
      "ptxas info    : Function properties for a\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 256 bytes smem, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'b' for 'sm_90'\n"
      "ptxas info    : Function properties for b\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers, 376 bytes cmem[0]\n";
  const CudaResources a = parsePtxasReport(log, "a"), b = parsePtxasReport(log, "b"), c = parsePtxasReport(log, "c");
  EXPECT_EQ(a.registers, 40);
  EXPECT_EQ(a.sharedBytes, 256);
  EXPECT_EQ(a.stackBytes, 8);
  EXPECT_EQ(a.spillStores, 4);
  EXPECT_EQ(b.registers, 10);
  EXPECT_EQ(b.sharedBytes, 0);
  EXPECT_FALSE(c.known());
}

}  // namespace
}  // namespace kiln::codegen::cuda
