// The fidelity view on the 46 public programs: each real PyTorch run (imported from its
// TORCH_TRACE log) against Kiln's own run of the same script, through diffSessions as `kiln diff`
// shows it. Graph, break and recompile counts must be equal; captured graphs that differ are
// listed (they are conformance gaps, issue 12) and their number may only go down.
#include "engine/driver/script_runner.h"
#include "importers/torch_trace/trace_importer.h"
#include "storage/session_diff.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

namespace fs = std::filesystem;
using namespace kiln;

namespace {

// Captured graphs of the 46 programs that differ from PyTorch's (of 88) when this test was
// written; lower it as conformance work makes Kiln's graphs PyTorch's.
constexpr int kMaxCapturedGraphsDiffering = 45;

}  // namespace

TEST(Fidelity, KilnAndPyTorchOnThePublicCorpus) {
  const std::string shared = KILN_SHARED_DIR;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(shared + "/fixtures/torch_trace/cpu"))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 46u);
  storage::testing::TempDir dir;
  auto store = storage::Store::open(dir.file("s.db"));
  int graphs = 0, differing = 0;
  std::ostringstream listing;
  for (const auto& name : names) {
    // PyTorch's run.
    std::unique_ptr<session::SessionSink> sink;
    importers::torch_trace::ImportOptions opts;
    opts.sourceRoots = {shared + "/corpus/public"};
    auto report = importers::torch_trace::importTorchTrace(
        {shared + "/fixtures/torch_trace/cpu/" + name},
        [&](const std::string&, int64_t) -> session::SessionSink& {
          sink = store->beginSession();
          return *sink;
        },
        opts);
    sink.reset();
    ASSERT_EQ(report.sessions.size(), 1u) << name;
    const int64_t imported = store->lastSessionId();
    // Kiln's run of the same script.
    driver::RunOptions ro;
    ro.scriptPath = shared + "/corpus/public/" + name + ".py";
    std::ostringstream out;
    {
      auto kilnSink = store->beginSession();
      driver::runScript(ro, *kilnSink, out);
    }
    const int64_t kiln = store->lastSessionId();
    storage::SessionDiff d = storage::diffSessions(*store, imported, kiln);
    EXPECT_EQ(d.graphsA, d.graphsB) << name;
    EXPECT_EQ(d.breaksA, d.breaksB) << name;
    EXPECT_EQ(d.recompilesA, d.recompilesB) << name;
    EXPECT_TRUE(d.breaksOnlyA.empty() && d.breaksOnlyB.empty()) << name << "\n" << d.text();
    for (const auto& c : d.compiles) {
      if (!c.inA || !c.inB) continue;
      ++graphs;
      if (c.capturedTextDiffers) {
        ++differing;
        listing << "  " << name << " [" << c.compileId << "] " << c.frame << "\n";
      }
    }
  }
  std::cout << "fidelity: " << graphs - differing << " of " << graphs << " captured graphs equal PyTorch's; differing:\n" << listing.str();
  EXPECT_LE(differing, kMaxCapturedGraphsDiffering) << listing.str();
}
