// A GPU compile stores its kernels with PTX and SASS pending; their views, made after the compile
// (engine/driver/kernel_views.h), arrive as a KernelViewsEvent that updates those rows in place:
// source, ptx, sass, gpu_json and the search entry, committed as the compile's other events are.
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

namespace kiln::storage::testing {
namespace {

session::KernelEvent pendingKernel(const std::string& cid, const std::string& name) {
  session::KernelEvent k;
  k.compileId = cid;
  k.name = name;
  k.kind = "pointwise";
  k.kernelIr = "kernel " + name + " pointwise\n  loop i0 in 0..16\nend\n";
  k.source = "// launch: grid 1x1, block 32, thread\n// kernel " + name + " (pointwise) as compiled quokka\n";
  k.gpu.arch = "sm_90";
  k.gpu.launch = "grid 1x1, block 32, thread";
  k.gpu.notes = "PTX, SASS and resources pending";
  return k;
}

session::KernelViewsEvent viewsOf(const std::string& cid, const std::string& name) {
  session::KernelViewsEvent v;
  v.compileId = cid;
  session::KernelGpuInfo g;
  g.arch = "sm_90";
  g.ptx = ".visible .entry " + name + "(\n\t.loc\t1 3 1  // cuda line 2 @4\n\tret;\n}\n";
  g.sass = "\t//## File \"kiln_kernels.cu\", line 3  // cuda line 2 @4\n        /*0000*/ EXIT ;\n";
  g.launch = "grid 1x1, block 32, thread";
  g.registers = 12;
  g.sharedBytes = 0;
  g.stackBytes = 0;
  g.spillStores = 0;
  g.spillLoads = 0;
  v.kernels.push_back({name, "// kernel " + name + " (pointwise) with lineinfo zanzibar\n", g});
  return v;
}

void startCompile(session::SessionSink& sink, const std::string& cid) {
  session::CompileEvent c;
  c.compileId = cid;
  c.backend = "inductor";
  c.status = "ok";
  sink.compile(c);
}

TEST(StorageKernelViews, LaterEventUpdatesThePendingRowsOfItsCompileOnly) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto reader = Store::open(dir.file("s.db"));  // the studio's connection
  auto sink = store->beginSession();
  EXPECT_TRUE(sink->wantsKernelViews());
  sink->sessionStart(sampleSession().start);
  const int64_t id = store->lastSessionId();
  for (const std::string cid : {"0/0", "0/1"}) {
    startCompile(*sink, cid);
    sink->kernel(pendingKernel(cid, "kiln_k0"));
    sink->kernel(pendingKernel(cid, "kiln_k1"));
    sink->compileDone(cid);
  }
  ASSERT_EQ(reader->kernels(id, "0/0").size(), 2u);
  EXPECT_EQ(reader->kernels(id, "0/0")[0].gpu.notes, "PTX, SASS and resources pending");
  EXPECT_TRUE(reader->kernels(id, "0/0")[0].gpu.ptx.empty());

  // After its compileDone, outside any compile: on disk at once, as a reloading studio sees it.
  sink->kernelViews(viewsOf("0/0", "kiln_k1"));
  sink->timing(session::TimingEvent{"0/0", "cuda views", 412.5});
  const auto rows = reader->kernels(id, "0/0");
  ASSERT_EQ(rows.size(), 2u);
  const auto& k0 = rows[0].name == "kiln_k0" ? rows[0] : rows[1];
  const auto& k1 = rows[0].name == "kiln_k1" ? rows[0] : rows[1];
  EXPECT_EQ(k1.gpu.ptx, viewsOf("0/0", "kiln_k1").kernels[0].gpu.ptx);
  EXPECT_EQ(k1.gpu.sass, viewsOf("0/0", "kiln_k1").kernels[0].gpu.sass);
  EXPECT_EQ(k1.gpu.registers, 12);
  EXPECT_EQ(k1.gpu.notes, "");
  EXPECT_EQ(k1.source, "// kernel kiln_k1 (pointwise) with lineinfo zanzibar\n");
  EXPECT_EQ(k1.kernelIr, pendingKernel("0/0", "kiln_k1").kernelIr);  // the rest as reported
  EXPECT_EQ(k1.gpu.launch, "grid 1x1, block 32, thread");
  EXPECT_EQ(k0.gpu.notes, "PTX, SASS and resources pending");                                 // another kernel of the compile
  for (const auto& k : reader->kernels(id, "0/1")) EXPECT_TRUE(k.gpu.ptx.empty()) << k.name;  // another compile's
  bool timed = false;
  for (const auto& t : reader->timings(id)) timed = timed || (t.compileId == "0/0" && t.phase == "cuda views" && t.ms == 412.5);
  EXPECT_TRUE(timed);

  // The search entry follows the new source: one hit for the kernel, not two.
  const auto hits = reader->search("zanzibar");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].kind, "kernel");
  EXPECT_EQ(hits[0].ref, std::to_string(k1.id));
  EXPECT_EQ(reader->search("quokka").size(), 3u) << "the three kernels not updated keep their entry";
  session::SessionEnd end;
  end.status = "ok";
  sink->sessionEnd(end);
}

TEST(StorageKernelViews, DuringAnOpenCompileTheUpdateCommitsWithIt) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto reader = Store::open(dir.file("s.db"));
  auto sink = store->beginSession();
  sink->sessionStart(sampleSession().start);
  const int64_t id = store->lastSessionId();
  startCompile(*sink, "0/0");
  sink->kernel(pendingKernel("0/0", "kiln_k0"));
  sink->compileDone("0/0");
  startCompile(*sink, "1/0");  // the next compile is open when the views arrive
  sink->kernelViews(viewsOf("0/0", "kiln_k0"));
  EXPECT_TRUE(reader->kernels(id, "0/0")[0].gpu.ptx.empty());  // not committed yet
  sink->compileDone("1/0");
  EXPECT_FALSE(reader->kernels(id, "0/0")[0].gpu.ptx.empty());
  // Views of a kernel no row holds (a compile not recorded) change nothing and fail nothing.
  sink->kernelViews(viewsOf("7/0", "kiln_k0"));
  EXPECT_TRUE(reader->kernels(id, "7/0").empty());
}

TEST(StorageKernelViews, AStoppedRecordingWantsNoViews) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  bool stopped = false;
  auto sink = store->beginSession([&](const std::string&) { stopped = true; });
  EXPECT_TRUE(sink->wantsKernelViews());
  sink->kernelViews(viewsOf("0/0", "kiln_k0"));  // before sessionStart: a write failure
  EXPECT_TRUE(stopped);
  EXPECT_FALSE(sink->wantsKernelViews());
}

}  // namespace
}  // namespace kiln::storage::testing
