// The canonical text form of the graph IR: FX's readable form (print_readable), used by the
// CLI, golden tests, the store and the studio. Captured graphs print torch-level calls
// (`mul: "f32[4]" = l_x_ * 2`), ATen graphs `torch.ops.aten.mul.Tensor(arg0_1, 2)`, exactly
// as PyTorch prints them. Fused graphs add a trailing `# kernel_0` to each scheduled node, other
// stages `# checkpoint region k` to the nodes of a torch.utils.checkpoint region.
// parseGraph(printGraph(g)) prints back to the same text.
#pragma once

#include "engine/ir/graph.h"

#include <string>
#include <string_view>

namespace kiln::ir {

struct PrintOptions {
  bool provenanceComments = true;  // "# File: x.py:9 in f, code: ..." lines
  bool deadValues = true;          // ";  x = None" after last uses, as FX prints
};

// The trailing comment of a node recorded inside torch.utils.checkpoint region k
// (`# checkpoint region 0`; Provenance::checkpointRegion), read back by parseGraph.
inline constexpr const char* kCheckpointComment = "checkpoint region ";

std::string printGraph(const Graph& g, const PrintOptions& opts = {});
// Throws kiln::ParseError with line:col on malformed text.
Graph parseGraph(std::string_view text, const std::string& fileName = "<graph>");

// One argument in FX's spelling (2.0, torch.float32, [1, 2], 'str').
std::string printArg(const Graph& g, const Arg& a);
// Python's repr(float) (1.0, 1e-05, 1e+16, inf, nan): the one float repr, also the interpreter's.
std::string pyFloat(double v);
// A getitem index in Python syntax: (slice(None, 8, None), 0), ..., 3
std::string printIndex(const Graph& g, const Arg& a, bool top);

}  // namespace kiln::ir
