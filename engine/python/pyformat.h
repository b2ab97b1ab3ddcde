// Python's text forms: float repr (shortest round-trip), format specs, %-formatting.
#pragma once

#include "engine/python/interpreter.h"

#include <string>

namespace kiln::py {

std::string floatRepr(double v);
std::string formatValue(Interpreter& in, const Value& v, const std::string& spec);
std::string percentFormat(Interpreter& in, const std::string& fmt, const Value& args);

}  // namespace kiln::py
