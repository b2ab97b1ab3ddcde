// In-place reuse: a pointwise kernel writes an output into the buffer of an input that dies
// with it (Inductor's in_out_ptr; its wrapper says "reuse"), instead of a fresh buffer. Safe
// when every load of that input reads the element the output stores in the same iteration,
// the input was made by an earlier kernel (contiguous, owned by the graph, not a graph output,
// not viewed by anything) and nothing reads it afterwards. The output must not be a graph
// output either: planned buffers are reused by the next call.
#pragma once

#include "engine/ir/graph.h"
#include "engine/schedule/kernel_builder.h"

namespace kiln::schedule {

// Rewrites the kernels and steps of `s`; returns how many outputs now reuse an input.
int reuseInPlace(const ir::Graph& g, ScheduledGraph& s);

}  // namespace kiln::schedule
