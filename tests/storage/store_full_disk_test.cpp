// A store that cannot take more stops the recording, not the run: Store::beginSession(onStop)
// turns the first write failure into one call of onStop and drops later events, and the
// store stays sound. The full disk is RLIMIT_FSIZE in a forked child (writes past the limit
// fail with EFBIG, which SQLite reports as SQLITE_FULL or SQLITE_IOERR).
#include "storage/store.h"
#include "storage/store_check.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>

namespace kiln::storage::testing {
namespace {

TEST(StorageRecording, AFailingWriterStopsOnceAndDropsLaterEvents) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  std::vector<std::string> stops;
  auto sink = store->beginSession([&](const std::string& why) { stops.push_back(why); });
  // An event before sessionStart is an error of the writer; through the guard it only stops
  // the recording.
  EXPECT_NO_THROW(writeCompile(*sink, 0, true));
  EXPECT_NO_THROW(writeSample(*sink, sampleSession()));
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_NE(stops[0].find("recording stopped: frame reported before sessionStart"), std::string::npos) << stops[0];
  sink.reset();
  EXPECT_TRUE(store->sessions().empty());
}

TEST(StorageRecording, FullDiskStopsTheRecordingNotTheRun) {
  TempDir dir;
  std::string path = dir.file("s.db");
  {
    auto store = Store::open(path);
    writeSample(*store->beginSession(), sampleSession("before.py"));
  }
  auto limit = static_cast<rlim_t>(std::filesystem::file_size(path) + 64 * 1024);
  int code = runInChild([&] {
    std::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills the writer at the limit
    rlimit r{limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) return 2;
    auto store = Store::open(path);
    int stops = 0;
    auto sink = store->beginSession([&](const std::string& why) {
      ++stops;
      std::fprintf(stderr, "stopped: %s\n", why.c_str());
    });
    session::SessionStart start;
    start.scriptPath = "/tmp/full.py";
    sink->sessionStart(start);
    // Far more than fits: every event after the failure must be dropped without a throw.
    for (int frame = 0; frame < 200; ++frame) {
      writeCompile(*sink, frame, true);
      sink->output(std::string(4096, 'o'));
    }
    sink->sessionEnd({.status = "ok", .totalMs = 1.0});
    return stops == 1 ? 0 : 10 + stops;
  });
  EXPECT_EQ(code, 0);

  StoreCheck c = checkStore(path);
  EXPECT_TRUE(c.ok()) << c.text();
  auto store = Store::open(path);
  auto list = store->sessions();
  ASSERT_EQ(list.size(), 2u);
  if (list[0].name == "before.py") std::swap(list[0], list[1]);
  EXPECT_EQ(list[1].name, "before.py");
  EXPECT_EQ(list[1].status, "ok");
  EXPECT_EQ(list[0].name, "full.py");
  EXPECT_EQ(list[0].status, "incomplete");
  EXPECT_LT(store->compiles(list[0].id).size(), 200u);
  writeSample(*store->beginSession(), sampleSession("after.py"));  // room again: recording works
  EXPECT_EQ(store->sessions().size(), 3u);
}

}  // namespace
}  // namespace kiln::storage::testing
