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
#include "importers/importer.h"
#include "importers/torch_trace/trace_records.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::importers::torch_trace {

// The registry's types (importers/importer.h), under the names this importer always used.
using ImportOptions = importers::ImportOptions;
using ImportedSession = importers::ImportedSession;
using ImportReport = importers::ImportReport;
using SinkFactory = importers::SinkFactory;

// `paths`: log files (plain or gzip) or folders of them. Throws std::runtime_error when a path
// cannot be read or holds no log.
ImportReport importTorchTrace(const std::vector<std::string>& paths, const SinkFactory& sinks, const ImportOptions& options);

// The log files a path stands for: itself, or a folder's files named like TORCH_TRACE logs
// (`*.log`, `*.log.gz`, sorted).
std::vector<std::string> logFilesOf(const std::string& path);

// Whether `path` looks like TORCH_TRACE output: a folder holding logs, a `*.log` / `*.log.gz`
// file, or a file whose first line is a glog-prefixed record ("V1126 12:00:00.000000 123 ...").
bool recognises(const std::string& path);

// This importer as the registry lists it ("torch_trace"); registered with Kiln's built-ins.
Importer importer();

}  // namespace kiln::importers::torch_trace
