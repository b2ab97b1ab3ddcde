#include "storage/store.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <cstdio>
#include <filesystem>

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct KilnRun {
  int exitCode = -1;
  std::string out, err;
};

KilnRun runKiln(const std::string& args, const fs::path& dir) {
  fs::path errFile = dir / "stderr.txt";
  std::string cmd = std::string(KILN_CLI) + " " + args + " 2>'" + errFile.string() + "'";
  KilnRun r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  r.err = test::readFile(errFile.string());
  return r;
}

TEST(BadScripts, ClearErrorNonZeroExitStoreIntact) {
  fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/errors/work";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "s.db").string();
  // A good session first: it must survive every bad run.
  fs::path good = dir / "good.py";
  test::writeFile(good.string(), "import torch\n\n@torch.compile\ndef f(x):\n    return x.sin() + 1\n\nout = f(torch.ones(8))\n");
  KilnRun first = runKiln("run '" + good.string() + "' --db '" + db + "'", dir);
  ASSERT_EQ(first.exitCode, 0) << first.err;

  fs::path scripts = fs::path(KILN_SOURCE_DIR) / "tests/errors/scripts";
  int cases = 0;
  for (const auto& f : fs::directory_iterator(scripts)) {
    if (f.path().extension() != ".py") continue;
    SCOPED_TRACE(f.path().filename().string());
    ++cases;
    KilnRun r = runKiln("run '" + f.path().string() + "' --db '" + db + "'", dir);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    fs::path exp = f.path();
    exp.replace_extension(".expected");
    std::string expected = test::readFile(exp.string());
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == ' ')) expected.pop_back();
    // The traceback names the script as it was given on the command line.
    for (size_t at; (at = expected.find("SCRIPT")) != std::string::npos;) expected.replace(at, 6, f.path().string());
    EXPECT_NE(r.err.find(expected), std::string::npos) << "stderr was:\n" << r.err << "\nexpected to contain:\n" << expected;
  }
  EXPECT_GE(cases, 7);

  auto store = storage::Store::open(db);
  auto sessions = store->sessions();
  ASSERT_EQ(sessions.size(), static_cast<size_t>(cases + 1));
  const auto& oldest = sessions.back();
  EXPECT_EQ(oldest.status, "ok");
  EXPECT_EQ(oldest.graphCount, 1);
  for (size_t i = 0; i + 1 < sessions.size(); ++i) {
    auto d = store->session(sessions[i].id);
    ASSERT_TRUE(d);
    // A run stopped by the memory limit says so; every other bad script is an error.
    fs::path exp = sessions[i].scriptPath;
    std::string expected = test::readFile(exp.replace_extension(".expected").string());
    bool oom = expected.find("MemoryError") != std::string::npos || expected.find("DefaultCPUAllocator") != std::string::npos;
    EXPECT_EQ(sessions[i].status, oom ? "out of memory" : "error") << sessions[i].scriptPath;
    EXPECT_FALSE(d->error.empty());
  }
  EXPECT_FALSE(store->stages(oldest.id, "0/0").empty());
}

TEST(BadScripts, UsageErrors) {
  fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/errors/work2";
  fs::create_directories(dir);
  EXPECT_EQ(runKiln("run", dir).exitCode, 2);
  EXPECT_EQ(runKiln("frobnicate", dir).exitCode, 2);
  KilnRun missing = runKiln("run /nonexistent/x.py --db '" + (dir / "s.db").string() + "'", dir);
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("can't open file"), std::string::npos);
  test::writeFile((dir / "junk.db").string(), "this is not a database, just text that is long enough to look like a header....");
  KilnRun junk = runKiln("sessions --db '" + (dir / "junk.db").string() + "'", dir);
  EXPECT_EQ(junk.exitCode, 1);
  EXPECT_NE(junk.err.find("junk.db"), std::string::npos);
}

TEST(BadScripts, DiffOfTwoRunsAndOfMissingSessions) {
  fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/errors/work3";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = "--db '" + (dir / "s.db").string() + "'";
  test::writeFile((dir / "m.py").string(),
                  "import torch\n\n@torch.compile\ndef f(x):\n    return torch.relu(x * 2 + 1)\n\nprint(f(torch.ones(4)))\n");
  ASSERT_EQ(runKiln("run '" + (dir / "m.py").string() + "' " + db, dir).exitCode, 0);
  ASSERT_EQ(runKiln("run '" + (dir / "m.py").string() + "' " + db, dir).exitCode, 0);
  KilnRun same = runKiln("diff 1 2 " + db, dir);
  EXPECT_EQ(same.exitCode, 0) << same.err;
  EXPECT_NE(same.out.find("same script"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("[0/0] f: captured graph equal"), std::string::npos) << same.out;
  KilnRun missing = runKiln("diff 1 99 " + db, dir);
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("no session 99"), std::string::npos) << missing.err;
  EXPECT_EQ(runKiln("diff 1 " + db, dir).exitCode, 2);
  EXPECT_EQ(runKiln("diff one two " + db, dir).exitCode, 2);

  // Sessions can be searched, renamed and deleted; bad ids are refused before anything changes.
  KilnRun found = runKiln("search relu " + db, dir);
  EXPECT_EQ(found.exitCode, 0) << found.err;
  EXPECT_NE(found.out.find("session 2  script: "), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("[relu]"), std::string::npos) << found.out;
  EXPECT_EQ(runKiln("search nosuchwordanywhere " + db, dir).exitCode, 1);
  EXPECT_EQ(runKiln("rename 2 'relu baseline' " + db, dir).exitCode, 0);
  EXPECT_NE(runKiln("sessions " + db, dir).out.find("relu baseline"), std::string::npos);
  EXPECT_EQ(runKiln("rename 9 x " + db, dir).exitCode, 1);
  EXPECT_EQ(runKiln("rm 1 x " + db, dir).exitCode, 2);
  KilnRun gone = runKiln("rm 1 " + db, dir);
  EXPECT_EQ(gone.exitCode, 0) << gone.err;
  EXPECT_EQ(runKiln("diff 1 2 " + db, dir).exitCode, 1);
  KilnRun left = runKiln("sessions " + db, dir);
  EXPECT_NE(left.out.find("relu baseline"), std::string::npos) << left.out;
  EXPECT_EQ(left.out.find("\n1 "), std::string::npos) << left.out;
}

// kiln bench: a good script gets a per-frame row; a failing one gets its error once and a
// non-zero exit.
TEST(BadScripts, BenchReportsFramesAndFailures) {
  fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/errors/work4";
  fs::remove_all(dir);
  fs::create_directories(dir);
  test::writeFile((dir / "good.py").string(),
                  "import torch\n\n@torch.compile\ndef f(x):\n    return torch.relu(x * 2 + 1)\n\nr = f(torch.ones(64))\n");
  KilnRun good = runKiln("bench '" + (dir / "good.py").string() + "' --repeat 2", dir);
  EXPECT_EQ(good.exitCode, 0) << good.out << good.err;
  EXPECT_NE(good.out.find("good [0/0]"), std::string::npos) << good.out;
  EXPECT_NE(good.out.find("cpp_fused_add_mul_relu_0"), std::string::npos) << good.out;
  test::writeFile((dir / "bad.py").string(), "import torch\nr = torch.ones(2).foo()\n");
  KilnRun bad = runKiln("bench '" + (dir / "bad.py").string() + "' --repeat 1", dir);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.out.find("AttributeError: 'Tensor' object has no attribute 'foo'"), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find("AttributeError", bad.out.find("AttributeError") + 1), std::string::npos) << "reported twice:\n" << bad.out;
  EXPECT_NE(bad.err.find("1 run(s) failed"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace kiln
