// Helpers of the runtime tests: run a script (compiled or eager) recording its stages, kernels
// and wrappers, and compare its out* values with the eager run's.
#pragma once

#include "engine/driver/backends.h"
#include "engine/driver/script_runner.h"
#include "tests/support/outs_compare.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace kiln {

struct Recorder : session::NullSink {
  std::vector<session::KernelEvent> kernels;
  std::vector<session::WrapperEvent> wrappers;
  void kernel(const session::KernelEvent& e) override { kernels.push_back(e); }
  void wrapper(const session::WrapperEvent& e) override { wrappers.push_back(e); }
  void stage(const session::StageEvent& e) override {
    stages[e.stage] = e.text;
    stageGraphs[e.stage] = e.graph;
    stageRules[e.stage] = e.rules;
  }
  std::map<std::string, std::string> stages;
  std::map<std::string, ir::Graph> stageGraphs;
  std::map<std::string, std::vector<session::RuleHit>> stageRules;  // the rules each stage fired
};

struct Ran {
  driver::RunResult result;
  Recorder sink;
  driver::CompiledFrameLog log;
};

inline void run(const std::string& name, const std::string& script, bool eager, Ran& r) {
  std::string path = std::string(KILN_BINARY_DIR) + "/tests/runtime/" + name + ".py";
  std::ofstream(path) << script;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.eager = eager;
  ro.frameLog = &r.log;
  r.result = driver::runScript(ro, r.sink, out);
}

inline void expectSameAsEager(const std::string& name, const std::string& script, const Ran& compiled) {
  Ran eager;
  run(name + "_eager", script, true, eager);
  ASSERT_EQ(eager.result.exitCode, 0) << eager.result.error;
  EXPECT_EQ(test::compareOuts(nlohmann::json::parse(compiled.result.outputsJson), nlohmann::json::parse(eager.result.outputsJson)), "");
}

// Runs `script` compiled: it must succeed, compile `graphs` graphs (the other calls reuse
// their code) and give eager's results.
inline void runCompiled(const std::string& name, const std::string& script, size_t graphs, Ran& r) {
  run(name, script, false, r);
  ASSERT_EQ(r.result.exitCode, 0) << r.result.error;
  EXPECT_EQ(r.log.frames.size(), graphs);
  expectSameAsEager(name, script, r);
}

}  // namespace kiln
