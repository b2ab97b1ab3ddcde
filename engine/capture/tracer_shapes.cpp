// Dynamic shapes while tracing, as Dynamo's ShapeEnv does them: symbols for the dynamic dims
// of input tensors (duck sizing, 0/1 specialization), sizes read from them carrying their
// expression through Python arithmetic, and the guards the trace makes by depending on them.
#include "engine/capture/tracer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::capture {

namespace {

py::TensorObj* fakeTensor(const py::Value& v) {
  return v && v->kind == py::VK::Tensor && py::as<py::TensorObj>(v)->fake ? py::as<py::TensorObj>(v) : nullptr;
}

std::optional<int64_t> smallInt(const py::Value& v) {
  if (!v) return std::nullopt;
  if (v->kind == py::VK::Bool) return py::as<py::BoolObj>(v)->v ? 1 : 0;
  if (v->kind == py::VK::Int && !py::as<py::IntObj>(v)->big) return py::as<py::IntObj>(v)->small();
  return std::nullopt;
}

bool truthOf(const py::Value& v) {
  switch (v->kind) {
    case py::VK::Bool: return py::as<py::BoolObj>(v)->v;
    case py::VK::Int: return py::as<py::IntObj>(v)->big || py::as<py::IntObj>(v)->small() != 0;
    case py::VK::Float: return py::as<py::FloatObj>(v)->v != 0;
    default: return true;
  }
}

// "code  # file:line in function", the place part of Dynamo's verbose guards.
std::string place(const ir::SourceLoc& at) { return at.code + "  # " + at.file + ":" + std::to_string(at.line) + " in " + at.function; }

}  // namespace

std::vector<int64_t> Tracer::markedDims(py::Interpreter&, const py::TensorObj& t, const char* attr) {
  std::vector<int64_t> out;
  py::Value set = t.attrs ? t.attrs->getStr(attr) : nullptr;
  if (!set || set->kind != py::VK::Instance) return out;
  auto native = std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(set)->native);
  if (!native) return out;
  for (const auto& [k, v] : native->items)
    if (auto d = smallInt(k)) out.push_back(*d);
  std::sort(out.begin(), out.end());
  return out;
}

void Tracer::wrapSymbols(py::TensorObj* fake) {
  if (symDims_.count(fake)) return;
  std::vector<int> dims(fake->type.sizes.size(), -1);
  symDims_[fake] = dims;
  auto src = sources_.find(fake);
  if (src == sources_.end() || !dimPlan) return;
  const py::TensorObj* real = nullptr;
  if (auto r = realTensors_.find(fake); r != realTensors_.end()) real = py::as<py::TensorObj>(r->second);
  DimPlan plan = dimPlan(src->second, *fake, real);
  plan.at = here();
  for (size_t d = 0; d < dims.size() && d < plan.kinds.size(); ++d) {
    const int64_t size = fake->type.sizes[d].value;
    if (plan.kinds[d] == DimKind::Static || size < 2) continue;  // 0 and 1 are always specialized
    int s = -1;
    if (plan.kinds[d] == DimKind::Duck)
      if (auto it = duckSymbols_.find(size); it != duckSymbols_.end()) s = it->second;
    if (s < 0) {
      s = static_cast<int>(symbols_.size());
      ShapeSymbol sym;
      sym.hint = size;
      sym.source = src->second;
      sym.dim = static_cast<int>(d);
      sym.firstUse = plan.at;
      sym.marked = std::count(plan.marked.begin(), plan.marked.end(), static_cast<int64_t>(d)) > 0;
      symbols_.push_back(sym);
      if (plan.kinds[d] == DimKind::Duck) duckSymbols_[size] = s;  // only duck sizes are shared
    }
    dims[d] = s;
    sizeUses_.push_back(SizeUse{src->second, static_cast<int>(d), s, shapeOrder_++});
  }
  symDims_[fake] = dims;
  plans_[src->second.text()] = plan;
}

bool Tracer::intSymbol(const Source& src, const py::Value& v) {
  if (!v || v->kind != py::VK::Int || py::as<py::IntObj>(v)->big) return false;
  const int64_t value = py::as<py::IntObj>(v)->small();
  intReads.emplace_back(src, value);
  // (An int attribute stays static: Dynamo's allow_unspec_int_on_nn_module is off.)
  if (!intPlan || src.steps.empty() || src.steps.front().kind != Source::Step::Kind::Local ||
      std::any_of(src.steps.begin(), src.steps.end(), [](const Source::Step& s) { return s.kind == Source::Step::Kind::Attr; }) ||
      !intPlan(src, value))
    return false;
  ShapeSymbol sym;
  sym.hint = value;
  sym.source = src;
  sym.dim = -1;
  sym.isInt = true;
  sym.lower = std::numeric_limits<int64_t>::min();
  sym.firstUse = here();
  const int s = static_cast<int>(symbols_.size());
  symbols_.push_back(sym);
  symValues_[v.get()] = {v, symSymbol(s)};
  sizeUses_.push_back(SizeUse{src, -1, s, shapeOrder_++});
  // A SymInt's source keeps its type (Dynamo's TYPE_MATCH): a float or a bool there fails it.
  guardTypeHere(src, v);
  return true;
}

std::function<SymRange(int)> Tracer::ranges() {
  return [this](int i) {
    const ShapeSymbol& s = symbols_.at(static_cast<size_t>(i));
    const double inf = std::numeric_limits<double>::infinity();
    if (s.value) return SymRange{static_cast<double>(*s.value), static_cast<double>(*s.value)};
    return SymRange{s.lower == std::numeric_limits<int64_t>::min() ? -inf : static_cast<double>(s.lower),
                    s.upper ? static_cast<double>(*s.upper) : inf};
  };
}

SymExpr Tracer::exprOf(const py::Value& v) {
  if (!v) return nullptr;
  auto it = symValues_.find(v.get());
  if (it == symValues_.end()) return nullptr;
  SymExpr e = symSubstitute(it->second.second, [this](int i) -> SymExpr {
    const ShapeSymbol& s = symbols_.at(static_cast<size_t>(i));
    return s.value ? symInt(*s.value) : nullptr;
  });
  return symIsInt(e) ? nullptr : e;
}

SymExpr Tracer::operandExpr(const py::Value& v) {
  if (SymExpr e = exprOf(v)) return e;
  if (auto i = smallInt(v)) return symInt(*i);
  return nullptr;
}

bool Tracer::isSymbolicInt(const py::Value& v) { return v && symValues_.count(v.get()) && exprOf(v) != nullptr; }

bool Tracer::isSymbolic(const py::Value& v) { return isSymbolicInt(v) || dynFloat(v); }

py::Value Tracer::tagged(py::Value v, const SymExpr& e) {
  if (!e || symIsInt(e) || !v) return v;
  py::Value fresh;  // never the shared True/False or an int someone else holds
  if (v->kind == py::VK::Bool) fresh = std::make_shared<py::BoolObj>(py::as<py::BoolObj>(v)->v);
  else if (auto i = smallInt(v); i && v->kind == py::VK::Int) fresh = py::makeInt(*i);
  else if (v->kind == py::VK::Float) fresh = py::makeFloat(py::as<py::FloatObj>(v)->v);
  else return v;
  symValues_[fresh.get()] = {fresh, e};
  return fresh;
}

py::Value Tracer::symbolicSizes(const py::Value& tensor, py::Value sizes) {
  py::TensorObj* t = fakeTensor(tensor);
  if (!t || !sizes || sizes->kind != py::VK::Tuple) return sizes;
  wrapSymbols(t);
  const std::vector<int>& dims = symDims_[t];
  if (std::all_of(dims.begin(), dims.end(), [](int s) { return s < 0; })) return sizes;
  ++symbolicCalls;
  std::vector<py::Value> items = py::as<py::TupleObj>(sizes)->items;
  for (size_t d = 0; d < items.size() && d < dims.size(); ++d)
    if (dims[d] >= 0) items[d] = tagged(items[d], symSymbol(dims[d]));
  return py::makeTorchSize(std::move(items));
}

py::Value Tracer::symbolicSize(const py::Value& tensor, int64_t dim, py::Value size) {
  py::TensorObj* t = fakeTensor(tensor);
  if (!t) return size;
  wrapSymbols(t);
  const std::vector<int>& dims = symDims_[t];
  if (dim < 0) dim += static_cast<int64_t>(dims.size());
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size()) || dims[static_cast<size_t>(dim)] < 0) return size;
  ++symbolicCalls;
  return tagged(size, symSymbol(dims[static_cast<size_t>(dim)]));
}

py::Value Tracer::symbolicNumel(const py::Value& tensor, py::Value numel) {
  py::TensorObj* t = fakeTensor(tensor);
  if (!t) return numel;
  wrapSymbols(t);
  const std::vector<int>& dims = symDims_[t];
  if (std::all_of(dims.begin(), dims.end(), [](int s) { return s < 0; })) return numel;
  ++symbolicCalls;
  SymExpr e = symInt(1);
  for (size_t d = 0; d < dims.size(); ++d) e = symBinary("*", e, dims[d] >= 0 ? symSymbol(dims[d]) : symInt(t->type.sizes[d].value));
  return tagged(numel, e);
}

py::Value Tracer::onSymbolicBinary(const std::string& opIn, const py::Value& a, const py::Value& b, py::Value result) {
  if (dynFloat(a) || dynFloat(b)) return onFloatBinary(a, b, result);  // (tracer_floats.cpp)
  if (!isSymbolic(a) && !isSymbolic(b)) return result;
  ++symbolicCalls;
  std::string op = opIn;
  if (op.size() >= 2 && op.back() == '=') op.pop_back();  // z |= ... is z | ...
  SymExpr ea = operandExpr(a), eb = operandExpr(b);
  if (!ea || !eb) return result;  // a float operand: the value only
  return tagged(result, symBinary(op, ea, eb));
}

py::Value Tracer::onSymbolicUnary(const std::string& op, const py::Value& a, py::Value result) {
  if (dynFloat(a)) {
    ++symbolicCalls;
    if (op == "neg") return onFloatBinary(a, nullptr, result);
    specializeFloat(a);  // int(y), floor(y): the exact value
    return result;
  }
  SymExpr e = exprOf(a);
  if (!e || symIsRelation(e)) return result;
  ++symbolicCalls;
  if (op == "neg") return symIsFloat(e) ? result : tagged(result, symNeg(e));
  if (op == "ceil") return tagged(result, symCeil(e));
  if (op == "floor" || op == "int") return tagged(result, symFloor(e));
  return result;
}

py::Value Tracer::onSymbolicCompare(const std::string& op, const py::Value& a, const py::Value& b, py::Value result) {
  if (dynFloat(a) || dynFloat(b)) return onFloatCompare(op, a, b, result);
  SymExpr ea = operandExpr(a), eb = operandExpr(b);
  if (!ea || !eb) return result;
  if (isSymbolic(a) || isSymbolic(b)) ++symbolicCalls;  // a node even where the ranges decide it
  SymExpr rel = symRelation(op, ea, eb);
  if (!rel || symIsInt(rel)) return result;
  if (symDecide(rel, ranges())) return result;  // the value ranges decide it: a plain bool, no guard
  return tagged(result, rel);
}

void Tracer::onSymbolicTruth(const py::Value& v) {
  if (dynFloat(v)) return onFloatTruth(v);
  SymExpr e = exprOf(v);
  if (!e) return;
  SymExpr rel = symIsRelation(e) ? e : symRelation("!=", e, symInt(0));
  if (!rel) return;
  guardRelation(truthOf(v) ? rel : symNot(rel), here());
}

void Tracer::specialize(const py::Value& v) {
  if (dynFloat(v)) return specializeFloat(v);
  SymExpr e = exprOf(v);
  if (!e) return;
  if (symIsRelation(e)) return onSymbolicTruth(v);
  auto i = smallInt(v);
  if (!i || symIsFloat(e)) return;
  guardRelation(symRelation("==", e, symInt(*i)), here());
}

void Tracer::specializeSymbol(int symbol, int64_t value) {
  ShapeSymbol& s = symbols_.at(static_cast<size_t>(symbol));
  s.value = value;
  if (s.marked && constraintViolation.empty()) {
    const std::string name = s.source.text() + ".size()[" + std::to_string(s.dim) + "]";
    constraintViolation = "Constraints violated (" + name + ")! For more information, run with TORCH_LOGS=\"+dynamic\".\n  - You marked " +
                          name + " as dynamic but your code specialized it to be a constant (" + std::to_string(value) +
                          "). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, "
                          "replace it with either Dim.STATIC or Dim.AUTO.";
  }
}

void Tracer::guardRelation(SymExpr rel, const ir::SourceLoc& at) {
  if (!rel) return;
  rel = symSubstitute(rel, [this](int i) -> SymExpr {
    const ShapeSymbol& s = symbols_.at(static_cast<size_t>(i));
    return s.value ? symInt(*s.value) : nullptr;
  });
  if (symIsInt(rel) || symDecide(rel, ranges())) return;
  // A relation of one symbol bounds its range, or gives its value (Dynamo's _refine_ranges and
  // replacements); its guard is then the range guard, or the static size in TENSOR_MATCH.
  if (auto sol = symSolve(rel)) {
    ShapeSymbol& s = symbols_.at(static_cast<size_t>(sol->symbol));
    if (sol->value) return specializeSymbol(sol->symbol, *sol->value);
    if (sol->lower && *sol->lower > s.lower) {
      s.lower = *sol->lower;
      s.lowerAt = at;
      s.lowerRefined = true;
    }
    if (sol->upper && (!s.upper || *sol->upper < *s.upper)) {
      s.upper = *sol->upper;
      s.upperAt = at;
    }
    if (s.upper && *s.upper <= s.lower) specializeSymbol(sol->symbol, s.lower);
    return;
  }
  for (const auto& g : shapeGuards_)
    if (symEqual(g.relation, rel)) return;
  shapeGuards_.push_back(PendingShapeGuard{rel, at});
}

void Tracer::onTensorIndex(const py::Value& tensor, const py::Value& index) {
  py::TensorObj* t = fakeTensor(tensor);
  if (!t) return;
  auto found = symDims_.find(t);
  if (found == symDims_.end()) return;
  const std::vector<int> dims = found->second;
  if (std::all_of(dims.begin(), dims.end(), [](int s) { return s < 0; })) return;
  std::vector<py::Value> items =
      index->kind == py::VK::Tuple && !py::isTorchSize(index) ? py::as<py::TupleObj>(index)->items : std::vector<py::Value>{index};
  size_t consumed = 0;
  for (const auto& i : items) {
    if (i->kind == py::VK::Int || i->kind == py::VK::Slice) ++consumed;
    else if (i->kind != py::VK::None && i->kind != py::VK::Ellipsis) return;  // tensor / list indices: not followed
  }
  size_t dim = 0;
  for (const auto& i : items) {
    if (i->kind == py::VK::None) continue;
    if (i->kind == py::VK::Ellipsis) {
      dim += dims.size() > consumed ? dims.size() - consumed : 0;
      continue;
    }
    if (dim >= dims.size()) return;
    if (i->kind == py::VK::Slice && dims[dim] >= 0) {
      // Where a constant bound falls against a symbolic size decides the slice's length
      // (fake_impls' _compute_slice_index: `5 <= s0` for x[:5]).
      auto* sl = py::as<py::SliceObj>(i);
      const int64_t size = t->type.sizes[dim].value;
      for (const py::Value& bound : {sl->start, sl->stop}) {
        auto c = bound && !isSymbolic(bound) ? smallInt(bound) : std::nullopt;
        if (!c) continue;
        int64_t k = *c >= 0 ? *c : -*c;
        SymExpr rel = symRelation("<=", symInt(k), symSymbol(dims[dim]));
        guardRelation(k <= size ? rel : symNot(rel), here());
      }
    }
    ++dim;
  }
}

void Tracer::onSymbolicCall(const std::string& target, const std::vector<py::Value>& args,
                            const std::vector<std::pair<std::string, py::Value>>& kwargs) {
  const std::string name = fxBaseName(target);
  auto flat = [](const py::Value& v) {
    if (v && (v->kind == py::VK::Tuple || v->kind == py::VK::List))
      return v->kind == py::VK::Tuple ? py::as<py::TupleObj>(v)->items : py::as<py::ListObj>(v)->items;
    return std::vector<py::Value>{v};
  };
  static const std::set<std::string> kCreation = {"zeros", "ones",      "empty",    "full",      "rand",
                                                  "randn", "new_zeros", "new_ones", "new_empty", "new_full"};
  if (kCreation.count(name)) {
    // The sizes: the varargs (or one sequence); full/new_*: the first size argument only.
    const bool method = name.rfind("new_", 0) == 0;
    std::vector<py::Value> sizes;
    size_t first = method ? 1 : 0;
    if (first < args.size()) {
      if (name == "full" || name == "new_full" || args[first]->kind == py::VK::Tuple || args[first]->kind == py::VK::List)
        sizes = flat(args[first]);
      else sizes.assign(args.begin() + static_cast<long>(first), args.end());
    }
    for (const auto& [k, v] : kwargs)
      if (k == "size") sizes = flat(v);
    SymExpr numel = symInt(1);
    int64_t value = 1;
    bool symbolic = false;
    for (const auto& s : sizes) {
      SymExpr e = operandExpr(s);
      auto i = smallInt(s);
      if (!e || !i || s->kind == py::VK::Bool) return;
      symbolic = symbolic || isSymbolic(s);
      numel = symBinary("*", numel, e);
      value *= *i;
    }
    if (!symbolic || !numel) return;
    for (int s : symSymbols(numel))
      if (symbols_.at(static_cast<size_t>(s)).isInt) return;
    // A tensor with a symbolic element count: functionalization asks whether it is empty and
    // whether it has fewer than two elements (each a guard unless the ranges decide it).
    SymExpr zero = symRelation("==", numel, symInt(0)), small = symRelation("<", numel, symInt(2));
    guardRelation(value == 0 ? zero : symNot(zero), here());
    guardRelation(value < 2 ? small : symNot(small), here());
    return;
  }
  // An int argument's symbol passed to an op as anything but an operand of arithmetic or a size
  // (a dim, an index, a count) must be a constant: it is specialized.
  static const std::set<std::string> kSymbolicArgs = {"add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "pow", "rsub",
                                                      "iadd", "isub", "imul", "itruediv", "truediv", "floordiv", "mod", "view", "reshape",
                                                      "expand", "arange", "zeros", "ones", "empty", "full", "new_zeros", "new_ones",
                                                      "new_empty", "new_full", "rand", "randn", "Size",
                                                      // a Scalar operand of a comparison or a clamp (`i - j < window`)
                                                      "lt", "le", "gt", "ge", "eq", "ne", "clamp", "clamp_min", "clamp_max", "masked_fill"};
  if (!kSymbolicArgs.count(name)) {
    auto intSymbolic = [&](const py::Value& v) {
      SymExpr e = exprOf(v);
      if (!e) return false;
      for (int s : symSymbols(e))
        if (symbols_.at(static_cast<size_t>(s)).isInt) return true;
      return false;
    };
    // x[i] = v with one int index keeps i symbolic (Dynamo selects at a SymInt; the entry
    // traces each value again), while the ints of a tuple index are specialized (`(i // 2) == 2`).
    const bool setitemIndex = name == "setitem" && args.size() == 3 && args[1]->kind != py::VK::Tuple;
    for (size_t k = 0; k < args.size(); ++k)
      for (const auto& v : flat(args[k]))
        if (intSymbolic(v) && !(setitemIndex && k == 1)) specialize(v);
    for (const auto& [k, a] : kwargs)
      for (const auto& v : flat(a))
        if (intSymbolic(v)) specialize(v);
  }
  if (name.rfind("conv", 0) == 0 || name.rfind("conv_transpose", 0) == 0) {
    // Inductor's convolution needs its stride, padding and dilation as constants.
    for (size_t i = 3; i < args.size(); ++i)
      for (const auto& v : flat(args[i])) specialize(v);
    for (const auto& [k, v] : kwargs)
      if (k == "stride" || k == "padding" || k == "dilation" || k == "output_padding")
        for (const auto& x : flat(v)) specialize(x);
  }
}

std::vector<SymExpr> Tracer::dimExprsOf(py::TensorObj* t) {
  // (An in-place resize changes a tensor's rank under its entry: such an entry is not used.)
  if (auto it = dimExprs_.find(t); it != dimExprs_.end() && it->second.second.size() == t->type.sizes.size()) return it->second.second;
  std::vector<SymExpr> out(t->type.sizes.size());
  if (auto it = symDims_.find(t); it != symDims_.end())
    for (size_t d = 0; d < out.size() && d < it->second.size(); ++d)
      if (it->second[d] >= 0) out[d] = symSymbol(it->second[d]);
  return out;
}

void Tracer::propagateShapes(const std::string& target, const std::vector<py::Value>& args, const py::Value& result) {
  py::TensorObj* r = fakeTensor(result);
  py::TensorObj* in = nullptr;
  for (const auto& a : args)
    if ((in = fakeTensor(a))) break;
  if (!r || !in) return;
  std::vector<SymExpr> ie = dimExprsOf(in);
  if (std::all_of(ie.begin(), ie.end(), [](const SymExpr& e) { return !e; })) return;
  const auto& is = in->type.sizes;
  const auto& rs = r->type.sizes;
  const std::string name = fxBaseName(target);
  auto item = [&](size_t i, size_t k, int64_t dflt) -> std::optional<int64_t> {
    if (i >= args.size() || py::isNone(args[i])) return dflt;
    const py::Value& v = args[i];
    if (v->kind == py::VK::Tuple || v->kind == py::VK::List) {
      auto items = in_.iterate(v);
      if (items.empty()) return dflt;
      return smallInt(items[std::min(k, items.size() - 1)]);
    }
    return smallInt(v);
  };
  // Inductor lowers an adaptive pooling with its input's spatial sizes as constants.
  if (name.rfind("adaptive_", 0) == 0 && name.find("pool") != std::string::npos) {
    const size_t spatial = name.back() == '3' ? 3 : name.back() == '1' ? 1 : 2;
    for (size_t d = is.size() >= spatial ? is.size() - spatial : 0; d < is.size(); ++d)
      if (ie[d]) guardRelation(symRelation("==", ie[d], symInt(is[d].value)), here());
    return;
  }
  std::vector<SymExpr> out(rs.size());
  const bool conv = name == "conv1d" || name == "conv2d" || name == "conv3d";
  const bool pool = name == "max_pool1d" || name == "max_pool2d" || name == "max_pool3d" || name == "avg_pool1d" || name == "avg_pool2d" ||
                    name == "avg_pool3d";
  if ((conv || pool) && rs.size() == is.size() && rs.size() >= 3) {
    py::TensorObj* w = conv && args.size() > 1 ? fakeTensor(args[1]) : nullptr;
    if (conv && !w) return;
    if (rs[0].value == is[0].value) out[0] = ie[0];
    for (size_t j = 0; j + 2 < rs.size(); ++j) {
      const size_t d = j + 2;
      auto k = conv ? std::optional<int64_t>(w->type.sizes.size() > d ? w->type.sizes[d].value : 0) : item(1, j, 1);
      auto st = conv ? item(3, j, 1) : item(2, j, k ? *k : 1);
      auto p = conv ? item(4, j, 0) : item(3, j, 0);
      auto dl = conv ? item(5, j, 1) : (name.rfind("max_", 0) == 0 ? item(4, j, 1) : std::optional<int64_t>(1));
      if (!ie[d] || !k || !st || !p || !dl || *st <= 0) continue;
      // (size + 2p - dilation*(k-1) - 1) // stride + 1, checked against the traced size.
      SymExpr e = symBinary("+", symBinary("//", symBinary("+", ie[d], symInt(2 * *p - *dl * (*k - 1) - 1)), symInt(*st)), symInt(1));
      int64_t hinted = (is[d].value + 2 * *p - *dl * (*k - 1) - 1) / *st + 1;
      if (e && hinted == rs[d].value) out[d] = e;
    }
  } else if (rs.size() == is.size()) {
    for (size_t d = 0; d < rs.size(); ++d)
      if (rs[d].value == is[d].value) out[d] = ie[d];
  }
  if (std::any_of(out.begin(), out.end(), [](const SymExpr& e) { return e != nullptr; })) dimExprs_[r] = {result, out};
}

bool Tracer::produceShapeGuards(std::vector<Guard>& guards) {
  auto free = [&](int s) { return s >= 0 && !symbols_.at(static_cast<size_t>(s)).value; };
  std::map<std::string, std::vector<std::pair<int, int>>> bySource;  // source -> (dim, symbol)
  for (const auto& u : sizeUses_) bySource[u.source.text()].push_back({u.dim, u.symbol});
  std::map<int, std::string> names;  // symbol -> s<N>, numbered in guard order (the size array kernels read)
  bool dynamic = false;
  // The guards are moved into `out` (the entry's are some 15,000 at 200 layers: copies of them
  // were the capture's largest transient).
  std::vector<Guard> out, shapePhase;
  out.reserve(guards.size());
  for (auto& g : guards) {
    if (g.shapePhase) {
      shapePhase.push_back(std::move(g));
      continue;
    }
    if (g.kind != Guard::Kind::TensorMatch) {
      out.push_back(std::move(g));
      continue;
    }
    if (auto it = bySource.find(g.source.text()); it != bySource.end()) {
      bool symbolic = false;
      for (const auto& [d, s] : it->second) {
        if (!free(s) || static_cast<size_t>(d) >= g.type.sizes.size()) continue;
        const std::string& name = names.emplace(s, "s" + std::to_string(names.size())).first->second;
        int64_t v = g.type.sizes[static_cast<size_t>(d)].value;
        g.type.sizes[static_cast<size_t>(d)] = ir::Dim::sym(name);
        g.type.sizes[static_cast<size_t>(d)].value = v;
        symbolic = true;
      }
      if (symbolic) {
        g.type.strides.clear();
        dynamic = true;
      }
    }
    auto plan = plans_.find(g.source.text());
    const bool marked = plan != plans_.end() && !plan->second.marked.empty();
    const Source markedSource = marked ? g.source : Source{};
    out.push_back(std::move(g));
    if (marked) {
      Guard m;
      m.kind = Guard::Kind::DynamicIndices;
      m.source = markedSource;
      m.marked = plan->second.marked;
      m.where = plan->second.at;
      m.line = m.where.line;
      out.push_back(std::move(m));
    }
  }

  auto sizeName = [](const Source& s, int dim) { return std::make_pair(s, dim); };
  // 1. Sizes equal to an earlier size (duck sizing), and the CONSTANT_MATCHes of SymInt
  //    arguments, in the order the trace first read them.
  std::vector<std::pair<size_t, Guard>> first;
  for (const auto& u : sizeUses_) {
    const ShapeSymbol& s = symbols_.at(static_cast<size_t>(u.symbol));
    if (s.isInt && s.value) {
      // An int read as a symbol whose value the trace then needed: `n == 9`.
      Guard g;
      g.kind = Guard::Kind::Shape;
      g.source = u.source;
      g.sizeSources = {sizeName(u.source, -1)};
      g.expr = symEqAsWritten(symSymbol(0), symInt(*s.value));
      g.where = s.firstUse;
      g.line = g.where.line;
      g.comment = place(s.firstUse);
      first.emplace_back(u.order, std::move(g));
      continue;
    }
    if (!free(u.symbol)) continue;
    if (s.source == u.source && s.dim == u.dim) continue;
    Guard g;
    g.kind = Guard::Kind::Shape;
    g.source = u.source;
    g.sizeSources = {sizeName(u.source, u.dim), sizeName(s.source, s.dim)};
    g.expr = symEqAsWritten(symSymbol(0), symSymbol(1));
    g.comment = "duck sizing added this equality because these variables had the same size " + std::to_string(s.hint) +
                " (to avoid this specialization, set torch.fx.experimental._config.use_duck_shape = False)";
    g.where = s.firstUse;
    g.line = g.where.line;
    first.emplace_back(u.order, std::move(g));
  }
  for (auto& g : shapePhase) first.emplace_back(shapePhaseOrder_[g.source.text()], std::move(g));
  std::stable_sort(first.begin(), first.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, g] : first) out.push_back(std::move(g));

  // 2. The relations the trace guarded, with specialized symbols put in, unless the final
  //    value ranges imply them.
  std::vector<SymExpr> issued;
  for (const auto& p : shapeGuards_) {
    SymExpr rel = symSubstitute(p.relation, [this](int i) -> SymExpr {
      const ShapeSymbol& s = symbols_.at(static_cast<size_t>(i));
      return s.value ? symInt(*s.value) : nullptr;
    });
    if (symIsInt(rel) || symDecide(rel, ranges())) continue;
    if (std::any_of(issued.begin(), issued.end(), [&](const SymExpr& e) { return symEqual(e, rel); })) continue;
    issued.push_back(rel);
    Guard g;
    g.kind = Guard::Kind::Shape;
    std::vector<int> syms = symSymbols(rel);
    std::map<int, int> local;
    for (int s : syms) {
      local[s] = static_cast<int>(g.sizeSources.size());
      g.sizeSources.push_back(sizeName(symbols_.at(static_cast<size_t>(s)).source, symbols_.at(static_cast<size_t>(s)).dim));
    }
    g.expr = symSubstitute(rel, [&](int i) -> SymExpr { return symSymbol(local.at(i)); });
    g.source = g.sizeSources.empty() ? Source{} : g.sizeSources.front().first;
    g.where = p.at;
    g.line = p.at.line;
    g.comment = place(p.at);
    out.push_back(std::move(g));
  }

  // 3. Each symbol's value range: 2 <= s (0/1 specialization), or the bounds the trace refined.
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const ShapeSymbol& s = symbols_[i];
    if (s.value) continue;
    if (s.isInt) {
      dynamic = true;                                                            // the entry serves other values of the int
      if (s.lower == std::numeric_limits<int64_t>::min() && !s.upper) continue;  // unbounded: no range guard
    }
    Guard g;
    g.kind = Guard::Kind::Shape;
    g.range = true;
    g.source = s.source;
    g.sizeSources = {sizeName(s.source, s.dim)};
    g.lower = s.lower;
    g.upper = s.upper;
    g.where = s.lowerRefined ? s.lowerAt : s.firstUse;
    g.line = g.where.line;
    std::string lowerWhy = s.lowerRefined
                               ? place(s.lowerAt)
                               : place(s.firstUse) +
                                     " (user code shown is first use of this value--the guard itself is not due user code but due "
                                     "to 0/1 specialization in the framework; to avoid specialization try "
                                     "torch._dynamo.decorators.mark_unbacked(tensor, dim))";
    g.comment = s.upper ? lowerWhy + " and " + place(s.upperAt) : lowerWhy;
    out.push_back(std::move(g));
  }
  guards = std::move(out);
  return dynamic;
}

}  // namespace kiln::capture
