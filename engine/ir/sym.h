// Size expressions of dynamic shapes. With dynamic shapes a size, a stride or an element count
// of the generated kernels is an integer times a product of size symbols: `s0`, `16*s0`,
// `s0*s1`. That is the only form Kiln represents (Inductor's sympy expressions also have sums
// and floor divisions, from cat, pad or a strided slice; a graph that would need them has its
// kernels compiled per concrete shape instead, and says so).
//
// Symbols are named s<N>; N indexes the size array the generated code reads at run time.
// Everywhere a symbolic size is kept, its value at the shape the graph was captured with (the
// hint, as Dynamo calls it) is kept beside it, so code that only needs a number keeps working.
#pragma once

#include "engine/ir/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ir {

struct SymProduct {
  int64_t coeff = 1;
  std::vector<int> syms;  // symbol numbers, ascending, repeated for powers
  bool operator==(const SymProduct&) const = default;
};

// "16*s0*s1", "s0", "4" (a product with no symbol). nullopt for anything else.
std::optional<SymProduct> parseSym(std::string_view text);
// Canonical text: coefficient first (omitted when 1), then symbols ascending.
std::string symText(const SymProduct& p);
// The value of a size expression given each symbol's value (values[N] for sN). Throws
// std::out_of_range for a symbol without a value, std::invalid_argument for bad text and
// std::overflow_error when the value does not fit int64.
int64_t evalSym(std::string_view text, const std::vector<int64_t>& values);
// The symbol numbers a size expression reads.
std::vector<int> symbolsOf(std::string_view text);

// Dim arithmetic that keeps hint and expression together. Throws std::overflow_error when the
// hint or the coefficient overflows int64.
Dim dimMul(const Dim& a, const Dim& b);
// A Dim from a hint and an expression text ("" = concrete).
Dim dimOf(int64_t hint, const std::string& sym);
// Contiguous strides of a shape, as Dims.
std::vector<Dim> contiguousStrides(const std::vector<Dim>& sizes);

}  // namespace kiln::ir
