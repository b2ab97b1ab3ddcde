#include "engine/python/pyformat.h"
#include "engine/ir/text.h"
#include "engine/python/bigint.h"

#include "engine/python/trace_hooks.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kiln::py {

std::string formatValue(Interpreter& in, const Value& v, const std::string& spec) {
  if (in.tracer) in.tracer->specialize(v);  // a symbolic size formatted is a constant
  // [[fill]align][sign][0][width][,][.precision][type]
  size_t i = 0;
  char align = 0, sign = '-';
  std::string fill = " ";  // one code point (UTF-8 bytes)
  auto isAlign = [&](size_t at) { return at < spec.size() && (spec[at] == '<' || spec[at] == '>' || spec[at] == '^' || spec[at] == '='); };
  const unsigned char lead = spec.empty() ? 0 : static_cast<unsigned char>(spec[0]);
  const size_t fillBytes = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (spec.size() > fillBytes && isAlign(fillBytes)) {
    fill = spec.substr(0, fillBytes);
    align = spec[fillBytes];
    i = fillBytes + 1;
  } else if (!spec.empty() && (spec[0] == '<' || spec[0] == '>' || spec[0] == '^' || spec[0] == '=')) {
    align = spec[0];
    i = 1;
  }
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) sign = spec[i++];
  bool zero = false;
  if (i < spec.size() && spec[i] == '0') {
    zero = true;
    ++i;
  }
  // Digits are read checked (CPython: "Too many decimal digits"), and a width no string of
  // this memory limit can have is a MemoryError rather than a padded string that never ends.
  auto number = [&](int64_t& out) {
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i])))
      if (__builtin_mul_overflow(out, int64_t{10}, &out) || __builtin_add_overflow(out, int64_t(spec[i++] - '0'), &out))
        in.raise("ValueError", "Too many decimal digits in format string");
  };
  int64_t width = 0;
  number(width);
  in.checkAllocation(static_cast<uint64_t>(width));  // CPython's MemoryError for a width past memory
  bool comma = false;
  if (i < spec.size() && (spec[i] == ',' || spec[i] == '_')) {
    comma = true;
    ++i;
  }
  int prec = -1;
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    int64_t p = 0;
    number(p);
    if (p > INT32_MAX) in.raise("ValueError", "precision too big");  // before MemoryError, as CPython
    in.checkAllocation(static_cast<uint64_t>(p));
    prec = static_cast<int>(p);
  }
  char type = i < spec.size() ? spec[i++] : 0;
  if (i != spec.size()) in.raise("ValueError", "Invalid format specifier '" + spec + "' for object of type '" + typeName(v) + "'");
  std::string body;
  bool numeric = v->kind == VK::Int || v->kind == VK::Float || v->kind == VK::Bool;
  if (v->kind == VK::Tensor && numeric == false) {
    // f"{t:.3f}" formats a one-element tensor as its item (Tensor.__format__).
    Value item = in.call(in.getAttr(v, "item"), *std::make_unique<CallArgs>());
    return formatValue(in, item, spec);
  }
  if (numeric) {
    const bool isInt = v->kind != VK::Float;
    // Integers are formatted from their exact digits (never through a double: 2**60 + 1 and
    // 2**70 print exactly); floats through printf, sized to the result.
    auto printf = [](const char* fmt, int precision, double x) {
      int n = std::snprintf(nullptr, 0, fmt, precision, x);
      std::string out(static_cast<size_t>(std::max(n, 0)), '\0');
      std::snprintf(out.data(), out.size() + 1, fmt, precision, x);
      return out;
    };
    if (isInt && (type == 'd' || type == 'n' || type == 0 || type == 'x' || type == 'X' || type == 'o' || type == 'b')) {
      if (prec >= 0) in.raise("ValueError", "Precision not allowed in integer format specifier");
      int base = type == 'x' || type == 'X' ? 16 : type == 'o' ? 8 : type == 'b' ? 2 : 10;
      body = base == 10 ? intToDecimal(in, v->kind == VK::Bool ? makeInt(as<BoolObj>(v)->v) : v)
                        : intToString(v->kind == VK::Bool ? makeInt(as<BoolObj>(v)->v) : v, base);
      if (type == 'X')
        for (char& c : body) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (base != 10 && comma) in.raise("ValueError", std::string("Cannot specify ',' with '") + type + "'.");
    } else if (type == 'd' || type == 'x' || type == 'X' || type == 'o' || type == 'b') {
      in.raise("ValueError", std::string("Unknown format code '") + type + "' for object of type 'float'");
    }
    const double d = !body.empty()          ? 0.0
                     : v->kind == VK::Float ? as<FloatObj>(v)->v
                                            : (v->kind == VK::Int ? intToDouble(v) : double(as<BoolObj>(v)->v));
    const bool negative = !body.empty() ? body[0] == '-' : std::signbit(d);
    if (!body.empty()) {
    } else if (type == 'f' || type == 'F' || type == 'e' || type == 'E' || type == 'g' || type == 'G' || type == '%') {
      double x = type == '%' ? d * 100 : d;
      char t = type == '%' ? 'f' : type;
      const char fmt[] = {'%', '.', '*', t, '\0'};
      body = printf(fmt, prec < 0 ? 6 : prec, x);
      if (type == '%') body += '%';
    } else if (type == 0) {
      if (prec >= 0) {
        body = printf("%.*g", prec, d);
      } else {
        body = ir::pyFloat(d);
      }
    } else {
      in.raise("ValueError", std::string("Unknown format code '") + type + "' for object of type '" + typeName(v) + "'");
    }
    if (comma) {
      size_t start = body[0] == '-' ? 1 : 0;
      size_t dot = body.find('.');
      if (dot == std::string::npos) dot = body.size();
      for (int64_t p = static_cast<int64_t>(dot) - 3; p > static_cast<int64_t>(start); p -= 3) body.insert(static_cast<size_t>(p), ",");
    }
    if (sign == '+' && !negative) body = "+" + body;
    if (sign == ' ' && !negative) body = " " + body;
    if (zero && !align) {
      fill = "0";
      align = '=';
    }
    if (!align) align = '>';
  } else {
    body = in.str(v);
    if (prec >= 0 && strLength(body) > prec) body = strSlice(body, 0, prec, 1);  // code points, as CPython
    if (!align) align = '<';
  }
  // Widths count code points, as CPython's (f"{'模式':<20}" pads with 18 spaces).
  const int64_t pad = width - strLength(body);
  if (pad <= 0) return body;
  auto fills = [&](int64_t n) {
    std::string out;
    for (int64_t k = 0; k < n; ++k) out += fill;
    return out;
  };
  if (align == '<') return body + fills(pad);
  if (align == '^') return fills(pad / 2) + body + fills(pad - pad / 2);
  if (align == '=' && !body.empty() && (body[0] == '-' || body[0] == '+')) return body.substr(0, 1) + fills(pad) + body.substr(1);
  return fills(pad) + body;
}

std::string percentFormat(Interpreter& in, const std::string& fmt, const Value& args) {
  std::vector<Value> vals = args->kind == VK::Tuple ? as<TupleObj>(args)->items : std::vector<Value>{args};
  std::string out;
  size_t ai = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    std::string spec;
    while (j < fmt.size() && std::string("0123456789.-+ ").find(fmt[j]) != std::string::npos) spec += fmt[j++];
    if (j >= fmt.size()) in.raise("ValueError", "incomplete format");
    char t = fmt[j];
    if (ai >= vals.size()) in.raise("TypeError", "not enough arguments for format string");
    Value v = vals[ai++];
    if (t == 's' || t == 'r') {
      // %s / %r: right-aligned unless the '-' flag is given (a format spec's str default is
      // left); the other flags mean nothing for strings.
      std::string size;
      for (char c : spec)
        if (c != '-' && c != '+' && c != ' ' && !(c == '0' && size.empty())) size += c;
      const bool left = spec.find('-') != std::string::npos;
      out += formatValue(in, makeStr(t == 's' ? in.str(v) : in.repr(v)), std::string(left ? "<" : ">") + size);
    } else if (t == 'd' || t == 'i') out += formatValue(in, v->kind == VK::Float ? intFromDouble(as<FloatObj>(v)->v) : v, spec + "d");
    else out += formatValue(in, v->kind == VK::Int ? makeFloat(intToDouble(v)) : v, spec + t);
    i = j;
  }
  if (ai < vals.size()) in.raise("TypeError", "not all arguments converted during string formatting");
  return out;
}

}  // namespace kiln::py
