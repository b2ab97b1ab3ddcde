// `kiln import`: a TORCH_TRACE log of a real PyTorch run becomes Kiln sessions.
//
// Each process in the logs becomes one session, reported through a SessionSink exactly as a
// Kiln run reports itself, so the store, `kiln show`, `kiln diff` and the studio read it like
// any other session: frames and compile ids (a restarted attempt's stages kept under its
// compile, marked "restarted attempt N"), the Dynamo graph ("captured"), AOTAutograd's joint /
// forward / backward / inference graphs, Inductor's pre- and post-grad graphs parsed into
// Kiln's graph IR, the output code as the wrapper and its kernels (Triton or C++) tied to
// post-grad nodes by Inductor's provenance comments, guards, graph breaks with their user
// stacks, recompiles with their reasons, compile times. What the importer does not turn into
// those is kept as an artifact, and every problem (a garbled line, a graph that does not
// parse) is an artifact named "import problem" with its line: nothing is dropped silently.
// It streams: memory is bounded by one compile's records, not by the log.
#pragma once

#include "engine/session/sink.h"
#include "importers/torch_trace/trace_records.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::importers::torch_trace {

struct ImportOptions {
  // Folders to look for the recorded source files in (the log names files of the machine
  // that ran it): a file is found directly, or as a suffix of its path under a root.
  std::vector<std::string> sourceRoots;
  // Called as the reading advances: percent of the bytes of all logs, and what is read.
  std::function<void(int percent, const std::string& what)> progress;
};

struct ImportedSession {
  std::string log;
  int64_t pid = 0;
  std::string scriptPath;
  int frames = 0, compiles = 0, graphs = 0, breaks = 0, recompiles = 0, stages = 0, kernels = 0, artifacts = 0;
  int stagesUnparsed = 0;  // graphs kept as text only (their parse error is an import problem)
};

struct ImportReport {
  std::vector<ImportedSession> sessions;
  int records = 0;
  int problemCount = 0;
  std::vector<Problem> problems;  // the first ones, with log line numbers (also stored per session)
};

// Opens the sink of a new session for a process of a log. The sink must outlive the import.
using SinkFactory = std::function<session::SessionSink&(const std::string& log, int64_t pid)>;

// `paths`: log files (plain or gzip) or folders of them. Throws std::runtime_error when a path
// cannot be read or holds no log.
ImportReport importTorchTrace(const std::vector<std::string>& paths, const SinkFactory& sinks, const ImportOptions& options);

// The log files a path stands for: itself, or a folder's files named like TORCH_TRACE logs
// (`*.log`, `*.log.gz`, sorted).
std::vector<std::string> logFilesOf(const std::string& path);

}  // namespace kiln::importers::torch_trace
