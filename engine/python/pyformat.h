// Python's text forms: format specs, %-formatting (float repr is ir::pyFloat, engine/ir/text.h).
#pragma once

#include "engine/python/interpreter.h"

#include <string>

namespace kiln::py {

std::string formatValue(Interpreter& in, const Value& v, const std::string& spec);
std::string percentFormat(Interpreter& in, const std::string& fmt, const Value& args);
// Code point length and slice of a UTF-8 string (builtins_str.cpp).
int64_t strLength(const std::string& s);
std::string strSlice(const std::string& s, int64_t start, int64_t stop, int64_t step);

}  // namespace kiln::py
