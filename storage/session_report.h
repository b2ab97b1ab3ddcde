// sessionReportHtml: one self-contained HTML page about a stored session (a Kiln run or an
// imported TORCH_TRACE run) to hand to a colleague, as `kiln report SESSION -o FILE.html` and
// the studio's File > Export Report write it: header, per compile id its status, graph breaks
// with their source lines, recompiles with the failing guards, guards, every stored stage's
// text, the final graph as inline SVG (when Graphviz `dot` is on PATH), kernels and timings.
// Inline CSS, no scripts, nothing fetched. Everything is read through the Store and every stored
// text is HTML-escaped: a store holds user scripts, which may contain anything. No Qt: the CLI
// and the studio both link it.
#pragma once

#include "storage/store.h"

#include <cstdint>
#include <string>

namespace kiln::storage {

// The final graph of a compile is drawn only up to this many nodes (the page says when it cut).
constexpr size_t kReportMaxSvgNodes = 300;

// The page for session `sessionId`; throws StoreError when the store has no such session.
// Runs `dot` (found on PATH) once per compile with a graph; says so in the page when it is missing.
std::string sessionReportHtml(Store& store, int64_t sessionId);

}  // namespace kiln::storage
