// A GPU compile's views made in a child process, `kiln cuda-views` (engine/driver/
// kernel_views_child.h), without a GPU: the wire keeps every field; the built kiln's views equal
// those made in this process (SASS too where nvdisasm is installed: both or neither have it); a
// child that exits non-zero, writes something else, dies of a signal or is stopped becomes the
// batch's "not made" note, never a crash or a hang; the queue's end kills a child still running.
// The NVRTC cases skip without NVRTC, saying so.
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/driver/kernel_views.h"
#include "engine/driver/kernel_views_child.h"
#include "engine/kir/kernel_ir.h"
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <sys/stat.h>

namespace kiln::driver {
namespace {

using namespace std::chrono_literals;
namespace cuda = codegen::cuda;

// One compile's kernels as Kiln generates them (a masked softmax and four copies; kernel IR
// blocks of the golden file, tests/kernels/README.md).
std::vector<kir::Kernel> attentionKernels() {
  const std::string text = test::readFile(KILN_SOURCE_DIR "/tests/kernels/golden/model_attention_manual_causal.txt");
  std::vector<kir::Kernel> out;
  for (size_t at = text.find("\nkernel "); at != std::string::npos; at = text.find("\nkernel ", at + 1))
    out.push_back(kir::parseKernel(text.substr(at + 1, text.find("\nend\n", at) + 5 - at)));
  return out;
}

std::string kilnPath() {
  const char* cli = std::getenv("KILN_CLI_PATH");  // a bundle's kiln on the GPU machine
  return cli && *cli ? cli : KILN_CLI;
}

// The attention kernels with launches unlike cudaLaunch()'s (so a child that made its own would
// differ), every field set.
KernelViewsRequest request(bool launches) {
  KernelViewsRequest r;
  r.compileId = "3/1";
  r.kernels = attentionKernels();
  r.arch = "sm_80";
  r.smCount = 108;
  r.hasLaunches = launches;
  for (size_t i = 0; launches && i < r.kernels.size(); ++i) {
    const auto n = static_cast<unsigned>(i);
    r.launches.push_back({i ? cuda::CudaSchedule::Thread : cuda::CudaSchedule::Split, 4, 4096 + n, 7 + n, 2, 128, 33 + i, 8 + i, 16});
  }
  return r;
}

void expectSameGpu(const session::KernelGpuInfo& a, const session::KernelGpuInfo& b) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.sass, b.sass);
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.registers, b.registers);
  EXPECT_EQ(a.sharedBytes, b.sharedBytes);
  EXPECT_EQ(a.stackBytes, b.stackBytes);
  EXPECT_EQ(a.spillStores, b.spillStores);
  EXPECT_EQ(a.spillLoads, b.spillLoads);
  EXPECT_EQ(a.notes, b.notes);
}

void expectSameViews(const session::KernelViewsEvent& a, const session::KernelViewsEvent& b) {
  EXPECT_EQ(a.compileId, b.compileId);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].source, b.kernels[i].source);
    expectSameGpu(a.kernels[i].gpu, b.kernels[i].gpu);
  }
}

TEST(KernelViewsChild, TheRequestKeepsEveryFieldThroughItsJson) {
  for (bool launches : {true, false}) {
    const KernelViewsRequest r = request(launches);
    const KernelViewsRequest back = requestFromJson(requestToJson(r));
    EXPECT_EQ(back.compileId, "3/1");
    EXPECT_EQ(back.arch, "sm_80");
    EXPECT_EQ(back.smCount, 108);
    EXPECT_EQ(back.hasLaunches, launches);
    EXPECT_EQ(kir::print(back.kernels), kir::print(r.kernels));
    EXPECT_EQ(cuda::cudaSource(back.kernels), cuda::cudaSource(r.kernels));
    ASSERT_EQ(back.launches.size(), r.launches.size());
    for (size_t i = 0; i < r.launches.size(); ++i) {
      const auto &x = r.launches[i], &y = back.launches[i];
      EXPECT_EQ(y.schedule, x.schedule);
      EXPECT_EQ(y.vector, x.vector);
      EXPECT_EQ(y.points, x.points);
      EXPECT_EQ(y.gridX, x.gridX);
      EXPECT_EQ(y.gridY, x.gridY);
      EXPECT_EQ(y.block, x.block);
      EXPECT_EQ(y.scratchSlots, x.scratchSlots);
      EXPECT_EQ(y.counters, x.counters);
      EXPECT_EQ(y.rowSteps, x.rowSteps);
    }
    EXPECT_EQ(back.options().launches == nullptr, !launches);
  }
}

TEST(KernelViewsChild, TheViewsKeepEveryFieldThroughTheirJson) {
  session::KernelViewsEvent e;
  e.compileId = "0/2";
  session::KernelGpuInfo g{"sm_90",
                           ".entry k()\n",
                           "/*0000*/ MOV R1, c[0x0][0x28] ;\n",
                           "grid 1x1, block 32, thread",
                           12,
                           1024,
                           16,
                           4,
                           8,
                           "SASS: nvdisasm not found\n"};
  e.kernels.push_back({"k", "// kernel k (\n\xff bytes\n", g});
  e.kernels.push_back({"k2", "", session::KernelGpuInfo{}});
  const session::KernelViewsEvent back = viewsEventFromJson(viewsEventToJson(e));
  ASSERT_EQ(back.kernels.size(), 2u);
  session::KernelViewsEvent expected = e;
  expected.kernels[0].source = "// kernel k (\n\xef\xbf\xbd bytes\n";  // not UTF-8: U+FFFD, not a throw
  expectSameViews(back, expected);
}

TEST(KernelViewsChild, ReadersRejectWhatTheWritersDoNotWrite) {
  for (const std::string bad : {"", "hello", "{\"compile_id\": \"0/0\"}", "{\"compile_id\": 3, \"kernels\": []}"}) {
    EXPECT_THROW(viewsEventFromJson(bad), std::runtime_error) << bad;
    EXPECT_THROW(requestFromJson(bad), std::runtime_error) << bad;
  }
  try {
    viewsEventFromJson("hello");
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) { EXPECT_NE(std::string(e.what()).find("not kernel views"), std::string::npos) << e.what(); }
}

TEST(KernelViewsChild, KilnMakesTheSameViewsAsThisProcess) {
  std::string why;
  if (!cuda::Nvrtc::instance(&why)) GTEST_SKIP() << "NVRTC is not installed here: " << why;
  for (bool launches : {true, false}) {
    const KernelViewsRequest r = request(launches);
    const session::KernelViewsEvent here = cudaKernelViews(r.compileId, r.kernels, r.options());
    const session::KernelViewsEvent child = childKernelViews(kilnPath(), r);
    expectSameViews(child, here);
    ASSERT_EQ(child.kernels.size(), 5u);
    EXPECT_NE(child.kernels[0].gpu.ptx.find("// cuda line"), std::string::npos);
    EXPECT_GT(child.kernels[0].gpu.registers, 0);
    EXPECT_EQ(child.kernels[0].gpu.arch, "sm_80");
    EXPECT_EQ(child.kernels[0].gpu.launch,
              launches ? "grid 7x2, block 128, split, 4 per thread, row in registers (16 per thread)" : here.kernels[0].gpu.launch);
  }
}

// A helper script in a fresh folder (a stand-in for kiln that fails in one way).
struct Script {
  test::TempDir dir{"/tmp/kiln-views-child"};
  std::string path;
  explicit Script(const std::string& body) : path((dir.path / "helper.sh").string()) {
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
  }
};

std::string childError(const std::string& helper, std::stop_token stop = {}) {
  try {
    childKernelViews(helper, request(true), stop);
  } catch (const std::runtime_error& e) { return e.what(); }
  return "(no error)";
}

TEST(KernelViewsChild, AFailingChildSaysWhyWithItsStderr) {
  const std::string what = "the views process (";
  const std::string garbage = childError("/bin/echo");  // exits 0 having written "cuda-views"
  EXPECT_EQ(garbage.rfind(what + "/bin/echo cuda-views) wrote not kernel views", 0), 0u) << garbage;
  EXPECT_NE(garbage.find("'cuda-views\n'"), std::string::npos) << garbage;
  const std::string failed = childError(Script("cat >/dev/null\necho 'first line' >&2\necho 'kiln: boom' >&2\nexit 3\n").path);
  EXPECT_NE(failed.find("cuda-views) exited with status 3; its stderr: first line | kiln: boom"), std::string::npos) << failed;
  const std::string crashed = childError(Script("echo 'about to crash' >&2\nkill -SEGV $$\n").path);
  EXPECT_NE(crashed.find("was killed by signal 11 (Segmentation fault); its stderr: about to crash"), std::string::npos) << crashed;
  const std::string missing = childError("/nonexistent/kiln");
  EXPECT_EQ(missing, what + "/nonexistent/kiln cuda-views) not started: No such file or directory");
  EXPECT_NE(childError(Script("echo '{\"compile_id\": \"9/9\", \"kernels\": []}'\n").path)
                .find("answered for compile 9/9 with 0 kernels, not 3/1"),
            std::string::npos);
}

TEST(KernelViewsChild, KilnSaysWhyItCannotMakeTheViews) {
  std::string why;
  if (!cuda::Nvrtc::instance(&why)) GTEST_SKIP() << "NVRTC is not installed here: " << why;
  KernelViewsRequest r = request(true);
  r.arch = "sm_1";  // NVRTC has no such architecture
  try {
    childKernelViews(kilnPath(), r);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cuda-views) exited with status 1; its stderr: kiln: "), std::string::npos) << m;
  }
}

// Running: a process that has ended is gone or a zombie (whoever reaps orphans here may be slow).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const size_t name = text.rfind(')');  // "PID (NAME) STATE ..."
  return name != std::string::npos && name + 2 < text.size() && text[name + 2] != 'Z';
}

// The pid a helper script wrote to `file` (once written whole), or 0 after ten seconds.
pid_t readPid(const std::filesystem::path& file) {
  for (int i = 0; i < 2000; ++i) {
    std::string line;
    if (std::getline(std::ifstream(file), line) && !line.empty()) return static_cast<pid_t>(std::stol(line));
    std::this_thread::sleep_for(5ms);
  }
  return 0;
}

TEST(KernelViewsChild, AStopKillsTheChildAndWhatItStarted) {
  Script slow("sleep 30 &\necho $! > \"$(dirname \"$0\")/grandchild\"\nwait\n");
  std::stop_source stop;
  pid_t grandchild = 0;
  std::thread stopper([&] {
    grandchild = readPid(slow.dir.path / "grandchild");  // written once the sleep runs
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const std::string m = childError(slow.path, stop.get_token());
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_NE(m.find("cuda-views) was stopped"), std::string::npos) << m;
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 400 && alive(grandchild); ++i) std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(alive(grandchild));  // the sleep, killed with the child's process group
}

class Recorder : public session::SessionSink {
 public:
  void kernelViews(const session::KernelViewsEvent& e) override { views.push_back(e); }
  bool wantsKernelViews() const override { return true; }
  std::vector<session::KernelViewsEvent> views;
};

session::KernelViewsEvent reported() {
  session::KernelViewsEvent e;
  e.compileId = "3/1";
  session::KernelGpuInfo g;
  g.launch = "grid 7x1, block 128, thread, 4 per thread";
  g.notes = BackgroundKernelViews::kPendingNote;
  for (const auto& k : attentionKernels()) e.kernels.push_back({k.name, "// as compiled\n", g});
  return e;
}

void addChildJob(BackgroundKernelViews& q, Recorder& sink, const std::string& helper) {
  q.add(sink, reported(), [helper](std::stop_token stop) { return childKernelViews(helper, request(true), stop); });
}

TEST(KernelViewsChild, TheQueueReportsAFailedChildAsNotMade) {
  Recorder sink;
  BackgroundKernelViews q;
  const Script failing("echo 'kiln: no NVRTC' >&2\nexit 1\n");
  addChildJob(q, sink, failing.path);
  EXPECT_EQ(q.finish(30s), 0);
  ASSERT_EQ(sink.views.size(), 1u);
  ASSERT_EQ(sink.views[0].kernels.size(), 5u);
  for (const auto& k : sink.views[0].kernels) {
    EXPECT_EQ(k.gpu.notes.rfind("PTX, SASS and resources not made: the views process (", 0), 0u) << k.gpu.notes;
    EXPECT_NE(k.gpu.notes.find("exited with status 1; its stderr: kiln: no NVRTC"), std::string::npos) << k.gpu.notes;
    EXPECT_EQ(k.gpu.launch, "grid 7x1, block 128, thread, 4 per thread");
  }
}

TEST(KernelViewsChild, TheQueuesEndKillsAChildStillRunning) {
  Recorder sink;
  Script slow("echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 30\n");
  pid_t child = 0;
  const auto t0 = std::chrono::steady_clock::now();
  {
    BackgroundKernelViews q;
    addChildJob(q, sink, slow.path);
    child = readPid(slow.dir.path / "pid");
    ASSERT_GT(child, 0);
    EXPECT_TRUE(alive(child));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_FALSE(alive(child));       // killed and reaped
  EXPECT_TRUE(sink.views.empty());  // a destroyed queue reports nothing
}

TEST(KernelViewsChild, FinishPastItsLimitKillsTheChild) {
  Recorder sink;
  Script slow("echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 30\n");
  BackgroundKernelViews q;
  addChildJob(q, sink, slow.path);
  const pid_t child = readPid(slow.dir.path / "pid");
  ASSERT_GT(child, 0);
  EXPECT_EQ(q.finish(200ms), 1);
  ASSERT_EQ(sink.views.size(), 1u);
  EXPECT_NE(sink.views[0].kernels[0].gpu.notes.find("not made: not ready when the session ended"), std::string::npos);
  for (int i = 0; i < 400 && alive(child); ++i) std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(alive(child));
}

TEST(KernelViewsChild, TheHelperIsUsedOnlyWhereRegisteredAndNotForcedInProcess) {
  EXPECT_EQ(kernelViewsHelper(), "");  // the engine alone makes views in-process
  setKernelViewsHelper("/bin/echo");
  EXPECT_EQ(kernelViewsHelper(), "/bin/echo");
  const std::vector<kir::Kernel> kernels = attentionKernels();
  try {
    makeKernelViews("0/0", kernels, cuda::CudaViewOptions{"sm_90", 132, nullptr});
    ADD_FAILURE() << "the child's answer is not views";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/bin/echo cuda-views) wrote"), std::string::npos) << e.what();
  }
  ::setenv("KILN_CUDA_VIEWS_IN_PROCESS", "1", 1);
  EXPECT_EQ(kernelViewsHelper(), "");
  ::unsetenv("KILN_CUDA_VIEWS_IN_PROCESS");
  setKernelViewsHelper("");
}

}  // namespace
}  // namespace kiln::driver
