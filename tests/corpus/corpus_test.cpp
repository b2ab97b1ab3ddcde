#include "tests/support/corpus.h"
#include "engine/driver/script_runner.h"
#include "tests/support/outs_compare.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace kiln {
namespace {

struct Recorder : session::SessionSink {
  std::map<std::string, std::string> captured;  // compile id -> captured graph text
  std::vector<session::GraphBreakEvent> breaks;
  std::vector<std::string> kernels;
  void stage(const session::StageEvent& e) override {
    if (e.stage == "captured") captured[e.compileId] = e.text;
  }
  void graphBreak(const session::GraphBreakEvent& e) override { breaks.push_back(e); }
  void kernel(const session::KernelEvent& e) override { kernels.push_back(e.name); }
};

class SeedProgram : public ::testing::TestWithParam<std::string> {};

// The walking skeleton's programs. Issue 3 widens this to every program in the folder.
const std::string kPrograms[] = {"seed_mul_add_relu", "seed_exp_log", "seed_sin_plus_one", "seed_double_cosine_module"};

TEST_P(SeedProgram, CompiledMatchesOracle) {
  const std::string name = GetParam();
  Recorder rec;
  std::ostringstream out;
  driver::RunOptions o;
  o.scriptPath = test::corpusPath("public/" + name + ".py");
  driver::RunResult r = driver::runScript(o, rec, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  auto expected = test::loadCorpusJson("oracle/" + name + ".outs.json");
  EXPECT_EQ(test::compareOuts(nlohmann::json::parse(r.outputsJson), expected), "");

  // The captured graphs read exactly like real Dynamo's (FX readable form).
  auto oracle = test::loadCorpusJson("oracle/" + name + ".json");
  ASSERT_EQ(rec.captured.size(), oracle["graphs"].size());
  for (const auto& g : oracle["graphs"]) {
    std::string cid = g["compile_id"];
    ASSERT_TRUE(rec.captured.count(cid)) << cid;
    EXPECT_EQ(rec.captured[cid], g["readable"].get<std::string>()) << cid;
  }
  EXPECT_TRUE(rec.breaks.empty());
  EXPECT_FALSE(rec.kernels.empty()) << "the graph should run generated kernels";
}

TEST_P(SeedProgram, EagerMatchesOracle) {
  const std::string name = GetParam();
  session::NullSink sink;
  std::ostringstream out;
  driver::RunOptions o;
  o.scriptPath = test::corpusPath("public/" + name + ".py");
  o.eager = true;
  driver::RunResult r = driver::runScript(o, sink, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  EXPECT_EQ(test::compareOuts(nlohmann::json::parse(r.outputsJson), test::loadCorpusJson("oracle/" + name + ".outs.json")), "");
}

INSTANTIATE_TEST_SUITE_P(Corpus, SeedProgram, ::testing::ValuesIn(kPrograms));

}  // namespace
}  // namespace kiln
