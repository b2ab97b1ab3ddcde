// AST -> Python source, for showing generated functions (resume functions, transformed code)
// the way depyf shows Dynamo's. Parenthesizes conservatively; the output parses back.
#pragma once

#include "engine/python/ast.h"

#include <string>

namespace kiln::py {

std::string unparse(const Expr& e);
std::string unparse(const Stmt& s, int indent = 0);
std::string unparse(const Body& body, int indent = 0);

}  // namespace kiln::py
