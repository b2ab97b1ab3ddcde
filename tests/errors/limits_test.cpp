// Runs that are stopped: a time limit, Ctrl-C, SIGTERM and the memory limit each stop the
// script with a Python traceback, a shell-style exit code and a session status, and keep
// everything the script printed before (in the terminal and in the session).
#include "storage/store.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct KilnRun {
  int exitCode = -1;
  std::string out, err;
  double secondsAfterSignal = -1;  // from the signal to the exit, where one was sent
};

fs::path workDir(const std::string& name) {
  fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/errors/limits" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Starts `kiln ARGS...` with stdout and stderr in files; `signalAfter` sends `sig` once stdout
// holds `ready` (the script has started its loop), then waits for the exit.
KilnRun runKiln(const fs::path& dir, std::vector<std::string> args, int sig = 0, const std::string& ready = "") {
  fs::path outFile = dir / "stdout.txt", errFile = dir / "stderr.txt";
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(outFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> argv{const_cast<char*>(KILN_CLI)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(KILN_CLI, argv.data());
    _exit(127);
  }
  if (sig) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (test::readFile(outFile.string()).find(ready) == std::string::npos && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // > the 250 ms output flush
    kill(pid, sig);
  }
  const auto sent = std::chrono::steady_clock::now();
  int status = 0;
  waitpid(pid, &status, 0);
  KilnRun r;
  if (sig) r.secondsAfterSignal = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = test::readFile(outFile.string());
  r.err = test::readFile(errFile.string());
  return r;
}

storage::SessionDetail lastSession(const std::string& db) {
  auto store = storage::Store::open(db);
  auto list = store->sessions();
  EXPECT_FALSE(list.empty());
  auto d = store->session(list.front().id);
  EXPECT_TRUE(d);
  return d ? *d : storage::SessionDetail{};
}

TEST(Limits, TimeoutStopsTheScriptAndKeepsItsOutput) {
  fs::path dir = workDir("timeout");
  test::writeFile((dir / "loop.py").string(), "print('started')\ni = 0\nwhile True:\n    i += 1\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "loop.py").string(), "--db", db, "--timeout", "1"});
  EXPECT_EQ(r.exitCode, 124) << r.err;
  EXPECT_EQ(r.out.rfind("started\n", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("line 4, in <module>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TimeoutError: the script ran past its time limit of 1 s"), std::string::npos) << r.err;
  auto s = lastSession(db);
  EXPECT_EQ(s.summary.status, "timed out");
  EXPECT_EQ(s.stdoutText, "started\n");
  EXPECT_NE(s.error.find("TimeoutError"), std::string::npos);
}

TEST(Limits, TimeoutCannotBeCaughtForever) {
  // A script that catches everything is still stopped: the limit is raised again at its next
  // statement.
  fs::path dir = workDir("catch_all");
  test::writeFile(
      (dir / "stubborn.py").string(),
      "print('started')\nwhile True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "stubborn.py").string(), "--db", db, "--timeout", "1"});
  EXPECT_EQ(r.exitCode, 124) << r.err;
  EXPECT_EQ(lastSession(db).summary.status, "timed out");
}

TEST(Limits, CtrlCRaisesKeyboardInterruptInTheScript) {
  fs::path dir = workDir("sigint");
  test::writeFile((dir / "wait.py").string(),
                  "print('waiting', flush=True)\ntry:\n    while True:\n        pass\nexcept KeyboardInterrupt:\n"
                  "    print('caught KeyboardInterrupt')\nprint('after', flush=True)\nwhile True:\n    pass\n");
  std::string db = (dir / "s.db").string();
  // The first Ctrl-C is caught by the script; it then loops again, and is stopped by a timeout
  // (this test sends one signal: a second one is checked below).
  KilnRun r = runKiln(dir, {"run", (dir / "wait.py").string(), "--db", db, "--timeout", "3"}, SIGINT, "waiting");
  EXPECT_NE(r.out.find("caught KeyboardInterrupt\nafter\n"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.exitCode, 124) << r.err;

  fs::path dir2 = workDir("sigint_uncaught");
  test::writeFile((dir2 / "spin.py").string(), "print('spinning', flush=True)\nwhile True:\n    pass\n");
  std::string db2 = (dir2 / "s.db").string();
  KilnRun r2 = runKiln(dir2, {"run", (dir2 / "spin.py").string(), "--db", db2}, SIGINT, "spinning");
  EXPECT_EQ(r2.exitCode, 130) << r2.err;
  EXPECT_NE(r2.err.find("KeyboardInterrupt"), std::string::npos) << r2.err;
  auto s = lastSession(db2);
  EXPECT_EQ(s.summary.status, "interrupted");
  EXPECT_EQ(s.stdoutText, "spinning\n");
}

// A script stuck in one long native op (an 8192^3 matmul: a minute on two cores) is stopped
// inside it, between two row blocks, not when it returns (engine/tensor/stop.h).
TEST(Limits, LongNativeOpIsStoppedInside) {
  const std::string script = "import torch\na = torch.ones(8192, 8192)\nprint('started', flush=True)\nb = a @ a\nprint('not reached')\n";
  fs::path dir = workDir("native_timeout");
  test::writeFile((dir / "mm.py").string(), script);
  std::string db = (dir / "s.db").string();
  auto t0 = std::chrono::steady_clock::now();
  KilnRun r = runKiln(dir, {"run", (dir / "mm.py").string(), "--db", db, "--timeout", "2", "--eager"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exitCode, 124) << r.err;
  EXPECT_LT(seconds, 12.0);
  EXPECT_EQ(r.out.rfind("started\n", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("line 4, in <module>"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TimeoutError: the script ran past its time limit of 2 s"), std::string::npos) << r.err;
  auto s = lastSession(db);
  EXPECT_EQ(s.summary.status, "timed out");
  EXPECT_EQ(s.stdoutText, "started\n");

  fs::path dir2 = workDir("native_sigint");
  test::writeFile((dir2 / "mm.py").string(), script);
  std::string db2 = (dir2 / "s.db").string();
  t0 = std::chrono::steady_clock::now();
  KilnRun r2 = runKiln(dir2, {"run", (dir2 / "mm.py").string(), "--db", db2, "--eager"}, SIGINT, "started");
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r2.exitCode, 130) << r2.err;
  EXPECT_LT(seconds, 12.0);
  EXPECT_NE(r2.err.find("KeyboardInterrupt"), std::string::npos) << r2.err;
  EXPECT_EQ(lastSession(db2).summary.status, "interrupted");
}

// Work that never returns to the interpreter between statements is stopped inside as well: a
// compiled kernel whose outer loop is a reduction (2^40 additions, one call of the kernel) and
// sorted() of a list of millions (int comparisons never reach the interpreter's checks).
TEST(Limits, CompiledReductionAndHugeSortAreStoppedInside) {
  struct Case {
    std::string name, script;
    int line;        // where the traceback must point: inside the long statement, not after it
    double seconds;  // from the signal to the exit (freeing a million objects counts too)
  };
  const Case cases[] = {
      {"compiled_reduction",
       "import torch\n@torch.compile(dynamic=True)\ndef total(x, n):\n    return x.expand(n, x.shape[0]).sum()\n"
       "print(total(torch.ones(64), 64).item())\nx = torch.ones(2**20)\nprint('started', flush=True)\n"
       "print(total(x, 2**20))\nprint('not reached')\n",
       8, 5.0},
      // A minute of sorting in the build before the check (2 cores, loaded); ~1.5 s to stop.
      {"huge_sort",
       "n = 1000003\nitems = [((i * 7919) % n, i) for i in range(n)]\nprint('started', flush=True)\n"
       "s = sorted(items)\nprint('not reached')\n",
       4, 15.0},
  };
  for (const Case& c : cases) {
    fs::path dir = workDir(c.name);
    test::writeFile((dir / "long.py").string(), c.script);
    std::string db = (dir / "s.db").string();
    KilnRun r = runKiln(dir, {"run", (dir / "long.py").string(), "--db", db}, SIGINT, "started");
    EXPECT_EQ(r.exitCode, 130) << c.name << "\n" << r.out << r.err;
    EXPECT_LT(r.secondsAfterSignal, c.seconds) << c.name;
    EXPECT_EQ(r.out.find("not reached"), std::string::npos) << c.name << "\n" << r.out;
    EXPECT_NE(r.err.find("line " + std::to_string(c.line) + ", in <module>"), std::string::npos) << c.name << "\n" << r.err;
    EXPECT_NE(r.err.find("KeyboardInterrupt"), std::string::npos) << c.name << "\n" << r.err;
    auto s = lastSession(db);
    EXPECT_EQ(s.summary.status, "interrupted") << c.name;
    EXPECT_NE(s.stdoutText.find("started\n"), std::string::npos) << c.name;
  }
}

TEST(Limits, SigtermStopsTheScriptWithItsSession) {
  fs::path dir = workDir("sigterm");
  test::writeFile((dir / "spin.py").string(), "print('spinning')\nwhile True:\n    pass\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "spin.py").string(), "--db", db}, SIGTERM, "spinning");
  EXPECT_EQ(r.exitCode, 143) << r.err;
  EXPECT_EQ(lastSession(db).summary.status, "interrupted");
}

TEST(Limits, KilledRunKeepsWhatItPrinted) {
  // SIGKILL cannot be handled: what the script printed must already be in the session (the
  // watchdog has it passed on within a quarter second), and the session reads as incomplete.
  fs::path dir = workDir("sigkill");
  test::writeFile((dir / "spin.py").string(), "print('before the kill')\nwhile True:\n    pass\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "spin.py").string(), "--db", db}, SIGKILL, "before the kill");
  EXPECT_EQ(r.exitCode, 128 + SIGKILL);
  auto s = lastSession(db);
  EXPECT_EQ(s.summary.status, "incomplete");
  EXPECT_EQ(s.stdoutText, "before the kill\n");
}

TEST(Limits, MemoryLimitIsPyTorchsAllocatorErrorAndCanBeCaught) {
  fs::path dir = workDir("memory");
  test::writeFile((dir / "alloc.py").string(),
                  "import torch\nkeep = torch.zeros(4 * 2**20)\ntry:\n    torch.zeros(64 * 2**20)\nexcept RuntimeError as e:\n"
                  "    print('caught:', str(e)[:200])\ntry:\n    s = 'x' * (64 * 2**20)\nexcept MemoryError:\n    print('MemoryError')\n"
                  "t = torch.zeros(128 * 2**20)\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "alloc.py").string(), "--db", db, "--memory-limit", "32M", "--eager"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(
      r.out.find("caught: [enforce fail at alloc_cpu.cpp] DefaultCPUAllocator: not enough memory: you tried to allocate 268435456 bytes"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("MemoryError"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("line 11, in <module>"), std::string::npos) << r.err;
  EXPECT_EQ(lastSession(db).summary.status, "out of memory");
}

// Many small Python objects pass every single-allocation check; the watchdog sees the heap
// grow past the limit and the script gets a MemoryError it can catch (and is stopped by it when
// it does not).
TEST(Limits, MemoryLimitCoversManySmallPythonObjects) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator does not report heap use (mallinfo2)";
#endif
  fs::path dir = workDir("small_objects");
  test::writeFile((dir / "grow.py").string(),
                  "l = []\ntry:\n    while True:\n        l.append([len(l), str(len(l))])\nexcept MemoryError as e:\n"
                  "    n = len(l)\n    l = None\n    print('caught', n > 10000, str(e)[:44])\n"
                  "d = []\nwhile True:\n    d.append({'n': len(d)})\n");
  std::string db = (dir / "s.db").string();
  KilnRun r = runKiln(dir, {"run", (dir / "grow.py").string(), "--db", db, "--memory-limit", "64M", "--eager", "--timeout", "120"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.out.find("caught True the script's objects grew past Kiln's memory"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("MemoryError: the script's objects grew past Kiln's memory limit of 67108864 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 11, in <module>"), std::string::npos) << r.err;
  EXPECT_EQ(lastSession(db).summary.status, "out of memory");
}

TEST(Limits, BadLimitValuesAreUsageErrors) {
  fs::path dir = workDir("usage");
  test::writeFile((dir / "ok.py").string(), "print(1)\n");
  for (std::vector<std::string> bad :
       {std::vector<std::string>{"--timeout", "abc"}, {"--timeout", "0"}, {"--memory-limit", "12Q"}, {"--memory-limit", "-5"}}) {
    std::vector<std::string> args{"run", (dir / "ok.py").string(), "--db", (dir / "s.db").string()};
    args.insert(args.end(), bad.begin(), bad.end());
    KilnRun r = runKiln(dir, args);
    EXPECT_EQ(r.exitCode, 2) << bad[0] << " " << bad[1] << ": " << r.err;
    EXPECT_NE(r.err.find("--" + bad[0].substr(2)), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kiln
