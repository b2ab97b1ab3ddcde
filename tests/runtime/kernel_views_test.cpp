// GPU views made after the compile (engine/driver/kernel_views.h), without a GPU: the queue
// reports each batch on the caller's thread, in order, only once made; a failing batch and one
// not made in time are reported with notes saying so; finish() waits for the rest, bounded. With
// NVRTC (here), the views a GPU compile queues reach a SessionWriter's kernel rows; through
// runScript, a backend's queued views reach the store while the script runs, or before it ends.
#include "engine/driver/kernel_views.h"
#include "engine/capture/backend.h"
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/driver/script_runner.h"
#include "engine/kir/kernel_ir.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/session/tee_sink.h"
#include "storage/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace kiln::driver {
namespace {

using namespace std::chrono_literals;

// Records what reaches it, with the thread it came on.
class Recorder : public session::SessionSink {
 public:
  void kernelViews(const session::KernelViewsEvent& e) override {
    views.push_back(e);
    threads.push_back(std::this_thread::get_id());
    order.push_back("views " + e.compileId);
  }
  void timing(const session::TimingEvent& e) override {
    timings.push_back(e);
    order.push_back(e.phase + " " + e.compileId);
  }
  bool wantsKernelViews() const override { return true; }
  std::vector<session::KernelViewsEvent> views;
  std::vector<session::TimingEvent> timings;
  std::vector<std::thread::id> threads;
  std::vector<std::string> order;
};

session::KernelViewsEvent reported(const std::string& cid) {
  session::KernelViewsEvent e;
  e.compileId = cid;
  session::KernelGpuInfo g;
  g.arch = "sm_90";
  g.launch = "grid 4x1, block 256, thread";
  g.notes = BackgroundKernelViews::kPendingNote;
  e.kernels.push_back({"kiln_k0", "// as compiled\n", g});
  return e;
}

session::KernelViewsEvent made(const std::string& cid) {
  session::KernelViewsEvent e = reported(cid);
  e.kernels[0].gpu.ptx = ".visible .entry kiln_k0()\n";
  e.kernels[0].gpu.notes = "";
  return e;
}

void waitReady(const BackgroundKernelViews& q) {
  for (int i = 0; i < 2000 && !q.ready(); ++i) std::this_thread::sleep_for(5ms);
}

TEST(CudaViewsBackground, BatchesAreReportedOnTheCallersThreadInOrderOnceMade) {
  Recorder sink;
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  BackgroundKernelViews q;
  q.add(sink, reported("0/0"), [go] {
    go.wait();
    return made("0/0");
  });
  q.add(sink, reported("1/0"), [] { return made("1/0"); });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(q.ready());
  q.deliverReady();  // 0/0 is still being made: nothing yet, and 1/0 waits its turn
  EXPECT_TRUE(sink.order.empty());
  release.set_value();
  waitReady(q);
  EXPECT_TRUE(q.ready());
  for (int i = 0; i < 200 && sink.order.size() < 4; ++i) {
    q.deliverReady();
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(sink.order, (std::vector<std::string>{"views 0/0", "cuda views 0/0", "views 1/0", "cuda views 1/0"}));
  for (const auto& t : sink.threads) EXPECT_EQ(t, std::this_thread::get_id());
  ASSERT_EQ(sink.views.size(), 2u);
  EXPECT_EQ(sink.views[0].kernels[0].gpu.ptx, ".visible .entry kiln_k0()\n");
  EXPECT_GE(sink.timings[0].ms, 15.0);  // the time it took on the background thread
  EXPECT_FALSE(q.ready());
  EXPECT_EQ(q.finish(1s), 0);
  EXPECT_EQ(sink.order.size(), 4u);  // nothing twice
}

TEST(CudaViewsBackground, AFailingBatchKeepsItsLaunchAndSaysWhy) {
  Recorder sink;
  BackgroundKernelViews q;
  q.add(sink, reported("0/0"), []() -> session::KernelViewsEvent { throw std::runtime_error("NVRTC could not compile it"); });
  EXPECT_EQ(q.finish(10s), 0);
  ASSERT_EQ(sink.views.size(), 1u);
  const auto& k = sink.views[0].kernels.at(0);
  EXPECT_EQ(k.gpu.notes, "PTX, SASS and resources not made: NVRTC could not compile it");
  EXPECT_EQ(k.gpu.launch, "grid 4x1, block 256, thread");
  EXPECT_EQ(k.source, "// as compiled\n");
  EXPECT_TRUE(k.gpu.ptx.empty());
}

TEST(CudaViewsBackground, FinishWaitsForPendingBatchesButNotPastItsLimit) {
  Recorder sink;
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  {
    BackgroundKernelViews q;
    q.add(sink, reported("0/0"), [] {
      std::this_thread::sleep_for(100ms);
      return made("0/0");
    });
    q.add(sink, reported("1/0"), [go] {
      go.wait();
      return made("1/0");
    });
    q.add(sink, reported("2/0"), [] { return made("2/0"); });  // never started
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(q.finish(400ms), 2);
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(waited, 390ms);
    EXPECT_LT(waited, 5s);
    ASSERT_EQ(sink.views.size(), 3u);
    EXPECT_EQ(sink.views[0].kernels[0].gpu.notes, "");  // made within the limit
    for (size_t i : {1u, 2u}) {
      EXPECT_NE(sink.views[i].kernels[0].gpu.notes.find("not made: not ready when the session ended (it waits 0.4 s"), std::string::npos)
          << sink.views[i].kernels[0].gpu.notes;
      EXPECT_EQ(sink.views[i].kernels[0].gpu.launch, "grid 4x1, block 256, thread");
    }
    release.set_value();  // the batch being made ends; the queue's end waits for it
  }
  EXPECT_EQ(sink.views.size(), 3u);  // and reports nothing more
}

TEST(CudaViewsBackground, AScopeInstallsTheQueueForItsThreadOnly) {
  EXPECT_EQ(BackgroundKernelViews::current(), nullptr);
  BackgroundKernelViews a, b;
  {
    BackgroundKernelViews::Scope sa(a);
    EXPECT_EQ(BackgroundKernelViews::current(), &a);
    {
      BackgroundKernelViews::Scope sb(b);
      EXPECT_EQ(BackgroundKernelViews::current(), &b);
      BackgroundKernelViews* other = &a;
      std::thread([&] { other = BackgroundKernelViews::current(); }).join();
      EXPECT_EQ(other, nullptr);
    }
    EXPECT_EQ(BackgroundKernelViews::current(), &a);
  }
  EXPECT_EQ(BackgroundKernelViews::current(), nullptr);
}

// A pointwise kernel, as a GPU graph's unit holds it.
const char* kPointwise = R"(kernel kiln_relu_0 pointwise
  nodes 1, 2
  in x: f32[64, 64]
  out y: f32[64, 64]
  loop i0 in 0..4096
  %0 = load x[i0] @1
  %1 = const 0.0 : f32 @2
  %2 = max %0, %1 @2
  store y[i0], %2 @2
end
)";

// What a GPU compile does with a recording session, up to the device: the kernel rows stored
// pending, the views made on the background thread by NVRTC, the rows updated in the store.
TEST(CudaViewsBackground, ViewsMadeByNvrtcUpdateTheStoredKernelRows) {
  std::string why;
  if (!codegen::cuda::Nvrtc::instance(&why)) GTEST_SKIP() << "NVRTC is not installed here: " << why;
  const std::string path = (std::filesystem::temp_directory_path() / ("kiln_views_" + std::to_string(::getpid()) + ".db")).string();
  std::filesystem::remove(path);
  {
    auto store = storage::Store::open(path);
    auto sink = store->beginSession();
    session::SessionStart start;
    start.scriptPath = "views.py";
    sink->sessionStart(start);
    const int64_t id = store->lastSessionId();
    const std::vector<kir::Kernel> kernels = {kir::parseKernel(kPointwise)};
    session::CompileEvent c;
    c.compileId = "0/0";
    c.status = "ok";
    sink->compile(c);
    session::KernelViewsEvent r = reported("0/0");
    r.kernels[0].name = kernels[0].name;
    session::KernelEvent k;
    k.compileId = "0/0";
    k.name = kernels[0].name;
    k.kernelIr = kir::print(kernels[0]);
    k.source = r.kernels[0].source;
    k.gpu = r.kernels[0].gpu;
    sink->kernel(k);
    sink->compileDone("0/0");
    BackgroundKernelViews q;
    q.add(*sink, r, [kernels] { return cudaKernelViews("0/0", kernels, codegen::cuda::CudaViewOptions{"sm_90", 132, nullptr}); });
    EXPECT_EQ(q.finish(120s), 0);
    const auto rows = store->kernels(id, "0/0");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_NE(rows[0].gpu.ptx.find(".entry"), std::string::npos) << rows[0].gpu.ptx.substr(0, 300);
    EXPECT_NE(rows[0].gpu.ptx.find("// cuda line"), std::string::npos);
    EXPECT_EQ(rows[0].gpu.arch, "sm_90");
    EXPECT_GT(rows[0].gpu.registers, 0);
    EXPECT_EQ(rows[0].gpu.notes.find("pending"), std::string::npos) << rows[0].gpu.notes;
    EXPECT_NE(rows[0].source.find("// kernel kiln_relu_0"), std::string::npos);
    bool timed = false;
    for (const auto& t : store->timings(id)) timed = timed || (t.compileId == "0/0" && t.phase == "cuda views" && t.ms > 0);
    EXPECT_TRUE(timed);
    session::SessionEnd end;
    end.status = "ok";
    sink->sessionEnd(end);
  }
  std::filesystem::remove(path);
}

// A backend that does with its graph what the GPU backend does with its kernels (backends.cpp,
// reportGpuKernels): one kernel reported pending, its views queued on the run's background
// queue, the graph run eagerly. So runScript's part (the queue installed for the script's thread,
// views reported with the output flush while the script runs, the rest awaited before
// sessionEnd) is tested here without a GPU.
class ViewsProbe : public capture::Backend {
 public:
  static std::chrono::milliseconds& delay() {
    static std::chrono::milliseconds d{0};
    return d;
  }
  capture::CompiledCode compile(const ir::Graph& g, const std::string& cid, session::SessionSink& sink,
                                const capture::CompileRequest&) override {
    session::KernelViewsEvent r = reported(cid);
    session::KernelEvent k;
    k.compileId = cid;
    k.name = r.kernels[0].name;
    k.kind = "pointwise";
    k.source = r.kernels[0].source;
    k.gpu = r.kernels[0].gpu;
    sink.kernel(k);
    BackgroundKernelViews* q = BackgroundKernelViews::current();
    EXPECT_NE(q, nullptr) << "runScript installs a queue for the script's thread";
    if (q && sink.wantsKernelViews())
      q->add(sink, r, [cid, d = delay()] {
        std::this_thread::sleep_for(d);
        return made(cid);
      });
    ir::Graph graph = g;
    capture::CompiledCode code;
    code.run = [graph](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(graph, in); };
    return code;
  }
};

// What reaches the store, in order, with the thread each event came on.
class Order : public session::SessionSink {
 public:
  void kernelViews(const session::KernelViewsEvent& e) override { add("views " + e.compileId); }
  void output(const std::string& t) override {
    if (t.find("done") != std::string::npos) add("output done");
  }
  void sessionEnd(const session::SessionEnd&) override { add("sessionEnd"); }
  bool wantsKernelViews() const override { return true; }
  void add(const std::string& what) {
    events.push_back(what);
    threads.push_back(std::this_thread::get_id());
  }
  std::vector<std::string> events;
  std::vector<std::thread::id> threads;
};

struct ProbeRun {
  Order order;
  std::vector<storage::KernelRow> rows;
  double ms = 0;
  int exitCode = 0;
  std::string error;
};

ProbeRun runProbe(const std::string& name, const std::string& script, std::chrono::milliseconds delay) {
  if (!capture::BackendRegistry::global().contains("views_probe"))
    capture::BackendRegistry::global().add("views_probe", "queues fake GPU views (kernel_views_test.cpp)",
                                           [](const capture::BackendConfig&) { return std::make_shared<ViewsProbe>(); });
  ViewsProbe::delay() = delay;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string py = (dir / (name + ".py")).string(), db = (dir / (name + std::to_string(::getpid()) + ".db")).string();
  std::ofstream(py) << script;
  std::filesystem::remove(db);
  ProbeRun run;
  {
    auto store = storage::Store::open(db);
    auto writer = store->beginSession();
    session::TeeSink tee({writer.get(), &run.order});
    driver::RunOptions ro;
    ro.scriptPath = py;
    std::ostringstream out;
    const auto t0 = std::chrono::steady_clock::now();
    driver::RunResult r = driver::runScript(ro, tee, out);
    run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    run.exitCode = r.exitCode;
    run.error = r.error;
    for (const auto& c : store->compiles(store->lastSessionId()))
      for (const auto& k : store->kernels(store->lastSessionId(), c.compileId)) run.rows.push_back(k);
  }
  std::filesystem::remove(db);
  return run;
}

const char* kProbeScript = R"(import time
import torch

def f(x):
    return x * 2

g = torch.compile(f, backend="views_probe")
g(torch.ones(4))
t0 = time.time()
n = 0
while time.time() - t0 < WAIT:
    n += 1
print('done')
)";

std::string probeScript(double waitSeconds) {
  std::string s = kProbeScript;
  s.replace(s.find("WAIT"), 4, std::to_string(waitSeconds));
  return s;
}

TEST(CudaViewsBackground, AScriptRunReportsViewsWhileTheScriptRunsOnItsThread) {
  // Made in no time; the script computes for a second and a half after the compile.
  const ProbeRun run = runProbe("kiln_views_probe_live", probeScript(1.5), 0ms);
  ASSERT_EQ(run.exitCode, 0) << run.error;
  EXPECT_EQ(run.order.events, (std::vector<std::string>{"views 0/0", "output done", "sessionEnd"}));
  for (const auto& t : run.order.threads) EXPECT_EQ(t, std::this_thread::get_id());
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].gpu.ptx, ".visible .entry kiln_k0()\n");
}

TEST(CudaViewsBackground, AScriptRunWaitsForViewsBeforeTheSessionEnds) {
  // Still being made when the script ends: the session ends after them, holding them.
  const ProbeRun run = runProbe("kiln_views_probe_end", probeScript(0.0), 800ms);
  ASSERT_EQ(run.exitCode, 0) << run.error;
  EXPECT_EQ(run.order.events, (std::vector<std::string>{"output done", "views 0/0", "sessionEnd"}));
  EXPECT_GE(run.ms, 800.0);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].gpu.ptx, ".visible .entry kiln_k0()\n");
  EXPECT_EQ(run.rows[0].gpu.notes, "");
}

}  // namespace
}  // namespace kiln::driver
