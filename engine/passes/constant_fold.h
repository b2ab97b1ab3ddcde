// constant_fold: evaluates, at compile time, every node computed only from constants (creation
// ops such as full and arange with Python-number arguments, and ops over their results) and
// replaces a constant whose elements all have one value by a single full(shape, value, dtype) --
// which code generation turns into a literal inside the consuming kernel. Inductor's joint-graph
// pass does the same (constant_fold_uniform_value): without freezing there is nowhere to keep a
// materialized tensor constant, so constants with several values (a triu mask) stay as they are
// and are recomputed per call.
//
// Random and uninitialized creation ops never fold; nor do constants over more than
// kMaxFoldElements elements (folding must not make compiling slower than running).
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

constexpr int64_t kMaxFoldElements = 1 << 16;

PassResult constantFold(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
