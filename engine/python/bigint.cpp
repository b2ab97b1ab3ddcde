#include "engine/python/bigint.h"

#include "engine/python/interpreter.h"

#include <cctype>
#include <cmath>
#include <limits>

namespace kiln::py {

Value makeIntFrom(const mpz_class& x) {
  if (mpz_fits_slong_p(x.get_mpz_t())) return makeInt(x.get_si());
  auto big = std::make_shared<BigInt>();
  big->v = x;
  return makeBigInt(std::move(big));
}

void IntObj::throwIntTooLarge() { throw PyError("OverflowError", "Python int too large to convert to C long"); }

mpz_class toMpz(const Value& v) {
  if (v->kind == VK::Bool) return mpz_class(static_cast<long>(as<BoolObj>(v)->v));
  auto* i = as<IntObj>(v);
  if (i->big) return i->big->v;
  return mpz_class(static_cast<long>(i->small()));
}

bool isBigInt(const Value& v) { return v->kind == VK::Int && as<IntObj>(v)->big; }

std::string intToString(const Value& v, int base) {
  if (!isBigInt(v) && base == 10) return std::to_string(v->kind == VK::Bool ? int64_t(as<BoolObj>(v)->v) : as<IntObj>(v)->small());
  return toMpz(v).get_str(base);
}

double intToDouble(const Value& v) {
  if (!isBigInt(v)) return double(v->kind == VK::Bool ? int64_t(as<BoolObj>(v)->v) : as<IntObj>(v)->small());
  // Round half to even, as CPython: keep 54 bits (53 and a rounding bit) plus a sticky bit.
  const mpz_class& x = as<IntObj>(v)->big->v;
  mpz_class a = abs(x);
  size_t n = mpz_sizeinbase(a.get_mpz_t(), 2);
  if (n <= 53) return x.get_d();  // exact
  size_t shift = n > 54 ? n - 54 : 0;
  mpz_class top;
  mpz_fdiv_q_2exp(top.get_mpz_t(), a.get_mpz_t(), shift);
  bool sticky = shift > 0 && mpz_scan1(a.get_mpz_t(), 0) < shift;
  uint64_t m = mpz_get_ui(top.get_mpz_t());  // < 2^54
  bool round = m & 1;
  m >>= 1;
  if (round && (sticky || (m & 1))) ++m;
  double d = std::ldexp(static_cast<double>(m), static_cast<int>(shift + 1));
  if (std::isinf(d)) throw PyError("OverflowError", "int too large to convert to float");
  return x < 0 ? -d : d;
}

Value intFromDouble(double d) {
  if (std::isinf(d)) throw PyError("OverflowError", "cannot convert float infinity to integer");
  if (std::isnan(d)) throw PyError("ValueError", "cannot convert float NaN to integer");
  mpz_class z;
  mpz_set_d(z.get_mpz_t(), d);  // truncates toward zero, as int() does
  return makeIntFrom(z);
}

int compareIntDouble(const Value& v, double d, bool* unordered) {
  *unordered = std::isnan(d);
  if (*unordered) return 0;
  if (std::isinf(d)) return d > 0 ? -1 : 1;
  int c = mpz_cmp_d(toMpz(v).get_mpz_t(), d);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

namespace {
constexpr size_t kMaxStrDigits = 4300;  // sys.get_int_max_str_digits()
}

std::string intToDecimal(Interpreter& in, const Value& v) {
  if (!isBigInt(v)) return intToString(v);
  const mpz_class& x = as<IntObj>(v)->big->v;
  // sizeinbase may overstate by one: count exactly only near the limit.
  if (mpz_sizeinbase(x.get_mpz_t(), 10) > kMaxStrDigits) {
    std::string digits = x.get_str(10);
    size_t n = digits.size() - (digits[0] == '-' ? 1 : 0);
    if (n > kMaxStrDigits)
      in.raise("ValueError",
               "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit");
    return digits;
  }
  return x.get_str(10);
}

Value parseIntString(Interpreter& in, const std::string& text, int64_t base) {
  if (base != 0 && (base < 2 || base > 36)) in.raise("ValueError", "int() base must be >= 2 and <= 36, or 0");
  auto invalid = [&]() -> Value {
    in.raise("ValueError", "invalid literal for int() with base " + std::to_string(base) + ": " + in.repr(makeStr(text)));
  };
  size_t b = text.find_first_not_of(" \t\n\r\f\v"), e = text.find_last_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return invalid();
  std::string s = text.substr(b, e - b + 1);
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.erase(0, 1);
  }
  int radix = static_cast<int>(base);
  auto prefix = [&](char p, int r) {
    if (s.size() >= 2 && s[0] == '0' && std::tolower(static_cast<unsigned char>(s[1])) == p && (radix == 0 || radix == r)) {
      s.erase(0, 2);
      if (!s.empty() && s[0] == '_') s.erase(0, 1);  // 0x_ff
      radix = r;
      return true;
    }
    return false;
  };
  if (!prefix('x', 16) && !prefix('o', 8) && !prefix('b', 2) && radix == 0) {
    // Base 0 without a prefix is decimal, where leading zeros are only allowed for 0 itself.
    radix = 10;
    if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0_") != std::string::npos) return invalid();
  }
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (i == 0 || i + 1 == s.size() || s[i + 1] == '_') return invalid();
      continue;
    }
    int d = std::isdigit(static_cast<unsigned char>(s[i]))   ? s[i] - '0'
            : std::isalpha(static_cast<unsigned char>(s[i])) ? std::tolower(static_cast<unsigned char>(s[i])) - 'a' + 10
                                                             : 99;
    if (d >= radix) return invalid();
    digits += s[i];
  }
  if (digits.empty()) return invalid();
  if (radix == 10 && digits.size() > kMaxStrDigits)
    in.raise("ValueError", "Exceeds the limit (4300 digits) for integer string conversion: value has " + std::to_string(digits.size()) +
                               " digits; use sys.set_int_max_str_digits() to increase the limit");
  mpz_class z;
  if (z.set_str(digits, radix) != 0) return invalid();
  return makeIntFrom(neg ? mpz_class(-z) : z);
}

uint64_t bitLength(const Value& v) {
  mpz_class x = toMpz(v);
  if (x == 0) return 0;
  return mpz_sizeinbase(x.get_mpz_t(), 2);
}

}  // namespace kiln::py
