// kiln store check and repair, in process: check lists what is wrong without writing; repair
// copies every readable row into a new store that passes check, and never touches the old one.
#include "storage/schema.h"
#include "storage/store.h"
#include "storage/store_check.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kiln::storage::testing {
namespace {

namespace fs = std::filesystem;

std::string makeStore(const TempDir& dir) {
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  for (int i = 0; i < 3; ++i) writeSample(*store->beginSession(), sampleSession());
  return path;
}

void zeroPage(const std::string& path, long long page) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((page - 1) * 4096);
  f.write(std::string(4096, '\0').data(), 4096);
}

int64_t rowsOf(const StoreCheck& c, const std::string& table) {
  for (const auto& [t, n] : c.rows)
    if (t == table) return n;
  return -1;
}

const RepairReport::Table* tableOf(const RepairReport& r, const std::string& name) {
  for (const auto& t : r.tables)
    if (t.name == name) return &t;
  return nullptr;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(StorageCheck, SoundStoreIsOkWithCounts) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string bytes = readAll(path);
  StoreCheck c = checkStore(path);
  EXPECT_TRUE(c.ok()) << c.text();
  EXPECT_EQ(c.schemaVersion, Store::kSchemaVersion);
  EXPECT_EQ(c.applicationId, kApplicationId);
  EXPECT_EQ(rowsOf(c, "sessions"), 3);
  EXPECT_GT(rowsOf(c, "stage_nodes"), 0);
  EXPECT_EQ(rowsOf(c, "collectives"), 3 * int64_t(sampleSession().collectives.size()));
  ASSERT_EQ(c.statuses.size(), 1u);
  EXPECT_EQ(c.statuses[0], (std::pair<std::string, int64_t>{"ok", 3}));
  EXPECT_NE(c.text().find("\nok\n"), std::string::npos) << c.text();
  EXPECT_EQ(readAll(path), bytes);
}

TEST(StorageCheck, ListsWhatIsWrong) {
  TempDir dir;
  EXPECT_TRUE(anyContains(checkStore(dir.file("none.db")).problems, "no such file"));
  EXPECT_TRUE(anyContains(checkStore(dir.path()).problems, "not a file"));
  std::ofstream(dir.file("text.db")) << std::string(5000, 'x');
  EXPECT_TRUE(anyContains(checkStore(dir.file("text.db")).problems, "not a SQLite database"));
  execSql(dir.file("other.db"), "PRAGMA application_id = 77;");
  EXPECT_TRUE(anyContains(checkStore(dir.file("other.db")).problems, "another application"));
  execSql(dir.file("tables.db"), "CREATE TABLE t (x);");
  EXPECT_TRUE(anyContains(checkStore(dir.file("tables.db")).problems, "not a Kiln session store"));

  std::string path = makeStore(dir);
  zeroPage(path, queryInt(path, "SELECT max(pageno) FROM dbstat WHERE name = 'stage_nodes' AND pagetype = 'leaf'"));
  std::string bytes = readAll(path);
  StoreCheck c = checkStore(path);
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(anyContains(c.problems, "integrity_check")) << c.text();
  EXPECT_NE(c.text().find("kiln store repair --db " + path), std::string::npos) << c.text();
  EXPECT_EQ(readAll(path), bytes);
}

TEST(StorageRepair, CopiesEveryReadableRowIntoASoundStore) {
  TempDir dir;
  std::string path = makeStore(dir);
  int64_t nodes = queryInt(path, "SELECT count(*) FROM stage_nodes");
  long long leaf = queryInt(path, "SELECT max(pageno) FROM dbstat WHERE name = 'stage_nodes' AND pagetype = 'leaf'");
  int64_t lost = queryInt(path, "SELECT ncell FROM dbstat WHERE pageno = " + std::to_string(leaf));
  ASSERT_GT(lost, 0);
  zeroPage(path, leaf);
  std::string bytes = readAll(path);

  std::string out = dir.file("s.recovered.db");
  EXPECT_EQ(defaultRepairPath(path), out);
  RepairReport r = repairStore(path, out);
  EXPECT_TRUE(r.result.ok()) << r.text();
  const auto* t = tableOf(r, "stage_nodes");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->copied, nodes - lost) << r.text();  // exactly the rows of the zeroed page are gone
  EXPECT_EQ(t->readErrors, 1);
  ASSERT_NE(tableOf(r, "sessions"), nullptr);
  EXPECT_EQ(tableOf(r, "sessions")->copied, 3);
  ASSERT_NE(tableOf(r, "collectives"), nullptr);
  EXPECT_EQ(tableOf(r, "collectives")->copied, 3 * int64_t(sampleSession().collectives.size()));
  EXPECT_EQ(readAll(path), bytes);  // the damaged file is never written

  auto store = Store::open(out);
  EXPECT_EQ(store->sessions().size(), 3u);
  EXPECT_FALSE(store->search("aten").empty());
  for (const auto& s : store->sessions()) EXPECT_EQ(store->collectives(s.id).size(), sampleSession().collectives.size());
  writeSample(*store->beginSession(), sampleSession());  // a repaired store takes new sessions
  EXPECT_EQ(store->sessions().size(), 4u);
}

TEST(StorageRepair, RowsOfLostSessionsAreDropped) {
  TempDir dir;
  std::string path = makeStore(dir);
  zeroPage(path, queryInt(path, "SELECT rootpage FROM sqlite_master WHERE name = 'sessions'"));
  RepairReport r = repairStore(path, dir.file("new.db"));
  EXPECT_TRUE(r.result.ok()) << r.text();
  EXPECT_EQ(tableOf(r, "sessions")->copied, 0);
  EXPECT_GT(tableOf(r, "stage_nodes")->dropped, 0);
  EXPECT_EQ(tableOf(r, "stage_nodes")->copied, 0);
  EXPECT_EQ(queryInt(dir.file("new.db"), "SELECT count(*) FROM search_text"), 0);
  EXPECT_TRUE(Store::open(dir.file("new.db"))->sessions().empty());
}

TEST(StorageRepair, OlderSchemaComesOutCurrent) {
  TempDir dir;
  std::string path = dir.file("v1.db");
  execSql(path, migrations().at(0).sql + "PRAGMA user_version = 1; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(path,
          "INSERT INTO sessions (name, script_path, status) VALUES ('m.py', 'm.py', 'ok');"
          "INSERT INTO recompiles (session_id, frame_id, compile_id, reasons_json) VALUES (1, 0, '0/1', '[\"n == 1\"]');");
  RepairReport r = repairStore(path, dir.file("new.db"));
  EXPECT_TRUE(r.result.ok()) << r.text();
  EXPECT_EQ(r.result.schemaVersion, Store::kSchemaVersion);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), 1);  // the old file stays as it was
  auto store = Store::open(dir.file("new.db"));
  ASSERT_EQ(store->recompiles(1).size(), 1u);
  EXPECT_EQ(store->recompiles(1)[0].reasons, std::vector<std::string>{"n == 1"});
}

TEST(StorageRepair, RefusesBadInputAndLeavesNoFile) {
  TempDir dir;
  std::string path = makeStore(dir);
  std::string out = dir.file("out.db");
  auto errorOf = [&](const std::string& from, const std::string& to) -> std::string {
    try {
      repairStore(from, to);
    } catch (const StoreError& e) { return e.what(); }
    return "";
  };
  std::ofstream(out) << "mine";
  EXPECT_NE(errorOf(path, out).find("already exists"), std::string::npos);
  EXPECT_EQ(readAll(out), "mine");
  fs::remove(out);
  EXPECT_NE(errorOf(dir.file("none.db"), out).find("no session store"), std::string::npos);
  execSql(dir.file("other.db"), "CREATE TABLE t (x);");
  EXPECT_NE(errorOf(dir.file("other.db"), out).find("not a Kiln session store"), std::string::npos);
  std::ofstream(dir.file("text.db")) << std::string(5000, 'x');
  EXPECT_NE(errorOf(dir.file("text.db"), out).find(dir.file("text.db")), std::string::npos);
  EXPECT_NE(errorOf(path, dir.file("no/such/dir/out.db")), "");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir.file("no/such/dir/out.db")));
}

}  // namespace
}  // namespace kiln::storage::testing
