// The unbacked scalars of capture_hooks.h / unbacked.h: SymScalar (u0, zuf0) and SymBool (a
// relation of one), plain classes whose every use but a comparison or a float()/int() of an
// item() read stops the capture as a Kiln limitation (KB033).
#include "engine/torch/unbacked.h"

#include "engine/python/trace_hooks.h"

#include <map>
#include <utility>

namespace kiln::torchapi {

using py::Value;
using py::VK;

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

Value makeUnbacked(uint64_t capture, bool isFloat) {
  // Symbols count per capture, floats (zuf0, zuf1 ...) apart from ints (u0, u1 ...).
  static std::map<uint64_t, std::pair<int, int>> counts;
  auto& [ints, floats] = counts[capture];
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
  py::GraphBreak u("KB033", "Tensor.item() with capture_scalar_outputs=True",
                   "Dynamo captures Tensor.item() into the graph as an unbacked symbol (here under fullgraph=True or with "
                   "config.capture_scalar_outputs); Kiln does not put the scalar in its graphs yet and cannot trace " +
                       use + " without it, so the frame runs eagerly.");
  u.kilnLimitation = true;
  u.where = in.currentLocation();
  u.stack = in.userStack();
  throw u;
}

}  // namespace kiln::torchapi
