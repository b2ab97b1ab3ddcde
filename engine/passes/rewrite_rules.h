// Rewrite rules as data (tinygrad's PatternMatcher): a pass that is a list of named
// `{name, targets, pattern, rewrite}` rules, so every rule of the pass is on one screen and
// "which rule fired on which node" is recorded by applyRules, not by hand.
//
// applyRules walks the graph in order. On each call node it tries the rules whose targets hold
// the node's op, in list order; the first whose pattern matches rewrites the node (a rule fires at
// most once per node; the rewrite sees the rewritten producers). A pattern binds what the rewrite
// needs in the Match (`x`, and the interior nodes it `consumed`, which are erased after the pass
// when nothing else uses them, as a pattern rewriter erases dead matched ops; other dead code is
// left to dce). Used by the built-in `simplify` pass and by plugins' passes alike.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/passes/pass.h"

#include <functional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::passes {

class Rebuilder;

struct Match {
  const ir::Graph& graph;
  const ir::Node& node;       // the root: the node the rule is tried on
  ir::Arg x;                  // what the pattern bound for the rewrite
  std::vector<int> consumed;  // interior nodes of the pattern

  // The node argument `i` comes from when it is a call of `target`, else null.
  const ir::Node* operand(size_t i, std::string_view target) const;
  const ir::Node* producer(const ir::Arg& a, std::string_view target) const;
  // Argument `i` is the number `v`.
  bool isNumber(size_t i, double v) const;
  // `a` is a node with the root's dtype and shape (an identity keeps no promotion/broadcast).
  bool sameType(const ir::Arg& a) const;
  // Replacing the root by `a` would hand the caller an alias the program never made: of an input
  // (mutated by the graph's copy-back, or later by the caller) or of another output. Such an
  // identity is kept, as Inductor's no-op removal keeps it.
  bool wouldAliasOutput(const ir::Arg& a) const;
  // Binds x = `a` when the root may be replaced by it: sameType and no new output alias.
  bool keep(const ir::Arg& a);

  // For rewrites: the value of an argument in the output graph, and the dispatcher that records
  // the replacement's nodes (with the root's provenance).
  ops::Val value(const ir::Arg& a) const;
  ops::Dispatcher& dispatcher() const;

  Rebuilder* rebuilder = nullptr;
};

struct RewriteRule {
  std::string name;                  // what is recorded when it fires: "x * 1 -> x"
  std::vector<std::string> targets;  // the root's op(s): "aten.mul.Tensor"
  std::function<bool(Match&)> pattern;
  // The replacement value, recorded through m.dispatcher(). Null: the root is replaced by the node
  // the pattern bound to m.x.
  std::function<ops::Val(Match&)> rewrite;
  // Where the rule is written, taken where the rule table is initialised. Only the file is used:
  // gcc 12 puts every element of a braced list on the list's closing line, so the rule's place
  // is recorded as its index in the list ("engine/passes/simplify.cpp, rule 5 of 12").
  std::source_location defined = std::source_location::current();
};

// Where `rules[index]` is defined, as RuleApplication::where records it: the source file from
// the repository root (engine/..., plugins/...; an out-of-tree plugin's base name) and the index.
std::string ruleLocation(const std::vector<RewriteRule>& rules, size_t index);

// Records every firing in PassResult::rules (per rule, counted) and PassResult::applications
// (each one, in order, with its root, consumed nodes, the nodes it added and the replacement).
PassResult applyRules(const ir::Graph& g, const std::vector<RewriteRule>& rules);

}  // namespace kiln::passes
