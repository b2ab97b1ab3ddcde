// Statement execution, name resolution, functions, classes and imports.
#include "engine/python/interpreter.h"
#include "engine/autograd/grad_mode.h"

#include "engine/python/parser.h"
#include "engine/python/stdlib.h"
#include "engine/python/tensor_hooks.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>

namespace kiln::py {

Interpreter::Interpreter(std::ostream& out) : out_(out) {
  setUserKeyEquals([this](const Value& a, const Value& b) {
    auto defines = [&](const Value& v) {
      if (v->kind != VK::Instance) return false;
      Value eq = as<InstanceObj>(v)->cls->lookup("__eq__");
      return eq && eq->kind == VK::Function;
    };
    if (!defines(a) && !defines(b)) return false;
    return truthy(compare("==", a, b));
  });
  installBuiltins();
}
Interpreter::~Interpreter() {
  setUserKeyEquals(nullptr);
  setUnhashableKey(nullptr);
  // Suspended generators are closed while the interpreter still exists (their finally blocks
  // run); any left over afterwards must not call back into it.
  while (!liveGenerators_.empty()) {
    GeneratorObj* g = *liveGenerators_.begin();
    liveGenerators_.erase(liveGenerators_.begin());
    try {
      closeGenerator(*g);
    } catch (...) {}
  }
  // Break reference cycles (module scope <-> functions defined in it) so memory is returned.
  for (auto& [n, m] : modules_) m->scope->vars.clear();
  if (main_) main_->scope->vars.clear();
  for (GeneratorObj* g : liveGenerators_) g->in = nullptr;
}

TensorHooks& Interpreter::tensorHooks() {
  if (!tensors) raise("RuntimeError", "internal error: a Tensor value in an interpreter without the torch library (torchapi::install)");
  return *tensors;
}

PyError Interpreter::makeError(const std::string& type, const std::string& message) {
  PyError e(type, message);
  return e;
}

void Interpreter::raise(const std::string& type, const std::string& message) { throw makeError(type, message); }

void Interpreter::raiseWith(const std::string& type, std::vector<Value> args) {
  auto inst = std::make_shared<InstanceObj>(exceptionClass(type));
  inst->dict->setStr("args", makeTuple(std::move(args)));
  throw errorFor(inst);
}

TraceFrame Interpreter::currentLocation() const {
  if (frames_.empty()) return TraceFrame{file_, "<module>", {}};
  const Frame& f = frames_.back();
  return TraceFrame{f.module ? f.module->file : file_, f.function, f.span};
}

std::vector<TraceFrame> Interpreter::userStack() const {
  std::vector<TraceFrame> out;
  for (const auto& f : frames_) out.push_back(TraceFrame{f.module ? f.module->file : file_, f.function, f.span});
  return out;
}

Value Interpreter::builtin(const std::string& name) const {
  auto it = builtins_.find(name);
  return it == builtins_.end() ? nullptr : it->second;
}

void Interpreter::registerModule(std::shared_ptr<ModuleObj> m) { modules_[m->name] = std::move(m); }
void Interpreter::registerClass(std::shared_ptr<ClassObj> c) { classes_[c->name] = std::move(c); }

void Interpreter::runInModule(const std::shared_ptr<ModuleObj>& target, Module m) {
  auto owned = std::make_unique<Module>(std::move(m));
  sources_[owned->file] = owned->source;
  if (target->file.empty()) target->file = owned->file;  // tracebacks and guards name library code by file
  Frame f;
  f.scope = target->scope;
  f.module = target;
  f.function = "<module>";
  FrameGuard g(*this, f);
  try {
    execBody(owned->body);
  } catch (PyError& e) {
    e.traceback.insert(e.traceback.begin(), TraceFrame{owned->file, "<module>", frames_.back().span});
    ownedModules_.push_back(std::move(owned));
    throw;
  }
  ownedModules_.push_back(std::move(owned));
}

void Interpreter::runModule(const Module& m) {
  file_ = m.file;
  source_ = m.source;
  sources_[m.file] = m.source;
  main_ = std::make_shared<ModuleObj>("__main__");
  main_->file = m.file;
  main_->scope->vars["__name__"] = makeStr("__main__");
  Frame f;
  f.scope = main_->scope;
  f.module = main_;
  f.function = "<module>";
  FrameGuard g(*this, f);
  try {
    for (size_t i = 0; i < m.body.size(); ++i) {
      if (onModuleStatement) onModuleStatement(i, m.body.size(), m.body[i]->span.line);
      if (exec(*m.body[i]) != Flow::Normal) break;
    }
  } catch (PyError& e) {
    e.traceback.insert(e.traceback.begin(), TraceFrame{m.file, "<module>", frames_.back().span});
    throw;
  }
}

// ---- static scoping: which names a function body assigns ----

namespace {
void collectTargets(const Expr& e, std::set<std::string>& out) {
  switch (e.kind) {
    case ExprKind::Name: out.insert(e.name); break;
    case ExprKind::Tuple:
    case ExprKind::List:
      for (auto& x : e.items) collectTargets(*x, out);
      break;
    case ExprKind::Starred: collectTargets(*e.target, out); break;
    default: break;
  }
}

void collectAssigned(const Body& body, std::set<std::string>& out, std::set<std::string>& globals) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Assign:
        for (auto& t : s->targets) collectTargets(*t, out);
        break;
      case StmtKind::AugAssign:
      case StmtKind::AnnAssign:
        if (s->target) collectTargets(*s->target, out);
        break;
      case StmtKind::For:
        collectTargets(*s->target, out);
        collectAssigned(s->body, out, globals);
        collectAssigned(s->orelse, out, globals);
        break;
      case StmtKind::While:
        collectAssigned(s->body, out, globals);
        collectAssigned(s->orelse, out, globals);
        break;
      case StmtKind::If:
        collectAssigned(s->body, out, globals);
        collectAssigned(s->orelse, out, globals);
        break;
      case StmtKind::With:
        for (auto& it : s->items)
          if (it.target) collectTargets(*it.target, out);
        collectAssigned(s->body, out, globals);
        break;
      case StmtKind::Try:
        collectAssigned(s->body, out, globals);
        for (auto& h : s->handlers) {
          if (!h.name.empty()) out.insert(h.name);
          collectAssigned(h.body, out, globals);
        }
        collectAssigned(s->orelse, out, globals);
        collectAssigned(s->finalbody, out, globals);
        break;
      case StmtKind::FunctionDef:
      case StmtKind::ClassDef: out.insert(s->name); break;
      case StmtKind::Import:
        for (auto& a : s->names) out.insert(!a.asname.empty() ? a.asname : a.name.substr(0, a.name.find('.')));
        break;
      case StmtKind::ImportFrom:
        for (auto& a : s->names) out.insert(!a.asname.empty() ? a.asname : a.name);
        break;
      case StmtKind::Delete:
        for (auto& t : s->targets) collectTargets(*t, out);
        break;
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        for (auto& t : s->targets) globals.insert((s->kind == StmtKind::Global ? "" : "^") + t->name);
        break;
      default: break;
    }
  }
}
}  // namespace

const Interpreter::FnInfo& Interpreter::infoFor(const void* key, const Body* body, const std::vector<Param>& params, const Expr*) {
  auto it = fnInfo_.find(key);
  if (it != fnInfo_.end()) return it->second;
  FnInfo info;
  std::set<std::string> decl;
  if (body) collectAssigned(*body, info.locals, decl);
  for (const auto& p : params) info.locals.insert(p.name);
  for (const auto& d : decl) {
    // "^name" marks nonlocal: neither local nor global.
    std::string n = d[0] == '^' ? d.substr(1) : d;
    info.locals.erase(n);
    if (d[0] != '^') info.globals.insert(n);
  }
  return fnInfo_.emplace(key, std::move(info)).first->second;
}

Value Interpreter::lookupName(const std::string& name, const Span& span) {
  (void)span;
  Frame& f = frames_.back();
  if (f.classBody) {
    // A class body reads its own names, then the enclosing functions', then globals.
    auto it = f.scope->vars.find(name);
    if (it != f.scope->vars.end()) return it->second;
    for (Scope* s = f.scope->parent.get(); s; s = s->parent.get()) {
      auto pit = s->vars.find(name);
      if (pit != s->vars.end()) return pit->second;
    }
  }
  if (f.locals && f.locals->count(name) && !(f.globalsDecl && f.globalsDecl->count(name))) {
    auto it = f.scope->vars.find(name);
    if (it != f.scope->vars.end()) {
      // Python constants passed in are guarded where they are first read, as Dynamo does.
      if (tracer && frames_.size() == tracer->topDepth && !copyingName_) tracer->onLocalRead(name, it->second);
      return it->second;
    }
    raise("UnboundLocalError", "cannot access local variable '" + name + "' where it is not associated with a value");
  }
  if (!(f.globalsDecl && f.globalsDecl->count(name))) {
    for (Scope* s = f.locals ? f.scope->parent.get() : nullptr; s; s = s->parent.get()) {
      auto it = s->vars.find(name);
      if (it != s->vars.end()) {
        if (tracer && frames_.size() == tracer->topDepth) return tracer->onClosure(name, it->second);
        if (tracer) return tracer->onFreeVar(f.fn, name, it->second);
        return it->second;
      }
    }
  }
  auto& g = f.module->scope->vars;
  auto it = g.find(name);
  if (it != g.end()) {
    // Globals of the user's script read while capturing are guarded (constants) or become
    // graph inputs (tensors).
    if (tracer && f.module == main_) return tracer->onGlobal(name, it->second);
    return it->second;
  }
  auto b = builtins_.find(name);
  if (b != builtins_.end()) return b->second;
  raise("NameError", "name '" + name + "' is not defined");
}

void Interpreter::storeName(const std::string& name, Value v) {
  Frame& f = frames_.back();
  if (f.classBody) {
    if (!f.scope->vars.count(name)) f.scopeOrder.push_back(name);
    f.scope->vars[name] = std::move(v);
    return;
  }
  if (!f.locals) {
    // Module level: while capturing, a store to the script's globals is a side effect the
    // entry replays.
    if (tracer && f.module && f.scope == f.module->scope) tracer->onStoreGlobal(f.module, name);
    f.scope->vars[name] = std::move(v);
    return;
  }
  if (f.globalsDecl && f.globalsDecl->count(name)) {
    if (tracer) tracer->onStoreGlobal(f.module, name);
    f.module->scope->vars[name] = std::move(v);
    return;
  }
  if (tracer) tracer->nameHint(v, name);
  if (f.locals->count(name)) {
    f.scope->vars[name] = std::move(v);
    return;
  }
  // nonlocal: the nearest enclosing scope holding it
  for (std::shared_ptr<Scope> s = f.scope->parent; s; s = s->parent) {
    auto it = s->vars.find(name);
    if (it != s->vars.end()) {
      if (tracer) tracer->onStoreCell(s, name);
      it->second = std::move(v);
      return;
    }
  }
  if (f.fn && f.scope->parent) {
    // A function's store to a name it does not own is to a nonlocal whose cell is still empty
    // (bound later in the enclosing function): the cell lives in the enclosing scope.
    if (tracer) tracer->onStoreCell(f.scope->parent, name);
    f.scope->parent->vars[name] = std::move(v);
    return;
  }
  f.scope->vars[name] = std::move(v);
}

// ---- statements ----

Interpreter::Flow Interpreter::execBody(const Body& body) {
  for (const auto& s : body) {
    Flow fl = exec(*s);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

void Interpreter::assign(const Expr& t, Value v) {
  switch (t.kind) {
    case ExprKind::Name: storeName(t.name, std::move(v)); return;
    case ExprKind::Attribute: {
      Value obj = eval(*t.target);
      frames_.back().span = t.span;
      if (tracer && frames_.size() == tracer->topDepth) {
        // Dynamo's STORE_ATTR is a breakable instruction: a break inside the store (a user
        // __setattr__ that breaks) compiles the graph up to it, runs the store eagerly and
        // resumes after the statement, like a call whose value is discarded.
        int occurrence = tracer->countTopCall(&t);
        size_t mark = tracer->graphSize();
        try {
          // The capture's second pass stops before the store that broke (as evalCall does).
          if (const GraphBreak* stop = tracer->stopBefore(&t, occurrence)) {
            GraphBreak again = *stop;
            again.at = GraphBreak::At::Unknown;
            throw again;
          }
          setAttr(obj, t.name, v);
        } catch (GraphBreak& u) {
          if (u.at == GraphBreak::At::Unknown) {
            u.occurrence = occurrence;
            u.at = GraphBreak::At::Call;
            u.gradEnabled = autograd::isGradEnabled();
            u.inferenceMode = tensor::inferenceModeEnabled();
            if (tracer) u.globalState = tracer->globalState();
            u.expr = &t;
            u.stmt = frames_.back().stmt;
            u.callee = builtin("setattr");
            u.args = {obj, makeStr(t.name), v};
            u.kwargs.clear();
            u.graphSize = mark;
            u.scope = frames_.back().scope;
          }
          throw;
        }
        return;
      }
      setAttr(obj, t.name, std::move(v));
      return;
    }
    case ExprKind::Subscript: {
      Value obj = eval(*t.target);
      Value idx = eval(*t.a);
      frames_.back().span = t.span;
      setSubscript(obj, idx, std::move(v));
      return;
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      std::vector<Value> items = iterate(v);
      size_t starAt = t.items.size();
      for (size_t i = 0; i < t.items.size(); ++i)
        if (t.items[i]->kind == ExprKind::Starred) starAt = i;
      if (starAt == t.items.size()) {
        if (items.size() != t.items.size()) {
          frames_.back().span = t.span;
          if (items.size() > t.items.size())
            raise("ValueError", "too many values to unpack (expected " + std::to_string(t.items.size()) + ")");
          raise("ValueError",
                "not enough values to unpack (expected " + std::to_string(t.items.size()) + ", got " + std::to_string(items.size()) + ")");
        }
        for (size_t i = 0; i < items.size(); ++i) assign(*t.items[i], items[i]);
        return;
      }
      size_t after = t.items.size() - starAt - 1;
      if (items.size() < starAt + after)
        raise("ValueError", "not enough values to unpack (expected at least " + std::to_string(starAt + after) + ", got " +
                                std::to_string(items.size()) + ")");
      for (size_t i = 0; i < starAt; ++i) assign(*t.items[i], items[i]);
      std::vector<Value> mid(items.begin() + starAt, items.end() - after);
      assign(*t.items[starAt]->target, makeList(mid));
      for (size_t i = 0; i < after; ++i) assign(*t.items[starAt + 1 + i], items[items.size() - after + i]);
      return;
    }
    case ExprKind::Starred: raise("SyntaxError", "starred assignment target must be in a list or tuple");
    default: raise("SyntaxError", "cannot assign to expression");
  }
}

void Interpreter::deleteTarget(const Expr& t) {
  if (t.kind == ExprKind::Name) {
    Frame& f = frames_.back();
    if (!f.scope->vars.erase(t.name)) raise("NameError", "name '" + t.name + "' is not defined");
    return;
  }
  if (t.kind == ExprKind::Subscript) {
    Value obj = eval(*t.target);
    Value idx = eval(*t.a);
    frames_.back().span = t.span;
    if (obj->kind == VK::Instance ||
        (obj->sub && classOf(obj)->lookup("__delitem__") && classOf(obj)->lookup("__delitem__")->kind == VK::Function)) {
      if (!callDunder(obj, "__delitem__", {idx})) raise("TypeError", "'" + typeName(obj) + "' object does not support item deletion");
      return;
    }
    if (obj->kind == VK::Tensor) raise("TypeError", "'Tensor' object does not support item deletion");
    if (tracer && (obj->kind == VK::Dict || obj->kind == VK::List)) tracer->onMutate(obj);
    if (obj->kind == VK::Dict) {
      if (!as<DictObj>(obj)->erase(idx)) raiseWith("KeyError", {idx});
      return;
    }
    if (obj->kind == VK::List && idx->kind == VK::Slice) {
      auto& items = as<ListObj>(obj)->items;
      std::vector<int64_t> drop;
      Value keep = subscript(makeList(std::vector<Value>(items.size(), None())), idx);  // validates the slice
      (void)keep;
      auto* sl = as<SliceObj>(idx);
      int64_t n = static_cast<int64_t>(items.size());
      auto get = [&](const Value& v, int64_t d) { return isNone(v) ? d : as<IntObj>(v)->small(); };
      int64_t step = get(sl->step, 1);
      int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
      auto clamp = [&](int64_t v) {
        if (v < 0) v += n;
        return std::clamp(v, lo, hi);
      };
      int64_t start = isNone(sl->start) ? (step < 0 ? hi : lo) : clamp(get(sl->start, 0));
      int64_t stop = isNone(sl->stop) ? (step < 0 ? lo : hi) : clamp(get(sl->stop, 0));
      for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) drop.push_back(i);
      std::sort(drop.rbegin(), drop.rend());
      for (int64_t i : drop) items.erase(items.begin() + i);
      return;
    }
    if (obj->kind == VK::List && idx->kind == VK::Int) {
      auto& items = as<ListObj>(obj)->items;
      int64_t i = as<IntObj>(idx)->small();
      if (i < 0) i += static_cast<int64_t>(items.size());
      if (i < 0 || i >= static_cast<int64_t>(items.size())) raise("IndexError", "list assignment index out of range");
      items.erase(items.begin() + i);
      return;
    }
  }
  if (t.kind == ExprKind::Attribute) {
    Value obj = eval(*t.target);
    frames_.back().span = t.span;
    delAttr(obj, t.name);
    return;
  }
  if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
    for (auto& x : t.items) deleteTarget(*x);
    return;
  }
  raise("TypeError", "cannot delete this target");
}

Interpreter::Flow Interpreter::exec(const Stmt& s) {
  frames_.back().span = s.span;
  frames_.back().stmt = &s;
  checkInterrupt();
  switch (s.kind) {
    case StmtKind::Expr: eval(*s.value); return Flow::Normal;
    case StmtKind::Assign: {
      // `a = b` only moves a value: it is not a use that guards b (Dynamo guards at real uses).
      copyingName_ = s.value->kind == ExprKind::Name;
      Value v;
      try {
        v = eval(*s.value);
      } catch (...) {
        copyingName_ = false;
        throw;
      }
      copyingName_ = false;
      for (const auto& t : s.targets) assign(*t, v);
      return Flow::Normal;
    }
    case StmtKind::AugAssign: {
      const Expr& t = *s.target;
      Value cur, obj, idx;
      if (t.kind == ExprKind::Name) cur = lookupName(t.name, t.span);
      else if (t.kind == ExprKind::Attribute) {
        obj = eval(*t.target);
        cur = getAttr(obj, t.name);
        if (tracer) cur = tracer->onAttribute(obj, t.name, cur);
      } else {
        obj = eval(*t.target);
        idx = eval(*t.a);
        cur = subscript(obj, idx);
      }
      Value rhs = eval(*s.value);
      frames_.back().span = s.span;
      Value result;
      // Mutable sequences extend in place (x += [...]); tensors use in-place ops.
      if (s.op == "+" && cur->kind == VK::List) {
        auto items = iterate(rhs);
        if (tracer) tracer->onMutate(cur);
        auto& l = as<ListObj>(cur)->items;
        l.insert(l.end(), items.begin(), items.end());
        result = cur;
      } else {
        result = binaryOp(s.op + "=", cur, rhs);
      }
      if (t.kind == ExprKind::Name) storeName(t.name, result);
      else if (t.kind == ExprKind::Attribute) setAttr(obj, t.name, result);
      else setSubscript(obj, idx, result);
      return Flow::Normal;
    }
    case StmtKind::AnnAssign: {
      // At module level and in a class body the annotation is kept in __annotations__ (what
      // dataclasses and NamedTuple read), in order.
      Frame& f = frames_.back();
      if (!f.locals && s.target->kind == ExprKind::Name && s.value2) {
        auto& vars = f.scope->vars;
        auto it = vars.find("__annotations__");
        if (it == vars.end() || it->second->kind != VK::Dict) {
          vars["__annotations__"] = std::make_shared<DictObj>();
          if (f.classBody) f.scopeOrder.push_back("__annotations__");
          it = vars.find("__annotations__");
        }
        Value ann = eval(*s.value2);
        as<DictObj>(it->second)->setStr(s.target->name, ann);
      }
      if (s.value) assign(*s.target, eval(*s.value));
      return Flow::Normal;
    }
    case StmtKind::Return: frames_.back().returnValue = s.value ? eval(*s.value) : None(); return Flow::Return;
    case StmtKind::If: {
      // `if not t:` jumps on t itself (CPython folds the `not` into the jump): a data-dependent
      // branch is on t, with its two ways swapped (resume.cpp).
      const Expr* test = s.test.get();
      bool negated = false;
      while (test->kind == ExprKind::UnaryOp && test->name == "not") {
        test = test->a.get();
        negated = !negated;
      }
      Value v = eval(*test);
      if (tracer) tracer->onBranch(v);  // `if x.item() > 0:` (fullgraph)
      bool c;
      try {
        c = truthy(v) != negated;
      } catch (GraphBreak& u) {
        // A data-dependent branch in the compiled frame: it resumes in one of two functions.
        if (tracer && frames_.size() == tracer->topDepth && u.at == GraphBreak::At::Unknown) {
          u.at = GraphBreak::At::Branch;
          u.stmt = &s;
          u.expr = test;
          u.callee = v;
          u.graphSize = tracer->graphSize();
          u.scope = frames_.back().scope;
        }
        throw;
      }
      frames_.back().stmt = &s;
      return execBody(c ? s.body : s.orelse);
    }
    case StmtKind::While: {
      while (true) {
        frames_.back().span = s.span;
        Value test = eval(*s.test);
        if (tracer) tracer->onBranch(test);
        if (!truthy(test)) return execBody(s.orelse);
        Flow fl = execBody(s.body);
        if (fl == Flow::Break) return Flow::Normal;
        if (fl == Flow::Return) return fl;
      }
    }
    case StmtKind::For: {
      Value it = eval(*s.value);
      frames_.back().span = s.value->span;
      // Ranges iterate without making an int per step a list item (`for i in range(10**9): break`).
      if (it->kind == VK::Iterator && (as<IteratorObj>(it)->isRange || as<IteratorObj>(it)->rangeObject)) {
        auto* r = as<IteratorObj>(it);
        int64_t first = r->rangeObject ? r->rStart : r->rCur;
        for (int64_t i = first; r->rStep > 0 ? i < r->rStop : i > r->rStop; i += r->rStep) {
          if (!r->rangeObject) r->rCur = i + r->rStep;
          assign(*s.target, makeInt(i));
          Flow fl = execBody(s.body);
          if (fl == Flow::Break) return Flow::Normal;
          if (fl == Flow::Return) return fl;
        }
        return execBody(s.orelse);
      }
      Value iter = getIter(it);
      while (true) {
        frames_.back().span = s.value->span;
        Value v = nextItem(iter);
        if (!v) break;
        assign(*s.target, v);
        Flow fl = execBody(s.body);
        if (fl == Flow::Break) return Flow::Normal;
        if (fl == Flow::Return) return fl;
      }
      return execBody(s.orelse);
    }
    case StmtKind::Break: return Flow::Break;
    case StmtKind::Continue: return Flow::Continue;
    case StmtKind::Pass: return Flow::Normal;
    case StmtKind::FunctionDef: {
      Value fn = makeFunction(&s, nullptr);
      for (auto it = s.decorators.rbegin(); it != s.decorators.rend(); ++it) {
        Value deco = eval(**it);
        frames_.back().span = (*it)->span;
        CallArgs a;
        a.args.push_back(fn);
        a.span = (*it)->span;
        fn = call(deco, a);
      }
      storeName(s.name, fn);
      return Flow::Normal;
    }
    case StmtKind::ClassDef: {
      // Dynamo does not trace builtins.__build_class__: a class statement in traced code is a
      // graph break (an error with fullgraph=True). Kiln breaks there where it can resume, in a
      // function the compiled frame calls, and in the compiled frame itself where the class can
      // be made after the graph (see classBreak); other class statements of the compiled frame
      // are run while tracing unless fullgraph=True.
      const bool topBreak = tracer && !tracer->fullgraph && frames_.size() == tracer->topDepth && classBreakable(s);
      if (tracer && (tracer->fullgraph || frames_.size() > tracer->topDepth || topBreak)) {
        GraphBreak u("KB043", "Attempted to call function marked as skipped",
                     "Dynamo does not know how to trace the builtin `builtins.__build_class__.` This function "
                     "is either a Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension "
                     "(perhaps created with pybind).",
                     {"Move the class definition out of the compiled function."});
        u.where = currentLocation();
        u.stack = userStack();
        if (topBreak) classBreak(s, u);
        throw u;
      }
      Value cls = makeClass(s);
      for (auto it = s.decorators.rbegin(); it != s.decorators.rend(); ++it) {
        CallArgs a;
        a.args.push_back(cls);
        cls = call(eval(**it), a);
      }
      storeName(s.name, cls);
      return Flow::Normal;
    }
    case StmtKind::Import:
    case StmtKind::ImportFrom: doImport(s); return Flow::Normal;
    case StmtKind::Raise: {
      if (!s.value) {
        // A bare raise re-raises the exception being handled.
        if (handling_.empty()) raise("RuntimeError", "No active exception to reraise");
        throw errorFor(handling_.back());
      }
      Value exc = eval(*s.value);
      if (exc->kind == VK::Class) {
        if (!as<ClassObj>(exc)->isException) raise("TypeError", "exceptions must derive from BaseException");
        CallArgs a;
        exc = call(exc, a);
      }
      if (exc->kind != VK::Instance || !as<InstanceObj>(exc)->cls->isException)
        raise("TypeError", "exceptions must derive from BaseException");
      auto* inst = as<InstanceObj>(exc);
      if (s.value2) {
        // raise X from Y: Y is the cause (None suppresses the context).
        Value cause = eval(*s.value2);
        if (cause->kind == VK::Class) {
          CallArgs a;
          cause = call(cause, a);
        }
        if (!isNone(cause) && !(cause->kind == VK::Instance && as<InstanceObj>(cause)->cls->isException))
          raise("TypeError", "exception causes must derive from BaseException");
        inst->dict->setStr("__cause__", cause);
        inst->dict->setStr("__suppress_context__", True());
      }
      if (!handling_.empty() && handling_.back() != exc && !inst->dict->getStr("__context__"))
        inst->dict->setStr("__context__", handling_.back());
      throw errorFor(exc);
    }
    case StmtKind::Try: return execTry(s);
    case StmtKind::With: return execWith(s);
    case StmtKind::Assert: {
      Value test = eval(*s.test);
      // While capturing, an assert on a traced tensor is a torch._assert_async node (Dynamo's
      // rewrite_assert_with_torch_assert), not a data-dependent branch.
      if (tracer && test->kind == VK::Tensor && tracer->rewriteAssert(test, s.value2.get())) return Flow::Normal;
      if (!truthy(test)) {
        std::string msg = s.value2 ? str(eval(*s.value2)) : "";
        frames_.back().span = s.span;
        raise("AssertionError", msg);
      }
      return Flow::Normal;
    }
    case StmtKind::Global:
    case StmtKind::Nonlocal: return Flow::Normal;
    case StmtKind::Delete:
      for (auto& t : s.targets) deleteTarget(*t);
      return Flow::Normal;
  }
  return Flow::Normal;
}

PyError Interpreter::errorFor(const Value& exc) {
  auto* inst = as<InstanceObj>(exc);
  std::string msg = str(exc);
  return PyError(inst->cls->name, msg, exc);
}

Value Interpreter::exceptionValue(PyError& e) {
  if (Value v = e.exception()) return v;
  // An error Kiln raised natively becomes an instance of its class with the message as args.
  auto cls = exceptionClass(e.type());
  auto inst = std::make_shared<InstanceObj>(cls);
  inst->dict->setStr("args", e.message().empty() ? makeTuple({}) : makeTuple({makeStr(e.message())}));
  e.setException(inst);
  return inst;
}

Interpreter::Flow Interpreter::execTry(const Stmt& s) {
  Flow result = Flow::Normal;
  auto runFinally = [&] {
    if (s.finalbody.empty()) return;
    Flow f = execBody(s.finalbody);
    if (f != Flow::Normal) result = f;
  };
  // An exception raised in `finally` while `exc` propagates has it as its context.
  auto setContext = [&](PyError& raised, const Value& exc) {
    Value v = exceptionValue(raised);
    if (v != exc && v->kind == VK::Instance) {
      auto* ii = as<InstanceObj>(v);
      if (!ii->dict->getStr("__context__")) ii->dict->setStr("__context__", exc);
    }
  };
  auto runFinallyDuring = [&](const Value& exc) {
    if (s.finalbody.empty()) return;
    handling_.push_back(exc);
    try {
      runFinally();
    } catch (PyError& raised) {
      setContext(raised, exc);
      handling_.pop_back();
      throw;
    } catch (...) {
      handling_.pop_back();
      throw;
    }
    handling_.pop_back();
  };
  try {
    result = execBody(s.body);
  } catch (PyError& e) {
    Value excVal = exceptionValue(e);
    for (const auto& h : s.handlers) {
      bool match = !h.type;
      if (h.type) {
        Value t = eval(*h.type);
        match = isInstance(excVal, t);
      }
      if (!match) continue;
      if (!h.name.empty()) storeName(h.name, excVal);
      handling_.push_back(excVal);
      try {
        result = execBody(h.body);
      } catch (PyError& inner) {
        // An exception raised while handling another has it as its context.
        setContext(inner, excVal);
        handling_.pop_back();
        runFinallyDuring(exceptionValue(inner));
        throw;
      } catch (...) {
        handling_.pop_back();
        runFinally();
        throw;
      }
      handling_.pop_back();
      // `except E as e` unbinds e after the handler, as Python does.
      if (!h.name.empty()) frames_.back().scope->vars.erase(h.name);
      runFinally();
      return result;
    }
    runFinallyDuring(excVal);
    throw;
  } catch (...) {
    runFinally();
    throw;
  }
  if (result == Flow::Normal && !s.orelse.empty()) result = execBody(s.orelse);
  runFinally();
  return result;
}

Interpreter::Flow Interpreter::execWith(const Stmt& s) {
  std::vector<Value> managers;
  auto exitWith = [&](size_t count, std::exception_ptr pending) {
    // Each __exit__ sees the exception in flight (type, value, traceback) and may suppress it
    // by returning a true value; one raised by an __exit__ replaces it.
    for (size_t k = count; k-- > 0;) {
      const Value& m = managers[k];
      CallArgs a;
      Value excVal;
      if (pending) {
        try {
          std::rethrow_exception(pending);
        } catch (PyError& e) {
          excVal = exceptionValue(e);
          pending = std::make_exception_ptr(e);
        } catch (...) {}
      }
      if (excVal) a.args = {classOf(excVal), excVal, None()};
      else a.args = {None(), None(), None()};
      try {
        Value r = call(getAttr(m, "__exit__"), a);
        if (excVal && truthy(r)) pending = nullptr;
      } catch (...) { pending = std::current_exception(); }
    }
    if (pending) std::rethrow_exception(pending);
  };
  for (const auto& item : s.items) {
    Value m = eval(*item.context);
    Value enter = getAttrOrNull(m, "__enter__");
    if (!enter || !getAttrOrNull(m, "__exit__"))
      raise("TypeError", "'" + typeName(m) + "' object does not support the context manager protocol");
    CallArgs a;
    Value v;
    try {
      v = call(enter, a);
      if (item.target) assign(*item.target, v);
    } catch (...) {
      exitWith(managers.size(), std::current_exception());
      throw;
    }
    managers.push_back(m);
  }
  Flow f;
  try {
    f = execBody(s.body);
  } catch (PyError&) {
    exitWith(managers.size(), std::current_exception());
    return Flow::Normal;  // suppressed by an __exit__
  } catch (...) {
    // A graph break unwinding the trace: the managers exit as on a normal exit.
    exitWith(managers.size(), nullptr);
    throw;
  }
  exitWith(managers.size(), nullptr);
  return f;
}

// ---- functions and classes ----

Value Interpreter::makeFunction(const Stmt* def, const Expr* lambda) {
  auto fn = std::make_shared<FunctionObj>();
  const std::vector<Param>& params = def ? def->params : lambda->params;
  fn->name = def ? def->name : "<lambda>";
  fn->qualname = fn->name;
  fn->params = params;
  for (const auto& p : params) fn->defaults.push_back(p.defaultValue ? eval(*p.defaultValue) : nullptr);
  if (def) fn->def = std::shared_ptr<Stmt>(std::shared_ptr<Stmt>{}, const_cast<Stmt*>(def));
  if (lambda) fn->lambda = std::shared_ptr<Expr>(std::shared_ptr<Expr>{}, const_cast<Expr*>(lambda));
  Frame& f = frames_.back();
  // A function defined inside another is qualified by it (work.<locals>.helper); class bodies
  // qualify their methods in finishClass.
  if (f.fn && f.locals && !f.classBody) fn->qualname = f.fn->qualname + ".<locals>." + fn->name;
  // A function defined in a class body closes over the enclosing function, not the class.
  fn->closure = f.locals ? f.scope : (f.classBody ? f.scope->parent : nullptr);
  fn->module = f.module;
  return fn;
}

Value Interpreter::callFunction(FunctionObj& fn, CallArgs& args, const Value& self) {
  // Dynamo's skip list: traced code does not inline Optimizer.zero_grad (it breaks there and
  // the call runs eagerly), so nothing it reads (each p.grad) is guarded.
  if (tracer && frames_.size() >= tracer->topDepth && fn.qualname == "Optimizer.zero_grad" && fn.module &&
      fn.module->name == "torch.optim") {
    GraphBreak u("KB049", "Attempted to inline function marked as skipped",
                 "Dynamo developers have intentionally marked that the function `Optimizer.zero_grad` should not be traced.",
                 {"Avoid calling the function `Optimizer.zero_grad`."});
    u.where = currentLocation();
    u.stack = userStack();
    throw u;
  }
  auto scope = std::make_shared<Scope>();
  scope->parent = fn.closure;
  // Bind arguments Python-style.
  std::vector<Value> positional;
  if (self) positional.push_back(self);
  positional.insert(positional.end(), args.args.begin(), args.args.end());
  size_t pi = 0;
  std::shared_ptr<TupleObj> varargs;
  std::shared_ptr<DictObj> varkw;
  const std::string& fname = fn.name;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    if (p.kind == Param::Normal) {
      if (pi < positional.size()) scope->vars[p.name] = positional[pi++];
    } else if (p.kind == Param::VarArgs) {
      varargs = std::make_shared<TupleObj>();
      while (pi < positional.size()) varargs->items.push_back(positional[pi++]);
      scope->vars[p.name] = varargs;
    } else if (p.kind == Param::VarKw) {
      varkw = std::make_shared<DictObj>();
      scope->vars[p.name] = varkw;
    }
  }
  if (pi < positional.size()) {
    size_t maxPos = 0;
    for (const auto& p : fn.params) maxPos += p.kind == Param::Normal;
    raise("TypeError", fname + "() takes " + std::to_string(maxPos - (self ? 1 : 0)) + " positional argument" +
                           (maxPos - (self ? 1 : 0) == 1 ? "" : "s") + " but " + std::to_string(positional.size() - (self ? 1 : 0)) +
                           (positional.size() - (self ? 1 : 0) == 1 ? " was" : " were") + " given");
  }
  for (const auto& [k, v] : args.kwargs) {
    bool found = false;
    for (const auto& p : fn.params) {
      if (p.name == k && (p.kind == Param::Normal || p.kind == Param::KwOnly)) {
        if (scope->vars.count(k)) raise("TypeError", fname + "() got multiple values for argument '" + k + "'");
        scope->vars[k] = v;
        found = true;
        break;
      }
    }
    if (!found) {
      if (!varkw) raise("TypeError", fname + "() got an unexpected keyword argument '" + k + "'");
      varkw->setStr(k, v);
    }
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    if ((p.kind == Param::Normal || p.kind == Param::KwOnly) && !scope->vars.count(p.name)) {
      if (fn.defaults[i]) {
        scope->vars[p.name] = fn.defaults[i];
        if (tracer) tracer->onDefault(&fn, i, fn.defaults[i]);
      } else missing.push_back(p.name);
    }
  }
  if (!missing.empty()) {
    std::string names;
    for (size_t i = 0; i < missing.size(); ++i)
      names += (i ? (i + 1 == missing.size() ? (missing.size() > 2 ? ", and " : " and ") : ", ") : "") + ("'" + missing[i] + "'");
    raise("TypeError", fname + "() missing " + std::to_string(missing.size()) + " required positional argument" +
                           (missing.size() == 1 ? "" : "s") + ": " + names);
  }

  const Body* body = fn.def ? &fn.def->body : nullptr;
  const FnInfo& info = infoFor(fn.def ? static_cast<const void*>(fn.def.get()) : fn.lambda.get(), body, fn.params, fn.lambda.get());
  Frame f;
  f.scope = scope;
  f.module = fn.module;
  f.locals = &info.locals;
  f.globalsDecl = &info.globals;
  f.function = fn.name;
  f.fn = &fn;
  f.span = fn.def ? fn.def->span : fn.lambda->span;
  auto cd = fn.attrs.find("__class_def__");
  if (cd != fn.attrs.end()) {
    f.classDef = asShared<ClassObj>(cd->second);
    // Zero-argument super() uses the method's first argument (self, or cls in __new__ and
    // class methods).
    size_t first = 0;  // a resume function takes the method's first argument among its live locals
    if (auto at = fn.attrs.find("__super_self__"); at != fn.attrs.end() && at->second->kind == VK::Int)
      first = static_cast<size_t>(as<IntObj>(at->second)->small());
    f.classSelf = self ? self : (positional.size() <= first ? nullptr : positional[first]);
  } else if (self) {
    f.classSelf = self;
  }
  if (fn.def && fn.def->isGenerator) return makeGenerator(fn, std::move(f));
  FrameGuard g(*this, f);
  try {
    if (fn.lambda) return eval(*fn.lambda->target);
    Flow fl = execBody(fn.def->body);
    if (fl == Flow::Return) return frames_.back().returnValue;
    return None();
  } catch (PyError& e) {
    e.traceback.insert(e.traceback.begin(), TraceFrame{fn.module ? fn.module->file : file_, fn.name, frames_.back().span});
    throw;
  }
}

void Interpreter::doImport(const Stmt& s) {
  if (s.kind == StmtKind::Import) {
    for (const auto& a : s.names) {
      auto mod = importModule(a.name);
      if (!a.asname.empty()) {
        storeName(a.asname, mod);
      } else {
        std::string top = a.name.substr(0, a.name.find('.'));
        storeName(top, importModule(top));
      }
    }
    return;
  }
  if (s.level > 0) raise("ImportError", "attempted relative import with no known parent package");
  auto mod = importModule(s.module);
  for (const auto& a : s.names) {
    if (a.name == "*") {
      for (auto& [k, v] : mod->scope->vars)
        if (!k.empty() && k[0] != '_') storeName(k, v);
      continue;
    }
    auto it = mod->scope->vars.find(a.name);
    Value v;
    if (it != mod->scope->vars.end()) v = it->second;
    else if (modules_.count(s.module + "." + a.name)) v = modules_[s.module + "." + a.name];
    else raise("ImportError", "cannot import name '" + a.name + "' from '" + s.module + "'");
    storeName(a.asname.empty() ? a.name : a.asname, v);
  }
}

std::shared_ptr<ModuleObj> Interpreter::importModule(const std::string& dotted) {
  auto it = modules_.find(dotted);
  if (it != modules_.end()) return it->second;
  static const std::set<std::string> kSandboxed = {"os",     "sys",       "subprocess",      "socket",    "shutil",   "pathlib",
                                                   "io",     "builtins",  "ctypes",          "urllib",    "requests", "http",
                                                   "pickle", "importlib", "multiprocessing", "threading", "signal"};
  std::string top = dotted.substr(0, dotted.find('.'));
  if (kSandboxed.count(top))
    raise("ImportError", "import of '" + dotted +
                             "' is not allowed: Kiln runs scripts sandboxed (no sys, "
                             "subprocess, files or network; os offers only environ, getenv, sep "
                             "and name)");
  std::string source, fileName;
  if (stdlibSource(dotted, source, fileName)) {
    // A package's parent is imported first (collections before collections.abc).
    if (dotted.find('.') != std::string::npos) importModule(dotted.substr(0, dotted.rfind('.')));
    auto mod = std::make_shared<ModuleObj>(dotted);
    mod->scope->vars["__name__"] = makeStr(dotted);
    registerModule(mod);
    try {
      runInModule(mod, parseModule(source, "<kiln>/" + fileName));
    } catch (...) {
      modules_.erase(dotted);
      throw;
    }
    if (dotted.find('.') != std::string::npos) {
      auto parent = modules_.find(dotted.substr(0, dotted.rfind('.')));
      if (parent != modules_.end()) parent->second->scope->vars[dotted.substr(dotted.rfind('.') + 1)] = mod;
    }
    return mod;
  }
  raise("ModuleNotFoundError", "No module named '" + dotted + "'");
}

}  // namespace kiln::py
