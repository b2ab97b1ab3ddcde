// Recursive-descent parser for Kiln's Python subset. Errors are SyntaxErrors worded like
// CPython's, with file:line:col.
#pragma once

#include "engine/python/ast.h"

#include <string>
#include <string_view>

namespace kiln::py {

Module parseModule(std::string_view source, const std::string& file);
ExprP parseExpression(std::string_view source, const std::string& file);

}  // namespace kiln::py
