#include "engine/capture/tracer.h"
#include "engine/capture/global_state.h"
#include "engine/capture/resume.h"

#include "engine/autograd/grad_mode.h"
#include "engine/capture/data_dependent.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kiln::capture {

namespace {
// A lifted nn.Parameter: its TENSOR_MATCH (the last one lift made for `src`) checks that it stays
// one (a plain tensor there is another type) and says so when its sizes fail.
void markParameter(std::vector<Guard>& guards, const Source& src) {
  for (auto g = guards.rbegin(); g != guards.rend(); ++g)
    if (g->kind == Guard::Kind::TensorMatch && g->source == src) {
      g->parameter = true;
      return;
    }
}
}  // namespace

namespace {
bool isConstant(const py::Value& v) {
  switch (v->kind) {
    case py::VK::None:
    case py::VK::Bool:
    case py::VK::Int:
    case py::VK::Float:
    case py::VK::Str: return true;
    default: return false;
  }
}
py::TensorObj* asTensor(const py::Value& v) { return v && v->kind == py::VK::Tensor ? py::as<py::TensorObj>(v) : nullptr; }

bool isSetInstance(const py::Value& v, bool frozenToo) {
  if (!v || v->kind != py::VK::Instance) return false;
  const std::string& n = py::as<py::InstanceObj>(v)->cls->name;
  return n == "set" || (frozenToo && n == "frozenset");
}

// Dynamo's ConstantVariable.is_literal: None, bools, numbers and strings, and tuples, lists,
// sets and frozensets of literals.
bool isLiteral(const py::Value& v, int depth = 0) {
  if (!v || depth > 8) return false;
  if (isConstant(v)) return true;
  if (v->kind == py::VK::Tuple || v->kind == py::VK::List) {
    const auto& items = v->kind == py::VK::Tuple ? py::as<py::TupleObj>(v)->items : py::as<py::ListObj>(v)->items;
    return std::all_of(items.begin(), items.end(), [&](const py::Value& x) { return isLiteral(x, depth + 1); });
  }
  if (isSetInstance(v, true)) {
    auto members = std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(v)->native);
    return members &&
           std::all_of(members->items.begin(), members->items.end(), [&](const auto& kv) { return isLiteral(kv.first, depth + 1); });
  }
  return false;
}
}  // namespace

// A set or frozenset of literals is a Python constant to Dynamo (its builder wraps it with
// wrap_literal, as a ConstantVariable): guarded by value, `G['SEEN'] == {1, 2}` (EQUALS_MATCH),
// not by its length and members. The guard holds a copy: the program may change the set.
bool Tracer::guardLiteralSet(const Source& src, const py::Value& v, const ir::SourceLoc* at) {
  if (!isSetInstance(v, true) || !isLiteral(v)) return false;
  std::vector<py::Value> members;
  for (const auto& kv : std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(v)->native)->items) members.push_back(kv.first);
  guardConstant(src, in_.makeSet(std::move(members), !isSetInstance(v, false)), false, at);
  return true;
}

Tracer::Tracer(py::Interpreter& in, std::string fileBaseName, std::shared_ptr<py::ModuleObj> globals)
    : in_(in), file_(std::move(fileBaseName)), globals_(std::move(globals)) {}

py::Value Tracer::bindArg(const std::string& name, const py::Value& v) {
  argValues[name] = v;
  Source src = Source::local(name);
  if (py::TensorObj* t = asTensor(v); t && !t->fake) {
    if (auto seen = liftedBy_.find(v.get()); seen != liftedBy_.end()) {
      // The same tensor passed twice is one graph input; the entry holds while it stays so.
      Guard g;
      g.kind = Guard::Kind::DuplicateInput;
      g.source = src;
      g.other = sources_.at(v.get());
      guards.push_back(std::move(g));
      return seen->second;
    }
    auto fake = std::make_shared<py::TensorObj>(t->t.type(), -1);
    // Attributes the program set on the tensor (x.scale_hint = 0.5) are seen while tracing,
    // on a copy: writes during the trace are side effects, replayed after the graph.
    if (t->attrs) {
      fake->attrs = std::make_shared<py::DictObj>();
      fake->attrs->items = t->attrs->items;
    }
    lazy_[fake.get()] = t->t;
    noteSource(fake, src, true);
    noteSource(v, src, true);
    liftedBy_[v.get()] = fake;
    realTensors_[fake.get()] = v;
    return fake;
  }
  // A function or builtin passed in (f(x, torch.sin)) is the code the graph was traced
  // through: guarded by identity, as when it is read from anywhere else.
  if (v->kind == py::VK::Function || v->kind == py::VK::Builtin || v->kind == py::VK::Class) return readThrough(src, v, false);
  // Python constants are guarded where they are first read (onLocalRead), as Dynamo does.
  if (!isConstant(v)) noteSource(v, src);
  return v;
}

py::Value Tracer::bindVarArgs(const std::string& name, const py::Value& container) {
  argValues[name] = container;
  const Source src = Source::local(name);
  noteSource(container, src);
  // Items the trace reads: tensors enter the graph through their item source; constants are
  // guarded by value at once (the callee that takes them reads them as its own locals).
  auto item = [&](const Source& s, const py::Value& v) -> py::Value {
    if (asTensor(v)) return readThrough(s, v, false);
    if (isConstant(v)) {
      guardConstant(s, v, false, nullptr);
      return v;
    }
    return nullptr;
  };
  Guard g;
  g.kind = Guard::Kind::SequenceLength;
  g.source = src;
  g.constant = typeKey(in_, container);
  g.where = here();
  g.line = g.where.line;
  if (container->kind == py::VK::Tuple) {
    const auto& items = py::as<py::TupleObj>(container)->items;
    g.length = static_cast<int64_t>(items.size());
    addGuard(std::move(g), "len " + src.text());
    std::vector<py::Value> out;
    for (size_t i = 0; i < items.size(); ++i) {
      py::Value v = item(src.index(i), items[i]);
      if (!v) return nullptr;
      out.push_back(v);
    }
    return py::makeTuple(std::move(out));
  }
  if (container->kind != py::VK::Dict) return nullptr;
  const auto& items = py::as<py::DictObj>(container)->items;
  g.length = static_cast<int64_t>(items.size());
  addGuard(std::move(g), "len " + src.text());
  onDictKeys(container);
  auto out = std::make_shared<py::DictObj>();
  for (const auto& [k, v] : items) {
    if (k->kind != py::VK::Str) return nullptr;
    py::Value x = item(src.itemKey(k, keyRepr(k)), v);
    if (!x) return nullptr;
    out->setStr(py::as<py::StrObj>(k)->v, x);
  }
  return out;
}

void Tracer::onLocalRead(const std::string& name, const py::Value& v, const ir::SourceLoc* at) {
  // An input tensor's sizes become symbols when the function first reads it, as Dynamo wraps it.
  if (py::TensorObj* t = asTensor(v); t && t->fake) wrapSymbols(t);
  if (isSetInstance(v, true) && isLiteral(v)) {
    for (const auto& [arg, value] : argValues)
      if (value == v) {
        guardLiteralSet(Source::local(arg), v, at);
        return;
      }
    return;
  }
  if (!isConstant(v)) return;
  // The value may have been copied to another local (s = ___stack0): guard the argument it is.
  auto it = argValues.find(name);
  if (it != argValues.end() && it->second == v) {
    guardConstant(Source::local(name), v, false, at);
    return;
  }
  for (const auto& [arg, value] : argValues)
    if (value == v) {
      guardConstant(Source::local(arg), v, false, at);
      return;
    }
}

ir::SourceLoc Tracer::here() const {
  py::TraceFrame f = in_.currentLocation();
  ir::SourceLoc l;
  l.file = f.file == in_.file() ? file_ : f.file.substr(f.file.find_last_of('/') + 1);
  l.line = f.span.line;
  l.col = f.span.col;
  l.function = f.function;
  auto src = in_.sources().find(f.file);
  if (src != in_.sources().end()) l.code = codeLine(src->second, f.span.line);
  return l;
}

std::string Tracer::codeLine(const std::string& source, int line) const {
  std::vector<size_t>& starts = lineStarts_[{source.data(), source.size()}];
  if (starts.empty()) {
    starts.push_back(0);
    for (size_t p = 0; p < source.size(); ++p)
      if (source[p] == '\n') starts.push_back(p + 1);
  }
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return "";
  // The line found through the index, then py::sourceLine's own rule for its text.
  const size_t b = starts[static_cast<size_t>(line) - 1];
  const size_t e = source.find('\n', b);
  return py::sourceLine(source.substr(b, e == std::string::npos ? std::string::npos : e - b), 1, true);
}

void Tracer::guardConstant(const Source& src, const py::Value& v, bool moduleAttr, const ir::SourceLoc* at) {
  if (!guarded_.insert(src.text()).second) return;
  if (intSymbol(src, v)) return;    // an int whose value changed between compiles: a symbol
  if (floatSymbol(src, v)) return;  // a float that changed: dynamic (tracer_floats.cpp)
  Guard g;
  g.kind = Guard::Kind::ConstantMatch;
  g.source = src;
  g.constant = v;
  g.where = at ? *at : here();
  g.line = g.where.line;
  g.moduleIntAttr = moduleAttr && v->kind == py::VK::Int;
  // Under dynamic=True an int argument is a SymInt to Dynamo: its value is a shape guard.
  if (dynamicInts && v->kind == py::VK::Int && !src.steps.empty() && src.steps.front().kind == Source::Step::Kind::Local &&
      std::none_of(src.steps.begin(), src.steps.end(), [](const Source::Step& s) { return s.kind == Source::Step::Kind::Attr; })) {
    g.shapePhase = true;
    shapePhaseOrder_[src.text()] = shapeOrder_++;
  }
  guards.push_back(std::move(g));
}

int Tracer::realize(py::TensorObj* t) {
  auto it = lazy_.find(t);
  if (it == lazy_.end()) return t->node;
  wrapSymbols(t);
  const Source& src = sources_.at(t);
  ir::Node n;
  n.kind = ir::NodeKind::Placeholder;
  n.target = src.placeholderName();
  n.name = n.target;
  std::transform(n.name.begin(), n.name.end(), n.name.begin(), [](unsigned char c) { return std::tolower(c); });
  n.types.push_back(it->second.type());
  // Inputs go after the existing inputs, before any computation: appended here and moved there
  // by placeInputsFirst(), once. Inserting each at its place moved every node after it (a 200-layer
  // model's parameters are realized one by one through a 17,000-node trace) and spoiled the
  // graph's id index for all of them. finishGraph calls placeInputsFirst() before anything reads
  // the order.
  n.id = graph.nextId();
  graph.reserveIds(n.id + 1);
  n.name = graph.uniqueName(n.name);
  graph.add(n);
  named_.insert(n.id);
  t->node = n.id;
  realized_[n.id] = {t, it->second};
  inputs.push_back(GraphInput{src, n.id});
  Guard g;
  g.kind = Guard::Kind::TensorMatch;
  g.source = src;
  g.type = it->second.type();
  g.line = in_.currentLocation().span.line;
  if (auto plan = plans_.find(src.text()); plan != plans_.end()) g.parameter = plan->second.parameter;
  // (Its Python type is part of TENSOR_MATCH: an nn.Parameter there fails for a plain tensor.)
  if (auto r = realTensors_.find(t); r != realTensors_.end()) g.parameter = py::as<py::TensorObj>(r->second)->parameter;
  guards.push_back(std::move(g));
  lazy_.erase(it);
  return n.id;
}

void Tracer::guardMetadata(py::TensorObj* t) {
  // x.shape, x.dtype, x.size() of an input that has not entered the graph: the trace now
  // depends on its metadata, so the entry is guarded on it as Dynamo guards every tensor it
  // wraps, used in the graph or not (a size printed after a break must not be a stale one).
  // The guard is placed where the tensor enters the graph, or at the end (finish).
  auto it = lazy_.find(t);
  if (it == lazy_.end()) return;
  wrapSymbols(t);
  metaRead_.emplace(sources_.at(t).text(), std::make_pair(sources_.at(t), it->second.type()));
}

int Tracer::nodeOf(const py::Value& v) {
  py::TensorObj* t = asTensor(v);
  if (!t || !t->fake) return -1;
  return t->node >= 0 ? t->node : realize(t);
}

bool Tracer::isInput(int node) const {
  for (const auto& i : inputs)
    if (i.node == node) return true;
  return false;
}

const Source* Tracer::inputSource(int node) const {
  for (const auto& i : inputs)
    if (i.node == node) return &i.source;
  return nullptr;
}

void Tracer::noteSource(const py::Value& v, const Source& src, bool replace) {
  // Held: a source keyed by address must never be inherited by a new object at that address.
  auto [it, added] = sources_.emplace(v.get(), src);
  if (!added && replace) it->second = src;
  if (added) held_.push_back(v);
}

py::Value Tracer::lift(const tensor::Tensor& real, const Source& src) {
  auto fake = std::make_shared<py::TensorObj>(real.type(), -1);
  lazy_[fake.get()] = real;
  noteSource(fake, src, true);
  realize(fake.get());  // attribute reads realize at once (Dynamo's input order relies on it)
  return fake;
}

bool Tracer::search(const py::Value& root, const Source& src, const py::Obj* target, int depth, std::set<const py::Obj*>& seen) {
  if (!root || !seen.insert(root.get()).second) return false;
  if (isNew(root)) return false;
  noteSource(root, src);
  if (root.get() == target) return true;
  if (depth <= 0) return false;
  // Graph inputs are read when a call starts, before the entry replays the frame's mutations:
  // a container the frame changed is searched as it was then.
  const ContainerEffect* mutated = nullptr;
  for (const auto& e : containerEffects)
    if (e.object == root) mutated = &e;
  if (root->kind == py::VK::List || root->kind == py::VK::Tuple) {
    const auto& items = mutated                      ? mutated->before
                        : root->kind == py::VK::List ? py::as<py::ListObj>(root)->items
                                                     : py::as<py::TupleObj>(root)->items;
    for (size_t i = 0; i < items.size() && i < 64; ++i)
      if (search(items[i], src.index(i), target, depth - 1, seen)) return true;
    return false;
  }
  if (root->kind == py::VK::Dict) {
    size_t position = 0;
    for (auto& [k, v] : mutated ? mutated->beforeDict : py::as<py::DictObj>(root)->items.vec()) {
      // A tensor key (Optimizer.state, keyed by parameter) is named by its position, as
      // Dynamo's ConstDictKeySource: d[list(d.keys())[0]].
      if (k->kind == py::VK::Tensor && search(v, src.valueAt(position), target, depth - 1, seen)) return true;
      ++position;
      if ((isKey(k) || k->kind == py::VK::Instance || k->kind == py::VK::Class) &&
          search(v, src.itemKey(k, keyRepr(k)), target, depth - 1, seen))
        return true;
    }
    return false;
  }
  if (root->kind == py::VK::Instance) {
    auto* inst = py::as<py::InstanceObj>(root);
    bool module = false;
    for (const char* slot : {"_parameters", "_buffers", "_modules"}) {
      py::Value d = inst->dict->getStr(slot);
      if (!d || d->kind != py::VK::Dict) continue;
      module = true;
      for (auto& [k, v] : py::as<py::DictObj>(d)->items)
        if (k->kind == py::VK::Str && search(v, src.attr(slot).item(py::as<py::StrObj>(k)->v), target, depth - 1, seen)) return true;
    }
    for (auto& [k, v] : inst->dict->items) {
      if (k->kind != py::VK::Str) continue;
      const std::string& name = py::as<py::StrObj>(k)->v;
      if (module && (name == "_parameters" || name == "_buffers" || name == "_modules")) continue;
      if (name.size() > 4 && name.rfind("__", 0) == 0) continue;  // __objclass__, __wrapped__ ...: not how code reaches things
      // An attribute the frame has since set (self.items = self.items[-3:]) is searched as it was
      // when the call started, which is where the entry reads its inputs from.
      py::Value was = v;
      for (const auto& e : sideEffects)
        if (e.target == root && e.attr == name) {
          was = e.old;
          break;
        }
      if (was && search(was, src.attr(name), target, depth - 1, seen)) return true;
    }
  }
  return false;
}

const Source* Tracer::sourceOf(const py::Value& value) {
  const py::Obj* o = value.get();
  auto it = sources_.find(o);
  if (it != sources_.end()) return &it->second;
  // Tensors made by the trace and objects a search already missed are not reachable from the
  // roots: every `.shape` or method looked up on them walked the whole module tree again, which
  // made capture quadratic in model size (1.7 s for a 48-block transformer). Missed objects are
  // held, so their addresses cannot be reused; an attribute store forgets them (onSetAttr).
  if (py::TensorObj* t = asTensor(value); t && t->fake) return nullptr;
  if (isNew(value)) return nullptr;
  if (const Source* s = originalItemSource(value)) return s;  // taken out of a container the frame changed
  if (unreachable_.count(o)) return nullptr;
  std::set<const py::Obj*> seen;
  for (const auto& [name, v] : argValues)
    if (search(v, Source::local(name), o, 6, seen)) return &sources_.at(o);
  for (const auto& [name, v] : closureValues)
    if (search(v, Source::local(name), o, 6, seen)) return &sources_.at(o);
  for (const auto& [name, v] : globals_->scope->vars) {
    if (!v || v->kind == py::VK::Module || v->kind == py::VK::Function || v->kind == py::VK::Builtin || v->kind == py::VK::Class) continue;
    if (search(v, Source::global(name), o, 6, seen)) return &sources_.at(o);
  }
  unreachable_.emplace(o, value);
  return nullptr;
}

py::Value Tracer::onAttribute(const py::Value& obj, const std::string& name, py::Value result) {
  if (dynFloat(obj)) specializeFloat(obj);  // y.is_integer(), y.real: the exact value
  if (py::TensorObj* t = asTensor(obj); t && t->fake) {
    guardMetadata(t);
    // Part of the tensor's TENSOR_MATCH, as in Dynamo (x.requires_grad, Function.apply's
    // needs_input_grad): a change fails that guard, not one of its own.
    if (name == "requires_grad") return result;
    if (name == "grad") return onInputGrad(t, result);
  }
  // p.grad of a tensor the frame reached but has not used yet (an optimizer's parameters):
  // the gradient is a graph input read through p's source, never a value frozen into the graph.
  if (py::TensorObj* t = asTensor(obj); t && !t->fake && name == "grad")
    if (const Source* base = sourceOf(obj)) return gradThrough(base->attr("grad"), t->t);
  if (obj->kind == py::VK::Instance && py::as<py::InstanceObj>(obj)->cls->name == "super") return onSuperAttribute(obj, name, result);
  const Source* base = sourceOf(obj);
  if (!base) return result;
  if (obj->kind == py::VK::Instance) onType(obj);
  Source src = base->attr(name);
  if (obj->kind == py::VK::Instance) {
    auto* inst = py::as<py::InstanceObj>(obj);
    for (const char* slot : {"_parameters", "_buffers", "_modules"}) {
      py::Value d = inst->dict->getStr(slot);
      if (d && d->kind == py::VK::Dict && py::as<py::DictObj>(d)->getStr(name) && !inst->dict->getStr(name)) {
        src = base->attr(slot).item(name);
        break;
      }
    }
    // A class attribute read through the instance is read from the class's dict, as Dynamo
    // does (dict(type(self).__dict__)['scale']): changing it on the class fails that guard.
    // Methods (bound on each read) and descriptors (a property's value) keep self.name.
    if (src.steps.back().kind == Source::Step::Kind::Attr && !inst->dict->getStr(name)) {
      bool inClass = false;
      for (size_t k = 0; k < inst->cls->mro.size() && !inClass; ++k) {
        auto it = inst->cls->mro[k]->dict.find(name);
        if (it == inst->cls->mro[k]->dict.end()) continue;
        inClass = true;
        if (it->second.get() == result.get()) src = base->classDictItem(name, k);
      }
      // Neither the instance's nor its class's: a user __getattr__ made it, and what that read
      // is guarded where it was read (G['cfg']._gain), not the result (Dynamo has no G['cfg'].gain).
      const bool dunder = name.size() > 4 && name.rfind("__", 0) == 0 && name.compare(name.size() - 2, 2, "__") == 0;
      if (!inClass && !dunder && inst->cls->lookup("__getattr__")) return result;
    }
  }
  bool module = obj->kind == py::VK::Instance && py::as<py::InstanceObj>(obj)->dict->getStr("_modules");
  return readThrough(src, result, module);
}

// x.grad of an input tensor: the fake tensor has none, the program's tensor may (a backward
// that ran before this frame or before its resume function). Dynamo reads it through its
// source: a gradient is a graph input of its own (L_x_grad), None is guarded `x.grad is None`.
py::Value Tracer::onInputGrad(py::TensorObj* fake, py::Value result) {
  auto known = sources_.find(fake);
  if (known == sources_.end()) return result;
  tensor::Tensor real;
  if (auto l = lazy_.find(fake); l != lazy_.end()) real = l->second;
  else if (auto r = realized_.find(fake->node); r != realized_.end() && r->second.first == fake) real = r->second.second;
  if (!real.defined()) return result;
  return gradThrough(known->second.attr("grad"), real);
}

// The gradient of `real` read as `src` (x.grad): None guarded as such, else one graph input per source.
py::Value Tracer::gradThrough(const Source& src, const tensor::Tensor& real) {
  const auto& meta = real.autograd();
  if (!meta || !meta->grad.defined()) {
    guardConstant(src, py::None());
    return py::None();
  }
  py::Value& fakeGrad = gradInputs_[src.text()];  // read again: the same graph input
  if (!fakeGrad) fakeGrad = lift(meta->grad, src);
  return fakeGrad;
}

void Tracer::onDefault(const py::FunctionObj* fn, size_t i, const py::Value& v) {
  if (!v || isConstant(v) || isNew(v) || liftedBy_.count(v.get()) || i >= fn->params.size()) return;
  auto found = sources_.find(fn);
  if (found == sources_.end()) return;
  const py::Param& p = fn->params[i];
  if (p.kind == py::Param::KwOnly) {
    noteSource(v, found->second.attr("__kwdefaults__").item(p.name), true);
    return;
  }
  size_t k = 0;  // __defaults__ holds the defaults of the positional parameters that have one
  for (size_t j = 0; j < i; ++j)
    if (fn->params[j].kind == py::Param::Normal && fn->defaults[j]) ++k;
  noteSource(v, found->second.attr("__defaults__").index(k), true);
}

// super().name: read through the class of the MRO that holds it, as Dynamo's
// type(self).__mro__[2].a, so a class attribute changed later is seen (a recompile).
py::Value Tracer::onSuperAttribute(const py::Value& proxy, const std::string& name, py::Value result) {
  auto* p = py::as<py::InstanceObj>(proxy);
  py::Value start = p->dict->getStr("__thisclass__"), self = p->dict->getStr("__self__");
  if (!start || !self) return result;
  const Source* s = sourceOf(self);
  if (!s) return result;
  std::shared_ptr<py::ClassObj> owner;
  Source base = *s;
  if (self->kind == py::VK::Class) {
    owner = py::asShared<py::ClassObj>(self);
  } else if (self->kind == py::VK::Instance) {
    owner = py::as<py::InstanceObj>(self)->cls;
    base = base.attr("__class__");
  } else {
    return result;
  }
  bool after = false;
  for (size_t k = 0; k < owner->mro.size(); ++k) {
    if (after && owner->mro[k]->dict.count(name)) return readThrough(base.attr("__mro__").index(k).attr(name), result, false);
    if (owner->mro[k] == start) after = true;
  }
  return result;
}

// A value read through `src`: a real tensor becomes (once) a graph input, a Python constant is
// guarded, any other object is remembered as reachable from `src`.
py::Value Tracer::readThrough(const Source& src, const py::Value& v, bool moduleAttr) {
  // An object the trace made itself (a tensor created eagerly, a list stored into a global
  // dict and read back) is not read through a source: it is a value of the trace.
  if (isNew(v) && !(asTensor(v) && asTensor(v)->fake)) return v;
  // (A builtin read as an attribute is a method made on each access, x.sum: never guarded.)
  bool attrRead = !src.steps.empty() && src.steps.back().kind == Source::Step::Kind::Attr;
  if (v->kind == py::VK::Function || (v->kind == py::VK::Builtin && !attrRead && !py::as<py::BuiltinObj>(v)->dynamoDisabled)) {
    // The callable the graph was traced through: the same code (a Python function; its
    // closure cells are guarded where read) or the same builtin.
    Guard g;
    g.kind = v->kind == py::VK::Function ? Guard::Kind::FunctionMatch : Guard::Kind::IdMatch;
    g.source = src;
    g.constant = v;
    addGuard(std::move(g), "fn " + src.text());
    noteSource(v, src);
    return v;
  }
  if (v->kind == py::VK::Class && !isNew(v)) {
    // A class read from a closure cell, an argument or an attribute: the trace instantiated
    // or read that class, so the entry holds while the same class is there (ID_MATCH).
    Guard g;
    g.kind = Guard::Kind::IdMatch;
    g.source = src;
    g.constant = v;
    addGuard(std::move(g), "id " + src.text());
    noteSource(v, src);
    return v;
  }
  if (py::TensorObj* t = asTensor(v); t && !t->fake) {
    auto it = liftedBy_.find(v.get());
    if (it != liftedBy_.end()) {
      // The same tensor reached another way is the same graph input, while it stays so.
      auto known = sources_.find(v.get());
      if (known != sources_.end() && !(known->second == src)) {
        Guard g;
        g.kind = Guard::Kind::DuplicateInput;
        g.source = src;
        g.other = known->second;
        addGuard(std::move(g), "dup " + src.text());
      }
      return it->second;
    }
    py::Value fake = lift(t->t, src);
    if (t->parameter) markParameter(guards, src);
    if (t->attrs) {  // as in bindArg
      auto* f = py::as<py::TensorObj>(fake);
      f->attrs = std::make_shared<py::DictObj>();
      f->attrs->items = t->attrs->items;
    }
    liftedBy_[v.get()] = fake;
    noteSource(v, src);
    return fake;
  }
  if (isConstant(v)) guardConstant(src, v, moduleAttr);
  else noteSource(v, src);
  guardLiteralSet(src, v, nullptr);
  return v;
}

void Tracer::addGuard(Guard g, const std::string& key) {
  if (!guarded_.insert(key).second) return;
  if (g.where.line <= 0) g.where = here();
  g.line = g.where.line;
  guards.push_back(std::move(g));
}

// How a dict key is spelled in a source, without running user code (a user __repr__ could
// have side effects while capturing): constants as Python prints them, Enum members as
// <Field.A: 'a'>, other objects by identity.
std::string Tracer::keyRepr(const py::Value& k) {
  if (isKey(k)) return in_.repr(k);
  if (k->kind == py::VK::Instance) {
    auto* inst = py::as<py::InstanceObj>(k);
    py::Value name = inst->dict->getStr("_name_"), value = inst->dict->getStr("_value_");
    if (name && value && name->kind == py::VK::Str && isKey(value))
      return "<" + inst->cls->name + "." + py::as<py::StrObj>(name)->v + ": " + in_.repr(value) + ">";
  }
  return in_.defaultRepr(k);
}

bool Tracer::isKey(const py::Value& v) {
  switch (v->kind) {
    case py::VK::None:
    case py::VK::Bool:
    case py::VK::Int:
    case py::VK::Float:
    case py::VK::Str:
    case py::VK::DType: return true;
    case py::VK::Tuple:
      for (const auto& x : py::as<py::TupleObj>(v)->items)
        if (!isKey(x)) return false;
      return true;
    default: return false;
  }
}

py::Value Tracer::onItem(const py::Value& container, const py::Value& key, py::Value result) {
  if (container->kind != py::VK::Dict && container->kind != py::VK::List && container->kind != py::VK::Tuple) return result;
  // A dict may also be keyed by objects (Enum members, classes, functions): the source holds
  // the key object itself and looks it up again each call (L['d'][<Field.A: 'a'>]).
  const bool objectKey =
      container->kind == py::VK::Dict && (key->kind == py::VK::Instance || key->kind == py::VK::Class || key->kind == py::VK::Function);
  if (!(isKey(key) || objectKey)) return result;
  // A torch.Size read from a tensor is new to the trace (no source: guarded through the
  // tensor); one passed in or stored before (f(torch.Size((3,)), y)) has items of its own.
  const Source* src = sourceOf(container);
  if (!src) return result;
  // An object's __dict__ read by a str key is, to Dynamo, the attribute itself:
  // cfg.__dict__['_gain'] is guarded as G['cfg']._gain (a class's dict is not: its items are
  // read through dict(type(o).__dict__)).
  const auto& st = src->steps;
  if (key->kind == py::VK::Str && st.size() >= 2 && st.back().kind == Source::Step::Kind::Attr && st.back().name == "__dict__" &&
      !(st[st.size() - 2].kind == Source::Step::Kind::Attr && st[st.size() - 2].name == "__class__") &&
      st[st.size() - 2].kind != Source::Step::Kind::Index) {
    Source base = *src;
    base.steps.pop_back();
    return readThrough(base.attr(py::as<py::StrObj>(key)->v), result, false);
  }
  return readThrough(src->itemKey(key, keyRepr(key)), result, false);
}

void Tracer::onBoundMethod(const py::Value& obj, const std::string& name, const py::Value& method) {
  // The code a method call runs is the function behind obj.name: an instance can replace it
  // (mod.forward = Other.forward.__get__(mod)), so the entry holds for that function only.
  if (!method || method->kind != py::VK::BoundMethod) return;
  const py::Value& fn = py::as<py::BoundMethodObj>(method)->fn;
  if (!fn || fn->kind != py::VK::Function) return;
  const Source* src = sourceOf(obj);
  if (!src) return;
  if (name == "__call__" && obj->kind == py::VK::Instance) {
    // Calling an instance runs its class's __call__: Dynamo guards type(fn).__call__.__code__
    // (type(fn).__mro__[1].__call__ when a base class defines it).
    const auto& mro = py::as<py::InstanceObj>(obj)->cls->mro;
    for (size_t k = 0; k < mro.size(); ++k) {
      auto it = mro[k]->dict.find(name);
      if (it == mro[k]->dict.end()) continue;
      if (it->second != fn) break;
      Source type = src->attr("__class__");
      if (k) type = type.attr("__mro__").index(k);
      readThrough(type.attr(name), fn, false);
      return;
    }
  }
  if (obj->kind == py::VK::Instance) {
    auto* inst = py::as<py::InstanceObj>(obj);
    if (inst->dict && !inst->dict->getStr(name) && inst->cls->lookup(name)) {
      // Found on the class, not on the instance: Dynamo's NOT_PRESENT_IN_GENERIC_DICT guard
      // (`not ___dict_contains('forward', G['mod'].__dict__)`), which an instance attribute set
      // later (mod.forward = Other.forward.__get__(mod)) fails first.
      Guard g;
      g.kind = Guard::Kind::Contains;
      g.source = src->attr("__dict__");
      g.constant = py::makeStr(name);
      g.expected = false;
      addGuard(std::move(g), "not in dict " + src->text() + " " + name);
    }
  }
  readThrough(src->attr(name).attr("__func__"), fn, false);
}

void Tracer::onHasattr(const py::Value& obj, const std::string& name, bool result) {
  if (dynFloat(obj)) {
    // A dynamic float is a SymNodeVariable in Dynamo's trace, which has no hasattr rule.
    Unsupported u("KB048", "Unsupported hasattr call",
                  "Dynamo does not know how to trace hasattr() on a dynamic float (a SymFloat in its trace).",
                  {"Avoid calling `hasattr(SymNodeVariable, " + name + ")` in your code."});
    u.where = in_.currentLocation();
    u.stack = in_.userStack();
    throw u;
  }
  // A plain dict's attributes are its type's (Dynamo's ConstDictVariable answers hasattr from
  // dict itself): the answer holds while the type does, a TYPE_MATCH, not a HASATTR guard.
  if (obj->kind == py::VK::Dict && !obj->sub) return onType(obj);
  const Source* src = sourceOf(obj);
  if (!src) return;
  Guard g;
  g.kind = Guard::Kind::HasAttr;
  g.source = *src;
  g.name = name;
  g.expected = result;
  addGuard(std::move(g), "hasattr " + src->text() + " " + name);
}

void Tracer::onContains(const py::Value& container, const py::Value& key, bool result) {
  bool set = container->kind == py::VK::Instance && py::as<py::InstanceObj>(container)->cls->name == "set";
  if (set && asTensor(key)) {
    // Tensors in a set compare by identity: the answer depends on which arguments are the same
    // tensor, so every tensor involved is a graph input (covered by the no-aliasing guard).
    nodeOf(key);
    for (const auto& [k, v] : std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(container)->native)->items) nodeOf(k);
  }
  if ((container->kind != py::VK::Dict && !set) || !isKey(key)) return;
  const Source* src = sourceOf(container);
  if (!src) return;
  Guard g;
  g.kind = Guard::Kind::Contains;
  g.source = *src;
  g.constant = key;
  g.expected = result;
  addGuard(std::move(g), "contains " + src->text() + " " + in_.repr(key));
}

void Tracer::onIdentity(const py::Value& v) {
  // `a is b` on tensors depends on which arguments are the same tensor: both are graph inputs,
  // covered by the no-aliasing guard (a duplicated argument is guarded when traced).
  if (asTensor(v)) nodeOf(v);
  if (!v || isConstant(v) || asTensor(v) || v->kind == py::VK::Function || v->kind == py::VK::Builtin || v->kind == py::VK::Module) return;
  const Source* src = sourceOf(v);
  if (!src) return;
  Guard g;
  g.kind = Guard::Kind::IdMatch;
  g.source = *src;
  g.constant = v;
  addGuard(std::move(g), "id " + src->text());
}

void Tracer::onType(const py::Value& obj) {
  if (obj->kind == py::VK::Tensor || isConstant(obj) || obj->kind == py::VK::Function || obj->kind == py::VK::Builtin ||
      obj->kind == py::VK::Class || obj->kind == py::VK::Module)
    return;
  const Source* src = sourceOf(obj);
  if (!src) return;
  Guard g;
  g.kind = Guard::Kind::TypeMatch;
  g.source = *src;
  g.constant = typeKey(in_, obj);
  addGuard(std::move(g), "type " + src->text());
}

void Tracer::onDictKeys(const py::Value& dict) {
  if (dict->kind != py::VK::Dict) return;
  const Source* src = sourceOf(dict);
  if (!src) return;
  std::vector<py::Value> keys;
  for (auto& [k, v] : py::as<py::DictObj>(dict)->items) {
    if (!isKey(k)) return;
    keys.push_back(k);
  }
  Guard g;
  g.kind = Guard::Kind::DictKeys;
  g.source = *src;
  g.constant = py::makeTuple(keys);
  addGuard(std::move(g), "keys " + src->text());
}

namespace {
void loadsOf(const py::Expr* e, std::set<std::string>& out);
void loadsOfBody(const py::Body& body, std::set<std::string>& out) {
  for (const auto& st : body) {
    if (!st) continue;
    for (const auto& t : st->targets) loadsOf(t.get(), out);
    loadsOf(st->value.get(), out);
    loadsOf(st->target.get(), out);
    loadsOf(st->test.get(), out);
    loadsOf(st->value2.get(), out);
    loadsOfBody(st->body, out);
    loadsOfBody(st->orelse, out);
    loadsOfBody(st->finalbody, out);
    for (const auto& h : st->handlers) {
      loadsOf(h.type.get(), out);
      loadsOfBody(h.body, out);
    }
    for (const auto& w : st->items) loadsOf(w.context.get(), out);
    for (const auto& d : st->decorators) loadsOf(d.get(), out);
    if (st->kind == py::StmtKind::Nonlocal)
      for (const auto& t : st->targets) out.insert(t->name);
  }
}
void loadsOf(const py::Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == py::ExprKind::Name) out.insert(e->name);
  for (const auto& x : e->items) loadsOf(x.get(), out);
  for (const auto& x : e->values) loadsOf(x.get(), out);
  for (const auto& k : e->keywords) loadsOf(k.value.get(), out);
  loadsOf(e->target.get(), out);
  loadsOf(e->a.get(), out);
  loadsOf(e->b.get(), out);
  loadsOf(e->c.get(), out);
  for (const auto& g : e->generators) {
    loadsOf(g.target.get(), out);
    loadsOf(g.iter.get(), out);
    for (const auto& i : g.ifs) loadsOf(i.get(), out);
  }
}
}  // namespace

py::Value Tracer::onFreeVar(const py::FunctionObj* fn, const std::string& name, py::Value v) {
  if (!fn) return v;
  // A function the trace defined (no source of its own) reads a cell of the compiled
  // function's closure (direct.__closure__[1] in Dynamo's words): read like a local of the frame.
  auto found = sources_.find(fn);
  if (found == sources_.end()) {
    // Its cell may be one a function with a source closes over too (inner, made inside
    // direct, reads direct's cell `scale`): Dynamo reads it through that function's closure,
    // direct.__closure__[1].cell_contents, not as a variable of the compiled frame.
    const py::Scope* cell = nullptr;
    for (const py::Scope* sc = fn->closure.get(); sc && !cell; sc = sc->parent.get())
      if (sc->vars.count(name)) cell = sc;
    for (const auto& [obj, src] : sources_) {
      if (!cell || obj->kind != py::VK::Function || obj == fn) continue;
      const auto* g = py::as<py::FunctionObj>(obj);
      const py::Scope* gCell = nullptr;
      for (const py::Scope* sc = g->closure.get(); sc && !gCell; sc = sc->parent.get())
        if (sc->vars.count(name)) gCell = sc;
      if (gCell != cell) continue;
      const std::vector<std::string>& names = freeVarsOf(g);
      auto pos = std::find(names.begin(), names.end(), name);
      if (pos != names.end()) return readThrough(src.closureCell(name, static_cast<size_t>(pos - names.begin())), v, false);
    }
    return onClosure(name, v);
  }
  const std::vector<std::string>& names = freeVarsOf(fn);
  auto pos = std::find(names.begin(), names.end(), name);
  if (pos == names.end()) return onClosure(name, v);
  return readThrough(found->second.closureCell(name, static_cast<size_t>(pos - names.begin())), v, false);
}

const std::vector<std::string>& Tracer::freeVarsOf(const py::FunctionObj* fn) {
  const void* code = fn->def ? static_cast<const void*>(fn->def.get()) : static_cast<const void*>(fn->lambda.get());
  auto fv = freeVars_.find(code);
  if (fv == freeVars_.end()) {
    // co_freevars: the names the body reads that live in enclosing function scopes, sorted.
    std::set<std::string> loads;
    if (fn->def) loadsOfBody(fn->def->body, loads);
    if (fn->lambda) loadsOf(fn->lambda->target.get(), loads);
    std::vector<std::string> names;
    for (const auto& n : loads) {
      bool param = false;
      for (const auto& p : fn->params) param = param || p.name == n;
      if (param) continue;
      for (py::Scope* sc = fn->closure.get(); sc; sc = sc->parent.get())
        if (sc->vars.count(n)) {
          names.push_back(n);
          break;
        }
    }
    fv = freeVars_.emplace(code, std::move(names)).first;
  }
  return fv->second;
}

void Tracer::guardNoAliasing() {
  std::vector<Source> srcs;
  for (const auto& i : inputs)
    if (i.source.steps.empty() || i.source.steps[0].kind != Source::Step::Kind::Const) srcs.push_back(i.source);
  if (srcs.size() < 2) return;
  // In the order Dynamo builds its guards (Guard.sort_key): locals before globals, then by the
  // length of the source's name, then by the name (L['x'] before L['delta']).
  auto rank = [](const Source& s) {
    return s.steps[0].kind == Source::Step::Kind::Local ? 0 : s.steps[0].kind == Source::Step::Kind::Global ? 1 : 2;
  };
  std::stable_sort(srcs.begin(), srcs.end(), [&](const Source& a, const Source& b) {
    const std::string ta = a.text(), tb = b.text();
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (ta.size() != tb.size()) return ta.size() < tb.size();
    return ta < tb;
  });
  Guard g;
  g.kind = Guard::Kind::NoAliasing;
  g.sources = srcs;
  g.source = srcs.front();
  guards.push_back(std::move(g));
}

void Tracer::onIterate(const py::Value& v) {
  // Iterating a tensor unpacks its first dim: its size must be known (Dynamo specializes it).
  if (py::TensorObj* t = asTensor(v); t && t->fake && !t->type.sizes.empty())
    specialize(symbolicSize(v, 0, py::makeInt(t->type.sizes[0].value)));
  onSequence(v);
  // The items a loop or sum()/max()/sorted() reads are constants with a source (xs[0]): each
  // is guarded when the trace uses its value (onUse), as Dynamo guards a list item it
  // specializes on, and not when it is only passed along. A resume function's ___stack0 from
  // .tolist() must not replay the first call's values.
  if (v->kind != py::VK::List && v->kind != py::VK::Tuple) return;
  if (py::isTorchSize(v)) return;
  const Source* src = sourceOf(v);
  if (!src) return;
  Source base = *src;
  std::vector<py::Value> items = v->kind == py::VK::List ? py::as<py::ListObj>(v)->items : py::as<py::TupleObj>(v)->items;
  for (size_t i = 0; i < items.size(); ++i) {
    const py::Value& item = items[i];
    if (!item || !isConstant(item)) continue;
    py::Value index = py::makeInt(static_cast<int64_t>(i));
    Source s = base.itemKey(index, keyRepr(index));
    // None and bools are shared objects: an address cannot tell whose item is used.
    if (item->kind == py::VK::None || item->kind == py::VK::Bool) guardConstant(s, item, false, nullptr);
    else pendingItems_.emplace(item.get(), std::make_pair(item, s));  // held: the address stays its own
  }
}

void Tracer::onUse(const py::Value& v) {
  if (!v || pendingItems_.empty()) return;
  auto it = pendingItems_.find(v.get());
  if (it == pendingItems_.end()) return;
  guardConstant(it->second.second, it->second.first, false, nullptr);
}

void Tracer::onSequence(const py::Value& v) {
  if (v->kind != py::VK::List && v->kind != py::VK::Tuple) return;
  const Source* src = sourceOf(v);
  // A tensor's sizes are guarded through their tensor; a torch.Size passed in is a sequence.
  if (py::isTorchSize(v) && !src) return;
  if (!src || !guarded_.insert("len " + src->text()).second) return;
  Guard g;
  g.kind = Guard::Kind::SequenceLength;
  g.source = *src;
  g.constant = typeKey(in_, v);  // its type is checked first (Dynamo's SEQUENCE_LENGTH has a TYPE_MATCH)
  g.length = static_cast<int64_t>(in_.iterate(v).size());
  g.where = here();
  g.line = g.where.line;
  guards.push_back(std::move(g));
}

py::Value Tracer::onClosure(const std::string& name, py::Value v) {
  if (!closureValues.count(name) || closureValues[name] != v) return v;
  return readThrough(Source::local(name), v, false);
}

py::Value Tracer::onGlobal(const std::string& name, py::Value v) {
  // Classes and modules read as globals are not guarded (a module's functions are found
  // through it); a global function is guarded by its code, as Dynamo's FUNCTION_MATCH.
  if (v->kind == py::VK::Module) return v;
  if (v->kind == py::VK::Class) {
    // Not guarded itself, but named: the class attributes and hasattr results the function
    // reads through it are guarded (Config.scale, hasattr(Config, "shift")).
    if (!isNew(v)) noteSource(v, Source::global(name));
    return v;
  }
  return readThrough(Source::global(name), v, false);
}

bool Tracer::dependsOnInputs(const py::Value& v) {
  py::TensorObj* t = asTensor(v);
  if (!t) return false;
  if (t->fake || sourceOf(v)) return true;
  if (isNew(v)) return false;
  Unsupported u("KB020", "Tensor of unknown origin",
                "Kiln found a tensor that existed before this frame was compiled but cannot name where the frame reads it "
                "from (it is not reachable through the frame's arguments, globals or closures by attributes, items or "
                "indices Kiln can guard). Capturing it would freeze this call's values into the graph, so the frame "
                "runs eagerly from here.",
                {"Pass the tensor as an argument, or keep it in a module attribute, a list or a dict with string, "
                 "number or Enum keys."});
  u.kilnLimitation = true;
  u.where = in_.currentLocation();
  u.stack = in_.userStack();
  throw u;
}

py::Value Tracer::fakeOf(const py::Value& v) {
  py::TensorObj* t = asTensor(v);
  if (!t) return nullptr;
  if (t->fake) return v;
  ir::Arg a = toArg(v);  // lifts it
  return liftedBy_.at(v.get());
}

ir::Arg Tracer::toArg(const py::Value& v) {
  onUse(v);  // a list item baked into the graph
  switch (v->kind) {
    case py::VK::Tensor: {
      auto* t = py::as<py::TensorObj>(v);
      if (!t->fake) {
        auto lifted = liftedBy_.find(v.get());
        if (lifted != liftedBy_.end()) return ir::Arg::ref(nodeOf(lifted->second));
        if (const Source* s = sourceOf(v)) {
          py::Value fake = lift(t->t, *s);
          if (t->parameter) markParameter(guards, *s);
          liftedBy_[v.get()] = fake;
          return ir::Arg::ref(nodeOf(fake));
        }
        // A tensor made outside the graph's view (by a call Kiln runs eagerly while capturing):
        // it enters the graph as a constant input, like Dynamo's _tensor_constant attributes.
        dependsOnInputs(v);  // refuses an older tensor no source names
        Source c = Source::constant("_tensor_constant" + std::to_string(constants_++), v);
        py::Value fake = lift(t->t, c);
        if (t->parameter) markParameter(guards, c);
        liftedBy_[v.get()] = fake;
        return ir::Arg::ref(nodeOf(fake));
      }
      return ir::Arg::ref(nodeOf(v));
    }
    case py::VK::None: return ir::Arg::none();
    case py::VK::Bool: return ir::Arg::boolean(py::as<py::BoolObj>(v)->v);
    case py::VK::Int: return ir::Arg::integer(py::as<py::IntObj>(v)->small());
    case py::VK::Float: return ir::Arg::real(py::as<py::FloatObj>(v)->v);
    case py::VK::Str: return ir::Arg::string(py::as<py::StrObj>(v)->v);
    case py::VK::DType: return ir::Arg::dtypeArg(py::as<py::DTypeObj>(v)->d);
    // Indices of _operator.getitem: slices and Ellipsis, encoded as the op table expects.
    case py::VK::Slice: {
      auto* sl = py::as<py::SliceObj>(v);
      return ir::Arg::listOf({ir::Arg::string("slice"), toArg(sl->start), toArg(sl->stop), toArg(sl->step)});
    }
    case py::VK::Ellipsis: return ir::Arg::string("...");
    case py::VK::Tuple:
    case py::VK::List: {
      std::vector<ir::Arg> items;
      for (auto& x : in_.iterate(v)) items.push_back(toArg(x));
      return ir::Arg::listOf(std::move(items));
    }
    case py::VK::Instance: {
      // A torch.device enters the graph as its string ("cpu", "cuda:0"), as a device given as
      // a string does.
      auto* inst = py::as<py::InstanceObj>(v);
      if (inst->cls->name == "device" && inst->cls->module && inst->cls->module->name == "torch") return ir::Arg::string(in_.str(v));
      if (isUnbacked(v)) unbackedLimitation(in_, "an unbacked scalar as an argument of a torch call");
      throw Unsupported("KB011", "Unsupported argument type",
                        "An argument of type '" + py::typeName(v) + "' was passed to a traced torch call.");
    }
    case py::VK::Class:
      // Python's int, float and bool stand for dtypes in torch calls (x.to(float)); the graph
      // holds the dtype, as Dynamo records it (x.to(torch.float64)).
      if (v == in_.builtinClass("bool")) return ir::Arg::dtypeArg(ir::DType::Bool);
      if (v == in_.builtinClass("int")) return ir::Arg::dtypeArg(ir::DType::Int64);
      if (v == in_.builtinClass("float")) return ir::Arg::dtypeArg(ir::DType::Float64);
      [[fallthrough]];
    default:
      if (isUnbacked(v)) unbackedLimitation(in_, "an unbacked scalar as an argument of a torch call");
      throw Unsupported("KB011", "Unsupported argument type",
                        "An argument of type '" + py::typeName(v) + "' was passed to a traced torch call.");
  }
}

py::Value Tracer::record(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                         const std::vector<std::pair<std::string, py::Value>>& kwargs, const ir::TensorType& result) {
  ir::Node n;
  n.kind = kind;
  n.target = target;
  n.name = fxBaseName(target);
  for (const auto& a : args) n.args.push_back(toArg(a));
  for (const auto& [k, v] : kwargs) n.kwargs.emplace_back(k, toArg(v));
  if (!symValues_.empty()) onSymbolicCall(target, args, kwargs);  // (after toArg: the ints it read are symbols now)
  n.types.push_back(withRequiresGrad(n, result));
  // Provenance is the innermost frame of the user's script: calls made inside library code
  // (an nn.Linear's forward in the prelude) are attributed to the user line that led there,
  // as Dynamo attributes them.
  py::TraceFrame here = in_.currentLocation();
  for (const auto& f : in_.userStack())
    if (f.file == in_.file()) here = f;
  n.prov.loc.file = file_;
  n.prov.loc.line = here.span.line;
  n.prov.loc.col = here.span.col;
  n.prov.loc.endLine = here.span.endLine;
  n.prov.loc.endCol = here.span.endCol;
  n.prov.loc.function = here.function;
  n.prov.loc.code = codeLine(in_.source(), here.span.line);
  for (const auto& f : in_.userStack()) {
    if (f.file != in_.file()) continue;
    ir::SourceLoc l;
    l.file = file_;
    l.line = f.span.line;
    l.col = f.span.col;
    l.function = f.function;
    n.prov.userStack.push_back(l);
  }
  if (!moduleStack_.empty()) n.prov.modulePath = moduleStack_.back();
  n.noGrad = !autograd::isGradEnabled();
  ir::Node& added = graph.add(std::move(n));
  py::Value out = std::make_shared<py::TensorObj>(added.types[0], added.id);
  if (!symbols_.empty()) propagateShapes(target, args, out);
  return out;
}

// A result requires grad as the eager one would: grad mode on, a floating dtype, an argument
// that requires grad, and not detach (x.requires_grad inside the frame, Function.apply's choice).
ir::TensorType Tracer::withRequiresGrad(const ir::Node& n, ir::TensorType t) const {
  t.requiresGrad = false;
  if (!autograd::isGradEnabled() || !ir::isFloating(t.dtype) || n.target == "detach" || n.target == "torch.detach") return t;
  std::function<void(const ir::Arg&)> scan = [&](const ir::Arg& a) {
    if (a.isNode())
      if (const ir::Node* p = graph.find(a.node); p && !p->types.empty() && p->types[0].requiresGrad) t.requiresGrad = true;
    for (const auto& x : a.list) scan(x);
  };
  for (const auto& a : n.args) scan(a);
  for (const auto& [k, a] : n.kwargs) scan(a);
  return t;
}

void Tracer::onGradMode(bool enabled) {
  ir::Node n;
  n.kind = ir::NodeKind::CallFunction;
  n.target = "torch._C._set_grad_enabled";
  n.name = "_set_grad_enabled";
  n.args.push_back(ir::Arg::boolean(enabled));
  const int id = graph.add(std::move(n)).id;  // no result, no source location: "No stacktrace found" in FX
  // torch.inference_mode's exit (Dynamo's _enter/_exit_inference_mode nodes, never dropped).
  if (tensor::inferenceModeEnabled()) inferenceModeChanges_.insert(id);
}

void Tracer::dropCancellingGradModes(bool atEntry) {
  auto setting = [](const ir::Node& n) -> int {  // -1: not a grad-mode change
    if (n.kind != ir::NodeKind::CallFunction || n.target != "torch._C._set_grad_enabled" || n.args.size() != 1 ||
        n.args[0].kind != ir::Arg::Kind::Bool)
      return -1;
    return n.args[0].b ? 1 : 0;
  };
  bool mode = atEntry;
  size_t i = 0;
  while (i < graph.nodes.size()) {
    const int to = setting(graph.nodes[i]);
    if (to < 0) {
      ++i;
      continue;
    }
    if (to != mode && i + 1 < graph.nodes.size() && setting(graph.nodes[i + 1]) == mode &&
        !inferenceModeChanges_.count(graph.nodes[i].id) && !inferenceModeChanges_.count(graph.nodes[i + 1].id)) {
      graph.nodes.erase(graph.nodes.begin() + static_cast<long>(i), graph.nodes.begin() + static_cast<long>(i) + 2);
      continue;
    }
    mode = to == 1;
    ++i;
  }
}

void Tracer::enterModule(const py::Value& module) {
  // L['self']._modules['blocks']._modules['0'] -> blocks.0; a module reached another way
  // (a global, an attribute outside _modules) keeps its attribute and item names.
  std::string path;
  if (const Source* src = sourceOf(module)) {
    for (size_t i = 1; i < src->steps.size(); ++i) {
      const auto& st = src->steps[i];
      if (st.kind == Source::Step::Kind::Attr && st.name == "_modules") continue;
      path += (path.empty() ? "" : ".") + st.name;
    }
    if (src->steps.size() == 1 && src->steps[0].kind == Source::Step::Kind::Global) path = src->steps[0].name;
  }
  if (path.empty() && module->kind == py::VK::Instance) path = py::as<py::InstanceObj>(module)->cls->name;
  moduleStack_.push_back(path);
}

std::vector<py::Value> Tracer::recordMulti(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                                           const std::vector<std::pair<std::string, py::Value>>& kwargs,
                                           const std::vector<ir::TensorType>& results) {
  // One node for the call (its value is a tuple), then one getitem node per element, as FX
  // records `chunk = x.chunk(3)` and `getitem = chunk[0]` ...
  py::Value first = record(target, kind, args, kwargs, results.empty() ? ir::TensorType{} : results[0]);
  int callNode = py::as<py::TensorObj>(first)->node;
  const bool requiresGrad = py::as<py::TensorObj>(first)->type.requiresGrad;
  std::vector<ir::TensorType> typed = results;
  for (auto& t : typed) t.requiresGrad = requiresGrad && ir::isFloating(t.dtype);
  graph.find(callNode)->types = typed;
  std::vector<py::Value> out;
  for (size_t i = 0; i < results.size(); ++i) {
    ir::Node n;
    n.kind = ir::NodeKind::CallFunction;
    n.target = "_operator.getitem";
    n.name = "getitem";
    n.args = {ir::Arg::ref(callNode), ir::Arg::integer(static_cast<int64_t>(i))};
    n.types = {typed[i]};
    n.prov = graph.find(callNode)->prov;
    int id = graph.add(std::move(n)).id;
    out.push_back(std::make_shared<py::TensorObj>(typed[i], id));
  }
  return out;
}

void Tracer::nameHint(const py::Value& v, const std::string& name) {
  if (v->kind != py::VK::Tensor) return;
  auto* t = py::as<py::TensorObj>(v);
  if (!t->fake || t->node < 0 || named_.count(t->node)) return;
  named_.insert(t->node);
  ir::Node* n = graph.find(t->node);
  if (!n || n->name == name) return;
  graph.rename(n->id, "");  // free the old name before choosing
  graph.rename(n->id, graph.uniqueName(name));
}

void Tracer::onSetAttr(const py::Value& obj, const std::string& name, const py::Value& value, bool raw) {
  unreachable_.clear();  // the store may make a missed object reachable
  if (obj->kind != py::VK::Instance && obj->kind != py::VK::Tensor) return;
  if (!raw && obj->kind == py::VK::Instance)
    if (py::Value sa = py::as<py::InstanceObj>(obj)->cls->lookup("__setattr__"); sa && sa->kind == py::VK::Function) return;
  // (.data, .grad and .requires_grad of a tensor are its autograd state, handled where set.)
  if (obj->kind == py::VK::Tensor && (name == "data" || name == "grad" || name == "requires_grad")) return;
  // An attribute on a tensor the trace made (y.doubled = ...) goes with the graph output that
  // tensor becomes (ValueTemplate's attributes); one on an input tensor is replayed on it.
  const Source* src = sourceOf(obj);
  if (!src) return;  // an object made during capture: nothing to replay
  SideEffect e;
  e.object = *src;
  e.attr = name;
  e.value = value;
  e.target = obj;
  e.old = in_.getAttrOrNull(obj, name);
  sideEffects.push_back(std::move(e));
}

void Tracer::onSetData(const py::Value& x, const py::Value& v) {
  py::Value fake = fakeOf(v);  // a real tensor the program reaches becomes a graph input
  // v's value now: v itself may be given other data later in the trace (y.data = ...).
  const int node = nodeOf(fake);
  py::Value now = std::make_shared<py::TensorObj>(asTensor(fake)->type, node);
  // The store happens on the program's tensor after the graph (x is a graph input then, read
  // before the store); x made by the trace has no source and nothing to replay.
  if (const Source* src = sourceOf(x)) sideEffects.push_back(SideEffect{*src, "data", now, nullptr, nullptr});
  // From here on x (or the stand-in of a real x) reads v's node; a lazy input that never
  // entered the graph stays out of it.
  auto* xf = asTensor(fakeOf(x));
  xf->node = node;
  xf->type = asTensor(fake)->type;
  lazy_.erase(xf);
}

bool Tracer::onTupleIteratorNext(const py::Value& iterator) {
  auto* it = iterator->kind == py::VK::Iterator ? py::as<py::IteratorObj>(iterator) : nullptr;
  if (auto norm = normalizedRangeIter(iterator)) {
    const auto& t = py::as<py::TupleObj>(norm->get())->items;
    if (in_.repr(t[0]) == in_.repr(t[1])) return false;  // exhausted: StopIteration is not traced
    for (auto& s : iteratorSteps)
      if (s.iterator == iterator) return ++s.count, true;
    const Source* src = sourceOf(iterator);
    if (!src) return false;
    Guard g;
    g.kind = Guard::Kind::RangeIteratorMatch;
    g.source = *src;
    g.constant = *norm;
    g.where = here();
    g.line = g.where.line;
    addGuard(std::move(g), "range_iterator " + src->text());
    IteratorStep step{iterator, *src};
    step.rangeStart = it->rCur;
    step.count = 1;
    iteratorSteps.push_back(std::move(step));
    return true;
  }
  if (!it || it->nextFn || it->isRange || !it->seq || it->seq->kind != py::VK::Tuple || it->typeName != "tuple_iterator") return false;
  const auto& items = py::as<py::TupleObj>(it->seq)->items;
  if (it->pos >= items.size()) return false;  // exhausted: StopIteration is not traced
  IteratorStep* step = nullptr;
  for (auto& s : iteratorSteps)
    if (s.iterator == iterator) step = &s;
  if (!step) {
    const Source* src = sourceOf(iterator);
    if (!src) return false;
    Guard g;
    g.kind = Guard::Kind::TupleIteratorLen;
    g.source = *src;
    g.length = static_cast<int64_t>(items.size() - it->pos);
    addGuard(std::move(g), "tuple_iterator_len " + src->text());
    IteratorStep made{iterator, *src};
    made.start = it->pos;
    iteratorSteps.push_back(std::move(made));
    step = &iteratorSteps.back();
  }
  const py::Value& item = items[it->pos];
  Source s = step->source.tupleIterItem(step->count);
  ++step->count;
  // The item is guarded where the trace uses its value (onUse), as a list item is.
  if (item->kind == py::VK::None || item->kind == py::VK::Bool) guardConstant(s, item, false, nullptr);
  else if (isConstant(item)) pendingItems_.emplace(item.get(), std::make_pair(item, s));
  else noteSource(item, s);
  return true;
}

void Tracer::undoSideEffects() {
  for (const auto& s : iteratorSteps) {
    auto* it = py::as<py::IteratorObj>(s.iterator);
    if (it->isRange) it->rCur = s.rangeStart;
    else it->pos = s.start;
  }
  for (auto it = sideEffects.rbegin(); it != sideEffects.rend(); ++it) {
    if (!it->target) continue;  // x.data = v: the trace changed only its stand-in (onSetData)
    // Back to what it was: the old value, or no attribute at all (a store a Python __setattr__
    // made is undone as it was made, without calling that __setattr__).
    py::Value sa = it->target->kind == py::VK::Instance ? py::as<py::InstanceObj>(it->target)->cls->lookup("__setattr__") : nullptr;
    const bool raw = sa && sa->kind == py::VK::Function;
    if (it->old) raw ? in_.genericSetAttr(it->target, it->attr, it->old) : in_.setAttr(it->target, it->attr, it->old);
    else if (in_.getAttrOrNull(it->target, it->attr)) raw ? in_.genericDelAttr(it->target, it->attr) : in_.delAttr(it->target, it->attr);
  }
  for (auto& e : containerEffects) {
    switch (e.object->kind) {
      case py::VK::List: py::as<py::ListObj>(e.object)->items = e.before; break;
      case py::VK::Dict: py::as<py::DictObj>(e.object)->items = e.beforeDict; break;
      default: {
        auto d = std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(e.object)->native);
        d->items.clear();
        for (auto& v : e.before) d->items.emplace_back(v, py::None());
      }
    }
  }
  for (auto it = varEffects.rbegin(); it != varEffects.rend(); ++it) {
    auto& vars = it->module ? it->module->scope->vars : it->scope->vars;
    if (it->old) vars[it->name] = it->old;
    else vars.erase(it->name);
  }
}

void Tracer::onMutate(const py::Value& container) {
  bool set = container->kind == py::VK::Instance && py::as<py::InstanceObj>(container)->cls->name == "set";
  if (container->kind != py::VK::List && container->kind != py::VK::Dict && !set) return;
  for (const auto& e : containerEffects)
    if (e.object == container) return;
  const Source* src = sourceOf(container);
  if (!src) return;  // made during capture: nothing outside sees it
  ContainerEffect e;
  e.object = container;
  e.source = *src;
  if (container->kind == py::VK::List) {
    e.before = py::as<py::ListObj>(container)->items;
    onSequence(container);
    for (size_t i = 0; i < e.before.size(); ++i) originalItems_.emplace(e.before[i].get(), src->index(i));
  } else if (container->kind == py::VK::Dict) {
    e.beforeDict = py::as<py::DictObj>(container)->items.vec();
    // Dynamo guards a mutated dict by its length (DICT_LENGTH: `len(d) == 2`, `not d`); the
    // keys in order, which the entry's replay relies on, are guarded after it.
    if (guarded_.insert("len " + src->text()).second) {
      Guard g;
      g.kind = Guard::Kind::SequenceLength;
      g.source = *src;
      g.length = static_cast<int64_t>(e.beforeDict.size());
      g.where = here();
      g.line = g.where.line;
      guards.push_back(std::move(g));
    }
    onDictKeys(container);
    for (const auto& [k, v] : e.beforeDict)
      if (isKey(k) || k->kind == py::VK::Instance || k->kind == py::VK::Class) originalItems_.emplace(v.get(), src->itemKey(k, keyRepr(k)));
  } else {
    for (auto& [k, v] : std::static_pointer_cast<py::DictObj>(py::as<py::InstanceObj>(container)->native)->items) e.before.push_back(k);
  }
  containerEffects.push_back(std::move(e));
}

const Source* Tracer::originalItemSource(const py::Value& v) {
  auto it = originalItems_.find(v.get());
  return it == originalItems_.end() ? nullptr : &it->second;
}

void Tracer::onStoreGlobal(const std::shared_ptr<py::ModuleObj>& module, const std::string& name) {
  for (const auto& e : varEffects)
    if (e.module == module && e.name == name) return;
  VarEffect e;
  e.module = module;
  e.name = name;
  auto it = module->scope->vars.find(name);
  if (it != module->scope->vars.end()) e.old = it->second;
  varEffects.push_back(std::move(e));
}

void Tracer::onStoreCell(const std::shared_ptr<py::Scope>& scope, const std::string& name) {
  if (scope->serial >= firstScope) return;  // a cell of a function the trace itself is running
  for (const auto& e : varEffects)
    if (e.scope == scope && e.name == name) return;
  VarEffect e;
  e.scope = scope;
  e.name = name;
  auto it = scope->vars.find(name);
  if (it != scope->vars.end()) e.old = it->second;
  varEffects.push_back(std::move(e));
}

void Tracer::truncate(size_t nextIdAtBreak) {
  int limit = static_cast<int>(nextIdAtBreak);
  std::vector<GraphInput> kept;
  for (const auto& i : inputs) {
    if (i.node < limit) {
      kept.push_back(i);
      continue;
    }
    // The input goes back to lazy: a later use realizes it again.
    auto r = realized_.find(i.node);
    if (r != realized_.end()) {
      r->second.first->node = -1;
      lazy_[r->second.first] = r->second.second;
      realized_.erase(r);
    }
    guards.erase(std::remove_if(guards.begin(), guards.end(),
                                [&](const Guard& g) { return g.kind == Guard::Kind::TensorMatch && g.source == i.source; }),
                 guards.end());
  }
  inputs = kept;
  graph.nodes.erase(std::remove_if(graph.nodes.begin(), graph.nodes.end(), [&](const ir::Node& n) { return n.id >= limit; }),
                    graph.nodes.end());
}

void Tracer::placeInputsFirst() {
  std::stable_partition(graph.nodes.begin(), graph.nodes.end(), [](const ir::Node& n) { return n.kind == ir::NodeKind::Placeholder; });
}

void Tracer::finish(const std::vector<int>& outputs) {
  // Inputs whose metadata the trace read but that never entered the graph (or left it at the
  // break) are guarded all the same.
  for (const auto& [text, meta] : metaRead_) {
    bool guarded = std::any_of(guards.begin(), guards.end(),
                               [&, &text = text](const Guard& g) { return g.kind == Guard::Kind::TensorMatch && g.source.text() == text; });
    if (guarded) continue;
    Guard g;
    g.kind = Guard::Kind::TensorMatch;
    g.source = meta.first;
    g.type = meta.second;
    guards.push_back(std::move(g));
  }
  ir::Node out;
  out.kind = ir::NodeKind::Output;
  out.name = "output";
  out.target = "output";
  std::vector<ir::Arg> refs;
  for (int id : outputs) refs.push_back(ir::Arg::ref(id));
  out.args.push_back(ir::Arg::listOf(std::move(refs)));
  graph.add(std::move(out));
}

const py::GraphBreak* Tracer::stopBefore(const py::Expr* call, int occurrence) const {
  return stopAt && stopAt->expr == call && stopAt->occurrence == occurrence ? stopAt->reason.get() : nullptr;
}

std::any Tracer::globalState() const { return currentGlobalState(); }

bool Tracer::isUnbacked(const py::Value& v) const { return capture::isUnbacked(v); }

py::Value Tracer::makeUnbacked(bool isFloat) { return torchapi::makeUnbacked(firstObject, isFloat); }

int Tracer::onEnterAutocast(const std::string& device, ir::DType dtype, bool enabled) {
  return recordEnterAutocast(graph, device, dtype, enabled);
}

void Tracer::onExitAutocast(int enterNode) { recordExitAutocast(graph, enterNode); }

void Tracer::onBranch(const py::Value& test) {
  if (capture::isUnbacked(test)) guardOnDataDependent(in_, test);  // `if x.item() > 0:` (fullgraph)
}

bool Tracer::rewriteAssert(const py::Value& cond, const py::Expr* msg) { return capture::rewriteAssert(*this, cond, msg); }

std::set<std::string> Tracer::classStatementNames(const py::Stmt& cls) { return capture::classStatementNames(cls); }

}  // namespace kiln::capture
