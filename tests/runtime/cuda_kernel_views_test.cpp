// On a GPU: a recorded run's compiled graphs report their kernels at once and make their PTX/SASS
// views on a background thread (engine/driver/kernel_views.h); when runScript returns, the
// session holds every kernel's views (forward and the compiled backward alike) and a "cuda views"
// timing per compile, as when they were made during the compile.
#include "storage/store.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

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

}  // namespace
}  // namespace kiln
