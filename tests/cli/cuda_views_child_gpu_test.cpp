// On a GPU: `kiln run` makes its compiles' PTX/SASS views in `kiln cuda-views` children
// (engine/driver/kernel_views_child.h); with KILN_CUDA_VIEWS_IN_PROCESS=1 on its background thread.
// Both sessions end with the same views for every kernel, none pending or not made; the first's
// were made by children (each compile's timing is "cuda views (child)", with
// KILN_CUDA_VIEWS_IN_PROCESS cleared for it whatever this process's environment holds), the
// second's in-process ("cuda views"). The script prints each graph's cold first call, so the log
// compares them (the child leaves the script's NVRTC free; in-process views hold the next graph's
// compile up). Label gpu: skips without a GPU.
#include "engine/runtime/cuda_runtime.h"
#include "storage/store.h"
#include "tests/cli/run_kiln.h"
#include "tests/runtime/require_gpu.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>

namespace kiln {
namespace {

// Three small graphs compiled one after another, as tools/gpu_bench/workloads.py does them.
const char* kScript = R"(import time
import torch

def double_cos(x):
    return torch.cos(torch.cos(x))

def copy_into(x, y):
    return y.copy_(x)

def softmax_rows(x):
    return torch.softmax(x, -1)

def relu_affine(x):
    return torch.relu(x * 2 + 1)

x = torch.randn(1 << 22, device='cuda')
m = torch.randn(1024, 1024, device='cuda')
for name, fn, args in [('cos_cos', double_cos, (x,)), ('copy', copy_into, (x, torch.empty_like(x))),
                       ('softmax', softmax_rows, (m,)), ('relu', relu_affine, (x,))]:
    f = torch.compile(fn)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    f(*args)
    torch.cuda.synchronize()
    print('cold', name, round((time.perf_counter() - t0) * 1000, 1), 'ms')
)";

// `text` with the shared-memory, stack and spill figures of its kernels' headers cut out. In a
// GPU session ptxas's -v report is at times missing from NVRTC's log (seen on the H100 with NVRTC
// 13.0, in-process and in the child alike, never in `kiln show` of a CPU session); the views then
// take cuobjdump -res-usage's figures, which count the reserved shared memory and have no spills.
// Which compile lacks it varies between runs, so the two sessions are compared without them.
std::string withoutResources(const std::string& text) {
  static const std::regex figures(R"( \xC2\xB7 (\d+ B shared|\d+ B stack|spills -?\d+ B stored, -?\d+ B loaded))");
  return std::regex_replace(text, figures, "");
}

struct Views {
  test::KilnRun run, ptx, sass;
};

Views runAndShow(const test::TempDir& d, const std::string& db, const std::map<std::string, std::string>& env) {
  Views v;
  v.run = test::runKiln({"run", (d.path / "views.py").string(), "--db", db}, d.path, env);
  v.ptx = test::runKiln({"show", "1", "--stage", "ptx", "--db", db}, d.path);
  v.sass = test::runKiln({"show", "1", "--stage", "sass", "--db", db}, d.path);
  return v;
}

// How many timings of each "cuda views" phase the store's newest session holds.
std::map<std::string, int> viewsTimings(const std::string& db) {
  std::map<std::string, int> n;
  auto store = storage::Store::open(db, storage::Store::Access::ReadOnly);
  const auto sessions = store->sessions();
  if (sessions.empty()) return n;
  for (const auto& t : store->timings(sessions.front().id))
    if (t.phase.rfind("cuda views", 0) == 0) ++n[t.phase];
  return n;
}

TEST(KernelViewsChildGpu, ARunsChildrenMakeTheViewsThisProcessWould) {
  REQUIRE_GPU();
  test::TempDir d("/tmp/kiln-views-child-gpu");
  std::ofstream(d.path / "views.py") << kScript;
  // A fresh kernel cache each, so both compile cold.
  // "0" whatever this process's environment holds: a leaked 1 would make the views in-process.
  const Views child = runAndShow(d, (d.path / "child.db").string(),
                                 {{"KILN_CACHE_DIR", (d.path / "cache_child").string()}, {"KILN_CUDA_VIEWS_IN_PROCESS", "0"}});
  const Views here = runAndShow(d, (d.path / "here.db").string(),
                                {{"KILN_CACHE_DIR", (d.path / "cache_here").string()}, {"KILN_CUDA_VIEWS_IN_PROCESS", "1"}});
  ASSERT_EQ(child.run.exitCode, 0) << child.run.err;
  ASSERT_EQ(here.run.exitCode, 0) << here.run.err;
  std::cout << "[ CHILD    ]\n" << child.run.out << "[ IN-PROC  ]\n" << here.run.out;
  // Every compile's views made by a child in the first session, none in the second.
  const auto childPhases = viewsTimings((d.path / "child.db").string()), herePhases = viewsTimings((d.path / "here.db").string());
  EXPECT_EQ(childPhases.count("cuda views"), 0u);
  EXPECT_EQ(herePhases.count("cuda views (child)"), 0u);
  ASSERT_TRUE(herePhases.count("cuda views"));
  EXPECT_GT(herePhases.at("cuda views"), 0);
  EXPECT_EQ(childPhases.count("cuda views (child)") ? childPhases.at("cuda views (child)") : 0, herePhases.at("cuda views"));
  EXPECT_EQ(child.ptx.exitCode, 0) << child.ptx.err;
  EXPECT_NE(child.ptx.out.find(".entry"), std::string::npos) << child.ptx.out.substr(0, 500);
  EXPECT_NE(child.ptx.out.find("(recorded when it ran)"), std::string::npos) << child.ptx.out.substr(0, 500);
  for (const auto* r : {&child.ptx, &child.sass}) {
    EXPECT_EQ(r->err.find("not made"), std::string::npos) << r->err;
    EXPECT_EQ(r->err.find("pending"), std::string::npos) << r->err;
  }
  EXPECT_EQ(withoutResources(child.ptx.out), withoutResources(here.ptx.out));
  EXPECT_NE(withoutResources(child.ptx.out), child.ptx.out);  // the figures were there to cut
  EXPECT_EQ(child.sass.exitCode, here.sass.exitCode);
  EXPECT_EQ(withoutResources(child.sass.out), withoutResources(here.sass.out));
  EXPECT_EQ(child.sass.err, here.sass.err);
}

// How many files of the CUDA driver's JIT cache at `dir` (CUDA_CACHE_PATH) hold a Kiln kernel:
// modules the driver assembled from Kiln's PTX.
int jittedKilnModules(const std::filesystem::path& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.find("kiln_") != std::string::npos) ++n;
  }
  return n;
}

// Compiled graphs load NVRTC's cubin for the device's architecture (runtime/cuda_graph.cpp), and
// the kernel cache keeps it: a second run of a script finds every module there and the driver
// assembles none, even with its own JIT cache empty (a new machine, a new driver). Loading the
// PTX instead (KILN_CUDA_LOAD=ptx, the control) makes the driver assemble Kiln's modules again.
TEST(KernelCacheGpu, ASecondRunLoadsCubinsTheDriverNeverAssembles) {
  REQUIRE_GPU();
  test::TempDir d("/tmp/kiln-cubin-gpu");
  std::ofstream(d.path / "views.py") << kScript;
  const std::string cache = (d.path / "cache").string();
  auto run = [&](const std::string& name, const std::string& load) {
    test::KilnRun r = test::runKiln({"run", (d.path / "views.py").string(), "--db", (d.path / (name + ".db")).string()}, d.path,
                                    {{"KILN_CACHE_DIR", cache}, {"CUDA_CACHE_PATH", (d.path / name).string()}, {"KILN_CUDA_LOAD", load}});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::cout << "[ " << name << " ]\n" << r.out;
    return jittedKilnModules(d.path / name);
  };
  run("first", "");  // fills the kernel cache
  EXPECT_EQ(run("second", ""), 0) << "the driver assembled Kiln modules though the kernel cache held their cubins";
  EXPECT_GT(run("ptx", "ptx"), 0) << "loading PTX should have made the driver assemble (is its JIT cache elsewhere?)";
}

}  // namespace
}  // namespace kiln
