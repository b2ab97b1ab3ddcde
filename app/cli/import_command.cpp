// kiln import: TORCH_TRACE logs of real PyTorch runs become sessions in the store, one per
// process, read by every other command and the studio like Kiln's own runs.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "importers/torch_trace/trace_importer.h"
#include "storage/store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace kiln::cli {

int cmdImport(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db", "name", "source-root"}, {"progress", "json"});
  if (o.help) { std::cout << usage(); return 0; }
  if (o.positional.empty()) throw UsageError("expected a TORCH_TRACE log file or a folder of them");
  importers::torch_trace::ImportOptions opts;
  if (o.values.count("source-root"))
    for (const auto& r : o.values.at("source-root")) {
      std::error_code ec;
      if (!std::filesystem::is_directory(r, ec)) throw UsageError("--source-root '" + r + "' is not a folder");
      opts.sourceRoots.push_back(r);
    }
  std::string name = one(o, "name");
  if (o.values.count("name")) sessionName(name);
  // Check every path before the store is touched: a typo creates no session.
  for (const auto& p : o.positional) importers::torch_trace::logFilesOf(p);
  if (o.flags.count("progress"))
    opts.progress = [](int percent, const std::string& what) { std::cerr << "kiln-progress: " << percent << " " << what << std::endl; };

  std::string path = one(o, "db");
  auto store = storage::Store::open(path.empty() ? storage::defaultStorePath() : path);
  std::vector<std::unique_ptr<session::SessionSink>> sinks;
  std::vector<int64_t> ids;
  auto factory = [&](const std::string&, int64_t) -> session::SessionSink& {
    if (!sinks.empty()) ids.push_back(store->lastSessionId());
    sinks.push_back(store->beginSession());
    return *sinks.back();
  };
  importers::torch_trace::ImportReport report = importTorchTrace(o.positional, factory, opts);
  if (!sinks.empty()) ids.push_back(store->lastSessionId());
  sinks.clear();  // ends the writers
  for (size_t i = 0; i < ids.size(); ++i)
    if (!name.empty()) store->renameSession(ids[i], ids.size() == 1 ? name : name + " (pid " + std::to_string(report.sessions[i].pid) + ")");

  if (o.flags.count("json")) {
    nlohmann::json j = {{"records", report.records}, {"problems", report.problemCount}, {"sessions", nlohmann::json::array()}};
    for (size_t i = 0; i < report.sessions.size(); ++i) {
      const auto& s = report.sessions[i];
      j["sessions"].push_back({{"session", i < ids.size() ? ids[i] : 0}, {"log", s.log}, {"pid", s.pid}, {"script", s.scriptPath},
                               {"frames", s.frames}, {"compiles", s.compiles}, {"graphs", s.graphs}, {"graph_breaks", s.breaks},
                               {"recompiles", s.recompiles}, {"stages", s.stages}, {"stages_unparsed", s.stagesUnparsed},
                               {"kernels", s.kernels}, {"artifacts", s.artifacts}});
    }
    std::cout << j.dump(1) << "\n";
  } else {
    for (size_t i = 0; i < report.sessions.size(); ++i) {
      const auto& s = report.sessions[i];
      std::cout << "session " << (i < ids.size() ? ids[i] : 0) << ": " << s.scriptPath << " (pid " << s.pid << "): " << s.frames
                << " frames, " << s.compiles << " compiles, " << s.graphs << " graphs, " << s.breaks << " graph breaks, "
                << s.recompiles << " recompiles, " << s.stages << " stages"
                << (s.stagesUnparsed ? " (" + std::to_string(s.stagesUnparsed) + " kept as text)" : "") << ", " << s.kernels
                << " kernels, " << s.artifacts << " artifacts\n";
    }
  }
  std::cout.flush();
  for (const auto& p : report.problems) std::cerr << "kiln import: line " << p.line << " of " << p.message << "\n";
  if (report.problemCount > static_cast<int>(report.problems.size()))
    std::cerr << "kiln import: " << report.problemCount - static_cast<int>(report.problems.size()) << " more problems (listed in the sessions' artifacts)\n";
  // Problems do not fail the import (what was valid is stored), but a caller can see them.
  return report.problemCount > 0 ? 4 : 0;
}

}  // namespace kiln::cli
