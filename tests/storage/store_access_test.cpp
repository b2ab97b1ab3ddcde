// What Store::open may write, and when: a foreign file is refused before anything is written
// (its bytes and journal mode stay as they were), a read-only store is listed and read but
// not written, and a damaged store is read but refused for writing, naming `kiln store repair`.
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace kiln::storage::testing {
namespace {

namespace fs = std::filesystem;

std::string openError(const std::string& path) {
  try {
    Store::open(path);
  } catch (const StoreError& e) { return e.what(); }
  return "";
}

// The StoreError message of `f`, or "" when it did not throw one.
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const StoreError& e) { return e.what(); }
  return "";
}

std::string makeStore(const TempDir& dir, int sessions = 3) {
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  for (int i = 0; i < sessions; ++i) writeSample(*store->beginSession(), sampleSession());
  return path;  // closed: the WAL is checkpointed into the file and removed
}

// Zeroes one page of `path` (1-based, as dbstat numbers them).
void zeroPage(const std::string& path, long long page) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((page - 1) * 4096);
  f.write(std::string(4096, '\0').data(), 4096);
}

void expectRefusedUnchanged(const std::string& path, const std::string& wantInMessage) {
  std::string bytes = readAll(path);
  std::string mode = queryText(path, "PRAGMA journal_mode");
  std::string err = openError(path);
  EXPECT_NE(err.find(wantInMessage), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_EQ(readAll(path), bytes);
  EXPECT_EQ(queryText(path, "PRAGMA journal_mode"), mode);
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST(StorageAccess, ForeignDatabaseWithTablesIsRefusedUnchanged) {
  TempDir dir;
  std::string path = dir.file("notes.db");
  execSql(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');");
  ASSERT_EQ(queryText(path, "PRAGMA journal_mode"), "delete");
  expectRefusedUnchanged(path, "not a Kiln session store");
}

TEST(StorageAccess, ForeignApplicationIdIsRefusedUnchanged) {
  TempDir dir;
  std::string path = dir.file("other.db");
  execSql(path, "PRAGMA application_id = 1234;");  // no tables: only the id says it is not ours
  expectRefusedUnchanged(path, "belongs to another application");
}

TEST(StorageAccess, NewerSchemaIsRefusedUnchanged) {
  TempDir dir;
  std::string path = makeStore(dir);
  execSql(path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = " + std::to_string(Store::kSchemaVersion + 1) + ";");
  expectRefusedUnchanged(path, "newer Kiln");
}

TEST(StorageAccess, ReadOnlyAccessReadsEverythingAndRefusesWrites) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string bytes = readAll(path);
  auto store = Store::open(path, Store::Access::ReadOnly);
  EXPECT_EQ(store->readOnlyReason(), "opened read-only");
  auto list = store->sessions();
  ASSERT_EQ(list.size(), 3u);
  auto stages = store->stages(list[0].id, "0/0");
  ASSERT_FALSE(stages.empty());
  store->stageGraph(stages[0].id);
  EXPECT_FALSE(store->search("aten").empty());
  std::string err = errorOf([&] { store->beginSession(); });
  EXPECT_NE(err.find("cannot record a session"), std::string::npos) << err;
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
  EXPECT_NE(errorOf([&] { store->renameSession(list[0].id, "x"); }).find("read-only"), std::string::npos);
  EXPECT_NE(errorOf([&] { store->deleteSession(list[0].id); }).find("read-only"), std::string::npos);
  store.reset();
  EXPECT_EQ(readAll(path), bytes);
}

TEST(StorageAccess, ReadOnlyOldSchemaSaysItCannotBeUpgraded) {
  TempDir dir;
  std::string path = makeStore(dir, 1);
  execSql(path, "DROP TABLE verifications; PRAGMA user_version = 3;");
  std::string err = errorOf([&] { Store::open(path, Store::Access::ReadOnly); });
  EXPECT_NE(err.find("schema 3"), std::string::npos) << err;
  EXPECT_NE(err.find("read-only"), std::string::npos) << err;
}

// File permissions as a user meets them: a root test process runs this part as nobody.
TEST(StorageAccess, UnwritableFileOrFolderOpensReadOnly) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string bytes = readAll(path);
  auto listsButCannotWrite = [&](const std::string& why) {
    return runInChild(
        [&] {
          auto store = Store::open(path);
          if (store->readOnlyReason().find(why) == std::string::npos) return 2;
          if (store->sessions().size() != 3) return 3;
          if (store->search("aten").empty()) return 4;
          std::string err = errorOf([&] { store->beginSession(); });
          if (err.find("read-only (" + why) == std::string::npos) return 5;
          return 0;
        },
        true);
  };
  // A 0444 file in a folder others may write to (they can create the -wal and -shm files).
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  EXPECT_EQ(listsButCannotWrite("the file is not writable"), 0);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  // A writable file in a read-only folder: SQLite cannot create its -shm there, so the file
  // is read as immutable (no -wal file: nothing else can be writing it).
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  EXPECT_EQ(listsButCannotWrite("its folder"), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0700), 0);
  EXPECT_EQ(readAll(path), bytes);
}

TEST(StorageAccess, DamagedStoreIsReadButNotWritten) {
  TempDir dir;
  std::string path = makeStore(dir);
  long long leaf = queryInt(path, "SELECT max(pageno) FROM dbstat WHERE name = 'stage_nodes' AND pagetype = 'leaf'");
  zeroPage(path, leaf);
  std::string bytes = readAll(path);
  auto store = Store::open(path);
  EXPECT_EQ(store->sessions().size(), 3u);  // what is not on the damaged page reads as before
  std::string err = errorOf([&] { store->beginSession(); });
  EXPECT_NE(err.find("is damaged"), std::string::npos) << err;
  EXPECT_NE(err.find("kiln store repair --db " + path), std::string::npos) << err;
  EXPECT_NE(errorOf([&] { store->renameSession(1, "x"); }).find("is damaged"), std::string::npos);
  EXPECT_NE(errorOf([&] { store->deleteSession(1); }).find("is damaged"), std::string::npos);
  store.reset();
  EXPECT_EQ(readAll(path), bytes);
}

TEST(StorageAccess, NewStoreIsInWalModeAfterValidation) {
  TempDir dir;
  std::string path = dir.file("new.db");
  Store::open(path).reset();
  EXPECT_EQ(queryText(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(queryText(path, "PRAGMA quick_check"), "ok");
}

}  // namespace
}  // namespace kiln::storage::testing
