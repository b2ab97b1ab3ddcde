// Schema 9's savings for large models (issue 17, 'Scale of recording'): large texts stored as
// zstd BLOBs, a stage that repeats the one before it stored as `same_as` it, nodes' user stacks
// and types stored once per session; and a schema-8 store, which has none of these, read and extended.
#include "storage/graph_json.h"
#include "storage/schema.h"
#include "storage/sqlite_util.h"
#include "storage/store.h"
#include "storage/text_codec.h"
#include "tests/storage/store_compare.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <set>

namespace kiln::storage::testing {
namespace {

// A text that compresses well but is not one repeated byte: numbered IR-like lines.
std::string bigText(const std::string& tag, int lines) {
  std::string t;
  for (int i = 0; i < lines; ++i)
    t += "  %" + tag + "_" + std::to_string(i) + " = aten.add.Tensor(%x_" + std::to_string(i % 97) + ", " + std::to_string(i * 7 % 1013) +
         ")\n";
  return t;
}

session::StageEvent stageOf(const std::string& cid, const std::string& name, int order, const ir::Graph& g, const std::string& text) {
  session::StageEvent st;
  st.compileId = cid;
  st.stage = name;
  st.order = order;
  st.graph = g;
  st.text = text;
  st.changed = true;
  return st;
}

// The stage a stored stage points at (same_as), or 0 when it holds its own rows.
long long sameAsOf(const std::string& path, int64_t stage) {
  return queryInt(path, "SELECT coalesce(same_as, 0) FROM stages WHERE id = " + std::to_string(stage));
}

TEST(StorageScale, TextCodecRoundTripsAndKeepsShortTextsPlain) {
  std::string text = bigText("v", 2000);
  auto packed = compressText(text);
  ASSERT_TRUE(packed.has_value());
  EXPECT_LT(packed->size() * 4, text.size());  // IR text compresses several times
  EXPECT_TRUE(isCompressedText(*packed));
  EXPECT_EQ(decompressText(*packed), text);
  EXPECT_FALSE(compressText("short text").has_value());
  EXPECT_FALSE(compressText(std::string(kCompressMinBytes - 1, 'a')).has_value());
  EXPECT_FALSE(isCompressedText("graph():"));

  std::string cut = packed->substr(0, packed->size() / 2);
  EXPECT_THROW(decompressText(cut), StoreError);
}

TEST(StorageScale, LargeTextsAreStoredCompressedAndReadBackExactly) {
  TempDir dir;
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  auto sample = sampleSession();
  std::string stageText = bigText("stage", 3000) + "  %needle_word = aten.mul.Tensor(%x, 2)\n";
  sample.stages[1].text = stageText;  // 0/0's aten stage
  sample.kernels[0].kernelIr = bigText("kir", 500);
  sample.kernels[0].llvmIr = bigText("llvm", 800);
  sample.kernels[0].assembly = bigText("asm", 900);
  sample.kernels[0].source = bigText("src", 300);
  sample.wrappers[0].text = bigText("wrap", 400);
  sample.compiles[0].transformedCode = bigText("code", 200);
  for (int i = 0; i < 40; ++i) sample.compiles[0].guards.push_back(sample.compiles[0].guards.front());
  writeSample(*store->beginSession(), sample);
  int64_t id = store->lastSessionId();

  // Stored as zstd BLOBs, several times smaller than the texts.
  EXPECT_EQ(queryText(path, "SELECT typeof(text) FROM stages WHERE stage = 'aten' AND compile_id = '0/0'"), "blob");
  EXPECT_LT(queryInt(path, "SELECT length(text) FROM stages WHERE stage = 'aten' AND compile_id = '0/0'") * 4,
            static_cast<long long>(stageText.size()));
  for (const char* col : {"kernel_ir", "source", "llvm_ir", "assembly"})
    EXPECT_EQ(queryText(path, std::string("SELECT typeof(") + col + ") FROM kernels WHERE name = 'kernel_pointwise_0'"), "blob") << col;
  EXPECT_EQ(queryText(path, "SELECT typeof(text) FROM wrappers WHERE compile_id = '0/0'"), "blob");
  EXPECT_EQ(queryText(path, "SELECT typeof(transformed_code) FROM compiles WHERE compile_id = '0/0'"), "blob");
  EXPECT_EQ(queryText(path, "SELECT typeof(guards_json) FROM compiles WHERE compile_id = '0/0'"), "blob");
  // Short texts stay TEXT.
  EXPECT_EQ(queryText(path, "SELECT typeof(text) FROM stages WHERE stage = 'captured' AND compile_id = '0/0'"), "text");

  // Every reader gives the exact texts back, and search still finds words in them.
  expectSampleStored(*store, id, sample);
  auto hits = store->search("needle_word");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].kind, "stage");

  // A damaged frame is a StoreError, not a crash or garbage.
  execSql(path, "UPDATE stages SET text = substr(text, 1, 20) WHERE stage = 'aten' AND compile_id = '0/0'");
  int64_t aten = store->stages(id, "0/0").at(1).id;
  EXPECT_THROW(store->stageText(aten), StoreError);
}

TEST(StorageScale, AStageThatRepeatsTheLastIsStoredOnceAndReadAsItsOwn) {
  TempDir dir;
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  auto sample = sampleSession();
  sample.stages.clear();
  ir::Graph a = sampleGraph(1), b = sampleGraph(2);
  ir::Graph typeChanged = b;  // same text, one node's dtype differs: a different graph
  for (auto& n : typeChanged.nodes)
    if (n.name == "mul") n.types.at(0).dtype = ir::DType::Float64;
  std::string textA = bigText("a", 50), textB = bigText("b", 50);
  sample.stages = {stageOf("0/0", "aten", 0, a, textA),
                   stageOf("0/0", "pass:cse", 1, a, textA),
                   stageOf("0/0", "pass:dce", 2, a, textA),
                   stageOf("0/0", "pass:simplify", 3, b, textB),
                   stageOf("0/0", "pass:types", 4, typeChanged, textB),
                   stageOf("0/0", "pass:text", 5, typeChanged, textA),
                   stageOf("0/1", "aten", 0, typeChanged, textA)};
  writeSample(*store->beginSession(), sample);
  int64_t id = store->lastSessionId();

  auto rows = store->stages(id, "0/0");
  ASSERT_EQ(rows.size(), 6u);
  auto sameAs = [&](int64_t stage) { return sameAsOf(path, stage); };
  EXPECT_EQ(sameAs(rows[0].id), 0);
  EXPECT_EQ(sameAs(rows[1].id), rows[0].id);
  EXPECT_EQ(sameAs(rows[2].id), rows[0].id);  // points at the stage with the rows, not the chain
  EXPECT_EQ(sameAs(rows[3].id), 0);
  EXPECT_EQ(sameAs(rows[4].id), 0);  // same text, different types
  EXPECT_EQ(sameAs(rows[5].id), 0);  // same graph, different text
  auto other = store->stages(id, "0/1");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(sameAs(other[0].id), 0);  // another compile never points across
  long long nodesPerGraph = static_cast<long long>(a.nodes.size());
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM stage_nodes WHERE session_id = " + std::to_string(id)), 5 * nodesPerGraph);

  // Each stage reads back as what was reported for it.
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].stage);
    expectSameGraph(store->stageGraph(rows[i].id), sample.stages[i].graph);
    EXPECT_EQ(store->stageText(rows[i].id), sample.stages[i].text);
  }
  // Source-line lookups list the repeating stages too, under their own ids.
  auto atLine = store->nodesAtLine(id, 12);
  EXPECT_EQ(atLine.size(), 7u);
  std::vector<int64_t> stagesAtLine;
  for (const auto& n : atLine) stagesAtLine.push_back(n.stageId);
  std::vector<int64_t> want;
  for (const auto& r : rows) want.push_back(r.id);
  want.push_back(other[0].id);
  EXPECT_EQ(stagesAtLine, want);

  // Deleting the session removes the stored stacks with it.
  EXPECT_GT(queryInt(path, "SELECT count(*) FROM node_json"), 0);
  store->deleteSession(id);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM node_json"), 0);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM stages"), 0);
}

// The writer keeps digests of the last stored stage, not its graph (stage_digest.h): a stage
// whose nodes differ only in what its rows do not keep (a node reference's unused int) still
// repeats it, as do equal nodes; a difference the rows keep (which node an argument refers to,
// a node's `from`) makes a stage of its own.
TEST(StorageScale, AStageRepeatsTheLastWhenItsRowsDoNotOnlyWhenItsNodesDo) {
  TempDir dir;
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  auto sample = sampleSession();
  sample.stages.clear();
  const ir::Graph a = sampleGraph(1);
  ir::Graph unusedField = a, otherRef = a, otherFrom = a;
  ir::Arg* ref = nullptr;
  for (auto& n : unusedField.nodes)
    for (auto& x : n.args)
      if (!ref && x.kind == ir::Arg::Kind::Node && x.node != a.nodes.front().id) ref = &x;
  ASSERT_NE(ref, nullptr);
  ref->i = 99;  // not in the row: {"node": id}
  for (auto& n : otherRef.nodes)
    for (auto& x : n.args)
      if (x.kind == ir::Arg::Kind::Node && x.node != a.nodes.front().id) {
        x.node = a.nodes.front().id;
        break;
      }
  otherFrom.nodes.back().prov.from.push_back(12345);
  const std::string text = bigText("t", 40);
  const std::vector<std::pair<std::string, const ir::Graph*>> stages = {{"aten", &a},
                                                                        {"pass:unused_field", &unusedField},
                                                                        {"pass:equal", &a},
                                                                        {"pass:other_ref", &otherRef},
                                                                        {"pass:other_from", &otherFrom},
                                                                        {"pass:same_again", &otherFrom}};
  for (size_t i = 0; i < stages.size(); ++i)
    sample.stages.push_back(stageOf("0/0", stages[i].first, static_cast<int>(i), *stages[i].second, text));
  writeSample(*store->beginSession(), sample);
  int64_t id = store->lastSessionId();
  auto rows = store->stages(id, "0/0");
  ASSERT_EQ(rows.size(), stages.size());
  // Per stage, the position of the stage it points at (-1: its own rows).
  std::vector<int> pointsAt;
  for (const auto& r : rows) {
    const long long to = sameAsOf(path, r.id);
    int at = -1;
    for (size_t j = 0; j < rows.size(); ++j)
      if (rows[j].id == to) at = static_cast<int>(j);
    pointsAt.push_back(at);
  }
  // unused_field: nodes differ, rows do not.
  EXPECT_EQ(pointsAt, (std::vector<int>{-1, 0, 0, -1, -1, 4}));
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM stage_nodes WHERE session_id = " + std::to_string(id)),
            3 * static_cast<long long>(a.nodes.size()));
  expectSameGraph(store->stageGraph(rows[3].id), otherRef);
  expectSameGraph(store->stageGraph(rows[5].id), otherFrom);
}

TEST(StorageScale, UserStacksTypesAndSitesAreStoredOncePerSession) {
  TempDir dir;
  std::string path = dir.file("s.db");
  auto store = Store::open(path);
  auto sample = sampleSession();
  writeSample(*store->beginSession(), sample);
  int64_t id = store->lastSessionId();
  std::set<std::string> distinct;
  size_t values = 0;
  for (const auto& st : sample.stages)
    for (const auto& n : st.graph.nodes) {
      distinct.insert(sourceLocsToJson(n.prov.userStack));
      distinct.insert(typesToJson(n.types));
      const auto& l = n.prov.loc;
      distinct.insert(stringsToJson({l.file, l.function, l.code, n.prov.modulePath}));
      values += 3;
    }
  ASSERT_LT(distinct.size(), values);  // the sample repeats them
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM node_json WHERE session_id = " + std::to_string(id)),
            static_cast<long long>(distinct.size()));
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM stage_nodes WHERE user_stack_json <> '' OR types_json <> ''"), 0);
  // Sites (schema 12) too: no row spells its file, function, code or module path.
  EXPECT_EQ(queryInt(path,
                     "SELECT count(*) FROM stage_nodes WHERE site_id IS NULL OR file <> '' OR function <> '' OR"
                     " code <> '' OR module_path <> ''"),
            0);
  EXPECT_GT(queryInt(path, "SELECT count(*) FROM stage_nodes WHERE site_id IS NOT NULL"), 0);
  expectSampleStored(*store, id, sample);

  // A second session has its own rows: deleting the first leaves it whole.
  writeSample(*store->beginSession(), sample);
  int64_t second = store->lastSessionId();
  store->deleteSession(id);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM node_json WHERE session_id = " + std::to_string(id)), 0);
  expectSampleStored(*store, second, sample);
}

// A store written by schema 8 (texts as TEXT, every stage's rows, stacks in the rows) opens,
// migrates, reads its old session exactly, and records new sessions the new way beside it.
TEST(StorageScale, ASchemaEightStoreIsMigratedAndReadAsBefore) {
  TempDir dir;
  std::string path = dir.file("v8.db");
  std::string sql;
  for (const auto& step : migrations())
    if (step.toVersion <= 8) sql += step.sql;
  execSql(path, sql + "PRAGMA user_version = 8; PRAGMA application_id = " + std::to_string(kApplicationId) + ";");
  execSql(path,
          "INSERT INTO sessions (id, name, script_path, status) VALUES (1, 'old.py', 'old.py', 'ok');"
          "INSERT INTO stages (id, session_id, compile_id, stage, ord, text, changed, ms, rules_json, graph_name,"
          " next_node_id) VALUES (1, 1, '0/0', 'aten', 0, 'graph old', 1, 0.5, '[]', 'forward', 2),"
          " (2, 1, '0/0', 'pass:cse', 1, 'graph old', 0, 0.1, '[]', 'forward', 2);"
          "INSERT INTO stage_nodes (stage_id, session_id, pos, node_id, name, kind, target, types_json, args_json,"
          " kwargs_json, file, line, col, end_line, end_col, function, code, module_path, from_json, user_stack_json,"
          " kernel) VALUES"
          " (1, 1, 0, 0, 'x', 'placeholder', 'L[''x'']', '[]', '[]', '[]', 'old.py', 7, 0, 7, 0, 'f', 'y = x', '',"
          " '[]', '[{\"file\":\"old.py\",\"line\":3,\"col\":1,\"end_line\":3,\"end_col\":9,\"function\":\"main\",\"code\":\"f(x)\"}]', ''),"
          " (2, 1, 0, 0, 'x', 'placeholder', 'L[''x'']', '[]', '[]', '[]', 'old.py', 7, 0, 7, 0, 'f', 'y = x', '',"
          " '[]', '[]', '');");
  auto store = Store::open(path);
  ASSERT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  EXPECT_EQ(queryInt(path, "SELECT count(*) FROM stages WHERE same_as IS NOT NULL"), 0);

  auto g = store->stageGraph(1);
  ASSERT_EQ(g.nodes.size(), 1u);
  ASSERT_EQ(g.nodes[0].prov.userStack.size(), 1u);
  EXPECT_EQ(g.nodes[0].prov.userStack[0].line, 3);
  EXPECT_EQ(g.nodes[0].prov.userStack[0].code, "f(x)");
  EXPECT_TRUE(store->stageGraph(2).nodes.at(0).prov.userStack.empty());
  EXPECT_EQ(store->stageText(2), "graph old");
  EXPECT_EQ(store->nodesAtLine(1, 7).size(), 2u);

  auto sample = sampleSession();
  writeSample(*store->beginSession(), sample);
  expectSampleStored(*store, store->lastSessionId(), sample);
  EXPECT_GT(queryInt(path, "SELECT count(*) FROM node_json"), 0);
}

}  // namespace
}  // namespace kiln::storage::testing
