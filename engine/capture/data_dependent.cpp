#include "engine/capture/data_dependent.h"

#include "engine/capture/tracer.h"

#include <map>
#include <set>

namespace kiln::capture {

using py::Value;
using py::VK;

bool rewriteAssert(Tracer& tracer, const Value& cond, const py::Expr* msg) {
  // Dynamo rewrites only when it can read the message as a constant (or there is none); any
  // other message leaves a jump on the tensor, a data-dependent break.
  std::string text = "assertion error";
  if (msg) {
    if (msg->kind != py::ExprKind::Str) return false;
    text = msg->str;
  }
  if (!cond || cond->kind != VK::Tensor || !tracer.dependsOnInputs(cond)) return false;
  tracer.record("torch._assert_async", ir::NodeKind::CallFunction, {cond, py::makeStr(text)}, {}, ir::TensorType{});
  tracer.graph.nodes.back().types.clear();  // no result: FX prints `_assert_async = torch._assert_async(...)`
  return true;
}

namespace {

// Names a function's own code reads (its co_names and free variables), not those of functions
// and lambdas defined inside it (their own code objects). Comprehensions are inlined (PEP 709).
void readNames(const py::Expr* e, std::set<std::string>& out);
void readNames(const py::Body& body, std::set<std::string>& out);

void readNames(const py::Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == py::ExprKind::Lambda) {
    for (const auto& p : e->params) readNames(p.defaultValue.get(), out);  // defaults run in the outer code
    return;
  }
  if (e->kind == py::ExprKind::Name) out.insert(e->name);
  for (const auto& x : e->items) readNames(x.get(), out);
  for (const auto& x : e->values) readNames(x.get(), out);
  for (const auto& k : e->keywords) readNames(k.value.get(), out);
  readNames(e->target.get(), out);
  readNames(e->a.get(), out);
  readNames(e->b.get(), out);
  readNames(e->c.get(), out);
  for (const auto& g : e->generators) {
    readNames(g.iter.get(), out);
    for (const auto& c : g.ifs) readNames(c.get(), out);
  }
}

void readNames(const py::Body& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    if (s->kind == py::StmtKind::FunctionDef || s->kind == py::StmtKind::ClassDef) {
      for (const auto& d : s->decorators) readNames(d.get(), out);
      for (const auto& p : s->params) readNames(p.defaultValue.get(), out);
      for (const auto& b : s->bases) readNames(b.get(), out);
      continue;
    }
    for (const auto& t : s->targets) readNames(t.get(), out);
    readNames(s->value.get(), out);
    readNames(s->target.get(), out);
    readNames(s->test.get(), out);
    readNames(s->value2.get(), out);
    for (const auto& it : s->items) readNames(it.context.get(), out);
    readNames(s->body, out);
    readNames(s->orelse, out);
    readNames(s->finalbody, out);
    for (const auto& h : s->handlers) {
      readNames(h.type.get(), out);
      readNames(h.body, out);
    }
  }
}

// Resume function definitions -> the names their original function's code reads.
std::map<const py::Stmt*, std::set<std::string>>& resumeNames() {
  static std::map<const py::Stmt*, std::set<std::string>> m;
  return m;
}

bool isResume(const py::Stmt& def) { return def.name.rfind("torch_dynamo_resume_in_", 0) == 0; }

bool isTorchModule(const Value& v) {
  if (!v || v->kind != VK::Module) return false;
  const std::string& n = py::as<py::ModuleObj>(v)->name;
  return n == "torch" || n.rfind("torch.", 0) == 0;
}

// Dynamo's has_tensor: tensors and nn.Modules (instances and subclasses), through exact lists,
// tuples, dicts and namedtuples; any other object counts as none.
bool hasTensor(py::Interpreter& in, const Value& v, std::set<const py::Obj*>& seen) {
  if (!v || !seen.insert(v.get()).second) return false;
  auto module = in.builtinClass("Module");
  switch (v->kind) {
    case VK::Tensor: return true;
    case VK::Instance: return module && py::as<py::InstanceObj>(v)->cls->isSubclassOf(module.get());
    case VK::Class: return module && py::as<py::ClassObj>(v)->isSubclassOf(module.get());
    case VK::List:
      if (v->sub) return false;
      for (const auto& x : py::as<py::ListObj>(v)->items)
        if (hasTensor(in, x, seen)) return true;
      return false;
    case VK::Tuple:
      if (v->sub && !v->sub->cls->lookup("_fields")) return false;  // namedtuples are read by field
      for (const auto& x : py::as<py::TupleObj>(v)->items)
        if (hasTensor(in, x, seen)) return true;
      return false;
    case VK::Dict:
      if (v->sub) return false;
      for (const auto& [k, x] : py::as<py::DictObj>(v)->items)
        if (hasTensor(in, x, seen)) return true;
      return false;
    default: return false;
  }
}

}  // namespace

void noteResumeCode(const py::Stmt& resumeDef, const py::Stmt& originalDef) {
  std::set<std::string> names;
  auto it = isResume(originalDef) ? resumeNames().find(&originalDef) : resumeNames().end();
  if (it != resumeNames().end()) names = it->second;
  else readNames(originalDef.body, names);
  resumeNames()[&resumeDef] = std::move(names);
}

bool hasTensorInFrame(py::Interpreter& in, const py::FunctionObj& fn, const std::vector<Value>& args, const Value& self) {
  std::set<std::string> names;
  auto resume = fn.def && isResume(*fn.def) ? resumeNames().find(fn.def.get()) : resumeNames().end();
  if (resume != resumeNames().end()) names = resume->second;
  else if (fn.def) readNames(fn.def->body, names);
  else if (fn.lambda) readNames(fn.lambda->target.get(), names);
  // A global the code reads that is the torch module or one of its submodules.
  if (fn.module)
    for (const auto& n : names) {
      bool local = false;
      for (const auto& p : fn.params) local = local || p.name == n;
      if (local) continue;
      auto it = fn.module->scope->vars.find(n);
      if (it != fn.module->scope->vars.end() && isTorchModule(it->second)) return true;
    }
  std::set<const py::Obj*> seen;
  if (hasTensor(in, self, seen)) return true;
  for (const auto& a : args)
    if (hasTensor(in, a, seen)) return true;
  for (size_t i = 0; i < fn.defaults.size(); ++i)
    if (hasTensor(in, fn.defaults[i], seen)) return true;
  // Free variables are frame locals too (a closure over a module or a tensor).
  for (py::Scope* sc = fn.closure.get(); sc; sc = sc->parent.get())
    for (const auto& n : names)
      if (auto it = sc->vars.find(n); it != sc->vars.end() && hasTensor(in, it->second, seen)) return true;
  return false;
}

}  // namespace kiln::capture
