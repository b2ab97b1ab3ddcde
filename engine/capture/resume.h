// Resume functions: what runs after a graph break. Given the compiled function's definition
// and where the break happened, builds (as AST) the function holding the rest of the original
// function — Dynamo's torch_dynamo_resume_in_<fn>_at_<line> — taking the evaluation stack
// (sub-expressions already evaluated when the break hit) and the live locals as parameters.
// A data-dependent `if` gives two resume functions, one per branch.
#pragma once

#include "engine/python/trace_hooks.h"

#include "engine/python/ast.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::capture {

using Unsupported = py::GraphBreak;  // (tracer.h)

struct ResumePlan {
  bool resumable = false;
  std::string whyNot;                    // "graph break in loop", ...
  std::vector<const py::Expr*> stack;    // Call: sub-expressions already evaluated, in order
  bool resultUsed = true;                // Call: false when the statement discards the call's value
  std::vector<std::string> live;         // live locals passed to the resume function(s)
  std::vector<bool> liveTrue, liveElse;  // Branch: which of `live` each function takes
  py::StmtP resume;                      // Call: the resume function; Branch: the true branch
  py::StmtP resumeElse;                  // Branch: the false branch
  int line = 0;                          // the break's line (names the resume functions)
};

// `bound` are the names that hold values in the frame when the break happened. `cells` are the
// frame's variables that functions it defined close over, when such a function outlives the
// break: the resume function shares them with those functions (they are declared nonlocal in
// it and live in its closure, made again each call) instead of taking them as parameters.
// The function's own global and nonlocal declarations carry over to the resume function.
ResumePlan planResume(const py::Stmt& fnDef, const Unsupported& u, const std::set<std::string>& bound,
                      const std::set<std::string>& cells = {});

// The names a class statement mentions (its bases, decorators, keywords and body, at any
// depth): a class that names none of the enclosing function's locals can be made outside it.
std::set<std::string> classStatementNames(const py::Stmt& cls);

// CPython's co_cellvars: the function's variables (parameters and names it assigns, not those
// it declares global or nonlocal) that a function or lambda defined inside it reads or writes.
std::set<std::string> cellVars(const py::Stmt& fnDef);

}  // namespace kiln::capture
