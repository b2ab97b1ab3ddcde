// Schema versions and migrations: new and empty files are brought to the current schema in
// one transaction; a newer store or a foreign database is refused and left untouched.
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kiln::storage::testing {
namespace {

std::string errorOf(const std::string& path) {
  try {
    Store::open(path);
  } catch (const StoreError& e) { return e.what(); }
  return "";
}

void expectCurrentSchema(const std::string& path) {
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), Store::kSchemaVersion);
  EXPECT_EQ(queryInt(path, "PRAGMA application_id"), kApplicationId);
  for (const char* table :
       {"sessions", "frames", "compiles", "stages", "stage_nodes", "kernels", "wrappers", "graph_breaks", "recompiles", "timings",
        "frame_profiles", "kernel_profiles", "autotune_choices", "verifications", "artifacts", "collectives", "search_text"})
    EXPECT_EQ(queryInt(path, std::string("SELECT count(*) FROM sqlite_master WHERE name = '") + table + "'"), 1) << table;
}

TEST(StorageMigration, StepsAreOrderedAndEndAtTheCurrentVersion) {
  const auto& steps = migrations();
  ASSERT_FALSE(steps.empty());
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].toVersion, static_cast<int>(i) + 1);
  EXPECT_EQ(steps.back().toVersion, Store::kSchemaVersion);
}

TEST(StorageMigration, NewFileGetsTheCurrentSchema) {
  TempDir dir;
  auto store = Store::open(dir.file("new.db"));
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  EXPECT_EQ(store->path(), dir.file("new.db"));
  store.reset();
  expectCurrentSchema(dir.file("new.db"));
  EXPECT_EQ(queryText(dir.file("new.db"), "PRAGMA journal_mode"), "wal");
}

TEST(StorageMigration, ZeroByteFileIsMigrated) {
  TempDir dir;
  std::ofstream(dir.file("empty.db")).close();
  EXPECT_EQ(Store::open(dir.file("empty.db"))->schemaVersion(), Store::kSchemaVersion);
  expectCurrentSchema(dir.file("empty.db"));
}

TEST(StorageMigration, VersionZeroDatabaseIsMigrated) {
  TempDir dir;
  std::string path = dir.file("v0.db");
  execSql(path, "PRAGMA user_version = 0; PRAGMA page_size = 8192; VACUUM;");
  ASSERT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master"), 0);
  auto store = Store::open(path);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  writeSample(*store->beginSession(), sampleSession());
  store.reset();
  expectCurrentSchema(path);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sessions"), 1);
}

// A store written by the version-1 schema (recompiles without guard lines) opens, gains the
// column, and keeps its recompiles, read back with no lines.
TEST(StorageMigration, VersionOneDatabaseIsMigrated) {
  TempDir dir;
  std::string path = dir.file("v1.db");
  execSql(path, migrations().at(0).sql + "PRAGMA user_version = 1; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(path,
          "INSERT INTO sessions (name, script_path, status) VALUES ('m.py', 'm.py', 'ok');"
          "INSERT INTO recompiles (session_id, frame_id, compile_id, reasons_json) VALUES (1, 0, '0/1', '[\"0/0: n == 1\"]');");
  auto store = Store::open(path);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  auto recompiles = store->recompiles(1);
  ASSERT_EQ(recompiles.size(), 1u);
  EXPECT_EQ(recompiles[0].reasons, std::vector<std::string>{"0/0: n == 1"});
  EXPECT_TRUE(recompiles[0].lines.empty());
}

// A version-7 store (before collectives) keeps its sessions, gains the table, and records
// collectives from then on.
TEST(StorageMigration, VersionSevenDatabaseGainsCollectives) {
  TempDir dir;
  std::string path = dir.file("v7.db");
  std::string sql;
  for (const auto& step : migrations())
    if (step.toVersion <= 7) sql += step.sql;
  execSql(path, sql + "PRAGMA user_version = 7; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(path, "INSERT INTO sessions (name, script_path, status) VALUES ('old.py', 'old.py', 'ok');");
  ASSERT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'collectives'"), 0);
  auto store = Store::open(path);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  EXPECT_TRUE(store->collectives(1).empty());
  auto sample = sampleSession();
  writeSample(*store->beginSession(), sample);
  EXPECT_EQ(store->collectives(store->lastSessionId()).size(), sample.collectives.size());
  EXPECT_EQ(store->sessions().size(), 2u);
}

// Schema 10 adds the GPU columns to kernels: a version-9 store's kernels read with none.
TEST(StorageMigration, VersionNineKernelsGainEmptyGpuColumns) {
  TempDir dir;
  std::string path = dir.file("v9.db");
  std::string sql;
  for (const auto& step : migrations())
    if (step.toVersion <= 9) sql += step.sql;
  execSql(path, sql + "PRAGMA user_version = 9; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(path,
          "INSERT INTO sessions (name, script_path, status) VALUES ('old.py', 'old.py', 'ok');"
          "INSERT INTO kernels (session_id, compile_id, name, kind, kernel_ir, source, llvm_ir, assembly, node_ids_json,"
          " source_lines_json, compile_ms) VALUES (1, '0/0', 'k0', 'pointwise', 'kernel k0 pointwise', '', '', 'ret', '[1]', '[3]', 1.5);");
  auto store = Store::open(path);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  const auto kernels = store->kernels(1, "0/0");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].assembly, "ret");
  EXPECT_TRUE(kernels[0].gpu.ptx.empty());
  EXPECT_TRUE(kernels[0].gpu.arch.empty());
  EXPECT_EQ(kernels[0].gpu.registers, -1);
}

// Schema 11 adds the rule applications to stages: a version-10 store's stages read with none.
TEST(StorageMigration, VersionTenStagesGainNoRuleApplications) {
  TempDir dir;
  std::string path = dir.file("v10.db");
  std::string sql;
  for (const auto& step : migrations())
    if (step.toVersion <= 10) sql += step.sql;
  execSql(path, sql + "PRAGMA user_version = 10; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(
      path,
      "INSERT INTO sessions (name, script_path, status) VALUES ('old.py', 'old.py', 'ok');"
      "INSERT INTO stages (session_id, compile_id, stage, ord, text, changed, ms, rules_json, graph_name, next_node_id)"
      " VALUES (1, '0/0', 'pass:simplify', 2, 'graph', 1, 0.5, '[{\"rule\":\"x * 1 -> x\",\"count\":1,\"nodes\":[3]}]', 'forward', 4);");
  auto store = Store::open(path);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  const auto stages = store->stages(1, "0/0");
  ASSERT_EQ(stages.size(), 1u);
  ASSERT_EQ(stages[0].rules.size(), 1u);  // what it had is kept
  EXPECT_TRUE(store->ruleApplications(stages[0].id).empty());
}

TEST(StorageMigration, ReopeningKeepsDataAndDoesNotMigrateAgain) {
  TempDir dir;
  std::string path = dir.file("s.db");
  writeSample(*Store::open(path)->beginSession(), sampleSession());
  auto store = Store::open(path);
  EXPECT_EQ(store->sessions().size(), 1u);
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
}

TEST(StorageMigration, NewerSchemaIsRefusedAndLeftUntouched) {
  TempDir dir;
  std::string path = dir.file("future.db");
  { Store::open(path); }
  const int future = Store::kSchemaVersion + 1;
  execSql(path, "PRAGMA user_version = " + std::to_string(future) + "; CREATE TABLE from_the_future (x);");
  std::string err = errorOf(path);
  EXPECT_NE(err.find("newer Kiln (schema " + std::to_string(future) + ")"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), future);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master WHERE name = 'from_the_future'"), 1);
}

TEST(StorageMigration, ForeignSqliteDatabaseIsRefusedAndLeftUntouched) {
  TempDir dir;
  std::string path = dir.file("other.db");
  execSql(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, blob BLOB); INSERT INTO photos (blob) VALUES (x'00');");
  std::string err = errorOf(path);
  EXPECT_NE(err.find("not a Kiln session store"), std::string::npos) << err;
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM sqlite_master"), 1);
  EXPECT_EQ(queryInt(path, "PRAGMA user_version"), 0);

  std::string tagged = dir.file("tagged.db");
  execSql(tagged, "PRAGMA application_id = 1234; PRAGMA user_version = 1;");
  err = errorOf(tagged);
  EXPECT_NE(err.find("not a Kiln session store"), std::string::npos) << err;
}

TEST(StorageMigration, AFailingStepLeavesTheFileAsItWas) {
  TempDir dir;
  std::string path = dir.file("s.db");
  Db db(path);
  // A temp table named like one of ours shadows it for this connection, so the step's
  // CREATE INDEX ... ON sessions(started_at_ms) fails halfway through the schema.
  db.exec("CREATE TEMP TABLE sessions (x)");
  try {
    migrate(db);
    FAIL() << "the migration should have failed";
  } catch (const StoreError& e) { EXPECT_NE(std::string(e.what()).find("cannot upgrade session store"), std::string::npos) << e.what(); }
  EXPECT_EQ(userVersion(db), 0);
  Stmt count(db, "SELECT count(*) FROM main.sqlite_master");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.integer(0), 0);  // nothing of the half-applied step remains
}

}  // namespace
}  // namespace kiln::storage::testing
