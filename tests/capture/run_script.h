// Runs a script in process (compiled or with --eager semantics) and returns what it printed;
// the capture tests compare the two. A failing script fails the calling test.
#pragma once

#include "engine/driver/backends.h"
#include "engine/driver/script_runner.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

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

}  // namespace kiln::test
