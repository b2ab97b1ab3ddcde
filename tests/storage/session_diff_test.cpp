// `kiln diff`'s model: two stored sessions compared compile by compile.
#include "storage/session_diff.h"
#include "tests/storage/store_test_util.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace kiln::storage::testing {
namespace {

TEST(SessionDiff, LineDiffMarksInsertionsAndRemovals) {
  EXPECT_EQ(unifiedLineDiff("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(unifiedLineDiff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
  EXPECT_EQ(unifiedLineDiff("a\nc\n", "a\nb\nc\n"), "  a\n+ b\n  c\n");
  EXPECT_EQ(unifiedLineDiff("a\nb\n", ""), "- a\n- b\n");
  EXPECT_EQ(unifiedLineDiff("", "z\n"), "+ z\n");
}

TEST(SessionDiff, RenamedScriptIsNotAChange) {
  const std::string a = "# File: a.py:9 in f\ny = x * 2\n# File: a.py:10 in f\nz = y.relu()\n";
  const std::string b = "# File: b.py:9 in f\ny = x * 2\n# File: b.py:10 in f\nz = y.gelu()\n";
  EXPECT_EQ(unifiedLineDiff(a, b, "a.py", "b.py"),
            "  # File: b.py:9 in f\n  y = x * 2\n  # File: b.py:10 in f\n- z = y.relu()\n+ z = y.gelu()\n");
  EXPECT_NE(unifiedLineDiff(a, b).find("- # File: a.py:9 in f\n"), std::string::npos);  // no rename, a change
}

TEST(SessionDiff, HugeInputsFallBackToWholesaleReplacement) {
  std::string a, b;
  for (int i = 0; i < 3000; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  std::string d = unifiedLineDiff("head\n" + a + "tail\n", "head\n" + b + "tail\n");
  EXPECT_EQ(d.rfind("  head\n- a0\n", 0), 0u);
  EXPECT_NE(d.find("+ b2999\n  tail\n"), std::string::npos);
}

TEST(SessionDiff, IdenticalSessionsDifferOnlyInIdentity) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  writeSample(*store->beginSession(), sampleSession());
  int64_t a = store->lastSessionId();
  writeSample(*store->beginSession(), sampleSession());
  int64_t b = store->lastSessionId();
  SessionDiff d = diffSessions(*store, a, b);
  EXPECT_TRUE(d.sameScript);
  EXPECT_EQ(d.graphsA, d.graphsB);
  EXPECT_TRUE(d.breaksOnlyA.empty());
  EXPECT_TRUE(d.breaksOnlyB.empty());
  ASSERT_EQ(d.compiles.size(), 2u);  // 0/0 and 0/1 have captured stages; 1/0 failed
  for (const auto& c : d.compiles) {
    EXPECT_TRUE(c.inA && c.inB) << c.compileId;
    EXPECT_FALSE(c.capturedTextDiffers) << c.compileId;
    EXPECT_FALSE(c.kernelTextDiffers) << c.compileId;
    EXPECT_TRUE(c.guardsOnlyA.empty() && c.guardsOnlyB.empty()) << c.compileId;
    EXPECT_EQ(c.frame, "forward");
  }
}

TEST(SessionDiff, ReportsGraphGuardKernelAndBreakChanges) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sa = sampleSession();
  auto sb = sampleSession();
  for (auto& st : sb.stages)
    if (st.compileId == "0/0" && st.stage == "captured") st.text += "  %add = aten.add.Tensor(%mul, 1)\n";
  sb.compiles[0].guards.push_back({"TENSOR_MATCH", "L['y']", "check_tensor(L['y'])", 4});
  sb.compiles[1].guards.clear();
  sb.kernels.erase(sb.kernels.begin() + 1);  // 0/0 loses its reduction kernel
  sb.breaks.clear();
  sb.compiles.pop_back();  // and the failed 1/0 compile
  for (auto& t : sb.timings)
    if (t.phase == "codegen") t.ms = 6.125;  // codegen got twice as fast
  sb.profiles[0].compiledMs = 0.125;         // and the compiled graph runs in half the time
  writeSample(*store->beginSession(), sa);
  int64_t a = store->lastSessionId();
  writeSample(*store->beginSession(), sb);
  int64_t b = store->lastSessionId();

  SessionDiff d = diffSessions(*store, a, b);
  ASSERT_EQ(d.compiles.size(), 2u);
  const CompileDiff& c0 = d.compiles[0];
  EXPECT_EQ(c0.compileId, "0/0");
  EXPECT_TRUE(c0.capturedTextDiffers);
  EXPECT_NE(c0.capturedUnifiedDiff.find("+   %add = aten.add.Tensor(%mul, 1)"), std::string::npos);
  EXPECT_EQ(c0.kernelsA, 2);
  EXPECT_EQ(c0.kernelsB, 1);
  EXPECT_TRUE(c0.kernelTextDiffers);
  EXPECT_EQ(c0.guardsOnlyB, std::vector<std::string>{"TENSOR_MATCH: check_tensor(L['y'])"});
  const CompileDiff& c1 = d.compiles[1];
  EXPECT_FALSE(c1.capturedTextDiffers);
  EXPECT_EQ(c1.guardsOnlyA, std::vector<std::string>{"TYPE_MATCH: type(L['n']) is int"});
  ASSERT_EQ(d.breaksOnlyA.size(), 1u);
  EXPECT_EQ(d.breaksOnlyA[0], "/home/user/model.py:44 Data-dependent branching");
  EXPECT_TRUE(d.breaksOnlyB.empty());

  std::string text = d.text();
  EXPECT_NE(text.find("[0/0] forward: captured graph differs"), std::string::npos) << text;
  EXPECT_NE(text.find("- break only in " + std::to_string(a)), std::string::npos) << text;
  // Per-phase compile times, in pipeline order, with the change in percent.
  using Phase = std::pair<std::string, std::pair<double, double>>;
  EXPECT_EQ(c0.phaseMs, (std::vector<Phase>{{"capture", {1.5, 1.5}}, {"codegen", {12.25, 6.125}}}));
  EXPECT_NE(text.find("compile ms: capture 1.5 -> 1.5 (+0%); codegen 12.2 -> 6.1 (-50%);"), std::string::npos) << text;
  // Run time from both profiles, and the kernel IR lines that changed.
  EXPECT_TRUE(c0.profiled);
  EXPECT_FALSE(c1.profiled);  // 1/0 has no profile on either side
  EXPECT_NE(text.find("run ms: compiled 0.250 -> 0.125 (-50%); eager 0.750 -> 0.750 (+0%)"), std::string::npos) << text;
  EXPECT_FALSE(c0.kernelUnifiedDiff.empty());
  EXPECT_NE(text.find("    kernels - "), std::string::npos) << text;
  auto j = nlohmann::json::parse(d.json());
  EXPECT_EQ(j["compiles"][0]["run_ms"]["compiled"], nlohmann::json::array({0.25, 0.125}));
  EXPECT_EQ(j["compiles"][0]["kernel_diff"], c0.kernelUnifiedDiff);
  EXPECT_EQ(j["compiles"][0]["kernel_count"], nlohmann::json::array({2, 1}));
  EXPECT_EQ(j["compiles"][0]["compile_ms"]["codegen"], nlohmann::json::array({12.25, 6.125}));
  EXPECT_EQ(j["breaks_only_a"].size(), 1u);
}

// Found by tests/fuzz (store_fuzzer): `kiln diff --json` of sessions whose stored text held
// invalid UTF-8 (a user's script, a damaged store) threw nlohmann's type_error 316, an internal
// error in the CLI. Such bytes are written as U+FFFD.
TEST(SessionDiff, InvalidUtf8IsReplacedInJson) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  auto sa = sampleSession();
  auto sb = sampleSession();
  for (auto& st : sb.stages)
    if (st.compileId == "0/0" && st.stage == "captured") st.text += "  # caf\xe9 \xa0\n";
  sb.breaks.push_back(sb.breaks.empty() ? session::GraphBreakEvent{} : sb.breaks[0]);
  sb.breaks.back().title = "bad \xff title";
  writeSample(*store->beginSession(), sa);
  int64_t a = store->lastSessionId();
  writeSample(*store->beginSession(), sb);
  int64_t b = store->lastSessionId();
  SessionDiff d = diffSessions(*store, a, b);
  std::string json;
  ASSERT_NO_THROW(json = d.json());
  auto j = nlohmann::json::parse(json);
  EXPECT_NE(j["compiles"][0]["captured_diff"].get<std::string>().find("caf\xef\xbf\xbd"), std::string::npos);
}

TEST(SessionDiff, MissingSessionIsAStoreError) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  writeSample(*store->beginSession(), sampleSession());
  int64_t a = store->lastSessionId();
  EXPECT_THROW(diffSessions(*store, a, a + 7), StoreError);
  EXPECT_THROW(diffSessions(*store, 0, a), StoreError);
}

}  // namespace
}  // namespace kiln::storage::testing
