// Every event type written through the store's SessionSink reads back field by field.
#include "storage/store.h"
#include "tests/storage/store_compare.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

namespace kiln::storage::testing {
namespace {

TEST(StorageRoundTrip, EveryEventReadsBackFieldByField) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  EXPECT_EQ(store->schemaVersion(), Store::kSchemaVersion);
  EXPECT_EQ(store->lastSessionId(), 0);
  auto sample = sampleSession();
  {
    auto sink = store->beginSession();
    writeSample(*sink, sample);
  }
  int64_t id = store->lastSessionId();
  ASSERT_GT(id, 0);
  expectSampleStored(*store, id, sample);

  auto list = store->sessions();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, id);
  EXPECT_EQ(list[0].name, "model.py");  // defaults to the script's file name
}

TEST(StorageRoundTrip, SurvivesReopen) {
  TempDir dir;
  auto sample = sampleSession();
  int64_t id = 0;
  {
    auto store = Store::open(dir.file("s.db"));
    auto sink = store->beginSession();
    writeSample(*sink, sample);
    id = store->lastSessionId();
  }
  auto store = Store::open(dir.file("s.db"));
  expectSampleStored(*store, id, sample);
}

TEST(StorageRoundTrip, SessionsAreListedNewestFirstAndKeptApart) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto a = sampleSession("a.py");
  auto b = sampleSession("b.py");
  b.start.startedAtMs = a.start.startedAtMs + 1000;
  b.breaks.clear();
  writeSample(*store->beginSession(), a);
  int64_t ida = store->lastSessionId();
  writeSample(*store->beginSession(), b);
  int64_t idb = store->lastSessionId();
  ASSERT_NE(ida, idb);
  auto list = store->sessions();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, idb);
  EXPECT_EQ(list[1].id, ida);
  expectSampleStored(*store, ida, a);
  expectSampleStored(*store, idb, b);
}

TEST(StorageRoundTrip, ErrorSessionKeepsItsTraceback) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sink = store->beginSession();
  sink->sessionStart(sampleSession().start);
  session::SessionEnd end;
  end.status = "error";
  end.error = "Traceback (most recent call last):\n  File \"model.py\", line 4\nRuntimeError: boom\n";
  end.totalMs = 5;
  sink->sessionEnd(end);
  auto d = store->session(store->lastSessionId());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->summary.status, "error");
  EXPECT_EQ(d->error, end.error);
  EXPECT_FALSE(store->session(store->lastSessionId() + 100).has_value());
}

TEST(StorageRoundTrip, LiveSessionShowsCommittedCompilesOnlyAndDroppedSinkIsIncomplete) {
  TempDir dir;
  auto writerStore = Store::open(dir.file("s.db"));
  auto reader = Store::open(dir.file("s.db"));  // another connection, like the studio's
  auto sink = writerStore->beginSession();
  sink->sessionStart(sampleSession().start);
  int64_t id = writerStore->lastSessionId();
  writeCompile(*sink, 0, /*done=*/true);
  writeCompile(*sink, 1, /*done=*/false);

  auto d = reader->session(id);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->summary.status, "running");     // this process is alive
  ASSERT_EQ(reader->compiles(id).size(), 1u);  // 1/0 is not committed yet
  EXPECT_EQ(reader->compiles(id)[0].compileId, "0/0");
  EXPECT_EQ(reader->stages(id, "0/0").size(), 3u);
  EXPECT_EQ(d->stdoutText, "compiled 0/0\n");

  sink.reset();  // the engine gave up without sessionEnd
  d = reader->session(id);
  EXPECT_EQ(d->summary.status, "incomplete");
  EXPECT_NE(d->error, "");
  EXPECT_EQ(reader->compiles(id).size(), 1u);  // the unfinished compile is rolled back
  EXPECT_TRUE(reader->stages(id, "1/0").empty());
}

// A training loop's collectives come between compiles: each is on disk at once (a killed run
// keeps them), and output printed after one still commits at once too.
TEST(StorageRoundTrip, CollectivesOutsideACompileAreCommittedAtOnce) {
  TempDir dir;
  auto writerStore = Store::open(dir.file("s.db"));
  auto reader = Store::open(dir.file("s.db"));
  auto sink = writerStore->beginSession();
  sink->sessionStart(sampleSession().start);
  int64_t id = writerStore->lastSessionId();
  session::CollectiveEvent c{0, "all_reduce", "sum", -1, "gloo", 64, "float32", {16}, 5.0, 0.5, 6.0, 0, 2, "bucket 0"};
  sink->collective(c);
  ASSERT_EQ(reader->collectives(id).size(), 1u);
  EXPECT_EQ(reader->collectives(id)[0].label, "bucket 0");
  sink->output("step 0\n");
  EXPECT_EQ(reader->session(id)->stdoutText, "step 0\n");
  // Inside a compile's transaction it commits with the compile.
  writeCompile(*sink, 0, /*done=*/false);
  c.seq = 1;
  sink->collective(c);
  EXPECT_EQ(reader->collectives(id).size(), 1u);
  sink->compileDone("0/0");
  EXPECT_EQ(reader->collectives(id).size(), 2u);
}

TEST(StorageRoundTrip, RepeatedCompileAndFrameEventsUpdateTheirRows) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sink = store->beginSession();
  sink->sessionStart(sampleSession().start);
  session::CompileEvent c;
  c.compileId = "0/0";
  c.backend = "inductor";
  sink->compile(c);
  c.status = "failed";
  c.message = "lowering failed";
  sink->compile(c);
  sink->frame({0, "f", "a.py", 1, "function", "old"});
  sink->frame({0, "f", "a.py", 1, "function", "new"});
  sink->compileDone("0/0");
  auto rows = store->compiles(store->lastSessionId());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, "failed");
  EXPECT_EQ(rows[0].message, "lowering failed");
  auto frames = store->frames(store->lastSessionId());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].source, "new");
}

TEST(StorageRoundTrip, MisuseOfTheSinkIsAClearError) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sink = store->beginSession();
  EXPECT_THROW(sink->frame({}), StoreError);
  EXPECT_THROW(sink->output("x"), StoreError);
  sink->sessionStart(sampleSession().start);
  EXPECT_THROW(sink->sessionStart(sampleSession().start), StoreError);
  session::SessionEnd bad;
  bad.status = "maybe";
  EXPECT_THROW(sink->sessionEnd(bad), StoreError);
  session::SessionEnd ok;
  ok.status = "ok";
  sink->sessionEnd(ok);
  EXPECT_THROW(sink->timing({}), StoreError);
  EXPECT_EQ(store->session(store->lastSessionId())->summary.status, "ok");
}

TEST(StorageRoundTrip, NodesAtLineAndFullTextSearch) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  writeSample(*store->beginSession(), sampleSession());
  int64_t id = store->lastSessionId();

  // Line 12 is the mul node of each of the 8 stage graphs.
  auto nodes = store->nodesAtLine(id, 12);
  ASSERT_EQ(nodes.size(), 8u);
  for (const auto& n : nodes) {
    auto g = store->stageGraph(n.stageId);
    ASSERT_NE(g.find(n.nodeId), nullptr);
    EXPECT_EQ(g.find(n.nodeId)->name, "mul");
  }
  EXPECT_TRUE(store->nodesAtLine(id, 999).empty());

  auto hits = store->search("aten.mul.Tensor");
  EXPECT_EQ(hits.size(), 8u);  // every stage text
  for (const auto& h : hits) {
    EXPECT_EQ(h.sessionId, id);
    EXPECT_EQ(h.kind, "stage");
    EXPECT_NE(h.snippet.find("[aten.mul.Tensor]"), std::string::npos) << h.snippet;
  }
  hits = store->search("vmovups");  // assembly is not indexed; the kernel IR is
  EXPECT_TRUE(hits.empty());
  hits = store->search("kernel_pointwise_0 for");
  ASSERT_EQ(hits.size(), 3u);
  for (const auto& h : hits) EXPECT_EQ(h.kind, "kernel");
  hits = store->search("__compiled_fn_0");
  ASSERT_EQ(hits.size(), 2u);  // the transformed code of 0/0 and 0/1
  EXPECT_EQ(hits[0].kind, "transformed");
  EXPECT_TRUE(store->search("   ").empty());
  EXPECT_NO_THROW(store->search("\"unbalanced ( AND OR NEAR"));
}

}  // namespace
}  // namespace kiln::storage::testing
