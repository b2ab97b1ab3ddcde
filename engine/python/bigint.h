// Python's unbounded ints. Values that fit int64 stay small IntObjs (the fast path everywhere);
// a result that does not fit becomes a big one, held as a GMP integer. Only files that do int
// arithmetic, printing or conversion include this header (GMP stays out of objects.h).
#pragma once

#include "engine/python/objects.h"

#include <gmpxx.h>

#include <string>

namespace kiln::py {

struct BigInt {
  mpz_class v;
};

// An int Value of `x`: small when it fits int64, big otherwise.
Value makeIntFrom(const mpz_class& x);
// The exact value of an int or bool.
mpz_class toMpz(const Value& v);
bool isBigInt(const Value& v);
// In base 2, 8, 10 or 16, without prefix ("-ff").
std::string intToString(const Value& v, int base = 10);
// float(x): OverflowError "int too large to convert to float" where it does not fit a double.
double intToDouble(const Value& v);
// int(x) for a finite float (exact: int(1e300) has 301 digits).
Value intFromDouble(double d);
// Compares an int with a double exactly, as CPython does (2**53 + 1 > 2.0**53): <0, 0, >0;
// `unordered` is set for NaN.
int compareIntDouble(const Value& v, double d, bool* unordered);
class Interpreter;
// str(x) in base 10. Like CPython 3.11+, a value of more than 4300 digits is refused
// (ValueError: Exceeds the limit ...): converting it costs quadratic time.
std::string intToDecimal(Interpreter& in, const Value& v);
// int(text, base): CPython's literal rules (whitespace, sign, underscores between digits,
// base 0 and 0x/0o/0b prefixes); ValueError "invalid literal for int() with base N: '...'".
Value parseIntString(Interpreter& in, const std::string& text, int64_t base);
// Bits of |x| (int.bit_length()).
uint64_t bitLength(const Value& v);

}  // namespace kiln::py
