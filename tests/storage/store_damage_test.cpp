// Damaged and foreign files are reported with a StoreError naming the file: never a crash,
// and the file is not modified by the attempt.
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace kiln::storage::testing {
namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }

// Opens the store and reads everything in it. Returns the StoreError message, or "" if the
// damage happened to be harmless. Anything else (a crash, another exception) fails the test.
std::string openAndReadEverything(const std::string& path) {
  try {
    auto store = Store::open(path);
    for (const auto& s : store->sessions()) {
      store->session(s.id);
      store->frames(s.id);
      store->graphBreaks(s.id);
      store->recompiles(s.id);
      store->timings(s.id);
      for (const auto& c : store->compiles(s.id)) {
        store->kernels(s.id, c.compileId);
        store->wrapperText(s.id, c.compileId);
        for (const auto& st : store->stages(s.id, c.compileId)) {
          store->stageText(st.id);
          store->stageGraph(st.id);
        }
      }
    }
    store->search("aten mul");
    return "";
  } catch (const StoreError& e) { return e.what(); }
}

// A store with enough sessions to span many pages, closed cleanly (WAL checkpointed).
std::string makeStore(const TempDir& dir) {
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  for (int i = 0; i < 4; ++i) writeSample(*store->beginSession(), sampleSession());
  return path;
}

TEST(StorageDamage, GarbageBytesAreNotADatabase) {
  TempDir dir;
  std::string path = dir.file("garbage.db");
  std::mt19937 rng(42);
  std::string bytes(8192, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  writeAll(path, bytes);
  std::string err = openAndReadEverything(path);
  EXPECT_NE(err.find("not a SQLite database"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_EQ(readAll(path), bytes);  // untouched
}

TEST(StorageDamage, TextFileIsNotADatabase) {
  TempDir dir;
  std::string path = dir.file("notes.txt");
  writeAll(path, "these are my notes, not a database\n");
  std::string err = openAndReadEverything(path);
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_EQ(readAll(path), "these are my notes, not a database\n");
}

TEST(StorageDamage, TruncatedStoreIsReported) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string whole = readAll(path);
  ASSERT_GT(whole.size(), 8u * 4096);
  for (size_t size : {size_t{50}, size_t{100}, size_t{4096 + 100}, whole.size() / 2, whole.size() - 4096}) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " of " + std::to_string(whole.size()));
    std::string cut = dir.file("cut.db");
    std::filesystem::remove(cut);
    writeAll(cut, whole.substr(0, size));
    std::string err = openAndReadEverything(cut);
    EXPECT_NE(err, "");
    EXPECT_NE(err.find(cut), std::string::npos) << err;
  }
}

TEST(StorageDamage, CorruptedPagesNeverCrash) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string whole = readAll(path);
  std::mt19937 rng(7);
  int reported = 0;
  for (int round = 0; round < 40; ++round) {
    std::string bytes = whole;
    // Scribble over a few runs of bytes past the header page.
    for (int k = 0; k < 4; ++k) {
      size_t at = 4096 + rng() % (bytes.size() - 4096 - 64);
      for (int i = 0; i < 32; ++i) bytes[at + i] = static_cast<char>(rng());
    }
    std::string bad = dir.file("bad.db");
    std::filesystem::remove(bad);
    writeAll(bad, bytes);
    if (!openAndReadEverything(bad).empty()) ++reported;
  }
  EXPECT_GT(reported, 0);  // most scribbles land on live pages and must be noticed
}

TEST(StorageDamage, MalformedJsonColumnIsAStoreError) {
  TempDir dir;
  std::string path = makeStore(dir);
  execSql(path, "UPDATE stage_nodes SET args_json = '[{\"nope\": 1}' WHERE pos = 3");
  auto store = Store::open(path);
  auto id = store->sessions()[0].id;
  auto stages = store->stages(id, "0/0");
  ASSERT_FALSE(stages.empty());
  EXPECT_THROW(store->stageGraph(stages[0].id), StoreError);
  EXPECT_THROW(store->stageGraph(999999), StoreError);
  EXPECT_THROW(store->stageText(999999), StoreError);
}

// A node's site (schema 12) that is not the four strings it was written as.
TEST(StorageDamage, MalformedNodeSiteIsAStoreError) {
  for (const char* json : {"[\"model.py\", \"f\"]", "{\"file\": 1}", "[\"model.py\""}) {
    TempDir dir;
    std::string path = makeStore(dir);
    execSql(path, std::string("UPDATE node_json SET json = '") + json + "' WHERE id IN (SELECT site_id FROM stage_nodes WHERE pos = 3)");
    auto store = Store::open(path);
    auto stages = store->stages(store->sessions()[0].id, "0/0");
    ASSERT_FALSE(stages.empty());
    try {
      store->stageGraph(stages[0].id);
      ADD_FAILURE() << "read a site of " << json;
    } catch (const StoreError& e) { EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what(); }
  }
}

TEST(StorageDamage, UnopenablePathsNameThePath) {
  TempDir dir;
  for (const std::string& path : {dir.file("no/such/dir/s.db"), dir.path()}) {
    try {
      Store::open(path);
      ADD_FAILURE() << "opened " << path;
    } catch (const StoreError& e) { EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what(); }
  }
}

}  // namespace
}  // namespace kiln::storage::testing
