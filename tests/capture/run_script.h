// Runs a script in process (compiled or with --eager semantics) and returns what it printed;
// the capture tests compare the two. A failing script fails the calling test. `run` writes a
// test's script, runs it compiled with an ExplainReport (Counted) and checks it prints what it
// prints eagerly; `reasons` gives a recompile's reasons as Dynamo's log words them.
#pragma once

#include "engine/driver/backends.h"
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace kiln::test {

inline std::string runPrinting(const std::string& path, bool eager, driver::CompiledFrameLog* log = nullptr) {
  session::NullSink sink;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.eager = eager;
  ro.frameLog = log;
  driver::RunResult r = driver::runScript(ro, sink, out);
  EXPECT_EQ(r.exitCode, 0) << r.error;
  return out.str();
}

struct Counted {
  driver::ExplainReport rep;
  std::string printed;
};

// Writes `script` as NAME.py in the build tree, runs it compiled into `c`; with `sameAsEager`,
// checks it prints what it prints when torch.compile is the identity.
inline void run(const std::string& name, const std::string& script, Counted& c, bool sameAsEager = true) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/" + name + ".py";
  writeFile(path, script);
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult r = driver::runScript(ro, c.rep, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  c.printed = out.str();
  if (sameAsEager) {  // braces: EXPECT_EQ is an if/else of its own (-Wdangling-else)
    EXPECT_EQ(c.printed, runPrinting(path, true));
  }
}

// The reasons of the i-th recompile, one per cache entry, each up to its `#` comment.
inline std::vector<std::string> reasons(const Counted& c, size_t i) {
  std::vector<std::string> out;
  if (i >= c.rep.recompiles().size()) return out;
  for (std::string r : c.rep.recompiles()[i].reasons) {
    r = r.substr(0, r.find('\n'));
    if (auto hash = r.find("  #"); hash != std::string::npos) r = r.substr(0, hash);
    while (!r.empty() && r.back() == ' ') r.pop_back();
    out.push_back(r);
  }
  return out;
}

}  // namespace kiln::test
