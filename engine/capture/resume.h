// Resume functions: what runs after a graph break. Given the compiled function's definition
// and where the break happened, builds (as AST) the function holding the rest of the original
// function — Dynamo's torch_dynamo_resume_in_<fn>_at_<line> — taking the evaluation stack
// (sub-expressions already evaluated when the break hit) and the live locals as parameters.
// A data-dependent `if` gives two resume functions, one per branch.
#pragma once

#include "engine/python/ast.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::capture {

class Unsupported;

struct ResumePlan {
  bool resumable = false;
  std::string whyNot;                      // "graph break in loop", ...
  std::vector<const py::Expr*> stack;      // Call: sub-expressions already evaluated, in order
  bool resultUsed = true;                  // Call: false when the statement discards the call's value
  std::vector<std::string> live;           // live locals passed to the resume function(s)
  py::StmtP resume;                        // Call: the resume function; Branch: the true branch
  py::StmtP resumeElse;                    // Branch: the false branch
  int line = 0;                            // the break's line (names the resume functions)
};

// `bound` are the names that hold values in the frame when the break happened.
ResumePlan planResume(const py::Stmt& fnDef, const Unsupported& u, const std::set<std::string>& bound);

}  // namespace kiln::capture
