// Runs a script in process (eager or compiled) and returns its exit code, what it printed and
// its error: the device tests' driver. The script is written to the temporary folder, since the
// GPU tests run from the device bundle far from their build tree.
#pragma once

#include "engine/driver/script_runner.h"
#include "engine/session/events.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::test {

struct ScriptOut {
  int exitCode = 0;
  std::string printed, error;
};

inline ScriptOut runPy(const std::string& name, const std::string& script, bool eager = true) {
  const std::string path = (std::filesystem::temp_directory_path() / (name + ".py")).string();
  std::ofstream(path) << script;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.eager = eager;
  session::NullSink sink;
  driver::RunResult r = driver::runScript(ro, sink, out);
  return {r.exitCode, out.str(), r.error};
}

}  // namespace kiln::test
