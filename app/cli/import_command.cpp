// kiln import: TORCH_TRACE logs of real PyTorch runs (or another registered importer's input)
// become sessions in the store, one per process, read by every other command and the studio like
// Kiln's own runs. The importer comes from the registry (importers/importer.h): the one named by
// --importer, else the first that recognises the first path.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "importers/importer.h"
#include "storage/store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace kiln::cli {

int cmdImport(const std::vector<std::string>& args) {
  Opts o = parse(args, {"db", "name", "source-root", "importer"}, {"progress", "json"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  if (o.positional.empty()) throw UsageError("expected a TORCH_TRACE log file or a folder of them");
  importers::ImportOptions opts;
  if (o.values.count("source-root"))
    for (const auto& r : o.values.at("source-root")) {
      std::error_code ec;
      if (!std::filesystem::is_directory(r, ec)) throw UsageError("--source-root '" + r + "' is not a folder");
      opts.sourceRoots.push_back(r);
    }
  std::string name = one(o, "name");
  if (o.values.count("name")) sessionName(name);
  // The importer: --importer NAME, else the first that recognises the first path, else the
  // TORCH_TRACE importer, which stores what it cannot read as problems (exit 4), never nothing.
  importers::Importer importer;
  if (std::string named = one(o, "importer"); !named.empty()) {
    try {
      importer = importers::importerNamed(named);
    } catch (const std::invalid_argument& e) { throw UsageError(std::string("--importer: ") + e.what()); }
  } else {
    std::optional<importers::Importer> found = importers::importerFor(o.positional[0]);
    importer = found ? *found : importers::importerNamed("torch_trace");
  }
  // Check every path before the store is touched: a typo creates no session.
  if (importer.check)
    for (const auto& p : o.positional) importer.check(p);
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
  importers::ImportReport report = importer.run(o.positional, factory, opts);
  if (!sinks.empty()) ids.push_back(store->lastSessionId());
  sinks.clear();  // ends the writers
  for (size_t i = 0; i < ids.size(); ++i)
    if (!name.empty())
      store->renameSession(ids[i], ids.size() == 1 ? name : name + " (pid " + std::to_string(report.sessions[i].pid) + ")");

  if (o.flags.count("json")) {
    nlohmann::json j = {{"records", report.records}, {"problems", report.problemCount}, {"sessions", nlohmann::json::array()}};
    for (size_t i = 0; i < report.sessions.size(); ++i) {
      const auto& s = report.sessions[i];
      j["sessions"].push_back({{"session", i < ids.size() ? ids[i] : 0},
                               {"log", s.log},
                               {"pid", s.pid},
                               {"script", s.scriptPath},
                               {"frames", s.frames},
                               {"compiles", s.compiles},
                               {"graphs", s.graphs},
                               {"graph_breaks", s.breaks},
                               {"recompiles", s.recompiles},
                               {"stages", s.stages},
                               {"stages_unparsed", s.stagesUnparsed},
                               {"kernels", s.kernels},
                               {"artifacts", s.artifacts}});
    }
    std::cout << j.dump(1) << "\n";
  } else {
    for (size_t i = 0; i < report.sessions.size(); ++i) {
      const auto& s = report.sessions[i];
      std::cout << "session " << (i < ids.size() ? ids[i] : 0) << ": " << s.scriptPath << " (pid " << s.pid << "): " << s.frames
                << " frames, " << s.compiles << " compiles, " << s.graphs << " graphs, " << s.breaks << " graph breaks, " << s.recompiles
                << " recompiles, " << s.stages << " stages"
                << (s.stagesUnparsed ? " (" + std::to_string(s.stagesUnparsed) + " kept as text)" : "") << ", " << s.kernels << " kernels, "
                << s.artifacts << " artifacts\n";
    }
  }
  std::cout.flush();
  for (const auto& p : report.problems) std::cerr << "kiln import: line " << p.line << " of " << p.message << "\n";
  if (report.problemCount > static_cast<int>(report.problems.size()))
    std::cerr << "kiln import: " << report.problemCount - static_cast<int>(report.problems.size())
              << " more problems (listed in the sessions' artifacts)\n";
  // Problems do not fail the import (what was valid is stored), but a caller can see them.
  return report.problemCount > 0 ? 4 : 0;
}

}  // namespace kiln::cli
