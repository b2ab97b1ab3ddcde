// Automatic dynamic floats, as Dynamo 2.11 wraps a Python float (VariableBuilder.wrap_symfloat,
// specialize_float=False): the first compile specializes it (CONSTANT_MATCH, `lr == 0.1`); once
// its value, or the kind of value at that source, changed between compiles, the float is a
// SymFloat: the entry is guarded on its type only (`___check_type_id(lr, ...)`) and on what the
// trace decided on it (`___as_tensor(y).item() != 5.0`, `== 1.5` where it needed the exact
// value), and holds for every other float. Kiln runs such an entry by tracing each value again
// concretely (the entry is dynamic, as for symbolic sizes), so the graph it runs always has the
// value of the call; the dynamic entry only decides which calls are recompiles.
#include "engine/capture/tracer.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kiln::capture {

namespace {

std::optional<double> numberOf(const py::Value& v) {
  if (!v) return std::nullopt;
  if (v->kind == py::VK::Float) return py::as<py::FloatObj>(v)->v;
  if (v->kind == py::VK::Bool) return py::as<py::BoolObj>(v)->v ? 1.0 : 0.0;
  if (v->kind == py::VK::Int && !py::as<py::IntObj>(v)->big) return static_cast<double>(py::as<py::IntObj>(v)->small());
  return std::nullopt;
}

// Any float read through a source: arguments, closure cells, globals, attributes (an
// nn.Module's too: `L['block']._modules['norm'].eps` is a SymFloat in Dynamo), items; not a
// constant of the trace's own or a class attribute read through the class's dict.
bool unspecializable(const Source& src) {
  if (src.steps.empty()) return false;
  return std::none_of(src.steps.begin(), src.steps.end(), [](const Source::Step& s) {
    return s.kind == Source::Step::Kind::Const || s.kind == Source::Step::Kind::ClassDictItem;
  });
}

std::string flipped(const std::string& op) {  // c OP y  ->  y OP' c
  if (op == "<") return ">";
  if (op == ">") return "<";
  if (op == "<=") return ">=";
  if (op == ">=") return "<=";
  return op;
}

std::string negated(const std::string& op) {
  if (op == "==") return "!=";
  if (op == "!=") return "==";
  if (op == "<") return ">=";
  if (op == ">=") return "<";
  if (op == ">") return "<=";
  return ">";  // <=
}

bool truth(const py::Value& v) {
  if (v->kind == py::VK::Bool) return py::as<py::BoolObj>(v)->v;
  auto d = numberOf(v);
  return d && *d != 0;
}

}  // namespace

const Tracer::DynFloat* Tracer::dynFloat(const py::Value& v) const {
  if (!v || dynFloats_.empty()) return nullptr;
  auto it = dynFloats_.find(v.get());
  return it == dynFloats_.end() ? nullptr : &it->second;
}

bool Tracer::floatSymbol(const Source& src, const py::Value& v) {
  if (!v || v->kind != py::VK::Float) return false;
  const double d = py::as<py::FloatObj>(v)->v;
  floatReads.emplace_back(src, d);
  // NaN and inf are specialized (Dynamo's shape guards cannot model them).
  if (!floatPlan || !unspecializable(src) || std::isnan(d) || std::isinf(d) || !floatPlan(src, d)) return false;
  guardTypeHere(src, v);
  ++symbolicCalls;  // Dynamo reads it from its graph input: `item = l_y_.item()`, a call
  dynFloats_[v.get()] = DynFloat{v, {src}, true};
  dynFloatSources_.emplace_back(src, d);
  return true;
}

void Tracer::guardTypeHere(const Source& src, const py::Value& v) {
  Guard g;
  g.kind = Guard::Kind::TypeMatch;
  g.source = src;
  g.constant = typeKey(in_, v);
  g.where = here();
  g.line = g.where.line;
  guards.push_back(std::move(g));
}

void Tracer::guardFloat(const Source& src, const std::string& op, double c) {
  Guard g;
  g.kind = Guard::Kind::FloatValue;
  g.source = src;
  g.name = op;
  g.constant = py::makeFloat(c);
  g.shapePhase = true;
  g.where = here();
  g.line = g.where.line;
  addGuard(std::move(g), "float " + src.text() + " " + op + " " + std::to_string(c));
}

void Tracer::specializeFloat(const py::Value& v) {
  const DynFloat* f = dynFloat(v);
  if (!f) return;
  for (const auto& s : f->sources)
    for (const auto& [src, value] : dynFloatSources_)
      if (src == s) guardFloat(src, "==", value);
}

void Tracer::onFloatEscapes(const py::Value& v) {
  if (const DynFloat* f = dynFloat(v); f && !f->direct) specializeFloat(v);
}

void Tracer::finishDynamicFloats() {
  for (const auto& [src, value] : dynFloatSources_) guardFloat(src, "self", 0.0);
}

py::Value Tracer::onFloatBinary(const py::Value& a, const py::Value& b, py::Value result) {
  ++symbolicCalls;
  auto d = numberOf(result);
  if (!d || result->kind == py::VK::Bool) return result;
  DynFloat f;
  f.value = result->kind == py::VK::Float ? py::makeFloat(*d) : py::makeInt(static_cast<int64_t>(*d));
  f.direct = false;
  for (const py::Value& x : {a, b})
    if (const DynFloat* o = dynFloat(x)) f.sources.insert(f.sources.end(), o->sources.begin(), o->sources.end());
  py::Value fresh = f.value;
  dynFloats_[fresh.get()] = std::move(f);
  return fresh;
}

py::Value Tracer::onFloatCompare(const std::string& op, const py::Value& a, const py::Value& b, py::Value result) {
  const DynFloat* fa = dynFloat(a);
  const DynFloat* fb = dynFloat(b);
  ++symbolicCalls;
  // One float the function was given against a constant: the outcome is guarded as a relation.
  // Anything else (two of them, a value computed from one, a symbolic size) needs their values.
  if ((fa && fb) || (fa && !fa->direct) || (fb && !fb->direct) || isSymbolicInt(fa ? b : a)) {
    specializeFloat(a);
    specializeFloat(b);
    return result;
  }
  auto c = numberOf(fa ? b : a);
  if (!c) return result;
  std::string rel = fa ? op : flipped(op);
  guardFloat((fa ? fa : fb)->sources.front(), truth(result) ? rel : negated(rel), *c);
  return result;
}

void Tracer::onFloatTruth(const py::Value& v) {
  const DynFloat* f = dynFloat(v);
  if (!f) return;
  if (!f->direct) return specializeFloat(v);
  guardFloat(f->sources.front(), truth(v) ? "!=" : "==", 0.0);
}

}  // namespace kiln::capture
