// Runs a script in process (eager or compiled) and returns its exit code, what it printed and
// its error: the device tests' driver. The script is written to the temporary folder, since the
// GPU tests run from the device bundle far from their build tree.
#pragma once

#include "engine/driver/script_runner.h"
#include "engine/session/events.h"
#include "engine/session/sink.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

struct ScriptOut {
  int exitCode = 0;
  std::string printed, error;
};

// `sink` gets what the run reports (stages, kernels, wrappers), for tests that look at how it ran.
inline ScriptOut runPy(const std::string& name, const std::string& script, bool eager, session::SessionSink& sink) {
  const std::string path = (std::filesystem::temp_directory_path() / (name + ".py")).string();
  std::ofstream(path) << script;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.eager = eager;
  driver::RunResult r = driver::runScript(ro, sink, out);
  return {r.exitCode, out.str(), r.error};
}

inline ScriptOut runPy(const std::string& name, const std::string& script, bool eager = true) {
  session::NullSink sink;
  return runPy(name, script, eager, sink);
}

}  // namespace kiln::test
