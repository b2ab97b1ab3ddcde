#include "storage/graph_json.h"

#include "storage/store.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace kiln::storage {

using nlohmann::json;

namespace {

// Strings come from user scripts and may hold invalid UTF-8; replace such bytes rather than throw.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json parse(const std::string& text, const char* what) {
  if (text.empty()) return json::array();  // older or hand-made rows may leave a column empty
  try {
    return json::parse(text);
  } catch (const json::exception& e) { throw StoreError(std::string("malformed ") + what + " JSON in the session store: " + e.what()); }
}

// Runs a reader over parsed JSON, turning type errors (a string where a number belongs) into
// StoreError like parse errors.
template <class F>
auto readJson(const std::string& text, const char* what, F f) {
  json j = parse(text, what);
  try {
    return f(j);
  } catch (const json::exception& e) { throw StoreError(std::string("malformed ") + what + " JSON in the session store: " + e.what()); }
}

// An integer of type T. nlohmann's get<int>() converts a float out of T's range with undefined
// behaviour (1e30, or 77777777777777777777711, which JSON parsers read as a float) and wraps an
// integer that does not fit; in a stored column either is damage, reported like any other.
template <class T>
T integerFrom(const json& j) {
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
  } else if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max()) return static_cast<T>(v);
  }
  throw StoreError("malformed integer in the session store: " + dump(j));
}

// obj[key] as an integer, `dflt` when absent (nlohmann's value(key, dflt) without its conversions).
template <class T>
T integerValue(const json& obj, const char* key, T dflt) {
  if (!obj.is_object()) throw StoreError("malformed object in the session store: " + dump(obj));
  auto it = obj.find(key);
  return it == obj.end() ? dflt : integerFrom<T>(*it);
}

std::vector<int> intsOf(const json& j) {
  if (!j.is_array()) throw StoreError("malformed integer list in the session store: " + dump(j));
  std::vector<int> out;
  for (const auto& x : j) out.push_back(integerFrom<int>(x));
  return out;
}

ir::DType dtypeFrom(const std::string& s) {
  auto d = ir::dtypeFromShort(s);
  if (!d) throw StoreError("unknown dtype '" + s + "' in the session store");
  return *d;
}

json dimToJson(const ir::Dim& d) {
  if (!d.symbolic()) return d.value;
  if (d.value == 0) return d.symbol;
  return json{{"sym", d.symbol}, {"value", d.value}};  // a symbol that also carries a hint
}

ir::Dim dimFromJson(const json& j) {
  if (j.is_number_integer()) return ir::Dim(integerFrom<int64_t>(j));
  if (j.is_string()) return ir::Dim::sym(j.get<std::string>());
  ir::Dim d = ir::Dim::sym(j.at("sym").get<std::string>());
  d.value = integerFrom<int64_t>(j.at("value"));
  return d;
}

json dimsToJson(const std::vector<ir::Dim>& dims) {
  json a = json::array();
  for (const auto& d : dims) a.push_back(dimToJson(d));
  return a;
}

std::vector<ir::Dim> dimsFromJson(const json& j) {
  std::vector<ir::Dim> out;
  for (const auto& d : j) out.push_back(dimFromJson(d));
  return out;
}

json locToJson(const ir::SourceLoc& l) {
  return json{{"file", l.file},      {"line", l.line},         {"col", l.col},  {"end_line", l.endLine},
              {"end_col", l.endCol}, {"function", l.function}, {"code", l.code}};
}

ir::SourceLoc locFromJson(const json& j) {
  ir::SourceLoc l;
  l.file = j.value("file", "");
  l.line = integerValue(j, "line", 0);
  l.col = integerValue(j, "col", 0);
  l.endLine = integerValue(j, "end_line", 0);
  l.endCol = integerValue(j, "end_col", 0);
  l.function = j.value("function", "");
  l.code = j.value("code", "");
  return l;
}

}  // namespace

std::string nodeKindName(ir::NodeKind k) {
  switch (k) {
    case ir::NodeKind::Placeholder: return "placeholder";
    case ir::NodeKind::CallFunction: return "call_function";
    case ir::NodeKind::CallMethod: return "call_method";
    case ir::NodeKind::GetAttr: return "get_attr";
    case ir::NodeKind::Output: return "output";
  }
  return "call_function";
}

ir::NodeKind nodeKindFromName(const std::string& s) {
  for (auto k :
       {ir::NodeKind::Placeholder, ir::NodeKind::CallFunction, ir::NodeKind::CallMethod, ir::NodeKind::GetAttr, ir::NodeKind::Output})
    if (nodeKindName(k) == s) return k;
  throw StoreError("unknown node kind '" + s + "' in the session store");
}

json argToJson(const ir::Arg& a) {
  using K = ir::Arg::Kind;
  switch (a.kind) {
    case K::Node: return json{{"node", a.node}};
    case K::None: return nullptr;
    case K::Bool: return a.b;
    case K::Int: return a.i;
    case K::Float:
      // JSON has no inf/nan (nlohmann would write null), yet -inf is a common constant
      // (masked_fill), so non-finite floats get a tagged form.
      if (std::isnan(a.f)) return json{{"float", "nan"}};
      if (std::isinf(a.f)) return json{{"float", a.f > 0 ? "inf" : "-inf"}};
      return a.f;
    case K::String: return a.s;
    case K::DType: return json{{"dtype", std::string(ir::shortName(a.dtype))}};
    case K::Expr: return json{{"expr", a.s}};
    case K::List: {
      json l = json::array();
      for (const auto& x : a.list) l.push_back(argToJson(x));
      return l;
    }
  }
  return nullptr;
}

ir::Arg argFromJson(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return ir::Arg::none();
    case json::value_t::boolean: return ir::Arg::boolean(j.get<bool>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return ir::Arg::integer(integerFrom<int64_t>(j));
    case json::value_t::number_float: return ir::Arg::real(j.get<double>());
    case json::value_t::string: return ir::Arg::string(j.get<std::string>());
    case json::value_t::array: {
      std::vector<ir::Arg> l;
      for (const auto& x : j) l.push_back(argFromJson(x));
      return ir::Arg::listOf(std::move(l));
    }
    case json::value_t::object:
      if (j.contains("node")) return ir::Arg::ref(integerFrom<int>(j.at("node")));
      if (j.contains("dtype")) return ir::Arg::dtypeArg(dtypeFrom(j.at("dtype").get<std::string>()));
      if (j.contains("expr") && j.at("expr").is_string()) return ir::Arg::expr(j.at("expr").get<std::string>());
      if (j.contains("float")) {
        auto s = j.at("float").get<std::string>();
        if (s == "nan") return ir::Arg::real(std::numeric_limits<double>::quiet_NaN());
        if (s == "inf") return ir::Arg::real(std::numeric_limits<double>::infinity());
        if (s == "-inf") return ir::Arg::real(-std::numeric_limits<double>::infinity());
      }
      break;
    default: break;
  }
  throw StoreError("malformed argument JSON in the session store: " + dump(j));
}

namespace {

// `s` as JSON spells it, where it needs no escape (printable ASCII, no quote or backslash: the
// names, targets and symbols nodes hold); false otherwise.
bool appendPlainString(std::string& out, const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
  out += '"';
  out += s;
  out += '"';
  return true;
}

// Appends dump(argToJson(a)) without building the JSON value: storing a 4,096-node stage built
// and dumped an nlohmann value per argument, a quarter of storing its rows. False, leaving `out`
// to be discarded, where a string needs escaping; floats take nlohmann's spelling.
bool appendArg(std::string& out, const ir::Arg& a) {
  using K = ir::Arg::Kind;
  switch (a.kind) {
    case K::Node:
      out += "{\"node\":";
      out += std::to_string(a.node);
      out += '}';
      return true;
    case K::None: out += "null"; return true;
    case K::Bool: out += a.b ? "true" : "false"; return true;
    case K::Int: out += std::to_string(a.i); return true;
    case K::Float: out += dump(argToJson(a)); return true;
    case K::String: return appendPlainString(out, a.s);
    case K::DType:
      out += "{\"dtype\":\"";
      out += ir::shortName(a.dtype);
      out += "\"}";
      return true;
    case K::Expr:
      out += "{\"expr\":";
      if (!appendPlainString(out, a.s)) return false;
      out += '}';
      return true;
    case K::List:
      out += '[';
      for (size_t i = 0; i < a.list.size(); ++i) {
        if (i) out += ',';
        if (!appendArg(out, a.list[i])) return false;
      }
      out += ']';
      return true;
  }
  return false;
}

}  // namespace

std::string argsToJson(const std::vector<ir::Arg>& args) {
  std::string out = "[";
  bool plain = true;
  for (size_t i = 0; i < args.size() && plain; ++i) {
    if (i) out += ',';
    plain = appendArg(out, args[i]);
  }
  if (plain) return out + "]";
  json a = json::array();
  for (const auto& x : args) a.push_back(argToJson(x));
  return dump(a);
}

std::vector<ir::Arg> argsFromJson(const std::string& text) {
  return readJson(text, "argument", [](const json& j) {
    std::vector<ir::Arg> out;
    for (const auto& x : j) out.push_back(argFromJson(x));
    return out;
  });
}

std::string kwargsToJson(const std::vector<std::pair<std::string, ir::Arg>>& kwargs) {
  std::string out = "[";
  bool plain = true;
  for (size_t i = 0; i < kwargs.size() && plain; ++i) {
    out += i ? ",[" : "[";
    plain = appendPlainString(out, kwargs[i].first);
    out += ',';
    plain = plain && appendArg(out, kwargs[i].second);
    out += ']';
  }
  if (plain) return out + "]";
  json a = json::array();
  for (const auto& [k, v] : kwargs) a.push_back(json::array({k, argToJson(v)}));
  return dump(a);
}

std::vector<std::pair<std::string, ir::Arg>> kwargsFromJson(const std::string& text) {
  return readJson(text, "keyword argument", [](const json& j) {
    std::vector<std::pair<std::string, ir::Arg>> out;
    for (const auto& p : j) out.emplace_back(p.at(0).get<std::string>(), argFromJson(p.at(1)));
    return out;
  });
}

std::string typesToJson(const std::vector<ir::TensorType>& types) {
  json a = json::array();
  for (const auto& t : types)
    a.push_back(json{{"dtype", std::string(ir::shortName(t.dtype))},
                     {"sizes", dimsToJson(t.sizes)},
                     {"strides", dimsToJson(t.strides)},
                     {"device", t.device},
                     {"requires_grad", t.requiresGrad}});
  return dump(a);
}

std::vector<ir::TensorType> typesFromJson(const std::string& text) {
  return readJson(text, "tensor type", [](const json& j) {
    std::vector<ir::TensorType> out;
    for (const auto& x : j) {
      ir::TensorType t;
      t.dtype = dtypeFrom(x.at("dtype").get<std::string>());
      t.sizes = dimsFromJson(x.at("sizes"));
      t.strides = dimsFromJson(x.value("strides", json::array()));
      t.device = x.value("device", "cpu");
      t.requiresGrad = x.value("requires_grad", false);
      out.push_back(std::move(t));
    }
    return out;
  });
}

std::string sourceLocsToJson(const std::vector<ir::SourceLoc>& locs) {
  json a = json::array();
  for (const auto& l : locs) a.push_back(locToJson(l));
  return dump(a);
}

std::vector<ir::SourceLoc> sourceLocsFromJson(const std::string& text) {
  return readJson(text, "source location", [](const json& j) {
    std::vector<ir::SourceLoc> out;
    for (const auto& x : j) out.push_back(locFromJson(x));
    return out;
  });
}

std::string intsToJson(const std::vector<int>& v) { return dump(json(v)); }

std::vector<int> intsFromJson(const std::string& text) {
  return readJson(text, "integer list", [](const json& j) { return intsOf(j); });
}

std::string int64sToJson(const std::vector<int64_t>& v) { return dump(json(v)); }

std::vector<int64_t> int64sFromJson(const std::string& text) {
  return readJson(text, "integer list", [](const json& j) { return j.get<std::vector<int64_t>>(); });
}

std::string stringsToJson(const std::vector<std::string>& v) { return dump(json(v)); }

std::vector<std::string> stringsFromJson(const std::string& text) {
  return readJson(text, "string list", [](const json& j) { return j.get<std::vector<std::string>>(); });
}

std::string guardsToJson(const std::vector<session::Guard>& guards) {
  json a = json::array();
  for (const auto& g : guards) a.push_back(json{{"kind", g.kind}, {"source", g.source}, {"text", g.text}, {"line", g.line}});
  return dump(a);
}

std::vector<session::Guard> guardsFromJson(const std::string& text) {
  return readJson(text, "guard", [](const json& j) {
    std::vector<session::Guard> out;
    for (const auto& x : j) {
      session::Guard g;
      g.kind = x.value("kind", "");
      g.source = x.value("source", "");
      g.text = x.value("text", "");
      g.line = integerValue(x, "line", 0);
      out.push_back(std::move(g));
    }
    return out;
  });
}

std::string rulesToJson(const std::vector<session::RuleHit>& rules) {
  json a = json::array();
  for (const auto& r : rules) a.push_back(json{{"rule", r.rule}, {"count", r.count}, {"nodes", r.nodes}});
  return dump(a);
}

std::vector<session::RuleHit> rulesFromJson(const std::string& text) {
  return readJson(text, "rule", [](const json& j) {
    std::vector<session::RuleHit> out;
    for (const auto& x : j) {
      session::RuleHit r;
      r.rule = x.value("rule", "");
      r.count = integerValue(x, "count", 0);
      if (x.contains("nodes")) r.nodes = intsOf(x.at("nodes"));
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::string applicationsToJson(const std::vector<session::RuleApplication>& apps) {
  if (apps.empty()) return "";
  json a = json::array();
  for (const auto& x : apps)
    a.push_back(
        json{{"rule", x.rule}, {"where", x.where}, {"root", x.root}, {"consumed", x.consumed}, {"added", x.added}, {"to", x.replacement}});
  return dump(a);
}

std::vector<session::RuleApplication> applicationsFromJson(const std::string& text) {
  if (text.empty()) return {};
  return readJson(text, "rule application", [](const json& j) {
    std::vector<session::RuleApplication> out;
    for (const auto& x : j) {
      session::RuleApplication r;
      r.rule = x.value("rule", "");
      r.where = x.value("where", "");
      r.root = integerValue(x, "root", -1);
      if (x.contains("consumed")) r.consumed = intsOf(x.at("consumed"));
      if (x.contains("added")) r.added = intsOf(x.at("added"));
      r.replacement = integerValue(x, "to", -1);
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::string gpuInfoToJson(const session::KernelGpuInfo& g) {
  if (g.arch.empty() && g.launch.empty() && g.notes.empty()) return "";
  return dump(json{{"arch", g.arch},
                   {"launch", g.launch},
                   {"registers", g.registers},
                   {"shared_bytes", g.sharedBytes},
                   {"stack_bytes", g.stackBytes},
                   {"spill_stores", g.spillStores},
                   {"spill_loads", g.spillLoads},
                   {"notes", g.notes}});
}

session::KernelGpuInfo gpuInfoFromJson(const std::string& text) {
  if (text.empty()) return {};
  return readJson(text, "GPU kernel", [](const json& j) {
    session::KernelGpuInfo g;
    g.arch = j.value("arch", "");
    g.launch = j.value("launch", "");
    g.registers = integerValue<int>(j, "registers", -1);
    g.sharedBytes = integerValue<int64_t>(j, "shared_bytes", -1);
    g.stackBytes = integerValue<int64_t>(j, "stack_bytes", -1);
    g.spillStores = integerValue<int64_t>(j, "spill_stores", -1);
    g.spillLoads = integerValue<int64_t>(j, "spill_loads", -1);
    g.notes = j.value("notes", "");
    return g;
  });
}

}  // namespace kiln::storage
