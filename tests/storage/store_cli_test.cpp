// The store through the built `kiln`: store check and repair, bad input to them, a foreign
// file given as --db, and a full disk during `kiln run` (the script finishes, one warning).
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

namespace kiln::storage::testing {
namespace {

namespace fs = std::filesystem;

struct Result {
  int exitCode = -1;
  std::string out, err;
};

// Runs kiln with `args`; `fileLimit` > 0 caps the size of every file it writes (RLIMIT_FSIZE,
// a full disk that hits at a known size). Its stdout comes through a pipe, which the limit
// does not cover.
Result kiln(const TempDir& dir, std::vector<std::string> args, rlim_t fileLimit = 0) {
  std::string err = dir.file("stderr.txt");
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fds[1], STDOUT_FILENO);
    dup2(e, STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    setenv("KILN_CACHE", "0", 1);  // only the store may meet the limit
    if (fileLimit > 0) {
      std::signal(SIGXFSZ, SIG_IGN);
      rlimit r{fileLimit, fileLimit};
      setrlimit(RLIMIT_FSIZE, &r);
    }
    std::vector<char*> argv{const_cast<char*>(KILN_CLI)};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(KILN_CLI, argv.data());
    _exit(127);
  }
  close(fds[1]);
  Result r;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = readAll(err);
  return r;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(StorageCli, CheckAndRepair) {
  TempDir dir;
  std::string db = dir.file("s.db");
  {
    auto store = Store::open(db);
    for (int i = 0; i < 3; ++i) writeSample(*store->beginSession(), sampleSession());
  }
  Result ok = kiln(dir, {"store", "check", "--db", db});
  EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("3 sessions (3 ok)"), std::string::npos) << ok.out;

  long long leaf = queryInt(db, "SELECT max(pageno) FROM dbstat WHERE name = 'stage_nodes' AND pagetype = 'leaf'");
  {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((leaf - 1) * 4096);
    f.write(std::string(4096, '\0').data(), 4096);
  }
  std::string bytes = readAll(db);
  Result bad = kiln(dir, {"store", "check", "--db", db});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.out.find("integrity_check"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("kiln store repair --db " + db), std::string::npos) << bad.out;
  EXPECT_EQ(kiln(dir, {"sessions", "--db", db}).exitCode, 0);  // still readable

  Result repaired = kiln(dir, {"store", "repair", "--db", db});
  EXPECT_EQ(repaired.exitCode, 0) << repaired.out << repaired.err;
  EXPECT_NE(repaired.out.find("check of the new store: ok"), std::string::npos) << repaired.out;
  EXPECT_EQ(kiln(dir, {"store", "check", "--db", dir.file("s.recovered.db")}).exitCode, 0);
  Result again = kiln(dir, {"store", "repair", "--db", db});
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_EQ(kiln(dir, {"store", "repair", "--db", db, "--out", dir.file("two.db")}).exitCode, 0);
  EXPECT_EQ(readAll(db), bytes);
}

TEST(StorageCli, BadInputIsAClearError) {
  TempDir dir;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"store"}, {"store", "nosuch"}, {"store", "check", "extra"}, {"store", "check", "--nope"}, {"store", "repair", "--out"}}) {
    Result r = kiln(dir, args);
    EXPECT_EQ(r.exitCode, 2) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("kiln store"), std::string::npos) << r.err;
  }
  Result missing = kiln(dir, {"store", "check", "--db", dir.file("none.db")});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.out.find("no such file"), std::string::npos) << missing.out;
  EXPECT_FALSE(fs::exists(dir.file("none.db")));
  Result noRepair = kiln(dir, {"store", "repair", "--db", dir.file("none.db")});
  EXPECT_EQ(noRepair.exitCode, 1);
  EXPECT_NE(noRepair.err.find("no session store"), std::string::npos) << noRepair.err;

  std::string foreign = dir.file("notes.db");
  execSql(foreign, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');");
  std::string bytes = readAll(foreign);
  std::ofstream(dir.file("hello.py")) << "print('hello')\n";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"sessions", "--db", foreign}, {"run", dir.file("hello.py"), "--db", foreign}, {"store", "repair", "--db", foreign}}) {
    Result r = kiln(dir, args);
    EXPECT_EQ(r.exitCode, 1) << args[0];
    EXPECT_NE(r.err.find("not a Kiln session store"), std::string::npos) << r.err;
  }
  Result check = kiln(dir, {"store", "check", "--db", foreign});
  EXPECT_EQ(check.exitCode, 1);
  EXPECT_NE(check.out.find("not a Kiln session store"), std::string::npos) << check.out;
  EXPECT_EQ(readAll(foreign), bytes);
  EXPECT_EQ(queryText(foreign, "PRAGMA journal_mode"), "delete");
}

TEST(StorageCli, FullDiskStopsTheRecordingAndTheScriptFinishes) {
  TempDir dir;
  std::string db = dir.file("s.db");
  ASSERT_EQ(kiln(dir, {"sessions", "--db", db}).exitCode, 0);  // creates the store
  std::string script = dir.file("loud.py");
  std::ofstream(script) << "import torch\n\n@torch.compile\ndef f(x):\n    return x.sin() + 1\n\n"
                           "out = f(torch.ones(8))\nfor i in range(20000):\n    print('line', i, 'of the output')\nprint('done')\n";
  Result r = kiln(dir, {"run", script, "--db", db}, fs::file_size(db) + 256 * 1024);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("line 19999 of the output\ndone\n"), std::string::npos);
  EXPECT_EQ(count(r.out, "of the output\n"), 20000u);
  EXPECT_EQ(count(r.err, "kiln: warning: recording stopped"), 1u) << r.err;
  EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;

  Result check = kiln(dir, {"store", "check", "--db", db});
  EXPECT_EQ(check.exitCode, 0) << check.out;
  EXPECT_NE(check.out.find("1 session (1 incomplete)"), std::string::npos) << check.out;
}

// fullgraph=True turns a graph break into an error: the failed compile is stored with the
// break's line, column and explanation (the studio lists it and marks the line).
TEST(StorageCli, FailedFullgraphCompileRecordsWhereItFailed) {
  TempDir dir;
  std::string db = dir.file("s.db");
  std::string script = dir.file("fullgraph.py");
  std::ofstream(script) << "import torch\n\n\ndef f(x):\n    if x.sum() > 0:\n        return x.sin()\n    return x.cos()\n\n\n"
                           "try:\n    out = torch.compile(f, fullgraph=True)(torch.ones(3))\nexcept Exception as e:\n"
                           "    out = type(e).__name__\nprint(out)\n";
  Result r = kiln(dir, {"run", script, "--db", db});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto store = Store::open(db);
  const auto sessions = store->sessions();
  ASSERT_EQ(sessions.size(), 1u);
  const auto compiles = store->compiles(sessions[0].id);
  ASSERT_EQ(compiles.size(), 1u);
  EXPECT_EQ(compiles[0].status, "failed");
  EXPECT_EQ(compiles[0].message, "Data-dependent branching");
  EXPECT_EQ(compiles[0].line, 5);
  EXPECT_GT(compiles[0].col, 0);
  EXPECT_NE(compiles[0].detail.find("data-dependent"), std::string::npos) << compiles[0].detail;
  EXPECT_TRUE(store->graphBreaks(sessions[0].id).empty());  // an error, not a logged graph break
}

// An op that fails on fake tensors while a recompile traces (Dynamo's TorchRuntimeError) fails
// that compile as PyTorch's does: stored failed, at the script's line of the failing op, with the
// error as its explanation, and the error still reaches the script.
TEST(StorageCli, ADynamoErrorWhileTracingRecordsTheFailedCompile) {
  TempDir dir;
  std::string db = dir.file("s.db");
  std::string script = dir.file("mm.py");
  std::ofstream(script) << "import torch\n\n@torch.compile\ndef f(x, w):\n    return x @ w\n\n"
                           "a = torch.randn(4, 3)\nf(a, a.t())\nf(a, torch.randn(5, 2))\n";
  Result r = kiln(dir, {"run", script, "--db", db});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("TorchRuntimeError"), std::string::npos) << r.err;
  auto store = Store::open(db);
  const auto sessions = store->sessions();
  ASSERT_EQ(sessions.size(), 1u);
  const auto compiles = store->compiles(sessions[0].id);
  ASSERT_EQ(compiles.size(), 2u);
  EXPECT_EQ(compiles[0].status, "ok");
  EXPECT_EQ(compiles[1].compileId, "0/1");
  EXPECT_EQ(compiles[1].status, "failed");
  EXPECT_EQ(compiles[1].message, "TorchRuntimeError");
  EXPECT_EQ(compiles[1].line, 5);
  EXPECT_GT(compiles[1].col, 0);
  EXPECT_NE(compiles[1].detail.find("mat1 and mat2 shapes cannot be multiplied"), std::string::npos) << compiles[1].detail;
}

}  // namespace
}  // namespace kiln::storage::testing
