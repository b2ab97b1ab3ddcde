// On a GPU: a recorded run's compiled graphs report their kernels at once and make their PTX/SASS
// views on a background thread (engine/driver/kernel_views.h); when runScript returns, the
// session holds every kernel's views (forward and the compiled backward alike) and a "cuda views"
// timing per compile, as when they were made during the compile. `kiln run --profile N` times a
// GPU graph's steps with CUDA events.
#include "engine/driver/script_runner.h"
#include "storage/store.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"
#include "tests/support/profile_sink.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace kiln {
namespace {

TEST(CudaKernelViews, ARecordedSessionEndsWithEveryKernelsViews) {
  REQUIRE_GPU();
  const std::string path = (std::filesystem::temp_directory_path() / ("kiln_cuda_views_" + std::to_string(::getpid()) + ".db")).string();
  std::filesystem::remove(path);
  auto store = storage::Store::open(path);
  int64_t id = 0;
  {
    auto sink = store->beginSession();
    const test::ScriptOut o = test::runPy("cuda_kernel_views", R"(import time
import torch
x = torch.randn(256, 64, device='cuda', requires_grad=True)

@torch.compile
def f(x):
    return torch.softmax(torch.relu(x * 2 + 1), -1)

t0 = time.perf_counter()
y = f(x)
torch.cuda.synchronize()
print('first call ms', round((time.perf_counter() - t0) * 1000, 1))
y.sum().backward()
print(tuple(y.shape), tuple(x.grad.shape))
)",
                                          false, *sink);
    ASSERT_EQ(o.exitCode, 0) << o.error;
    std::cout << o.printed;
    id = store->lastSessionId();
  }
  int kernels = 0, backward = 0;
  std::map<std::string, double> phases;
  for (const auto& t : store->timings(id)) phases[t.compileId + " " + t.phase] += t.ms;
  for (const auto& c : store->compiles(id)) {
    const auto rows = store->kernels(id, c.compileId);
    if (rows.empty()) continue;
    for (const auto& k : rows) {
      ++kernels;
      backward += k.name.rfind("bw_", 0) == 0;
      EXPECT_NE(k.gpu.ptx.find(".entry"), std::string::npos) << k.name << ": " << k.gpu.notes;
      EXPECT_EQ(k.gpu.notes.find("pending"), std::string::npos) << k.name << ": " << k.gpu.notes;
      EXPECT_GE(k.gpu.registers, 0) << k.name;
      EXPECT_NE(k.source.find("// kernel " + k.name), std::string::npos) << k.name;
    }
    EXPECT_TRUE(phases.count(c.compileId + " cuda views")) << c.compileId;
    std::cout << "[ TIMING   ] " << c.compileId << ": codegen " << phases[c.compileId + " codegen"] << " ms, cuda views (background) "
              << phases[c.compileId + " cuda views"] << " ms\n";
  }
  EXPECT_GT(kernels, 0);
  EXPECT_GT(backward, 0) << "no compiled backward kernel (bw_*) was recorded";
  store.reset();
  std::filesystem::remove(path);
}

// kiln run --profile N on the GPU: each compiled graph is timed with CUDA events, eager CUDA ops
// against the compiled launches, and each step on its own: the generated kernels by name (with
// the bytes they move) and the extern calls (the linear layer's GEMM) as the wrapper names them.
TEST(CudaProfile, EachStepOfACompiledGraphIsTimedWithCudaEvents) {
  REQUIRE_GPU();
  test::ProfileSink sink;
  const std::string path = (std::filesystem::temp_directory_path() / "kiln_cuda_profile.py").string();
  std::ofstream(path) << "import torch\nlin = torch.nn.Linear(256, 256).cuda()\n@torch.compile\ndef f(x):\n"
                         "    return torch.softmax(torch.relu(lin(x)) * 2, -1)\n"
                         "with torch.no_grad():\n    out = f(torch.randn(512, 256, device='cuda'))\nprint(out.device)\n";
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.profileRepeat = 5;
  driver::RunResult r = driver::runScript(ro, sink, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  EXPECT_EQ(out.str(), "cuda:0\n");
  ASSERT_EQ(sink.profiles.size(), 1u);
  const auto& p = sink.profiles[0];
  EXPECT_EQ(p.repeat, 5);
  EXPECT_GT(p.eagerMs, 0.0);
  EXPECT_GT(p.compiledMs, 0.0);
  std::vector<std::string> generated, externs;
  for (const auto& k : p.kernels) {
    EXPECT_GT(k.ms, 0.0) << k.name;
    std::cout << "[ PROFILE  ] " << k.name << " " << k.ms << " ms, " << k.bytes << " bytes\n";
    if (k.name.rfind("extern_kernels.", 0) == 0) {
      externs.push_back(k.name);
      EXPECT_EQ(k.bytes, 0) << k.name;
    } else {
      generated.push_back(k.name);
      EXPECT_GE(k.bytes, 512 * 256 * 4 * 2) << k.name;  // reads the GEMM's output, writes its own
    }
  }
  EXPECT_EQ(generated, sink.kernels);
  ASSERT_EQ(externs.size(), 1u);
  EXPECT_NE(externs[0].find("mm"), std::string::npos) << externs[0];
  std::cout << "[ PROFILE  ] eager " << p.eagerMs << " ms, compiled " << p.compiledMs << " ms\n";
}

}  // namespace
}  // namespace kiln
