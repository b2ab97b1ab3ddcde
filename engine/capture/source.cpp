#include "engine/capture/source.h"

#include <cctype>

namespace kiln::capture {

namespace {
// Dynamo's spelling (L['x']) or the user's (x): they differ only in how locals print.
std::string spell(const std::vector<Source::Step>& steps, bool dynamo) {
  std::string out;
  for (const auto& s : steps) {
    switch (s.kind) {
      case Source::Step::Kind::Local: out += dynamo ? "L['" + s.name + "']" : s.name; break;
      case Source::Step::Kind::Global: out += "G['" + s.name + "']"; break;
      case Source::Step::Kind::Attr: out += "." + s.name; break;
      case Source::Step::Kind::Item: out += "['" + s.name + "']"; break;
      case Source::Step::Kind::Index: out += "[" + s.name + "]"; break;
      case Source::Step::Kind::Const: out += s.name; break;
    }
  }
  return out;
}
}  // namespace

std::string Source::text() const { return spell(steps, true); }

std::string Source::display() const { return spell(steps, false); }

std::string Source::placeholderName() const {
  // Runs of anything but letters and digits (underscores included) become one underscore.
  std::string t = text(), out;
  bool pending = false;
  for (char c : t) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (pending) out += '_';
      pending = false;
      out += c;
    } else {
      pending = true;
    }
  }
  if (pending) out += '_';
  return out;
}

py::Value Source::fetch(py::Interpreter& in, const std::map<std::string, py::Value>& locals, const py::ModuleObj& globals) const {
  py::Value v;
  for (const auto& s : steps) {
    switch (s.kind) {
      case Step::Kind::Const: v = value; break;
      case Step::Kind::Local: {
        auto it = locals.find(s.name);
        if (it == locals.end()) return nullptr;
        v = it->second;
        break;
      }
      case Step::Kind::Global: {
        auto it = globals.scope->vars.find(s.name);
        if (it == globals.scope->vars.end()) return nullptr;
        v = it->second;
        break;
      }
      case Step::Kind::Attr:
        v = in.getAttrOrNull(v, s.name);
        if (!v) return nullptr;
        break;
      case Step::Kind::Index: {
        if (v->kind != py::VK::List && v->kind != py::VK::Tuple) return nullptr;
        const auto& items = v->kind == py::VK::List ? static_cast<py::ListObj*>(v.get())->items : static_cast<py::TupleObj*>(v.get())->items;
        size_t i = std::stoul(s.name);
        if (i >= items.size()) return nullptr;
        v = items[i];
        break;
      }
      case Step::Kind::Item:
        if (v->kind != py::VK::Dict) return nullptr;
        v = static_cast<py::DictObj*>(v.get())->getStr(s.name);
        if (!v) return nullptr;
        break;
    }
  }
  return v;
}

}  // namespace kiln::capture
