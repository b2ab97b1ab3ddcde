// The kiln subcommands. Each returns the process exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string usage();
int cmdRun(const std::vector<std::string>& args);
int cmdBench(const std::vector<std::string>& args);
int cmdDiff(const std::vector<std::string>& args);
int cmdExplain(const std::vector<std::string>& args);
int cmdSessions(const std::vector<std::string>& args);
int cmdSearch(const std::vector<std::string>& args);
int cmdRename(const std::vector<std::string>& args);
int cmdRm(const std::vector<std::string>& args);
int cmdShow(const std::vector<std::string>& args);
int cmdStore(const std::vector<std::string>& args);      // store_command.cpp
int cmdImport(const std::vector<std::string>& args);     // import_command.cpp
int cmdReport(const std::vector<std::string>& args);     // report_command.cpp
int cmdPlugins(const std::vector<std::string>& args);    // plugin_command.cpp
int cmdBackends(const std::vector<std::string>& args);   // plugin_command.cpp
int cmdCuda(const std::vector<std::string>& args);       // cuda_command.cpp
int cmdCudaViews(const std::vector<std::string>& args);  // cuda_command.cpp: internal, kiln run's views child
// Takes every `--plugin PATH` / `--plugin=PATH` out of `args` (up to a "--") and adds them to
// KILN_PLUGIN_PATH (so processes kiln starts load them too), registers Kiln's built-ins and loads
// every plugin on KILN_PLUGIN_PATH. Throws plugin::PluginError (one line naming the file).
void loadPlugins(std::vector<std::string>& args);
// kiln run --nproc-per-node N: starts N ranks of `kiln run` with torchrun's environment
// (launch.cpp); `args` are run's arguments, the option included.
int launchRanks(const std::vector<std::string>& args, int nproc);
// The session name of a rank that launchRanks started ("SCRIPT rank R"), or "" outside one.
std::string rankSessionName(const std::string& scriptPath);

}  // namespace kiln::cli
