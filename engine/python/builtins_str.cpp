// The methods of str. Strings are UTF-8; positions, lengths and widths count code points, as
// Python's do (ASCII strings take the byte path).
#include "engine/python/interpreter.h"
#include "engine/python/pyformat.h"

#include <algorithm>
#include <cctype>

namespace kiln::py {

namespace {

const std::string& sv(const Value& v) { return as<StrObj>(v)->v; }

bool isAscii(const std::string& s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

// Byte offsets where each code point starts (plus the end).
std::vector<size_t> codePoints(const std::string& s) {
  std::vector<size_t> at;
  for (size_t i = 0; i < s.size();) {
    at.push_back(i);
    unsigned char c = static_cast<unsigned char>(s[i]);
    i += c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  }
  at.push_back(s.size());
  return at;
}

int64_t cpLength(const std::string& s) {
  return isAscii(s) ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(codePoints(s).size() - 1);
}

// Code point index of byte offset `b` (npos stays -1).
int64_t cpIndex(const std::string& s, size_t b) {
  if (b == std::string::npos) return -1;
  if (isAscii(s)) return static_cast<int64_t>(b);
  auto at = codePoints(s);
  return static_cast<int64_t>(std::lower_bound(at.begin(), at.end(), b) - at.begin());
}

// Byte offset of code point index `i` (clamped).
size_t byteAt(const std::string& s, int64_t i) {
  if (isAscii(s)) return static_cast<size_t>(std::clamp<int64_t>(i, 0, static_cast<int64_t>(s.size())));
  auto at = codePoints(s);
  return at[static_cast<size_t>(std::clamp<int64_t>(i, 0, static_cast<int64_t>(at.size()) - 1))];
}

int64_t intArg(Interpreter& in, const Value& v) {
  if (v->kind == VK::Int) return as<IntObj>(v)->small();
  if (v->kind == VK::Bool) return as<BoolObj>(v)->v;
  in.raise("TypeError", "'" + typeName(v) + "' object cannot be interpreted as an integer");
}

// The [start:end] window of str methods (find, count, startswith ...), as byte offsets.
std::pair<size_t, size_t> window(Interpreter& in, const std::string& s, const CallArgs& a, size_t first) {
  int64_t n = cpLength(s);
  auto norm = [&](size_t i, int64_t dflt) {
    if (a.args.size() <= i || isNone(a.args[i])) return dflt;
    int64_t v = intArg(in, a.args[i]);
    if (v < 0) v = std::max<int64_t>(0, v + n);
    return std::min(v, n);
  };
  int64_t b = norm(first, 0), e = norm(first + 1, n);
  return {byteAt(s, b), byteAt(s, std::max(b, e))};
}

bool isSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x1f;
}

std::string stripChars(Interpreter& in, const CallArgs& a, bool& whitespace) {
  whitespace = a.args.size() < 2 || isNone(a.args[1]);
  if (whitespace) return "";
  if (a.args[1]->kind != VK::Str) in.raise("TypeError", "strip arg must be None or str");
  return sv(a.args[1]);
}

std::string pad(const std::string& s, int64_t width, const std::string& fill, int where /* -1 left, 0 center, 1 right */) {
  int64_t n = cpLength(s);
  if (width <= n) return s;
  int64_t total = width - n, left = where < 0 ? 0 : where > 0 ? total : total / 2 + (total % 2 & width % 2);
  if (where == 0) left = total / 2 + ((total & 1) && (n & 1) ? 1 : 0);
  std::string out;
  for (int64_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (int64_t i = 0; i < total - left; ++i) out += fill;
  return out;
}

std::vector<Value> splitWhitespace(const std::string& s, int64_t maxsplit) {
  std::vector<Value> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && isSpace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size()) break;
    if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
      size_t e = s.size();
      while (e > i && isSpace(static_cast<unsigned char>(s[e - 1]))) --e;
      out.push_back(makeStr(s.substr(i, e - i)));
      return out;
    }
    size_t j = i;
    while (j < s.size() && !isSpace(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back(makeStr(s.substr(i, j - i)));
    i = j;
  }
  return out;
}

// One replacement field of str.format: "0.attr[1]!r:>{width}".
std::string formatField(Interpreter& in, const std::string& field, const CallArgs& a, size_t& autoIndex, int depth);

std::string formatString(Interpreter& in, const std::string& f, const CallArgs& a, size_t& autoIndex, int depth) {
  if (depth > 2) in.raise("ValueError", "Max string recursion exceeded");
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    if (c == '{' && i + 1 < f.size() && f[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (c == '}' && i + 1 < f.size() && f[i + 1] == '}') {
      out += '}';
      ++i;
      continue;
    }
    if (c == '}') in.raise("ValueError", "Single '}' encountered in format string");
    if (c != '{') {
      out += c;
      continue;
    }
    // The matching close brace (nested braces in the spec).
    size_t j = i + 1;
    int nest = 1;
    for (; j < f.size(); ++j) {
      if (f[j] == '{') ++nest;
      else if (f[j] == '}' && --nest == 0) break;
    }
    if (j >= f.size()) in.raise("ValueError", "Single '{' encountered in format string");
    out += formatField(in, f.substr(i + 1, j - i - 1), a, autoIndex, depth);
    i = j;
  }
  return out;
}

std::string formatField(Interpreter& in, const std::string& field, const CallArgs& a, size_t& autoIndex, int depth) {
  // field_name [!conversion] [:format_spec]
  size_t colon = std::string::npos, bang = std::string::npos;
  int bracket = 0;
  for (size_t k = 0; k < field.size(); ++k) {
    if (field[k] == '[') ++bracket;
    else if (field[k] == ']') --bracket;
    else if (bracket == 0 && field[k] == '!' && bang == std::string::npos && colon == std::string::npos) bang = k;
    else if (bracket == 0 && field[k] == ':') {
      colon = k;
      break;
    }
  }
  std::string name = field.substr(0, std::min(bang, colon));
  std::string conv =
      bang != std::string::npos ? field.substr(bang + 1, (colon == std::string::npos ? field.size() : colon) - bang - 1) : "";
  std::string spec = colon != std::string::npos ? field.substr(colon + 1) : "";
  // First part: an index, a keyword, or nothing (the next positional argument).
  size_t p = 0;
  while (p < name.size() && name[p] != '.' && name[p] != '[') ++p;
  std::string first = name.substr(0, p);
  Value v;
  const size_t nargs = a.args.size() - 1;  // args[0] is the format string
  if (first.empty()) {
    if (autoIndex == SIZE_MAX) in.raise("ValueError", "cannot switch from manual field specification to automatic field numbering");
    if (autoIndex >= nargs)
      in.raise("IndexError", "Replacement index " + std::to_string(autoIndex) + " out of range for positional args tuple");
    v = a.args[1 + autoIndex++];
  } else if (std::all_of(first.begin(), first.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    if (autoIndex != 0 && autoIndex != SIZE_MAX)
      in.raise("ValueError", "cannot switch from automatic field numbering to manual field specification");
    autoIndex = SIZE_MAX;
    size_t k = std::stoul(first);
    if (k >= nargs) in.raise("IndexError", "Replacement index " + first + " out of range for positional args tuple");
    v = a.args[1 + k];
  } else {
    v = a.kwarg(first);
    if (!v) in.raise("KeyError", "'" + first + "'");
  }
  // Then .attr and [key] steps.
  while (p < name.size()) {
    if (name[p] == '.') {
      size_t q = p + 1;
      while (q < name.size() && name[q] != '.' && name[q] != '[') ++q;
      v = in.getAttr(v, name.substr(p + 1, q - p - 1));
      p = q;
    } else {
      size_t q = name.find(']', p);
      if (q == std::string::npos) in.raise("ValueError", "Missing ']' in format string");
      std::string key = name.substr(p + 1, q - p - 1);
      bool digits = !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char ch) { return std::isdigit(ch); });
      v = in.subscript(v, digits ? makeInt(std::stoll(key)) : makeStr(key));
      p = q + 1;
    }
  }
  if (conv == "r") v = makeStr(in.repr(v));
  else if (conv == "s") v = makeStr(in.str(v));
  else if (conv == "a") v = makeStr(in.repr(v));
  else if (!conv.empty()) in.raise("ValueError", "Unknown conversion specifier " + conv);
  if (spec.find('{') != std::string::npos) spec = formatString(in, spec, a, autoIndex, depth + 1);
  return formatValue(in, v, spec);
}

}  // namespace

std::string Interpreter::formatStr(const std::string& fmt, const CallArgs& args) {
  size_t autoIndex = 0;
  return formatString(*this, fmt, args, autoIndex, 0);
}

void Interpreter::installStrMethods() {
  auto c = builtinClass("str");
  auto method = [&](const std::string& name, NativeFn fn) { c->dict[name] = makeBuiltin("str." + name, std::move(fn)); };
  method("__new__", [](Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() > 1 && a.args[1]->kind == VK::Str && !a.args[1]->sub) return a.args[1];
    return makeStr(a.args.size() > 1 ? in.str(a.args[1]) : "");
  });
  method("join", [](Interpreter& in, CallArgs& a) {
    std::string out;
    auto items = in.iterate(a.args.at(1));
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i]->kind != VK::Str)
        in.raise("TypeError", "sequence item " + std::to_string(i) + ": expected str instance, " + typeName(items[i]) + " found");
      if (i) out += sv(a.args[0]);
      out += sv(items[i]);
    }
    return makeStr(out);
  });
  method("format", [](Interpreter& in, CallArgs& a) { return makeStr(in.formatStr(sv(a.args[0]), a)); });
  method("format_map", [](Interpreter& in, CallArgs& a) {
    CallArgs b;
    b.args = {a.args[0]};
    for (auto& k : in.iterate(a.args.at(1))) b.kwargs.emplace_back(in.str(k), in.subscript(a.args[1], k));
    return makeStr(in.formatStr(sv(a.args[0]), b));
  });
  for (bool starts : {true, false}) {
    method(starts ? "startswith" : "endswith", [starts](Interpreter& in, CallArgs& a) {
      const std::string& s = sv(a.args[0]);
      auto [b, e] = window(in, s, a, 2);
      std::string part = s.substr(b, e - b);
      std::vector<Value> options = a.args.at(1)->kind == VK::Tuple ? in.iterate(a.args[1]) : std::vector<Value>{a.args[1]};
      for (auto& o : options) {
        if (o->kind != VK::Str)
          in.raise("TypeError",
                   std::string(starts ? "startswith" : "endswith") + " first arg must be str or a tuple of str, not " + typeName(o));
        const std::string& x = sv(o);
        if (x.size() <= part.size() && (starts ? part.compare(0, x.size(), x) : part.compare(part.size() - x.size(), x.size(), x)) == 0)
          return True();
      }
      return False();
    });
  }
  auto mapChars = [&](const std::string& name, int (*f)(int)) {
    method(name, [f](Interpreter&, CallArgs& a) {
      std::string s = sv(a.args[0]);
      for (auto& ch : s)
        if (static_cast<unsigned char>(ch) < 0x80) ch = static_cast<char>(f(ch));
      return makeStr(s);
    });
  };
  mapChars("upper", ::toupper);
  mapChars("lower", ::tolower);
  mapChars("casefold", ::tolower);
  method("swapcase", [](Interpreter&, CallArgs& a) {
    std::string s = sv(a.args[0]);
    for (auto& ch : s) ch = static_cast<char>(std::isupper(static_cast<unsigned char>(ch)) ? std::tolower(ch) : std::toupper(ch));
    return makeStr(s);
  });
  method("capitalize", [](Interpreter&, CallArgs& a) {
    std::string s = sv(a.args[0]);
    for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i == 0 ? std::toupper(s[i]) : std::tolower(s[i]));
    return makeStr(s);
  });
  method("title", [](Interpreter&, CallArgs& a) {
    std::string s = sv(a.args[0]);
    bool prevCased = false;
    for (auto& ch : s) {
      bool alpha = std::isalpha(static_cast<unsigned char>(ch));
      ch = static_cast<char>(alpha ? (prevCased ? std::tolower(ch) : std::toupper(ch)) : ch);
      prevCased = alpha;
    }
    return makeStr(s);
  });
  for (int which : {0, 1, 2}) {
    static const char* names[] = {"strip", "lstrip", "rstrip"};
    method(names[which], [which](Interpreter& in, CallArgs& a) {
      const std::string& s = sv(a.args[0]);
      bool ws;
      std::string chars = stripChars(in, a, ws);
      auto drop = [&](unsigned char ch) { return ws ? isSpace(ch) : chars.find(static_cast<char>(ch)) != std::string::npos; };
      size_t b = 0, e = s.size();
      if (which != 2)
        while (b < e && drop(static_cast<unsigned char>(s[b]))) ++b;
      if (which != 1)
        while (e > b && drop(static_cast<unsigned char>(s[e - 1]))) --e;
      return makeStr(s.substr(b, e - b));
    });
  }
  method("split", [](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    Value sepv = a.args.size() > 1 ? a.args[1] : a.kwarg("sep");
    Value maxv = a.args.size() > 2 ? a.args[2] : a.kwarg("maxsplit");
    int64_t maxsplit = maxv ? intArg(in, maxv) : -1;
    if (!sepv || isNone(sepv)) return makeList(splitWhitespace(s, maxsplit));
    const std::string& sep = sv(sepv);
    if (sep.empty()) in.raise("ValueError", "empty separator");
    std::vector<Value> out;
    size_t p = 0, q;
    while ((maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) && (q = s.find(sep, p)) != std::string::npos) {
      out.push_back(makeStr(s.substr(p, q - p)));
      p = q + sep.size();
    }
    out.push_back(makeStr(s.substr(p)));
    return makeList(out);
  });
  method("rsplit", [](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    Value sepv = a.args.size() > 1 ? a.args[1] : a.kwarg("sep");
    Value maxv = a.args.size() > 2 ? a.args[2] : a.kwarg("maxsplit");
    int64_t maxsplit = maxv ? intArg(in, maxv) : -1;
    if (!sepv || isNone(sepv)) {
      if (maxsplit < 0) return makeList(splitWhitespace(s, -1));
      std::vector<Value> parts;
      size_t e = s.size();
      while (e > 0) {
        while (e > 0 && isSpace(static_cast<unsigned char>(s[e - 1]))) --e;
        if (e == 0) break;
        if (static_cast<int64_t>(parts.size()) == maxsplit) {
          size_t b = 0;
          while (b < e && isSpace(static_cast<unsigned char>(s[b]))) ++b;
          parts.push_back(makeStr(s.substr(b, e - b)));
          break;
        }
        size_t b = e;
        while (b > 0 && !isSpace(static_cast<unsigned char>(s[b - 1]))) --b;
        parts.push_back(makeStr(s.substr(b, e - b)));
        e = b;
      }
      std::reverse(parts.begin(), parts.end());
      return makeList(parts);
    }
    const std::string& sep = sv(sepv);
    if (sep.empty()) in.raise("ValueError", "empty separator");
    std::vector<Value> parts;
    size_t e = s.size();
    while (maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit) {
      size_t q = e >= sep.size() ? s.rfind(sep, e - sep.size()) : std::string::npos;
      if (q == std::string::npos) break;
      parts.push_back(makeStr(s.substr(q + sep.size(), e - q - sep.size())));
      e = q;
    }
    parts.push_back(makeStr(s.substr(0, e)));
    std::reverse(parts.begin(), parts.end());
    return makeList(parts);
  });
  method("splitlines", [](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    bool keep = a.args.size() > 1 ? in.truthy(a.args[1]) : (a.kwarg("keepends") && in.truthy(a.kwarg("keepends")));
    std::vector<Value> out;
    size_t b = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n' && s[i] != '\r') continue;
      size_t end = i;
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      out.push_back(makeStr(s.substr(b, (keep ? i + 1 : end) - b)));
      b = i + 1;
    }
    if (b < s.size()) out.push_back(makeStr(s.substr(b)));
    return makeList(out);
  });
  method("replace", [](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    const std::string &from = sv(a.args.at(1)), &to = sv(a.args.at(2));
    int64_t count = a.args.size() > 3 ? intArg(in, a.args[3]) : (a.kwarg("count") ? intArg(in, a.kwarg("count")) : -1);
    std::string out;
    if (from.empty()) {
      auto at = codePoints(s);
      int64_t done = 0;
      for (size_t i = 0; i + 1 < at.size(); ++i) {
        if (count < 0 || done < count) {
          out += to;
          ++done;
        }
        out += s.substr(at[i], at[i + 1] - at[i]);
      }
      if (count < 0 || done < count) out += to;
      return makeStr(out);
    }
    size_t p = 0, q;
    int64_t done = 0;
    while ((count < 0 || done < count) && (q = s.find(from, p)) != std::string::npos) {
      out += s.substr(p, q - p) + to;
      p = q + from.size();
      ++done;
    }
    return makeStr(out + s.substr(p));
  });
  for (bool reverse : {false, true}) {
    for (bool raises : {false, true}) {
      std::string name = std::string(reverse ? "r" : "") + (raises ? "index" : "find");
      method(name, [reverse, raises](Interpreter& in, CallArgs& a) {
        const std::string& s = sv(a.args[0]);
        if (a.args.at(1)->kind != VK::Str) in.raise("TypeError", "must be str, not " + typeName(a.args[1]));
        const std::string& x = sv(a.args[1]);
        auto [b, e] = window(in, s, a, 2);
        size_t pos = std::string::npos;
        if (x.size() <= e - b) pos = reverse ? s.rfind(x, e - x.size()) : s.find(x, b);
        if (pos != std::string::npos && (pos < b || pos + x.size() > e)) pos = std::string::npos;
        if (pos == std::string::npos && raises) in.raise("ValueError", "substring not found");
        return makeInt(cpIndex(s, pos));
      });
    }
  }
  method("count", [](Interpreter& in, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    const std::string& x = sv(a.args.at(1));
    auto [b, e] = window(in, s, a, 2);
    if (x.empty()) return makeInt(cpLength(s.substr(b, e - b)) + 1);
    int64_t n = 0;
    for (size_t p = s.find(x, b); p != std::string::npos && p + x.size() <= e; p = s.find(x, p + x.size())) ++n;
    return makeInt(n);
  });
  for (bool reverse : {false, true}) {
    method(reverse ? "rpartition" : "partition", [reverse](Interpreter& in, CallArgs& a) {
      const std::string& s = sv(a.args[0]);
      const std::string& sep = sv(a.args.at(1));
      if (sep.empty()) in.raise("ValueError", "empty separator");
      size_t p = reverse ? s.rfind(sep) : s.find(sep);
      if (p == std::string::npos)
        return reverse ? makeTuple({makeStr(""), makeStr(""), makeStr(s)}) : makeTuple({makeStr(s), makeStr(""), makeStr("")});
      return makeTuple({makeStr(s.substr(0, p)), makeStr(sep), makeStr(s.substr(p + sep.size()))});
    });
  }
  method("removeprefix", [](Interpreter&, CallArgs& a) {
    const std::string &s = sv(a.args[0]), &x = sv(a.args.at(1));
    return makeStr(s.compare(0, x.size(), x) == 0 ? s.substr(x.size()) : s);
  });
  method("removesuffix", [](Interpreter&, CallArgs& a) {
    const std::string &s = sv(a.args[0]), &x = sv(a.args.at(1));
    return makeStr(!x.empty() && s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0 ? s.substr(0, s.size() - x.size())
                                                                                                          : s);
  });
  for (int where : {-1, 0, 1}) {
    static const char* names[] = {"ljust", "center", "rjust"};
    method(names[where + 1], [where](Interpreter& in, CallArgs& a) {
      std::string fill = a.args.size() > 2 ? sv(a.args[2]) : " ";
      if (cpLength(fill) != 1) in.raise("TypeError", "The fill character must be exactly one character long");
      in.checkAllocation(static_cast<uint64_t>(std::max<int64_t>(0, intArg(in, a.args.at(1)))) * fill.size());
      return makeStr(pad(sv(a.args[0]), intArg(in, a.args.at(1)), fill, where == -1 ? -1 : where == 1 ? 1 : 0));
    });
  }
  method("zfill", [](Interpreter& in, CallArgs& a) {
    std::string s = sv(a.args[0]);
    int64_t width = intArg(in, a.args.at(1)), n = cpLength(s);
    if (width <= n) return makeStr(s);
    in.checkAllocation(static_cast<uint64_t>(width));
    size_t signLen = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    return makeStr(s.substr(0, signLen) + std::string(static_cast<size_t>(width - n), '0') + s.substr(signLen));
  });
  method("expandtabs", [](Interpreter& in, CallArgs& a) {
    int64_t tab = a.args.size() > 1 ? intArg(in, a.args[1]) : 8;
    std::string out;
    int64_t col = 0;
    for (char ch : sv(a.args[0])) {
      if (ch == '\t') {
        int64_t n = tab > 0 ? tab - col % tab : 0;
        out += std::string(static_cast<size_t>(n), ' ');
        col += n;
      } else {
        out += ch;
        col = ch == '\n' || ch == '\r' ? 0 : col + 1;
      }
    }
    return makeStr(out);
  });
  auto predicate = [&](const std::string& name, bool (*f)(unsigned char), bool emptyResult) {
    method(name, [f, emptyResult](Interpreter&, CallArgs& a) {
      const std::string& s = sv(a.args[0]);
      if (s.empty()) return makeBool(emptyResult);
      for (unsigned char ch : s)
        if (!f(ch)) return False();
      return True();
    });
  };
  predicate(
      "isdigit", [](unsigned char ch) -> bool { return std::isdigit(ch); }, false);
  predicate(
      "isdecimal", [](unsigned char ch) -> bool { return std::isdigit(ch); }, false);
  predicate(
      "isnumeric", [](unsigned char ch) -> bool { return std::isdigit(ch); }, false);
  predicate(
      "isalpha", [](unsigned char ch) -> bool { return std::isalpha(ch) || ch >= 0x80; }, false);
  predicate(
      "isalnum", [](unsigned char ch) -> bool { return std::isalnum(ch) || ch >= 0x80; }, false);
  predicate(
      "isspace", [](unsigned char ch) -> bool { return isSpace(ch); }, false);
  predicate(
      "isascii", [](unsigned char ch) -> bool { return ch < 0x80; }, true);
  predicate(
      "isprintable", [](unsigned char ch) -> bool { return ch >= 0x20 && ch != 0x7f; }, true);
  for (bool upper : {true, false}) {
    method(upper ? "isupper" : "islower", [upper](Interpreter&, CallArgs& a) {
      bool cased = false;
      for (unsigned char ch : sv(a.args[0])) {
        if (upper ? std::islower(ch) : std::isupper(ch)) return False();
        cased = cased || std::isalpha(ch);
      }
      return makeBool(cased);
    });
  }
  method("istitle", [](Interpreter&, CallArgs& a) {
    bool prevCased = false, any = false;
    for (unsigned char ch : sv(a.args[0])) {
      if (std::isupper(ch)) {
        if (prevCased) return False();
        prevCased = any = true;
      } else if (std::islower(ch)) {
        if (!prevCased) return False();
        prevCased = true;
      } else {
        prevCased = false;
      }
    }
    return makeBool(any);
  });
  method("isidentifier", [](Interpreter&, CallArgs& a) {
    const std::string& s = sv(a.args[0]);
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return False();
    for (unsigned char ch : s)
      if (!(std::isalnum(ch) || ch == '_' || ch >= 0x80)) return False();
    return True();
  });
  method("encode",
         [](Interpreter& in, CallArgs&) -> Value { in.raise("NotImplementedError", "str.encode: bytes are not supported by Kiln"); });
  method("__len__", [](Interpreter&, CallArgs& a) { return makeInt(cpLength(sv(a.args[0]))); });
  method("__contains__", [](Interpreter&, CallArgs& a) { return makeBool(sv(a.args[0]).find(sv(a.args.at(1))) != std::string::npos); });
}

int64_t strLength(const std::string& s) { return cpLength(s); }

std::string strSlice(const std::string& s, int64_t start, int64_t stop, int64_t step) {
  std::string out;
  if (isAscii(s)) {
    if (step > 0)
      for (int64_t i = start; i < stop; i += step) out += s[static_cast<size_t>(i)];
    else
      for (int64_t i = start; i > stop; i += step) out += s[static_cast<size_t>(i)];
    return out;
  }
  auto at = codePoints(s);
  auto piece = [&](int64_t i) { return s.substr(at[static_cast<size_t>(i)], at[static_cast<size_t>(i) + 1] - at[static_cast<size_t>(i)]); };
  if (step > 0)
    for (int64_t i = start; i < stop; i += step) out += piece(i);
  else
    for (int64_t i = start; i > stop; i += step) out += piece(i);
  return out;
}

}  // namespace kiln::py
