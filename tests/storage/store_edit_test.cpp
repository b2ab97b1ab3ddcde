// Renaming and deleting sessions, and where the default store lives.
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace kiln::storage::testing {
namespace {

TEST(StorageEdit, RenameSession) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  writeSample(*store->beginSession(), sampleSession());
  int64_t id = store->lastSessionId();
  store->renameSession(id, "before the fix");
  EXPECT_EQ(store->sessions()[0].name, "before the fix");
  EXPECT_EQ(store->session(id)->summary.name, "before the fix");
  EXPECT_THROW(store->renameSession(id + 1, "x"), StoreError);
}

TEST(StorageEdit, DeleteRemovesEveryRowOfThatSessionOnly) {
  TempDir dir;
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  writeSample(*store->beginSession(), sampleSession("keep.py"));
  int64_t keep = store->lastSessionId();
  writeSample(*store->beginSession(), sampleSession("drop.py"));
  int64_t drop = store->lastSessionId();
  ASSERT_EQ(store->search("__compiled_fn_0").size(), 4u);

  store->deleteSession(drop);
  EXPECT_FALSE(store->session(drop).has_value());
  ASSERT_EQ(store->sessions().size(), 1u);
  EXPECT_EQ(store->sessions()[0].id, keep);
  for (const char* table : {"frames", "compiles", "stages", "stage_nodes", "kernels", "wrappers", "graph_breaks", "recompiles", "timings",
                            "frame_profiles", "kernel_profiles", "autotune_choices", "verifications", "search_text"}) {
    EXPECT_EQ(queryInt(path, std::string("SELECT count(*) FROM ") + table + " WHERE session_id = " + std::to_string(drop)), 0) << table;
    EXPECT_GT(queryInt(path, std::string("SELECT count(*) FROM ") + table + " WHERE session_id = " + std::to_string(keep)), 0) << table;
  }
  EXPECT_EQ(store->search("__compiled_fn_0").size(), 2u);
  EXPECT_THROW(store->deleteSession(drop), StoreError);
}

TEST(StorageEdit, SessionBeingRecordedCannotBeDeleted) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sink = store->beginSession();
  sink->sessionStart(sampleSession().start);
  int64_t id = store->lastSessionId();
  EXPECT_THROW(store->deleteSession(id), StoreError);
  session::SessionEnd end;
  end.status = "ok";
  sink->sessionEnd(end);
  store->deleteSession(id);
  EXPECT_TRUE(store->sessions().empty());
}

// Restores an environment variable when the test ends.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~EnvVar() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(StorageEdit, DefaultStorePathFollowsXdgThenHome) {
  TempDir dir;
  {
    EnvVar xdg("XDG_DATA_HOME", dir.file("xdg"));
    EXPECT_EQ(defaultStorePath(), dir.file("xdg/kiln/sessions.db"));
    EXPECT_TRUE(std::filesystem::is_directory(dir.file("xdg/kiln")));
  }
  {
    EnvVar xdg("XDG_DATA_HOME", "relative/ignored");
    EnvVar home("HOME", dir.file("home"));
    EXPECT_EQ(defaultStorePath(), dir.file("home/.local/share/kiln/sessions.db"));
    EXPECT_TRUE(std::filesystem::is_directory(dir.file("home/.local/share/kiln")));
  }
}

}  // namespace
}  // namespace kiln::storage::testing
