// The fidelity view on the 46 public programs: each real PyTorch run (imported from its
// TORCH_TRACE log) against Kiln's own run of the same script, through diffSessions as `kiln diff`
// shows it. Graph, break and recompile counts must be equal; captured graphs that differ are
// listed (they are conformance gaps, issue 12) and their number may only go down. The captured
// graphs are also paired node by node (op and source line, then order): the compile ids whose
// graphs pair completely may only go up, and what keeps the others apart is listed by kind.
#include "engine/driver/script_runner.h"
#include "importers/torch_trace/trace_importer.h"
#include "storage/session_diff.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace kiln;

namespace {

// Captured graphs of the 46 programs that differ from PyTorch's (of 88) when this test was
// written; lower it as conformance work makes Kiln's graphs PyTorch's.
constexpr int kMaxCapturedGraphsDiffering = 45;
// Compile ids whose captured graphs pair completely node by node (same ops on the same lines,
// arguments, shapes and dtypes), of 88, when node pairing was written; raise it as they improve.
constexpr int kMinCompilesPairedCompletely = 68;

// A difference's kind: its text up to the first detail ("argument 1 (2, 2) vs [2, 2]" is
// "argument"; "type f32[4] vs f32[5]" is "type").
std::string kindOf(const std::string& difference) { return difference.substr(0, difference.find(' ')); }

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
  int graphs = 0, differing = 0, pairedCompletely = 0, pairs = 0, pairsDiffering = 0, onlyA = 0, onlyB = 0;
  std::map<std::string, int> kinds;  // difference kind -> paired nodes showing it
  std::ostringstream listing, unpaired;
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
      EXPECT_TRUE(c.nodesPaired) << name << " " << c.compileId;
      if (c.pairsCompletely()) ++pairedCompletely;
      else {
        unpaired << "  " << name << " [" << c.compileId << "] " << c.frame << "\n";
        for (const auto& p : c.nodePairs)
          for (const auto& x : p.differences) unpaired << "    ~ " << p.b << ": " << x << "\n";
        for (const auto& n : c.nodesOnlyA) unpaired << "    - only in PyTorch's: " << n << "\n";
        for (const auto& n : c.nodesOnlyB) unpaired << "    + only in Kiln's: " << n << "\n";
      }
      pairs += static_cast<int>(c.nodePairs.size());
      pairsDiffering += c.nodePairsDiffering();
      onlyA += static_cast<int>(c.nodesOnlyA.size());
      onlyB += static_cast<int>(c.nodesOnlyB.size());
      for (const auto& p : c.nodePairs) {
        std::set<std::string> seen;
        for (const auto& x : p.differences)
          if (seen.insert(kindOf(x)).second) ++kinds[kindOf(x)];
      }
    }
  }
  std::cout << "fidelity: " << graphs - differing << " of " << graphs << " captured graphs equal PyTorch's; differing:\n" << listing.str();
  std::cout << "node pairing: " << pairedCompletely << " of " << graphs << " compile ids pair completely; " << pairs << " node pairs ("
            << pairsDiffering << " differ), " << onlyA << " nodes only in PyTorch's graphs, " << onlyB
            << " only in Kiln's; differences by kind:";
  for (const auto& [k, n] : kinds) std::cout << " " << k << " " << n << ";";
  std::cout << "\nnot paired completely:\n" << unpaired.str();
  EXPECT_LE(differing, kMaxCapturedGraphsDiffering) << listing.str();
  EXPECT_GE(pairedCompletely, kMinCompilesPairedCompletely) << unpaired.str();
}
