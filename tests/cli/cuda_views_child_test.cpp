// A GPU compile's views made in a child process, `kiln cuda-views` (engine/driver/
// kernel_views_child.h), without a GPU: the wire keeps every field (a symbolic kernel's hints
// too); the built kiln's views equal those made in this process, each compiling with NVRTC
// (caches of their own; SASS too where nvdisasm is installed: both or neither have it), plugins
// on KILN_PLUGIN_PATH not loaded by the child; a child that exits non-zero, writes something else,
// dies of a signal or is stopped becomes the batch's "not made" note, never a crash or a hang; a
// stop is SIGTERM then SIGKILL; the child gets a private TMPDIR, removed after it ends, its
// parent's pid and no other descriptor; it dies with its parent and exits when orphaned; the
// queue's end kills a child still running, and a child's views are timed "cuda views (child)".
// The NVRTC cases skip without NVRTC, saying so.
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/kernel_cache.h"
#include "engine/driver/kernel_views.h"
#include "engine/driver/kernel_views_child.h"
#include "engine/kir/kernel_ir.h"
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

// A kernel over a size symbol with every kind of hint the text leaves out (a loop extent, buffer
// dims, an index coefficient, a constant), the hints set as a compile at s0 = 6 would set them.
kir::Kernel symbolicKernel() {
  kir::Kernel k = kir::parseKernel(
      "kernel sym_scale_transpose pointwise\n"
      "  in x: f32[8, s0]\n"
      "  out y: f32[s0, 8]\n"
      "  loop i0 in 0..s0\n"
      "  loop i1 in 0..8\n"
      "  %0 = load x[i0 + i1*s0]\n"
      "  %1 = const s0 : f32\n"
      "  %2 = mul %0, %1\n"
      "  store y[i0*8 + i1], %2\n"
      "end\n");
  k.loops[0].extent = 6;
  k.buffers[0].shape[1] = 6;
  k.buffers[1].shape[0] = 6;
  k.body[0].index.terms[1].coeff = 6;
  k.body[1].constant = 6.0;
  return k;
}

// Which figures two views must share: all of them (the wire), or all but shared memory, stack and
// spills (two NVRTC compiles): on the GPU machine ptxas's -v report is at times missing from
// NVRTC's log, and the views then take cuobjdump -res-usage's figures, which count the reserved
// shared memory and have no spills (as cuda_views_child_gpu_test.cpp compares its sessions).
enum class Figures { All, WithoutSharedStackSpills };

void expectSameGpu(const session::KernelGpuInfo& a, const session::KernelGpuInfo& b, Figures figures) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.sass, b.sass);
  EXPECT_EQ(a.launch, b.launch);
  EXPECT_EQ(a.registers, b.registers);
  if (figures == Figures::All) {
    EXPECT_EQ(a.sharedBytes, b.sharedBytes);
    EXPECT_EQ(a.stackBytes, b.stackBytes);
    EXPECT_EQ(a.spillStores, b.spillStores);
    EXPECT_EQ(a.spillLoads, b.spillLoads);
  }
  EXPECT_EQ(a.notes, b.notes);
}

void expectSameViews(const session::KernelViewsEvent& a, const session::KernelViewsEvent& b, Figures figures = Figures::All) {
  EXPECT_EQ(a.compileId, b.compileId);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].source, b.kernels[i].source);
    expectSameGpu(a.kernels[i].gpu, b.kernels[i].gpu, figures);
  }
}

TEST(KernelViewsChild, TheRequestKeepsEveryFieldThroughItsJson) {
  for (bool launches : {true, false}) {
    KernelViewsRequest r = request(launches);
    r.kernels.push_back(symbolicKernel());
    ASSERT_TRUE(r.kernels.back().symbolic());
    ASSERT_NE(kir::parseKernel(kir::print(r.kernels.back())), r.kernels.back());  // the text alone drops the hints
    const KernelViewsRequest back = requestFromJson(requestToJson(r));
    EXPECT_EQ(back.kernels, r.kernels);  // hints included
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

TEST(KernelViewsChild, AKernelsHintsMustMatchItsSizeExpressions) {
  KernelViewsRequest r;
  r.kernels = {symbolicKernel()};
  const std::string good = requestToJson(r);
  const std::string hints = "\"hints\":[6,6,6,6,6.0]";
  ASSERT_NE(good.find(hints), std::string::npos) << good;
  std::string fewer = good, more = good;
  fewer.replace(fewer.find(hints), hints.size(), "\"hints\":[6,6]");
  more.replace(more.find(hints), hints.size(), "\"hints\":[6,6,6,6,6.0,6]");
  EXPECT_THROW(requestFromJson(fewer), std::runtime_error);
  EXPECT_THROW(requestFromJson(more), std::runtime_error);
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

// How many entries a kernel cache folder holds (files, temporary ones aside).
int cacheEntries(const std::filesystem::path& dir) {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().filename().string().find(".tmp") == std::string::npos) ++n;
  return n;
}

// Sets an environment variable for its lifetime (what was there before comes back).
struct ScopedEnv {
  std::string name;
  std::optional<std::string> before;
  ScopedEnv(const std::string& n, const std::string& value) : name(n) {
    if (const char* v = std::getenv(n.c_str())) before = v;
    ::setenv(n.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (before) ::setenv(name.c_str(), before->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

TEST(KernelViewsChild, KilnMakesTheSameViewsAsThisProcess) {
  std::string why;
  if (!cuda::Nvrtc::instance(&why)) GTEST_SKIP() << "NVRTC is not installed here: " << why;
  // Each side compiles with NVRTC into a kernel cache of its own, both empty, none in ~/.cache:
  // with one cache the child would load what this process just wrote and compile nothing.
  test::TempDir caches("/tmp/kiln-views-caches");
  std::unique_ptr<codegen::KernelCache> here = codegen::KernelCache::open((caches.path / "here").string(), &why);
  ASSERT_TRUE(here) << why;
  codegen::KernelCache* before = codegen::KernelCache::use(here.get());
  // A plugin the child would fail to load: it must not load any (kiln run passes them on there).
  std::ofstream(caches.path / "bad_plugin.so") << "not a shared library";
  const ScopedEnv plugins("KILN_PLUGIN_PATH", (caches.path / "bad_plugin.so").string());
  for (bool launches : {true, false}) {
    const KernelViewsRequest r = request(launches);
    const session::KernelViewsEvent inProcess = cudaKernelViews(r.compileId, r.kernels, r.options());
    const std::filesystem::path childCache = caches.path / (launches ? "child_launches" : "child");  // empty each time
    const ScopedEnv childCacheDir("KILN_CACHE_DIR", childCache.string());
    const session::KernelViewsEvent child = childKernelViews(kilnPath(), r);
    EXPECT_GT(cacheEntries(childCache), 0) << "the child compiled nothing";
    expectSameViews(child, inProcess, Figures::WithoutSharedStackSpills);
    ASSERT_EQ(child.kernels.size(), 5u);
    EXPECT_NE(child.kernels[0].gpu.ptx.find("// cuda line"), std::string::npos);
    EXPECT_GT(child.kernels[0].gpu.registers, 0);
    EXPECT_EQ(child.kernels[0].gpu.arch, "sm_80");
    EXPECT_EQ(child.kernels[0].gpu.launch,
              launches ? "grid 7x2, block 128, split, 4 per thread, row in registers (16 per thread)" : inProcess.kernels[0].gpu.launch);
  }
  EXPECT_GT(cacheEntries(caches.path / "here"), 0);
  codegen::KernelCache::use(before);
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

TEST(KernelViewsChild, AnUnknownExitStatusIsSaidNotTakenForSuccess) {
  // With SIGCHLD ignored the kernel reaps children itself: waitpid fails (ECHILD).
  const Script quiet("exit 0\n");
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGCHLD, &ignore, &before), 0);
  const std::string m = childError(quiet.path);
  ::sigaction(SIGCHLD, &before, nullptr);
  EXPECT_NE(m.find("cuda-views) exit status unknown: No child processes"), std::string::npos) << m;
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

// Whether `pid` runs `exe` and sleeps (waits to read), twice 20 ms apart.
bool waitingAs(pid_t pid, const std::string& exe) {
  for (int i = 0; i < 2; ++i) {
    std::error_code ec;
    const auto running = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    if (ec || running != std::filesystem::canonical(exe, ec)) return false;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const size_t name = text.rfind(')');
    if (name == std::string::npos || name + 2 >= text.size() || text[name + 2] != 'S') return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
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

// The seconds from a stop to childKernelViews' return, for `helper`; its message in `m`.
double stoppedAfter(const Script& helper, std::string& m) {
  std::stop_source stop;
  std::chrono::steady_clock::time_point stoppedAt;
  std::thread stopper([&] {
    readPid(helper.dir.path / "pid");  // written once it traps or ignores TERM
    stoppedAt = std::chrono::steady_clock::now();
    stop.request_stop();
  });
  m = childError(helper.path, stop.get_token());
  const auto end = std::chrono::steady_clock::now();
  stopper.join();
  return std::chrono::duration<double>(end - stoppedAt).count();
}

TEST(KernelViewsChild, AStopIsSigtermThenSigkillAfterAGrace) {
  // A child that handles SIGTERM gets to run its handler (nvdisasm, a helper cleaning up).
  const Script handles(
      "trap 'echo term > \"$(dirname \"$0\")/got_term\"; exit 0' TERM\n"
      "echo $$ > \"$(dirname \"$0\")/pid\"\nwhile :; do sleep 0.05; done\n");
  std::string m;
  EXPECT_LT(stoppedAfter(handles, m), 10.0);
  EXPECT_NE(m.find("cuda-views) was stopped"), std::string::npos) << m;
  EXPECT_TRUE(std::filesystem::exists(handles.dir.path / "got_term"));
  // One that ignores it (its sleeps inherit that) is killed after the grace, not at once.
  const Script ignores("trap '' TERM\necho $$ > \"$(dirname \"$0\")/pid\"\nwhile :; do sleep 0.05; done\n");
  const double s = stoppedAfter(ignores, m);
  EXPECT_GE(s, 0.2);
  EXPECT_LT(s, 10.0);
  EXPECT_NE(m.find("cuda-views) was stopped"), std::string::npos) << m;
}

TEST(KernelViewsChild, TheChildGetsAPrivateTmpdirItsParentsPidAndNoOtherDescriptor) {
  const Script helper(
      "d=\"$(dirname \"$0\")\"\necho \"$TMPDIR\" > \"$d/tmpdir\"\necho \"$KILN_VIEWS_PARENT\" > \"$d/parent\"\n"
      "touch \"$TMPDIR/kiln-left.cubin\"\nls -l /proc/$$/fd/ > \"$d/fds\"\nexit 1\n");
  // A descriptor this process opened without close-on-exec (as a library may).
  const std::string marker = (helper.dir.path / "leak-marker").string();
  std::ofstream(marker) << "x";
  const int leak = ::open(marker.c_str(), O_RDONLY);
  ASSERT_GE(leak, 0);
  const std::string m = childError(helper.path);
  ::close(leak);
  EXPECT_NE(m.find("exited with status 1"), std::string::npos) << m;
  const std::string tmpdir = test::readFile(helper.dir.path / "tmpdir");
  EXPECT_NE(tmpdir.find("/kiln-views-"), std::string::npos) << tmpdir;
  EXPECT_FALSE(std::filesystem::exists(tmpdir.substr(0, tmpdir.size() - 1)));  // removed, with what the child left
  EXPECT_EQ(test::readFile(helper.dir.path / "parent"), std::to_string(::getpid()) + "\n");
  const std::string fds = test::readFile(helper.dir.path / "fds");
  EXPECT_NE(fds.find("memfd:kiln-views-request"), std::string::npos) << fds;  // its stdin: the request
  EXPECT_EQ(fds.find("leak-marker"), std::string::npos) << fds;
}

TEST(KernelViewsChild, KilnExitsWhenItsParentIsAlreadyGone) {
  if (::getppid() == 1 || ::getpid() == 1) GTEST_SKIP() << "pid 1 is this process or its parent";
  test::TempDir d("/tmp/kiln-views-orphan");
  const test::KilnRun r = test::runKiln({"cuda-views"}, d.path, {{"KILN_VIEWS_PARENT", "1"}});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("kiln: its parent (KILN_VIEWS_PARENT=1) is gone; exiting"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(KernelViewsChild, KilnDiesWithItsParent) {
  // The helper starts kiln cuda-views as its own child, its stdin a FIFO it holds open itself (so
  // it would wait for a request forever), then waits; the test kills the helper.
  const Script parent(
      "d=\"$(dirname \"$0\")\"\nmkfifo \"$d/in\"\necho $$ > \"$d/parent\"\n"
      "KILN_VIEWS_PARENT=$$ '" +
      kilnPath() + "' cuda-views <>\"$d/in\" &\necho $! > \"$d/pid\"\nwait\n");
  std::stop_source stop;
  pid_t kiln = 0;
  bool diedWithIt = false;
  std::thread killer([&] {
    kiln = readPid(parent.dir.path / "pid");
    const pid_t shell = readPid(parent.dir.path / "parent");
    // Until kiln runs and waits on its stdin (past the prctl), so that PR_SET_PDEATHSIG is what
    // ends it, not its check of an already dead parent.
    for (int i = 0; i < 2000 && kiln > 0 && !waitingAs(kiln, kilnPath()); ++i) std::this_thread::sleep_for(5ms);
    if (shell > 0) ::kill(shell, SIGKILL);
    for (int i = 0; i < 2000 && kiln > 0 && alive(kiln); ++i) std::this_thread::sleep_for(5ms);
    diedWithIt = kiln > 0 && !alive(kiln);
    if (!diedWithIt) stop.request_stop();  // ends the group if kiln outlived its parent
  });
  const std::string m = childError(parent.path, stop.get_token());
  killer.join();
  ASSERT_GT(kiln, 0);
  EXPECT_TRUE(diedWithIt);
  EXPECT_NE(m.find("was killed by signal 9"), std::string::npos) << m;  // the helper, by the test
  EXPECT_EQ(m.find("is gone"), std::string::npos) << m;                 // kiln was killed, did not exit
  EXPECT_FALSE(alive(kiln));
}

class Recorder : public session::SessionSink {
 public:
  void kernelViews(const session::KernelViewsEvent& e) override { views.push_back(e); }
  void timing(const session::TimingEvent& t) override { phases.push_back(t.phase); }
  bool wantsKernelViews() const override { return true; }
  std::vector<session::KernelViewsEvent> views;
  std::vector<std::string> phases;
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
  EXPECT_EQ(sink.phases, std::vector<std::string>{"cuda views (child)"});  // a child's, so named
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
  // kiln registers /proc/self/exe, named in messages by the path it pointed to at start-up.
  setKernelViewsHelper("/bin/echo", "/opt/kiln/bin/kiln");
  EXPECT_EQ(kernelViewsHelper(), "/bin/echo");
  try {
    makeKernelViews("0/0", kernels, cuda::CudaViewOptions{"sm_90", 132, nullptr});
    ADD_FAILURE() << "the child's answer is not views";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("(/opt/kiln/bin/kiln cuda-views) wrote not kernel views"), std::string::npos) << e.what();
  }
  ::setenv("KILN_CUDA_VIEWS_IN_PROCESS", "1", 1);
  EXPECT_EQ(kernelViewsHelper(), "");
  ::unsetenv("KILN_CUDA_VIEWS_IN_PROCESS");
  setKernelViewsHelper("");
}

}  // namespace
}  // namespace kiln::driver
