// kiln run --verify: each compiled graph call is checked against the captured graph run
// eagerly. A pass planted in the pipeline that rewrites a product into a sum must be caught on
// the first call and named by the bisection; the program must go on with eager's values; the
// results must reach the session store. Programs without such a pass verify clean.
#include "engine/driver/verify.h"
#include "engine/driver/script_runner.h"
#include "engine/passes/pipeline.h"
#include "engine/session/tee_sink.h"
#include "storage/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace kiln {
namespace {

std::string script(const std::string& name) { return std::string(KILN_SOURCE_DIR) + "/tests/verify/scripts/" + name; }

class VerifyEvents : public session::NullSink {
 public:
  void verify(const session::VerifyEvent& e) override { events.push_back(e); }
  std::vector<session::VerifyEvent> events;
};

struct ScriptRun {
  driver::RunResult result;
  std::string printed;
  std::vector<session::VerifyEvent> events;
};

ScriptRun run(const std::string& path, bool verify, const passes::PassManagerOptions& po = {}) {
  VerifyEvents sink;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.verify = verify;
  ro.passes = po;
  ScriptRun r;
  r.result = driver::runScript(ro, sink, out);
  r.printed = out.str();
  r.events = sink.events;
  return r;
}

// Rewrites the first aten.mul.Tensor into aten.add.Tensor: a wrong "simplification".
passes::PassResult plantedWrongRewrite(const ir::Graph& g, passes::PassContext&) {
  passes::PassResult r;
  r.graph = g;
  for (auto& n : r.graph.nodes)
    if (n.target == "aten.mul.Tensor") {
      n.target = "aten.add.Tensor";
      r.changed = true;
      r.fired("x * c -> x + c (planted, wrong)", n.id);
      break;
    }
  return r;
}

struct Planted {
  Planted() { passes::registerPass({"planted_wrong_rewrite", "a deliberately wrong rewrite (test)", plantedWrongRewrite}, "cse"); }
  ~Planted() { passes::unregisterPass("planted_wrong_rewrite"); }
};

TEST(Verify, CleanProgramsVerify) {
  for (const char* name : {"pointwise_chain.py", "inplace_on_views.py"}) {
    ScriptRun r = run(script(name), true);
    ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
    ASSERT_TRUE(r.result.verify);
    EXPECT_GT(r.result.verify->calls, 0) << name;
    EXPECT_EQ(r.result.verify->mismatches, 0) << name << ": " << (r.result.verify->reports.empty() ? "" : r.result.verify->reports[0]);
    ASSERT_FALSE(r.events.empty());
    for (const auto& e : r.events) EXPECT_TRUE(e.matched) << name << " " << e.compileId << ": " << e.detail;
    EXPECT_EQ(r.printed, run(script(name), false).printed) << name << ": verifying changed what the program printed";
  }
}

TEST(Verify, PlantedWrongRewriteIsNamed) {
  Planted planted;
  ScriptRun eager;
  {
    driver::RunOptions ro;
    ro.scriptPath = script("pointwise_chain.py");
    ro.eager = true;
    session::NullSink sink;
    std::ostringstream out;
    eager.result = driver::runScript(ro, sink, out);
    eager.printed = out.str();
  }
  ScriptRun wrong = run(script("pointwise_chain.py"), false);
  ASSERT_EQ(wrong.result.exitCode, 0) << wrong.result.error;
  ASSERT_NE(wrong.printed, eager.printed) << "the planted pass did not change the compiled result";

  ScriptRun r = run(script("pointwise_chain.py"), true);
  ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
  ASSERT_TRUE(r.result.verify);
  EXPECT_EQ(r.result.verify->mismatches, 2);  // both calls; bisected once
  ASSERT_EQ(r.events.size(), 1u);
  const session::VerifyEvent& e = r.events[0];
  EXPECT_EQ(e.compileId, "0/0");
  EXPECT_EQ(e.call, 1);
  EXPECT_FALSE(e.matched);
  EXPECT_EQ(e.output, 0);
  EXPECT_NE(e.detail.find("compiled vs"), std::string::npos) << e.detail;
  EXPECT_EQ(e.culprit, "pass planted_wrong_rewrite") << e.culprit;
  bool triedIt = false;
  for (const auto& line : e.bisection) triedIt = triedIt || line == "without planted_wrong_rewrite: matches eager";
  EXPECT_TRUE(triedIt);
  // With the mismatch found, the program carries on with eager's values.
  EXPECT_EQ(r.printed, eager.printed);
}

TEST(Verify, DisabledPlantedPassVerifiesClean) {
  Planted planted;
  passes::PassManagerOptions po;
  po.disabled.insert("planted_wrong_rewrite");
  ScriptRun r = run(script("pointwise_chain.py"), true, po);
  ASSERT_TRUE(r.result.verify);
  EXPECT_EQ(r.result.verify->mismatches, 0);
}

TEST(Verify, ResultsAreStoredInTheSession) {
  Planted planted;
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kiln_verify_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto store = storage::Store::open((dir / "s.db").string());
    auto writer = store->beginSession();
    driver::RunOptions ro;
    ro.scriptPath = script("pointwise_chain.py");
    ro.verify = true;
    std::ostringstream out;
    driver::runScript(ro, *writer, out);
    writer.reset();
    auto stored = store->verifications(store->lastSessionId());
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_FALSE(stored[0].matched);
    EXPECT_EQ(stored[0].culprit, "pass planted_wrong_rewrite");
    EXPECT_FALSE(stored[0].bisection.empty());
  }
  std::filesystem::remove_all(dir);
}

TEST(Verify, CompareOutputsTolerancesAndShapes) {
  using tensor::Tensor;
  Tensor a = Tensor::scalar(1.0, ir::DType::Float32), b = Tensor::scalar(1.0 + 1e-6, ir::DType::Float32);
  EXPECT_FALSE(driver::compareOutputs({a}, {b}));
  Tensor c = Tensor::scalar(1.1, ir::DType::Float32);
  auto d = driver::compareOutputs({a}, {c});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->output, 0);
  Tensor i1 = Tensor::scalar(3, ir::DType::Int64), i2 = Tensor::scalar(4, ir::DType::Int64);
  EXPECT_TRUE(driver::compareOutputs({i1}, {i2}));
  EXPECT_TRUE(driver::compareOutputs({a}, {i1}));    // dtype
  EXPECT_TRUE(driver::compareOutputs({a}, {a, a}));  // count
  Tensor nan1 = Tensor::scalar(NAN, ir::DType::Float32), nan2 = Tensor::scalar(NAN, ir::DType::Float32);
  EXPECT_FALSE(driver::compareOutputs({nan1}, {nan2}));  // NaN where eager has NaN
  EXPECT_TRUE(driver::compareOutputs({nan1}, {a}));
}

// Every conformance and public corpus program: no compiled graph call differs from eager.
TEST(VerifyPrograms, EveryCorpusAndConformanceProgramAgreesWithEager) {
  std::vector<std::string> programs;
  for (const std::string& dir :
       {std::string(KILN_SOURCE_DIR) + "/tests/conformance/programs", std::string(KILN_SHARED_DIR) + "/corpus/public",
        std::string(KILN_SOURCE_DIR) + "/tests/capture/equal_to_eager"})
    if (std::filesystem::is_directory(dir))
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".py") programs.push_back(e.path().string());
  std::sort(programs.begin(), programs.end());
  ASSERT_GT(programs.size(), 400u);
  int graphs = 0, calls = 0;
  for (const auto& path : programs) {
    ScriptRun r = run(path, true);
    ASSERT_TRUE(r.result.verify);
    graphs += r.result.verify->graphs;
    calls += r.result.verify->calls;
    EXPECT_EQ(r.result.verify->mismatches, 0) << path << ": " << (r.result.verify->reports.empty() ? "" : r.result.verify->reports[0]);
  }
  std::cout << "verify: " << programs.size() << " programs, " << graphs << " compiled graphs, " << calls << " calls checked\n";
}

TEST(PassRegistry, RejectsBadRegistrations) {
  EXPECT_THROW(passes::registerPass({"", "x", plantedWrongRewrite}), std::invalid_argument);
  EXPECT_THROW(passes::registerPass({"simplify", "taken", plantedWrongRewrite}), std::invalid_argument);
  EXPECT_THROW(passes::registerPass({"new_pass", "x", plantedWrongRewrite}, "no_such_pass"), std::invalid_argument);
  EXPECT_THROW(passes::registerPass({"new_pass", "x", nullptr}), std::invalid_argument);
  EXPECT_FALSE(passes::unregisterPass("new_pass"));
  const size_t before = passes::pipeline().size();
  {
    Planted planted;
    auto list = passes::pipeline();
    ASSERT_EQ(list.size(), before + 1);
    EXPECT_EQ(list.back().name, "fuse");
  }
  EXPECT_EQ(passes::pipeline().size(), before);
}

}  // namespace
}  // namespace kiln
