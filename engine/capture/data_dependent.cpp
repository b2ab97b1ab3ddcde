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

namespace {

struct UnbackedClasses {
  std::shared_ptr<py::ClassObj> scalar, relation;
};

std::string exprOf(const Value& v) {
  Value e = py::as<py::InstanceObj>(v)->dict->getStr("_expr");
  return e && e->kind == VK::Str ? py::as<py::StrObj>(e)->v : "?";
}

bool isFloatSym(const Value& v) {
  Value f = py::as<py::InstanceObj>(v)->dict->getStr("_float");
  return f && f->kind == VK::Bool && py::as<py::BoolObj>(f)->v;
}

const UnbackedClasses& classes();

// `sym OP other` as torch prints the relation (sympy: Eq / Ne, a float symbol's constants as floats).
Value relation(py::Interpreter& in, const std::string& op, py::CallArgs& a) {
  const Value& self = a.args.at(0);
  const Value& other = a.args.at(1);
  std::string rhs;
  if (other->kind == VK::Instance && py::as<py::InstanceObj>(other)->cls == classes().scalar) rhs = exprOf(other);
  else if (other->kind == VK::Int && isFloatSym(self))
    rhs = in.repr(py::makeFloat(static_cast<double>(py::as<py::IntObj>(other)->small())));
  else if (other->kind == VK::Int || other->kind == VK::Float) rhs = in.repr(other);
  else unbackedLimitation(in, "a comparison of an unbacked scalar with a " + py::typeName(other));
  const std::string lhs = exprOf(self);
  std::string text = op == "==" ? "Eq(" + lhs + ", " + rhs + ")" : op == "!=" ? "Ne(" + lhs + ", " + rhs + ")" : lhs + " " + op + " " + rhs;
  auto r = std::make_shared<py::InstanceObj>(classes().relation);
  r->native = std::make_shared<int>(0);  // never rebuilt from its attributes after the graph
  r->dict->setStr("_expr", py::makeStr(text));
  return r;
}

std::shared_ptr<py::ClassObj> makeClass(const std::string& name, bool comparable) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = name;
  cls->mro.push_back(cls);
  if (comparable)
    for (auto [dunder, op] :
         {std::pair{"__lt__", "<"}, {"__le__", "<="}, {"__gt__", ">"}, {"__ge__", ">="}, {"__eq__", "=="}, {"__ne__", "!="}}) {
      std::string o = op;
      cls->dict[dunder] = py::makeBuiltin(name + "." + dunder, [o](py::Interpreter& in, py::CallArgs& a) { return relation(in, o, a); });
    }
  // float(u) / int(u) of a scalar Tensor.item() read: the same scalar converted, which a frame
  // can still return (Dynamo's scalar_tensor output of float(x)); any other use of it not.
  if (comparable)
    for (const char* to : {"float", "int"}) {
      std::string conv = to;
      cls->dict["__" + conv + "__"] =
          py::makeBuiltin(name + ".__" + conv + "__", [conv, name](py::Interpreter& in, py::CallArgs& a) -> Value {
            auto* self = py::as<py::InstanceObj>(a.args.at(0));
            Value of = self->dict->getStr("_item_of");
            if (!of) unbackedLimitation(in, name + ".__" + conv + "__");
            auto r = std::make_shared<py::InstanceObj>(self->cls);
            r->native = std::make_shared<int>(0);
            r->dict->setStr("_expr", self->dict->getStr("_expr"));
            r->dict->setStr("_float", py::makeBool(conv == "float"));
            r->dict->setStr("_item_of", of);
            r->dict->setStr("_convert", py::makeStr(conv));
            return r;
          });
    }
  // Every other use needs the scalar's value, which only the graph has.
  for (const char* dunder :
       {"__bool__", "__index__",  "__hash__",    "__repr__",    "__str__",      "__format__",   "__neg__",       "__pos__",
        "__abs__",  "__round__",  "__trunc__",   "__floor__",   "__ceil__",     "__add__",      "__radd__",      "__sub__",
        "__rsub__", "__mul__",    "__rmul__",    "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
        "__rmod__", "__pow__",    "__rpow__",    "__and__",     "__rand__",     "__or__",       "__ror__",       "__xor__",
        "__rxor__", "__lshift__", "__rlshift__", "__rshift__",  "__rrshift__"}) {
    std::string d = dunder;
    cls->dict[d] =
        py::makeBuiltin(name + "." + d, [d, name](py::Interpreter& in, py::CallArgs&) -> Value { unbackedLimitation(in, name + "." + d); });
  }
  if (!comparable)
    for (const char* dunder : {"__float__", "__int__"}) {
      std::string d = dunder;
      cls->dict[d] = py::makeBuiltin(name + "." + d,
                                     [d, name](py::Interpreter& in, py::CallArgs&) -> Value { unbackedLimitation(in, name + "." + d); });
    }
  if (!comparable)
    for (const char* dunder : {"__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"}) {
      std::string d = dunder;
      cls->dict[d] = py::makeBuiltin(name + "." + d,
                                     [d, name](py::Interpreter& in, py::CallArgs&) -> Value { unbackedLimitation(in, name + "." + d); });
    }
  return cls;
}

const UnbackedClasses& classes() {
  // Shared by every interpreter: the classes hold nothing of one.
  static const UnbackedClasses c{makeClass("SymScalar", true), makeClass("SymBool", false)};
  return c;
}

}  // namespace

Value makeUnbacked(py::Interpreter&, Tracer& tracer, bool isFloat) {
  // Symbols count per capture, floats (zuf0, zuf1 ...) apart from ints (u0, u1 ...).
  static std::map<uint64_t, std::pair<int, int>> counts;
  auto& [ints, floats] = counts[tracer.firstObject];
  auto v = std::make_shared<py::InstanceObj>(classes().scalar);
  v->native = std::make_shared<int>(0);  // never rebuilt from its attributes after the graph
  v->dict->setStr("_expr", py::makeStr(isFloat ? "zuf" + std::to_string(floats++) : "u" + std::to_string(ints++)));
  v->dict->setStr("_float", py::makeBool(isFloat));
  return v;
}

bool isUnbacked(const Value& v) {
  if (!v || v->kind != VK::Instance) return false;
  const auto& cls = py::as<py::InstanceObj>(v)->cls;
  return cls == classes().scalar || cls == classes().relation;
}

void guardOnDataDependent(py::Interpreter& in, const Value& rel) {
  if (!rel || py::as<py::InstanceObj>(rel)->cls != classes().relation) unbackedLimitation(in, "the truth of an unbacked scalar");
  const std::string e = exprOf(rel);
  const py::TraceFrame at = in.currentLocation();
  in.raise("UserError", "Consider annotating your code using torch._check*(). Could not guard on data-dependent expression " + e +
                            " (unhinted: " + e +
                            ").  (Size-like symbols: none)\n\nCaused by: " + py::sourceLine(in.source(), at.span.line, true) + "  # " +
                            at.file + ":" + std::to_string(at.span.line) + " in " + at.function);
}

void unbackedLimitation(py::Interpreter& in, const std::string& use) {
  Unsupported u("KB033", "Tensor.item() with capture_scalar_outputs=True",
                "Dynamo captures Tensor.item() into the graph as an unbacked symbol (here under fullgraph=True or with "
                "config.capture_scalar_outputs); Kiln does not put the scalar in its graphs yet and cannot trace " +
                    use + " without it, so the frame runs eagerly.");
  u.kilnLimitation = true;
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

}  // namespace kiln::capture
