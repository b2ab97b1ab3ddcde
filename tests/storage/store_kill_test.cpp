// A writer process SIGKILLed in the middle of a session: the earlier session is intact, the
// killed one is reported incomplete with only whole compiles, the file passes SQLite's
// integrity check, and new sessions can be written.
#include "storage/store.h"
#include "tests/storage/store_compare.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/wait.h>

#include <unistd.h>
#include <chrono>
#include <csignal>
#include <thread>

namespace kiln::storage::testing {
namespace {

// Runs kiln_store_writer, waits for its "ready" line, waits `delay` more, then SIGKILLs it.
void runAndKill(const std::string& db, const char* mode, std::chrono::milliseconds delay) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(KILN_STORE_WRITER, KILN_STORE_WRITER, db.c_str(), mode, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (got.find("ready\n") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    char buf[64];
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the writer exited early
    got.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  bool ready = got.find("ready\n") != std::string::npos;
  std::this_thread::sleep_for(delay);
  kill(pid, SIGKILL);
  int status = 0;
  // Reap it: a zombie still answers kill(pid, 0), and would look like a live writer.
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(ready) << "the writer never said ready; it printed: " << got;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

// Checks everything the kill test promises and returns the number of compiles that survived.
size_t checkAfterKill(const std::string& db) {
  auto store = Store::open(db);
  auto list = store->sessions();
  EXPECT_EQ(list.size(), 2u);
  if (list.size() != 2) return 0;
  const auto& first = list[1];
  const auto& second = list[0];
  EXPECT_EQ(first.scriptPath, "/home/user/first.py");
  EXPECT_EQ(first.status, "ok");
  expectSampleStored(*store, first.id, sampleSession("first.py"));

  EXPECT_EQ(second.status, "incomplete");
  // Opening the store recorded it, so a later process reusing the pid changes nothing.
  EXPECT_EQ(queryText(db, "SELECT status FROM sessions WHERE id = " + std::to_string(second.id)), "incomplete");

  // Only whole compiles: each has its frame, 3 stages with their graphs, kernel and output.
  auto compiles = store->compiles(second.id);
  EXPECT_EQ(store->frames(second.id).size(), compiles.size());
  std::string wantOut;
  for (size_t i = 0; i < compiles.size(); ++i) {
    std::string cid = std::to_string(i) + "/0";
    SCOPED_TRACE(cid);
    EXPECT_EQ(compiles[i].compileId, cid);
    auto stages = store->stages(second.id, cid);
    EXPECT_EQ(stages.size(), 3u);
    for (size_t k = 0; k < stages.size(); ++k) expectSameGraph(store->stageGraph(stages[k].id), sampleGraph(static_cast<int>(k)));
    EXPECT_EQ(store->kernels(second.id, cid).size(), 1u);
    wantOut += "compiled " + cid + "\n";
  }
  EXPECT_EQ(store->session(second.id)->stdoutText, wantOut);
  EXPECT_EQ(queryText(db, "PRAGMA integrity_check"), "ok");

  // The store takes new sessions afterwards.
  auto after = sampleSession("after.py");
  after.start.startedAtMs += 5000;
  writeSample(*store->beginSession(), after);
  expectSampleStored(*store, store->lastSessionId(), after);
  EXPECT_EQ(store->sessions().size(), 3u);
  return compiles.size();
}

TEST(StorageKill, KilledWithACompileInFlight) {
  TempDir dir;
  std::string db = dir.file("s.db");
  runAndKill(db, "hold", std::chrono::milliseconds(0));
  EXPECT_EQ(checkAfterKill(db), 5u);  // the sixth compile was never committed
}

TEST(StorageKill, KilledWhileWritingContinuously) {
  // Different delays land the kill at different points: inside a transaction, in COMMIT,
  // between compiles.
  for (int delayMs : {0, 3, 17, 40}) {
    SCOPED_TRACE("kill after " + std::to_string(delayMs) + " ms");
    TempDir dir;
    std::string db = dir.file("s.db");
    runAndKill(db, "busy", std::chrono::milliseconds(delayMs));
    EXPECT_GE(checkAfterKill(db), 5u);
  }
}

}  // namespace
}  // namespace kiln::storage::testing
