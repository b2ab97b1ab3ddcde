// Dynamo's own texts inside a TORCH_TRACE log, read into Kiln's session types: a graph break
// reason (`dynamo_graph_break_reason`), the guard tree (`dynamo_cpp_guards_str`) and
// recompile reasons (`recompile_reasons`).
#pragma once

#include "engine/session/events.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln::importers::torch_trace {

// Maps a file name of the recording machine to one on this machine (--source-root).
using PathMap = std::function<std::string(const std::string&)>;

// "Graph break in user code at FILE:LINE", the reason's title, explanation and hints, and the
// user code traceback. Fields the text does not have stay empty.
session::GraphBreakEvent parseGraphBreak(const std::string& payload, const PathMap& mapPath);

// One guard per `+- KIND: text  # user code  # file:line in fn` line of the tree.
std::vector<session::Guard> parseGuardTree(const std::string& payload);

// The reasons (`0/0: L['x'] ...`), one per failing cache entry; the user stack lines that
// follow each are dropped. A JSON list of strings reads too.
std::vector<std::string> parseRecompileReasons(const std::string& payload);

}  // namespace kiln::importers::torch_trace
