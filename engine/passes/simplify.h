// simplify: algebraic rewrite rules, each a named pattern -> replacement:
//   exp(log(x))  -> where(x < 0, nan, x)   (exact: log of a negative is nan, exp(log 0) = 0)
//   log(exp(x))  -> x                      (exact up to overflow of exp, which Inductor ignores too)
//   x * 1, 1 * x -> x      x + 0, x - 0 -> x      x / 1 -> x      neg(neg(x)) -> x
// Identities only fire when they keep the result's dtype and shape. The interior nodes a rule
// matched (the log of exp(log x)) are erased when nothing else uses them. The rules are a table
// (simplify.cpp) applied by applyRules (rewrite_rules.h), which records each firing.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::passes {

PassResult simplify(const ir::Graph& g, PassContext& ctx);

}  // namespace kiln::passes
