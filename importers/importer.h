// The importer registry: what turns another tool's record of a compile into Kiln sessions.
//
// An importer has a name, a way to recognise its input (a path: a file or a folder) and a
// function that reads the paths and reports each session through a SessionSink from the
// SinkFactory, exactly as a Kiln run reports itself. `kiln import` goes through this registry
// (the importer that recognises the first path, or the one named by --importer); Kiln's
// TORCH_TRACE importer registers here as plugins' importers do. Depends on the session events
// only (kiln_ir): never on the store, the engine's interpreter or Qt.
#pragma once

#include "engine/session/sink.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::importers {

struct ImportOptions {
  // Folders to look for the recorded source files in (the log names files of the machine
  // that ran it): a file is found directly, or as a suffix of its path under a root.
  std::vector<std::string> sourceRoots;
  // Called as the reading advances: percent of the bytes of all inputs, and what is read.
  std::function<void(int percent, const std::string& what)> progress;
};

// One session an import made (the counts are what `kiln import` prints).
struct ImportedSession {
  std::string log;
  int64_t pid = 0;
  std::string scriptPath;
  int frames = 0, compiles = 0, graphs = 0, breaks = 0, recompiles = 0, stages = 0, kernels = 0, artifacts = 0;
  int stagesUnparsed = 0;  // graphs kept as text only (their parse error is an import problem)
};

// Something an importer could not read, with the line of its input.
struct ImportProblem {
  int line = 0;
  std::string message;
};

struct ImportReport {
  std::vector<ImportedSession> sessions;
  int records = 0;
  int problemCount = 0;
  std::vector<ImportProblem> problems;  // the first ones, with line numbers (also stored per session)
};

// Opens the sink of a new session (for one process of a log). The sink must outlive the import.
using SinkFactory = std::function<session::SessionSink&(const std::string& log, int64_t pid)>;

struct Importer {
  std::string name;         // "torch_trace": kiln import --importer NAME
  std::string description;  // one line for kiln plugins
  // Whether `path` (a file or a folder) is this importer's input; never throws.
  std::function<bool(const std::string& path)> recognises;
  // Throws std::runtime_error when `path` cannot be imported (checked for every path before the
  // store is touched, so a typo creates no session). Optional.
  std::function<void(const std::string& path)> check;
  // Imports; throws std::runtime_error when a path cannot be read.
  std::function<ImportReport(const std::vector<std::string>& paths, const SinkFactory& sinks, const ImportOptions& options)> run;
  std::string origin = "built-in";  // who registered it: "built-in" or the plugin's file
};

// Throws std::invalid_argument for an empty or taken name or a missing function.
void registerImporter(Importer importer);
bool unregisterImporter(const std::string& name);
// In registration order.
std::vector<Importer> importers();
// The importer named `name`; std::invalid_argument listing the importers when there is none.
Importer importerNamed(const std::string& name);
// The first importer that recognises `path`, else nullopt.
std::optional<Importer> importerFor(const std::string& path);
// "torch_trace, my_format"
std::string importerNames();

}  // namespace kiln::importers
