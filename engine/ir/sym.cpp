#include "engine/ir/sym.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace kiln::ir {

std::optional<SymProduct> parseSym(std::string_view text) {
  SymProduct p;
  size_t i = 0;
  auto space = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  bool any = false;
  for (;;) {
    space();
    if (i >= text.size()) return std::nullopt;
    if (text[i] == 's' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      int n = 0;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        n = n * 10 + (text[i++] - '0');
        if (n > 1'000'000) return std::nullopt;
      }
      p.syms.push_back(n);
    } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      int64_t v = 0;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text[i++] - '0', &v)) return std::nullopt;
      if (__builtin_mul_overflow(p.coeff, v, &p.coeff)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    any = true;
    space();
    if (i == text.size()) break;
    if (text[i] != '*') return std::nullopt;
    ++i;
  }
  if (!any) return std::nullopt;
  std::sort(p.syms.begin(), p.syms.end());
  return p;
}

std::string symText(const SymProduct& p) {
  std::string out;
  if (p.coeff != 1 || p.syms.empty()) out = std::to_string(p.coeff);
  for (int s : p.syms) out += (out.empty() ? "s" : "*s") + std::to_string(s);
  return out;
}

int64_t evalSym(std::string_view text, const std::vector<int64_t>& values) {
  auto p = parseSym(text);
  if (!p) throw std::invalid_argument("bad size expression '" + std::string(text) + "'");
  int64_t v = p->coeff;
  for (int s : p->syms)
    if (__builtin_mul_overflow(v, values.at(static_cast<size_t>(s)), &v))
      throw std::overflow_error("size " + std::string(text) + " overflows");
  return v;
}

std::vector<int> symbolsOf(std::string_view text) {
  auto p = parseSym(text);
  if (!p) return {};
  std::vector<int> out = p->syms;
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {
SymProduct productOf(const Dim& d) {
  if (!d.symbolic()) return SymProduct{d.value, {}};
  auto p = parseSym(d.symbol);
  if (!p) throw std::invalid_argument("bad size expression '" + d.symbol + "'");
  return *p;
}

Dim fromProduct(int64_t hint, const SymProduct& p) {
  if (p.syms.empty()) return Dim(p.coeff);
  Dim d = Dim::sym(symText(p));
  d.value = hint;
  return d;
}
}  // namespace

Dim dimMul(const Dim& a, const Dim& b) {
  int64_t hint = 0;
  if (__builtin_mul_overflow(a.value, b.value, &hint)) throw std::overflow_error("size " + a.str() + " * " + b.str() + " overflows");
  if (!a.symbolic() && !b.symbolic()) return Dim(hint);
  SymProduct pa = productOf(a), pb = productOf(b);
  SymProduct r{0, pa.syms};
  if (__builtin_mul_overflow(pa.coeff, pb.coeff, &r.coeff)) throw std::overflow_error("size " + a.str() + " * " + b.str() + " overflows");
  r.syms.insert(r.syms.end(), pb.syms.begin(), pb.syms.end());
  std::sort(r.syms.begin(), r.syms.end());
  if (r.coeff == 0) return Dim(0);
  return fromProduct(hint, r);
}

Dim dimOf(int64_t hint, const std::string& sym) {
  if (sym.empty()) return Dim(hint);
  Dim d = Dim::sym(sym);
  d.value = hint;
  return d;
}

std::vector<Dim> contiguousStrides(const std::vector<Dim>& sizes) {
  std::vector<Dim> st(sizes.size());
  Dim acc(1);
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc = sizes[i].symbolic() ? dimMul(acc, sizes[i]) : dimMul(acc, Dim(std::max<int64_t>(sizes[i].value, 1)));
  }
  return st;
}

}  // namespace kiln::ir
