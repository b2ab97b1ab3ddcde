// The CUDA path: kernel IR -> CUDA C++ -> PTX through NVRTC, for every kernel the corpus
// generates (tests/kernels/golden); on a machine with a GPU, the kernels also run there and must
// agree with the LLVM CPU backend. Without NVRTC or without a GPU those parts skip and say why.
#include "engine/codegen/cuda/cuda_source.h"
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/kernel_compiler.h"
#include "tests/codegen/jit_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
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

TEST(CudaSource, OneThreadPerParallelPointAndItsReductionNests) {
  kir::Kernel k = kir::parseKernel(kSoftmax);
  const std::string src = cuda::cudaSource({k});
  EXPECT_EQ(cuda::cudaPoints(k), 4);
  EXPECT_NE(src.find("extern \"C\" __global__ void kiln_softmax_rows(const float* __restrict__ b0_x, float* __restrict__ b1_y, long long points)"),
            std::string::npos) << src;
  EXPECT_NE(src.find("const long long i0 = t;"), std::string::npos) << src;
  // Three nests over r0: max, sum of exp, the store.
  size_t loops = 0;
  for (size_t at = src.find("for (long long r0 = 0; r0 < 33LL; ++r0)"); at != std::string::npos;
       at = src.find("for (long long r0 = 0; r0 < 33LL; ++r0)", at + 1))
    ++loops;
  EXPECT_EQ(loops, 3u) << src;
  EXPECT_NE(src.find("kiln_max<float>(acc1, v0)"), std::string::npos) << src;
  EXPECT_NE(src.find("// @6"), std::string::npos) << src;  // provenance, as in kernel IR
}

TEST(CudaSource, UnsupportedDtypesAreAClearError) {
  kir::Kernel k = kir::parseKernel("kernel h pointwise\n  in x: f16[4]\n  out y: f16[4]\n  loop i0 in 0..4\n  %0 = load x[i0]\n  store y[i0], %0\nend\n");
  try {
    cuda::cudaSource({k});
    FAIL() << "f16 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA backend: dtype f16 is not supported"), std::string::npos) << e.what();
  }
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

// NVRTC's errors come back with its log.
TEST(CudaNvrtc, CompileErrorsCarryTheLog) {
  std::string why;
  cuda::Nvrtc* nvrtc = cuda::Nvrtc::instance(&why);
  if (!nvrtc) GTEST_SKIP() << "NVRTC is not available here: " << why;
  try {
    nvrtc->compileToPtx("extern \"C\" __global__ void f() { undeclared(); }", "bad.cu", kDefaultCudaArch);
    FAIL() << "bad source compiled";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("undeclared"), std::string::npos) << e.what();
  }
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
    device->run(ptx, cuda::cudaSymbol(k), bufs, cuda::cudaPoints(k));
    for (size_t i = 0; i < n; ++i) EXPECT_NEAR(cpu[i], gpu[i], 1e-5f * std::max(1.0f, std::fabs(cpu[i]))) << k.name << "[" << i << "]";
  }
}

}  // namespace
}  // namespace kiln::codegen
