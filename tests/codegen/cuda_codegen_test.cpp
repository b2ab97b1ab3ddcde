// The CUDA path: kernel IR -> CUDA C++ -> PTX through NVRTC, for every kernel the corpus
// generates (tests/kernels/golden); on a machine with a GPU, the kernels also run there and must
// agree with the LLVM CPU backend. Without NVRTC or without a GPU those parts skip and say why.
#include "engine/codegen/cuda/cuda_source.h"
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/kernel_cache.h"
#include "engine/codegen/kernel_compiler.h"
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace kiln::codegen {
namespace {

namespace fs = std::filesystem;

// The kernel IR blocks of a golden file ("kernel ..." to "end"), parsed, per compile id (the
// "# [0/1 name]" line before each; one compile's kernels form one module, as when compiling).
std::map<std::string, std::vector<kir::Kernel>> goldenKernels(const fs::path& file) {
  std::ifstream in(file);
  std::string line, block, compile;
  std::map<std::string, std::vector<kir::Kernel>> out;
  bool inKernel = false;
  while (std::getline(in, line)) {
    if (line.rfind("# [", 0) == 0) compile = line.substr(3, line.find(' ', 3) - 3);
    if (line.rfind("kernel ", 0) == 0) inKernel = true, block.clear();
    if (inKernel) block += line + "\n";
    if (inKernel && line == "end") {
      out[compile].push_back(kir::parseKernel(block));
      inKernel = false;
    }
  }
  return out;
}

const char* kSoftmax = R"(kernel softmax_rows reduction
  in x: f32[4, 33]
  out y: f32[4, 33]
  loop i0 in 0..4
  loop r0 in 0..33 reduce
  %0 = load x[i0*33 + r0] @1
  %1 = reduce_max %0 @2
  %2 = sub %0, %1 @3
  %3 = exp %2 @4
  %4 = reduce_sum %3 @5
  %5 = div %3, %4 @6
  store y[i0*33 + r0], %5 @6
end
)";

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Rows shorter than a warp: one thread per row runs the row's nests itself.
TEST(CudaSource, ShortRowsAreOneThreadsLoops) {
  std::string text = kSoftmax;
  for (std::string from : {"33", "33"})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from)) text.replace(at, 2, "16");
  kir::Kernel k = kir::parseKernel(text);
  ASSERT_EQ(cuda::cudaSchedule(k), cuda::CudaSchedule::Thread);
  const std::string src = cuda::cudaSource({k});
  EXPECT_EQ(cuda::cudaPoints(k), 4);
  EXPECT_NE(
      src.find(
          "extern \"C\" __global__ void kiln_softmax_rows(const float* __restrict__ b0_x, float* __restrict__ b1_y, long long points)"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("const long long i0 = t;"), std::string::npos) << src;
  // Three nests over r0: max, sum of exp, the store.
  EXPECT_EQ(count(src, "for (long long r0 = 0; r0 < 16LL; ++r0)"), 3u) << src;
  EXPECT_NE(src.find("kiln_max<float>(acc1, v0)"), std::string::npos) << src;
  EXPECT_NE(src.find("// @6"), std::string::npos) << src;  // provenance, as in kernel IR
  EXPECT_EQ(cuda::cudaLaunch(k).str(), "grid 1x1, block 256, thread");
}

// A row of a warp or more: one block per row, the nests' results combined across the block.
// Rows of 33 take two steps of a 32-thread block, held in registers: the input is read once.
TEST(CudaSource, LongRowsAreOneBlockPerRowWithWarpShuffles) {
  kir::Kernel k = kir::parseKernel(kSoftmax);
  ASSERT_EQ(cuda::cudaSchedule(k), cuda::CudaSchedule::Block);
  ASSERT_EQ(cuda::cudaRowSteps(k), 2);
  const std::string src = cuda::cudaSource({k});
  EXPECT_NE(src.find("long long t = blockIdx.x;"), std::string::npos) << src;
  EXPECT_EQ(count(src, "for (int kiln_j = 0; kiln_j < 2; ++kiln_j) {"), 3u) << src;
  EXPECT_EQ(count(src, "const long long kiln_r = threadIdx.x + kiln_j * 32LL;"), 3u) << src;
  EXPECT_EQ(count(src, "if (kiln_r < 33LL) {"), 3u) << src;
  EXPECT_NE(src.find("float kiln_c0[2];"), std::string::npos) << src;
  EXPECT_EQ(count(src, "b0_x["), 1u) << src;  // loaded once, into the cache
  EXPECT_NE(src.find("kiln_c0[kiln_j] = b0_x[i0 * 33LL + r0];"), std::string::npos) << src;
  EXPECT_EQ(count(src, "const float v0 = kiln_c0[kiln_j];"), 3u) << src;
  EXPECT_NE(src.find("acc1 = kiln_block_reduce<1, float>(acc1, kiln_shm);"), std::string::npos) << src;
  EXPECT_NE(src.find("acc4 = kiln_block_reduce<0, float>(acc4, kiln_shm);"), std::string::npos) << src;
  EXPECT_EQ(cuda::cudaLaunch(k).str(), "grid 4x1, block 32, block, row in registers (2 per thread)");
}

// Softmax as the kernel builder makes it (storeOnceReloadLater: exp stored in the second nest,
// loaded back in the third), rows of 8192: sixteen steps of 512 threads. The input is read once,
// the exp never goes to memory (the third nest reads it from the cache) and only the last store
// of y is made. Rows over 32 steps stride as before and read the row once per nest.
TEST(CudaSource, RowsInRegistersReadOnceAndStoreOnce) {
  const std::string text =
      "kernel softmax reduction\n  in x: f32[64, 8192]\n  out y: f32[64, 8192]\n  loop i0 in 0..64\n"
      "  loop r0 in 0..8192 reduce\n  %0 = load x[i0*8192 + r0]\n  %1 = reduce_max %0\n  %2 = sub %0, %1\n"
      "  %3 = exp %2\n  store y[i0*8192 + r0], %3\n  %4 = reduce_sum %3\n  %5 = load y[i0*8192 + r0]\n"
      "  %6 = div %5, %4\n  store y[i0*8192 + r0], %6\nend\n";
  kir::Kernel k = kir::parseKernel(text);
  ASSERT_EQ(cuda::cudaRowSteps(k), 16);
  const std::string src = cuda::cudaSource({k});
  EXPECT_EQ(count(src, "for (int kiln_j = 0; kiln_j < 16; ++kiln_j) {"), 3u) << src;
  EXPECT_EQ(src.find("if (kiln_r <"), std::string::npos) << src;  // 16 x 512 covers the row exactly
  // Four consecutive elements per thread and step of four: the input read as two float4s, the
  // output written as four, where both buffers are 16-byte aligned (kiln_al), else element by element.
  EXPECT_EQ(count(src, "const long long kiln_r = (threadIdx.x + (kiln_j >> 2) * 512LL) * 4 + (kiln_j & 3);"), 3u) << src;
  EXPECT_NE(src.find("const bool kiln_al = (((unsigned long long)b0_x | (unsigned long long)b1_y) & 15ULL) == 0;"), std::string::npos)
      << src;
  EXPECT_NE(src.find("if (kiln_al && (kiln_j & 3) == 0) kiln_v0_0 = *reinterpret_cast<const float4*>(&b0_x[i0 * 8192LL + r0]);"),
            std::string::npos)
      << src;
  EXPECT_EQ(count(src, "b0_x["), 2u) << src;  // one load: the float4 and its element-wise fallback
  EXPECT_NE(src.find("*reinterpret_cast<float4*>(&b1_y[i0 * 8192LL + r0] - 3) = kiln_v2_8;"), std::string::npos) << src;
  EXPECT_EQ(count(src, "b1_y["), 2u) << src;  // one store (float4 and fallback), no load
  EXPECT_NE(src.find("kiln_c1[kiln_j] = v3;"), std::string::npos) << src;
  EXPECT_NE(src.find("const float v5 = kiln_c1[kiln_j];"), std::string::npos) << src;
  EXPECT_NE(src.find("else b1_y[i0 * 8192LL + r0] = v6;"), std::string::npos) << src;
  EXPECT_EQ(cuda::cudaLaunch(k).str(), "grid 64x1, block 512, block, row in registers (16 per thread)");

  // Rows of 40000 (79 steps): the strided loop, every access to memory.
  std::string longRows = text;
  for (size_t at; (at = longRows.find("8192")) != std::string::npos;) longRows.replace(at, 4, "40000");
  kir::Kernel l = kir::parseKernel(longRows);
  EXPECT_EQ(cuda::cudaRowSteps(l), 0);
  const std::string lsrc = cuda::cudaSource({l});
  EXPECT_EQ(count(lsrc, "for (long long kiln_r = threadIdx.x; kiln_r < 40000LL; kiln_r += blockDim.x)"), 3u) << lsrc;
  EXPECT_EQ(count(lsrc, "b0_x["), 2u) << lsrc;
  EXPECT_EQ(count(lsrc, "b1_y["), 3u) << lsrc;
  EXPECT_EQ(lsrc.find("kiln_c0"), std::string::npos) << lsrc;
  EXPECT_EQ(cuda::cudaLaunch(l).str(), "grid 64x1, block 512, block");
}

// A buffer written at one index and read at another, or touched outside the nests, stays in
// memory: its cache could miss another thread's store.
TEST(CudaSource, RowsInRegistersKeepAliasedBuffersInMemory) {
  kir::Kernel shifted = kir::parseKernel(
      "kernel shifted reduction\n  in x: f32[4, 256]\n  out y: f32[4, 256]\n  loop i0 in 0..4\n"
      "  loop r0 in 0..255 reduce\n  %0 = load x[i0*256 + r0]\n  store y[i0*256 + r0], %0\n  %1 = reduce_sum %0\n"
      "  %2 = load y[i0*256 + r0 + 1]\n  %3 = mul %2, %1\n  store y[i0*256 + r0], %3\nend\n");
  ASSERT_EQ(cuda::cudaRowSteps(shifted), 4);
  const std::string src = cuda::cudaSource({shifted});
  EXPECT_EQ(count(src, "b1_y[i0 * 256LL + r0] = "), 2u) << src;  // both stores made
  EXPECT_NE(src.find("= b1_y[i0 * 256LL + r0 + 1LL];"), std::string::npos) << src;
  EXPECT_EQ(src.find("kiln_c0"), std::string::npos) << src;  // (x is read in one nest: no cache either)

  kir::Kernel gap = kir::parseKernel(
      "kernel gap reduction\n  inout a: f32[4, 64]\n  out s: f32[4]\n  loop i0 in 0..4\n  loop r0 in 0..64 reduce\n"
      "  %0 = load a[i0*64 + r0]\n  %1 = reduce_max %0\n  %2 = sub %0, %1\n  %3 = reduce_sum %2\n"
      "  %4 = load a[i0*64]\n  %5 = add %3, %4\n  store s[i0], %5\n  %6 = mul %0, %5\n  store a[i0*64 + r0], %6\nend\n");
  ASSERT_GT(cuda::cudaRowSteps(gap), 0);
  const std::string gsrc = cuda::cudaSource({gap});
  EXPECT_EQ(gsrc.find("kiln_c0"), std::string::npos) << gsrc;
}

// A pointwise kernel over float32 rows whose length is a multiple of 4: four points per thread,
// a float4 load of each input stepping along the row and a float4 store of the output when the
// addresses are 16-byte aligned, element by element otherwise. A broadcast input (the bias,
// stepping along i1 too) is a float4 as well; a column read (stepping along i0) is not.
TEST(CudaSource, PointwiseRowsTakeFourFloatsPerThread) {
  kir::Kernel k = kir::parseKernel(
      "kernel bias_relu pointwise\n  in x: f32[8, 64]\n  in b: f32[64]\n  in c: f32[8]\n  out y: f32[8, 64]\n"
      "  loop i0 in 0..8\n  loop i1 in 0..64\n  %0 = load x[i0*64 + i1]\n  %1 = load b[i1]\n  %2 = load c[i0]\n"
      "  %3 = add %0, %1\n  %4 = mul %3, %2\n  store y[i0*64 + i1], %4\nend\n");
  ASSERT_EQ(cuda::cudaVectorWidth(k), 4);
  const std::string src = cuda::cudaSource({k});
  EXPECT_NE(src.find("long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;"), std::string::npos) << src;
  EXPECT_NE(src.find("const long long kiln_b = t % 64LL;"), std::string::npos) << src;
  EXPECT_NE(src.find("const bool kiln_al = (((unsigned long long)(b0_x + i0 * 64LL + kiln_b) | (unsigned long long)(b1_b + kiln_b) | "
                     "(unsigned long long)(b3_y + i0 * 64LL + kiln_b)) & 15ULL) == 0;"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("if (kiln_al) kiln_q0 = *reinterpret_cast<const float4*>(b0_x + i0 * 64LL + kiln_b);"), std::string::npos) << src;
  // The body once per point, each reading its own element of the float4s.
  EXPECT_NE(src.find("const long long i1 = kiln_b + 0;"), std::string::npos) << src;
  EXPECT_NE(src.find("const long long i1 = kiln_b + 3;"), std::string::npos) << src;
  EXPECT_NE(src.find("(kiln_al ? kiln_q0.x : b0_x[i0 * 64LL + i1])"), std::string::npos) << src;
  EXPECT_NE(src.find("(kiln_al ? kiln_q0.w : b0_x[i0 * 64LL + i1])"), std::string::npos) << src;
  EXPECT_NE(src.find("b2_c[i0]"), std::string::npos) << src;
  EXPECT_EQ(src.find("kiln_q2"), std::string::npos) << src;  // the column read stays scalar
  EXPECT_NE(src.find("if (kiln_al) kiln_q5.z = v4; else b3_y[i0 * 64LL + i1] = v4;"), std::string::npos) << src;
  EXPECT_NE(src.find("if (kiln_al) *reinterpret_cast<float4*>(b3_y + i0 * 64LL + kiln_b) = kiln_q5;"), std::string::npos) << src;
  const cuda::CudaLaunch l = cuda::cudaLaunch(k);
  EXPECT_EQ(l.points, 512);
  EXPECT_EQ(l.str(), "grid 1x1, block 256, thread, 4 per thread");
  EXPECT_EQ(cuda::cudaLaunch(k, {}, 132).gridX, 1u);

  // Rows of 66: no four consecutive points share a row start on a 16-byte boundary.
  kir::Kernel odd = kir::parseKernel(
      "kernel odd pointwise\n  in x: f32[8, 66]\n  out y: f32[8, 66]\n  loop i0 in 0..8\n  loop i1 in 0..66\n"
      "  %0 = load x[i0*66 + i1]\n  %1 = neg %0\n  store y[i0*66 + i1], %1\nend\n");
  EXPECT_EQ(cuda::cudaVectorWidth(odd), 1);
  EXPECT_EQ(cuda::cudaSource({odd}).find("float4"), std::string::npos);
  // A buffer read and written (in place) is made element by element: its float4 read would
  // come before the four points' stores.
  kir::Kernel inout = kir::parseKernel(
      "kernel acc pointwise\n  inout a: f32[1024]\n  in x: f32[1024]\n  loop i0 in 0..1024\n  %0 = load a[i0]\n"
      "  %1 = load x[i0]\n  %2 = add %0, %1\n  store a[i0], %2\nend\n");
  ASSERT_EQ(cuda::cudaVectorWidth(inout), 4);
  const std::string inoutSrc = cuda::cudaSource({inout});
  EXPECT_NE(inoutSrc.find("kiln_q1"), std::string::npos) << inoutSrc;
  EXPECT_EQ(inoutSrc.find("kiln_q0"), std::string::npos) << inoutSrc;
  EXPECT_EQ(inoutSrc.find("kiln_q3"), std::string::npos) << inoutSrc;
  EXPECT_EQ(cuda::cudaLaunch(inout).gridX, 1u);
  EXPECT_EQ(cuda::cudaLaunch(inout).str(), "grid 1x1, block 256, thread, 4 per thread");
}

// A whole tensor's sum: a grid of blocks per point, partials combined by the last block.
TEST(CudaSource, FullReductionsSplitOverTheGrid) {
  kir::Kernel k = kir::parseKernel(
      "kernel total reduction\n  in x: f32[1048576]\n  out y: f32[]\n  loop r0 in 0..1048576 reduce\n  %0 = load x[r0]\n"
      "  %1 = reduce_sum %0\n  store y[0], %1\nend\n");
  ASSERT_EQ(cuda::cudaSchedule(k), cuda::CudaSchedule::Split);
  const std::string src = cuda::cudaSource({k});
  EXPECT_NE(src.find("long long points, unsigned long long* __restrict__ kiln_scratch, unsigned int* __restrict__ kiln_counters)"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("atomicAdd(&kiln_counters[kiln_point], 1u) == gridDim.x - 1"), std::string::npos) << src;
  EXPECT_NE(src.find("if (threadIdx.x == 0) b1_y[0LL] = "), std::string::npos) << src;
  const cuda::CudaLaunch l = cuda::cudaLaunch(k, {}, 132);
  EXPECT_EQ(l.str(), "grid 128x1, block 512, split");  // 2^20 / (16 * 512)
  EXPECT_EQ(l.scratchSlots, 128u);
  EXPECT_EQ(l.counters, 1u);
}

TEST(CudaSource, UnsupportedDtypesAreAClearError) {
  kir::Kernel k = kir::parseKernel(
      "kernel h pointwise\n  in x: i16[4]\n  out y: i16[4]\n  loop i0 in 0..4\n  %0 = load x[i0]\n  store y[i0], %0\nend\n");
  try {
    cuda::cudaSource({k});
    FAIL() << "i16 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA backend: dtype i16 is not supported"), std::string::npos) << e.what();
  }
}

// 16-bit floats, as the kernel builder makes them: loads widened to float, f32 compute, a cast
// to bf16 and back where the graph converts, stores rounded to nearest even.
const char* kHalfKernels = R"(kernel bf16_softmax reduction
  in x: bf16[4, 33]
  out y: bf16[4, 33]
  loop i0 in 0..4
  loop r0 in 0..33 reduce
  %0 = load x[i0*33 + r0] : f32 @1
  %1 = reduce_max %0 @2
  %2 = sub %0, %1 @3
  %3 = exp %2 @4
  %4 = cast %3 : f64 @5
  %5 = reduce_sum %4 @5
  %6 = cast %5 : f32 @5
  %7 = div %3, %6 @6
  store y[i0*33 + r0], %7 @6
end
kernel f16_convert pointwise
  in x: f32[64]
  in h: f16[64]
  out y: f16[64]
  out z: bf16[64]
  loop i0 in 0..64
  %0 = load x[i0] @1
  %1 = cast %0 : f16 @1
  %2 = cast %1 : f32 @1
  %3 = load h[i0] : f32 @2
  %4 = mul %2, %3 @3
  store y[i0], %4 @3
  store z[i0], %4 @3
end
)";

TEST(CudaSource, HalfKernelsConvertAtLoadsAndStores) {
  const std::string src = cuda::cudaSource(kir::parseKernels(kHalfKernels));
  EXPECT_NE(src.find("const unsigned short* __restrict__ b0_x"), std::string::npos) << src;
  EXPECT_NE(src.find("kiln_c0[kiln_j] = b0_x[i0 * 33LL + r0];"), std::string::npos) << src;  // the row in registers
  EXPECT_NE(src.find("kiln_bf2f(kiln_c0[kiln_j])"), std::string::npos) << src;
  EXPECT_NE(src.find("kiln_f2bf(v7)"), std::string::npos) << src;
  EXPECT_NE(src.find("kiln_f2h(v0)"), std::string::npos) << src;
  EXPECT_NE(src.find("kiln_h2f(b1_h["), std::string::npos) << src;
  // Kernels without 16-bit values leave the conversions out.
  EXPECT_EQ(cuda::cudaSource({kir::parseKernel(kSoftmax)}).find("kiln_f2bf"), std::string::npos);
}

// ... and NVRTC compiles that source (no GPU needed: NVRTC is a library).
TEST(CudaNvrtc, HalfKernelsCompileToPtx) {
  std::string why;
  auto compiler = makeCudaCompiler(&why);
  if (!compiler) GTEST_SKIP() << "NVRTC is not available here: " << why;
  const auto ks = kir::parseKernels(kHalfKernels);
  auto module = compiler->compile(ks, "half_kernels");
  ASSERT_EQ(module->kernels.size(), 2u);
  for (size_t i = 0; i < ks.size(); ++i)
    EXPECT_NE(module->kernels[i].assembly.find(".entry " + cuda::cudaSymbol(ks[i])), std::string::npos) << ks[i].name;
  // The conversions are the hardware's: cvt.rn to the 16-bit types.
  EXPECT_NE(module->kernels[1].assembly.find("cvt.rn.f16.f32"), std::string::npos) << module->kernels[1].assembly;
}

// Every kernel the corpus programs generate compiles to PTX (one NVRTC program per program).
TEST(CudaNvrtc, EveryCorpusKernelCompilesToPtx) {
  std::string why;
  auto compiler = makeCudaCompiler(&why);
  if (!compiler) GTEST_SKIP() << "NVRTC is not available here: " << why;
  int kernels = 0, programs = 0;
  for (const auto& f : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/kernels/golden")) {
    if (f.path().extension() != ".txt") continue;
    SCOPED_TRACE(f.path().string());
    bool any = false;
    for (const auto& [compile, ks] : goldenKernels(f.path())) {
      auto module = compiler->compile(ks, f.path().stem().string());
      ASSERT_EQ(module->kernels.size(), ks.size());
      for (size_t i = 0; i < ks.size(); ++i) {
        EXPECT_NE(module->kernels[i].assembly.find(".entry " + cuda::cudaSymbol(ks[i])), std::string::npos) << compile << " " << ks[i].name;
        EXPECT_NE(module->kernels[i].source.find("__global__ void " + cuda::cudaSymbol(ks[i])), std::string::npos) << ks[i].name;
      }
      kernels += static_cast<int>(ks.size());
      any = true;
    }
    programs += any;
  }
  EXPECT_GE(programs, 40);
  EXPECT_GE(kernels, 200);
  std::cout << "[ NVRTC    ] " << kernels << " kernels of " << programs << " corpus programs compiled to PTX\n";
}

// The four points' float4 accesses are 128-bit loads and stores in the PTX (ld/st .v4.f32), kept
// in registers (no local memory). (A kernel calling sinf four times may get a 32 B stack frame:
// sinf's slow-path argument reduction, not the float4s.)
TEST(CudaNvrtc, FourFloatsPerThreadAre128BitAccessesInPtx) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  kir::Kernel k = kir::parseKernel(
      "kernel mul_add_relu pointwise\n  in x: f32[4096]\n  out y: f32[4096]\n  loop i0 in 0..4096\n  %0 = load x[i0]\n"
      "  %1 = const 2 : f32\n  %2 = mul %0, %1\n  %3 = const 1 : f32\n  %4 = add %2, %3\n  %5 = const 0 : f32\n  %6 = max %4, %5\n  store y[i0], %6\nend\n");
  ASSERT_EQ(cuda::cudaVectorWidth(k), 4);
  const std::string ptx = nvrtc->compileToPtx(cuda::cudaSource({k}), "vector.cu", kDefaultCudaArch);
  EXPECT_NE(ptx.find(".v4.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.global.v4.f32"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find(".local"), std::string::npos) << ptx;
}

// A row in registers four at a time: softmax's input and output are 128-bit accesses in PTX, with
// no local memory (the float4s and their lanes stay in registers once the steps are unrolled).
TEST(CudaNvrtc, RowsInRegistersAre128BitAccessesInPtx) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  kir::Kernel k = kir::parseKernel(
      "kernel softmax reduction\n  in x: f32[64, 8192]\n  out y: f32[64, 8192]\n  loop i0 in 0..64\n"
      "  loop r0 in 0..8192 reduce\n  %0 = load x[i0*8192 + r0]\n  %1 = reduce_max %0\n  %2 = sub %0, %1\n"
      "  %3 = exp %2\n  store y[i0*8192 + r0], %3\n  %4 = reduce_sum %3\n  %5 = load y[i0*8192 + r0]\n"
      "  %6 = div %5, %4\n  store y[i0*8192 + r0], %6\nend\n");
  const std::string ptx = nvrtc->compileToPtx(cuda::cudaSource({k}), "row_vector.cu", kDefaultCudaArch);
  EXPECT_EQ(count(ptx, "ld.global.nc.v4.f32"), 4u) << ptx;
  EXPECT_EQ(count(ptx, "st.global.v4.f32"), 4u) << ptx;
  EXPECT_EQ(ptx.find(".local"), std::string::npos) << ptx;
}

// NVRTC's errors come back with its log.
// A block-per-row kernel is compiled for its block's size (.maxntid): ptxas keeps to the
// registers such a launch has, so a 1,024-thread launch never fails for want of registers.
TEST(CudaNvrtc, BlockKernelsCarryTheirLaunchBounds) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  kir::Kernel k = kir::parseKernel(
      "kernel rowsum reduction\n  in x: f32[8, 16384]\n  out y: f32[8]\n  loop i0 in 0..8\n  loop r0 in 0..16384 reduce\n"
      "  %0 = load x[i0*16384 + r0]\n  %1 = reduce_sum %0\n  store y[i0], %1\nend\n");
  ASSERT_EQ(cuda::cudaRowSteps(k), 32);
  const std::string src = cuda::cudaSource({k});
  EXPECT_NE(src.find("extern \"C\" __launch_bounds__(512) __global__ void kiln_rowsum("), std::string::npos) << src;
  const std::string ptx = nvrtc->compileToPtx(src, "bounds.cu", "compute_75");
  EXPECT_NE(ptx.find(".maxntid 512, 1, 1"), std::string::npos) << ptx;
}

// NVRTC's outputs go to the on-disk kernel cache: the same compile again is read back (the same
// PTX, cubin and log, NVRTC not run), another option is compiled anew, and a damaged entry is
// recompiled (the cache's MAC check), never used.
TEST(CudaNvrtc, CompilesAreCachedOnDisk) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  const fs::path dir = fs::temp_directory_path() / ("kiln_nvrtc_cache_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::unique_ptr<KernelCache> cache = KernelCache::open(dir.string(), &why);
  ASSERT_TRUE(cache) << why;
  struct Restore {
    KernelCache* before;
    ~Restore() { KernelCache::use(before); }
  } restore{KernelCache::use(cache.get())};
  const std::string src = cuda::cudaSource({kir::parseKernel(kSoftmax)});
  const cuda::Nvrtc::Output first = nvrtc->compile(src, "cached.cu", "sm_90", {"--ptxas-options=-v"});
  const cuda::Nvrtc::Output second = nvrtc->compile(src, "cached.cu", "sm_90", {"--ptxas-options=-v"});
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.ptx, first.ptx);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.log, first.log);
  EXPECT_FALSE(first.cubin.empty());
  EXPECT_FALSE(nvrtc->compile(src, "cached.cu", "sm_90", {}).cached);  // other options: another entry
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "key") std::ofstream(e.path(), std::ios::trunc) << "not an entry";
  ::testing::internal::CaptureStderr();
  const cuda::Nvrtc::Output again = nvrtc->compile(src, "cached.cu", "sm_90", {"--ptxas-options=-v"});
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(again.cached);
  EXPECT_EQ(again.ptx, first.ptx);
  fs::remove_all(dir);
}

TEST(CudaNvrtc, CompileErrorsCarryTheLog) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  try {
    nvrtc->compileToPtx("extern \"C\" __global__ void f() { undeclared(); }", "bad.cu", kDefaultCudaArch);
    FAIL() << "bad source compiled";
  } catch (const std::runtime_error& e) { EXPECT_NE(std::string(e.what()).find("undeclared"), std::string::npos) << e.what(); }
}

// On a GPU: the softmax kernel and a pointwise kernel give what the CPU backend gives.
TEST(CudaDevice, KernelsAgreeWithTheCpuBackend) {
  std::string why;
  cuda::CudaDevice* device = cuda::CudaDevice::instance(&why);
  if (!device) GTEST_SKIP() << "no GPU to run CUDA kernels on (" << why << "); they are only compiled here";
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  ASSERT_TRUE(nvrtc) << why;
  const std::string pointwise =
      "kernel pw pointwise\n  in x: f32[1000]\n  out y: f32[1000]\n  loop i0 in 0..1000\n  %0 = load x[i0]\n  %1 = tanh %0\n"
      "  %2 = const 0.5 : f32\n  %3 = max %1, %2\n  store y[i0], %3\nend\n";
  for (const std::string& text : {std::string(kSoftmax), pointwise}) {
    kir::Kernel k = kir::parseKernel(text);
    const size_t n = static_cast<size_t>(k.buffers[0].shape[0] * (k.buffers[0].shape.size() > 1 ? k.buffers[0].shape[1] : 1));
    std::vector<float> x = testing::ramp(n, -3.0f, 3.0f), cpu(n, 0.0f), gpu(n, 0.0f);
    testing::jit(text).run({x.data(), cpu.data()}, 0, k.loops[0].extent);
    std::vector<cuda::HostBuffer> bufs{{x.data(), n * sizeof(float), false}, {gpu.data(), n * sizeof(float), true}};
    const std::string ptx = nvrtc->compileToPtx(cuda::cudaSource({k}), "device_test.cu", device->arch());
    device->run(ptx, cuda::cudaSymbol(k), bufs, cuda::cudaLaunch(k, {}, device->multiprocessors()));
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(cpu[i], gpu[i], 1e-5f * std::max(1.0f, std::fabs(cpu[i]))) << k.name << "[" << i << "]";
  }
}

// Elements a buffer needs: its shape, or further where an index reaches past it.
size_t bufferElements(const kir::Kernel& k, int b) {
  int64_t n = 1;
  for (int64_t d : k.buffers[static_cast<size_t>(b)].shape) n *= d;
  for (const auto& in : k.body) {
    if ((in.op != kir::Op::Load && in.op != kir::Op::Store) || in.buffer != b) continue;
    int64_t last = in.index.offset;
    for (const auto& t : in.index.terms) last += (k.loops[static_cast<size_t>(t.loop)].extent - 1) * t.coeff;
    n = std::max(n, last + 1);
  }
  return static_cast<size_t>(std::max<int64_t>(n, 1));
}

// Deterministic inputs by dtype (positive floats: sums of many terms stay well conditioned).
std::vector<unsigned char> inputBytes(ir::DType d, size_t n, uint32_t seed) {
  std::vector<unsigned char> out(n * ir::itemSize(d));
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    const double u = static_cast<double>(s >> 8) / static_cast<double>(1u << 24);
    switch (d) {
      case ir::DType::Float32: reinterpret_cast<float*>(out.data())[i] = static_cast<float>(0.05 + 1.95 * u); break;
      case ir::DType::Float64: reinterpret_cast<double*>(out.data())[i] = 0.05 + 1.95 * u; break;
      case ir::DType::Int64: reinterpret_cast<int64_t*>(out.data())[i] = static_cast<int64_t>(u * 10); break;
      case ir::DType::Int32: reinterpret_cast<int32_t*>(out.data())[i] = static_cast<int32_t>(u * 10); break;
      case ir::DType::Bool: out[i] = u < 0.5 ? 1 : 0; break;
      default: break;
    }
  }
  return out;
}

bool close(ir::DType d, const unsigned char* a, const unsigned char* b, size_t i) {
  auto near = [](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::fabs(x - y) <= 1e-4 * std::max(1.0, std::fabs(x));
  };
  switch (d) {
    case ir::DType::Float32: return near(reinterpret_cast<const float*>(a)[i], reinterpret_cast<const float*>(b)[i]);
    case ir::DType::Float64: return near(reinterpret_cast<const double*>(a)[i], reinterpret_cast<const double*>(b)[i]);
    case ir::DType::Int64: return reinterpret_cast<const int64_t*>(a)[i] == reinterpret_cast<const int64_t*>(b)[i];
    case ir::DType::Int32: return reinterpret_cast<const int32_t*>(a)[i] == reinterpret_cast<const int32_t*>(b)[i];
    default: return a[i] == b[i];
  }
}

// On a GPU: every corpus kernel (static shapes), under the schedule cudaSchedule() picks, gives
// what the LLVM CPU backend gives on the same inputs.
TEST(CudaDevice, EveryCorpusKernelAgreesWithTheCpuBackend) {
  std::string why;
  cuda::CudaDevice* device = cuda::CudaDevice::instance(&why);
  if (!device) GTEST_SKIP() << "no GPU to run CUDA kernels on (" << why << "); they are only compiled here";
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  ASSERT_TRUE(nvrtc) << why;
  auto cpu = makeLlvmCpuCompiler();
  std::map<std::string, int> ran;
  for (const auto& f : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "tests/kernels/golden")) {
    if (f.path().extension() != ".txt") continue;
    for (const auto& [compile, ks] : goldenKernels(f.path()))
      for (const auto& k : ks) {
        if (k.symbolic()) continue;
        SCOPED_TRACE(f.path().stem().string() + " " + compile + " " + k.name);
        std::vector<std::vector<unsigned char>> host, dev;
        std::vector<cuda::HostBuffer> bufs;
        std::vector<void*> cpuPtrs;
        for (size_t b = 0; b < k.buffers.size(); ++b) {
          const ir::DType d = k.buffers[b].dtype;
          host.push_back(inputBytes(d, bufferElements(k, static_cast<int>(b)), 7u + static_cast<uint32_t>(b)));
        }
        dev = host;
        for (size_t b = 0; b < k.buffers.size(); ++b) {
          cpuPtrs.push_back(host[b].data());
          bufs.push_back(cuda::HostBuffer{dev[b].data(), dev[b].size(), k.buffers[b].output});
        }
        auto module = cpu->compile(std::vector<kir::Kernel>{k}, "cpu_ref");
        module->kernels.at(0).fn(cpuPtrs.data(), 0, k.loops.empty() ? 1 : k.loops[0].extent);
        const cuda::CudaLaunch launch = cuda::cudaLaunch(k, {}, device->multiprocessors());
        device->run(nvrtc->compileToPtx(cuda::cudaSource(std::vector<kir::Kernel>{k}), "golden.cu", device->arch()), cuda::cudaSymbol(k),
                    bufs, launch);
        ++ran[cuda::scheduleName(launch.schedule)];
        for (size_t b = 0; b < k.buffers.size(); ++b) {
          if (!k.buffers[b].output) continue;
          const size_t n = host[b].size() / ir::itemSize(k.buffers[b].dtype);
          size_t bad = 0;
          for (size_t i = 0; i < n; ++i)
            if (!close(k.buffers[b].dtype, host[b].data(), dev[b].data(), i) && bad++ < 3)
              ADD_FAILURE() << k.buffers[b].name << "[" << i << "] differs (" << launch.str() << ")";
        }
      }
  }
  EXPECT_GT(ran["block"], 0);
  std::cout << "[ GPU      ] corpus kernels run and compared: " << ran["thread"] << " thread, " << ran["block"] << " block, "
            << ran["split"] << " split\n";
}

// A full sum over 2^22 + 3 elements (split over the grid), a max over rows of 5000 (one block
// per row) and softmaxes with rows in registers and strided agree with the CPU backend (the sum
// within float rounding of 4M terms).
TEST(CudaDevice, SplitAndBlockReductionsAgreeWithTheCpuBackend) {
  std::string why;
  cuda::CudaDevice* device = cuda::CudaDevice::instance(&why);
  if (!device) GTEST_SKIP() << "no GPU to run CUDA kernels on (" << why << "); they are only compiled here";
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  ASSERT_TRUE(nvrtc) << why;
  const std::string total =
      "kernel total reduction\n  in x: f32[4194307]\n  out y: f32[]\n  loop r0 in 0..4194307 reduce\n  %0 = load x[r0]\n"
      "  %1 = reduce_sum %0\n  store y[0], %1\nend\n";
  const std::string rowmax =
      "kernel rowmax reduction\n  in x: f32[7, 5000]\n  out y: f32[7]\n  loop i0 in 0..7\n  loop r0 in 0..5000 reduce\n"
      "  %0 = load x[i0*5000 + r0]\n  %1 = reduce_max %0\n  store y[i0], %1\nend\n";
  // Softmax as the kernel builder makes it (exp stored, then reloaded): rows of 8192 and 5000 in
  // registers (8 steps exactly, 5 steps with a ragged last one), rows of 20000 strided.
  std::vector<std::string> texts{total, rowmax};
  for (const char* n : {"8192", "5000", "20000"}) {
    std::string sm =
        "kernel softmax reduction\n  in x: f32[3, N]\n  out y: f32[3, N]\n  loop i0 in 0..3\n  loop r0 in 0..N reduce\n"
        "  %0 = load x[i0*N + r0]\n  %1 = reduce_max %0\n  %2 = sub %0, %1\n  %3 = exp %2\n  store y[i0*N + r0], %3\n"
        "  %4 = reduce_sum %3\n  %5 = load y[i0*N + r0]\n  %6 = div %5, %4\n  store y[i0*N + r0], %6\nend\n";
    for (size_t at; (at = sm.find('N')) != std::string::npos;) sm.replace(at, 1, n);
    texts.push_back(sm);
  }
  for (const std::string& text : texts) {
    kir::Kernel k = kir::parseKernel(text);
    const size_t n = bufferElements(k, 0), m = bufferElements(k, 1);
    std::vector<float> x = testing::ramp(n, 0.0f, 1.0f), cpu(m, 0.0f), gpu(m, 0.0f);
    testing::jit(text).run({x.data(), cpu.data()}, 0, k.loops[0].reduction ? 1 : k.loops[0].extent);
    std::vector<cuda::HostBuffer> bufs{{x.data(), n * sizeof(float), false}, {gpu.data(), m * sizeof(float), true}};
    const std::string ptx = nvrtc->compileToPtx(cuda::cudaSource({k}), "reduce_test.cu", device->arch());
    const cuda::CudaLaunch launch = cuda::cudaLaunch(k, {}, device->multiprocessors());
    EXPECT_EQ(launch.schedule, text == total ? cuda::CudaSchedule::Split : cuda::CudaSchedule::Block);
    device->run(ptx, cuda::cudaSymbol(k), bufs, launch);
    const float tol = k.name == "softmax" ? 1e-6f : 2e-4f;
    for (size_t i = 0; i < m; ++i)
      EXPECT_NEAR(cpu[i], gpu[i], tol * std::max(1.0f, std::fabs(cpu[i]))) << k.name << " (" << launch.str() << ")[" << i << "]";
  }
}

}  // namespace
}  // namespace kiln::codegen
