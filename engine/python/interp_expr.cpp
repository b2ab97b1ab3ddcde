// Expression evaluation, attribute access, operators and calls.
#include "engine/python/bigint.h"
#include "engine/python/interpreter.h"

#include "engine/autograd/grad_mode.h"
#include "engine/python/coroutine.h"
#include "engine/python/pyformat.h"
#include "engine/python/tensor_hooks.h"
#include "engine/python/trace_hooks.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kiln::py {

namespace {
int64_t asInt(const Value& v) { return v->kind == VK::Bool ? as<BoolObj>(v)->v : as<IntObj>(v)->small(); }
bool isIntLike(const Value& v) { return v->kind == VK::Int || v->kind == VK::Bool; }
bool isNumber(const Value& v) { return v->kind == VK::Int || v->kind == VK::Bool || v->kind == VK::Float; }
double asDouble(const Value& v) { return v->kind == VK::Float ? as<FloatObj>(v)->v : intToDouble(v); }
bool isBig(const Value& v) { return isBigInt(v); }

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == -1) {                                                // x86 idiv traps on INT64_MIN / -1
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // callers refuse INT64_MIN / -1
  }
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;  // and INT64_MIN % -1 would trap
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
bool mulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }
}  // namespace

Value Interpreter::eval(const Expr& e) {
  if (!tracer) return evalExpr(e);
  Value v = evalExpr(e);
  // While capturing, the compiled frame's expression values are kept: at a graph break they
  // are the evaluation stack the resume function receives.
  if (frames_.size() == tracer->topDepth) tracer->onTopExpr(&e, v);
  return v;
}

Value Interpreter::evalExpr(const Expr& e) {
  // Deep calls times deep expressions can use up the native stack before kMaxDepth (stack_guard.h).
  if (stackNearlyFull()) raise("RecursionError", "maximum recursion depth exceeded");
  switch (e.kind) {
    case ExprKind::Name: {
      frames_.back().span = e.span;
      return lookupName(e.name, e.span);
    }
    case ExprKind::Int:
      if (e.bigInt) {
        frames_.back().span = e.span;
        return parseIntString(*this, e.str, 0);
      }
      return makeInt(e.ival);
    case ExprKind::Float: return makeFloat(e.fval);
    case ExprKind::Str: return makeStr(e.str);
    case ExprKind::Bool: return makeBool(e.bval);
    case ExprKind::None: return None();
    case ExprKind::Ellipsis: {
      static Value v = std::make_shared<Obj>(VK::Ellipsis);
      return v;
    }
    case ExprKind::FString: return evalFString(e);
    case ExprKind::Attribute: {
      Value obj = eval(*e.target);
      frames_.back().span = e.span;
      Value v = getAttr(obj, e.name);
      if (tracer) v = tracer->onAttribute(obj, e.name, v);
      return v;
    }
    case ExprKind::Call: return evalCall(e);
    case ExprKind::BinOp: {
      Value a = eval(*e.a);
      Value b = eval(*e.b);
      frames_.back().span = e.span;
      return binaryOp(e.name, a, b);
    }
    case ExprKind::UnaryOp: {
      Value a = eval(*e.a);
      frames_.back().span = e.span;
      if (e.name == "not") {
        if (a->kind == VK::Tensor) return makeBool(!truthy(a));
        return makeBool(!truthy(a));
      }
      if (a->kind == VK::Tensor) {
        if (Value r = tensorHooks().unary(*this, e.name, a)) return r;
      }
      if (isUserObject(a)) {
        const char* dunder = e.name == "-" ? "__neg__" : e.name == "+" ? "__pos__" : "__invert__";
        if (Value r = callDunder(a, dunder, {}); r && !isNotImplemented(r)) return r;
      }
      if (e.name == "-") {
        if (a->kind == VK::Float) return tracer ? tracer->onSymbolicUnary("neg", a, makeFloat(-asDouble(a))) : makeFloat(-asDouble(a));
        if (isIntLike(a)) {
          Value r = isBig(a) || asInt(a) == INT64_MIN ? makeIntFrom(-toMpz(a)) : makeInt(-asInt(a));
          return tracer ? tracer->onSymbolicUnary("neg", a, r) : r;
        }
      } else if (e.name == "+") {
        if (a->kind == VK::Float) return a;
        if (isIntLike(a)) return isBig(a) ? a : makeInt(asInt(a));
      } else if (e.name == "~") {
        if (isIntLike(a)) return isBig(a) ? makeIntFrom(~toMpz(a)) : makeInt(~asInt(a));
      }
      raise("TypeError", "bad operand type for unary " + e.name + ": '" + typeName(a) + "'");
    }
    case ExprKind::BoolOp: {
      Value v;
      for (const auto& x : e.items) {
        v = eval(*x);
        bool t = truthy(v);
        if (e.name == "and" && !t) return v;
        if (e.name == "or" && t) return v;
      }
      return v;
    }
    case ExprKind::Compare: {
      Value left = eval(*e.items[0]);
      Value result;
      for (size_t i = 0; i < e.ops.size(); ++i) {
        Value right = eval(*e.items[i + 1]);
        frames_.back().span = e.span;
        result = compare(e.ops[i], left, right);
        if (i + 1 < e.ops.size() && !truthy(result)) return result;
        left = right;
      }
      return result;
    }
    case ExprKind::Subscript: {
      Value obj = eval(*e.target);
      Value idx = eval(*e.a);
      frames_.back().span = e.span;
      return subscript(obj, idx);
    }
    case ExprKind::Slice: {
      auto s = std::make_shared<SliceObj>();
      s->start = e.a ? eval(*e.a) : None();
      s->stop = e.b ? eval(*e.b) : None();
      s->step = e.c ? eval(*e.c) : None();
      return s;
    }
    case ExprKind::Tuple:
    case ExprKind::List:
    case ExprKind::Set: {
      std::vector<Value> items;
      for (const auto& x : e.items) {
        if (x->kind == ExprKind::Starred) {
          auto more = iterate(eval(*x->target));
          items.insert(items.end(), more.begin(), more.end());
        } else {
          items.push_back(eval(*x));
        }
      }
      if (e.kind == ExprKind::Tuple) return makeTuple(std::move(items));
      if (e.kind == ExprKind::List) return makeList(std::move(items));
      // sets are represented as de-duplicated lists with set type semantics for membership
      std::vector<Value> uniq;
      for (auto& v : items) {
        bool dup = false;
        for (auto& u : uniq) dup = dup || equals(u, v);
        if (!dup) uniq.push_back(v);
      }
      auto d = std::make_shared<DictObj>();
      for (auto& v : uniq) d->set(v, None());
      auto setCls = builtinClass("set");
      auto inst = std::make_shared<InstanceObj>(setCls);
      inst->native = d;
      return inst;
    }
    case ExprKind::Dict: {
      auto d = std::make_shared<DictObj>();
      for (size_t i = 0; i < e.items.size(); ++i) {
        if (!e.items[i]) {
          Value other = eval(*e.values[i]);
          if (other->kind != VK::Dict) raise("TypeError", "'" + typeName(other) + "' object is not a mapping");
          for (auto& [k, v] : as<DictObj>(other)->items) d->set(k, v);
          continue;
        }
        Value k = eval(*e.items[i]);
        d->set(k, eval(*e.values[i]));
      }
      return d;
    }
    case ExprKind::Lambda: return makeFunction(nullptr, &e);
    case ExprKind::IfExp: return truthy(eval(*e.target)) ? eval(*e.a) : eval(*e.b);
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::DictComp: return evalComprehension(e);
    case ExprKind::GeneratorExp: return makeGeneratorExpression(e);
    case ExprKind::Yield: {
      Value v = e.target ? eval(*e.target) : None();
      frames_.back().span = e.span;
      return yieldValue(std::move(v));
    }
    case ExprKind::YieldFrom: return evalYieldFrom(e);
    case ExprKind::Starred: raise("SyntaxError", "can't use starred expression here");
    case ExprKind::DoubleStarred: raise("SyntaxError", "invalid syntax");
  }
  raise("SystemError", "unknown expression");
}

Value Interpreter::evalComprehension(const Expr& e) {
  // Comprehensions run in their own scope, as in Python 3.
  auto scope = std::make_shared<Scope>();
  Frame& outer = frames_.back();
  scope->parent = outer.locals ? outer.scope : nullptr;
  std::set<std::string> locals;
  for (const auto& g : e.generators) {
    std::function<void(const Expr&)> collect = [&](const Expr& t) {
      if (t.kind == ExprKind::Name) locals.insert(t.name);
      for (auto& x : t.items) collect(*x);
      if (t.kind == ExprKind::Starred) collect(*t.target);
    };
    collect(*g.target);
  }
  // The first iterable is evaluated in the enclosing scope.
  Value firstIter = getIter(eval(*e.generators[0].iter));
  Frame f;
  f.scope = scope;
  f.module = outer.module;
  f.locals = &locals;
  f.globalsDecl = outer.globalsDecl;
  f.function = outer.function;
  f.span = e.span;
  f.generator = outer.generator;
  FrameGuard g(*this, f);
  std::vector<Value> results;
  auto dict = std::make_shared<DictObj>();
  runComprehension(e, firstIter, [&](Value v, Value value) {
    if (e.kind == ExprKind::DictComp) dict->set(v, value);
    else results.push_back(std::move(v));
  });
  if (e.kind == ExprKind::DictComp) return dict;
  if (e.kind == ExprKind::SetComp) {
    auto d = std::make_shared<DictObj>();
    for (auto& v : results) d->set(v, None());
    auto inst = std::make_shared<InstanceObj>(builtinClass("set"));
    inst->native = d;
    return inst;
  }
  return makeList(std::move(results));
}

void Interpreter::runComprehension(const Expr& e, const Value& firstIter, const std::function<void(Value, Value)>& emit) {
  std::function<void(size_t)> loop = [&](size_t gi) {
    const Comprehension& gen = e.generators[gi];
    Value it = gi == 0 ? firstIter : getIter(eval(*gen.iter));
    while (Value v = nextItem(it)) {
      assign(*gen.target, v);
      bool ok = true;
      for (const auto& c : gen.ifs)
        if (!truthy(eval(*c))) {
          ok = false;
          break;
        }
      if (!ok) continue;
      if (gi + 1 < e.generators.size()) {
        loop(gi + 1);
        continue;
      }
      if (e.kind == ExprKind::DictComp) {
        Value k = eval(*e.a);
        emit(k, eval(*e.b));
      } else {
        emit(eval(*e.a), nullptr);
      }
    }
  };
  loop(0);
}

Value Interpreter::evalFString(const Expr& e) {
  std::string out;
  for (const auto& part : e.items) {
    if (part->kind == ExprKind::Str) {
      out += part->str;
      continue;
    }
    Value v = eval(*part->target);
    if (part->conversion == 'r') v = makeStr(repr(v));
    else if (part->conversion == 's') v = makeStr(str(v));
    if (!part->formatSpec.empty()) {
      out += formatValue(*this, v, part->formatSpec);
    } else {
      out += str(v);
    }
  }
  return makeStr(out);
}

Value Interpreter::evalCall(const Expr& e) {
  Value fn;
  // Method calls on tensors keep their receiver so capture records Tensor methods.
  fn = eval(*e.target);
  CallArgs args;
  args.span = e.span;
  for (const auto& a : e.items) {
    if (a->kind == ExprKind::Starred) {
      auto more = iterate(eval(*a->target));
      args.args.insert(args.args.end(), more.begin(), more.end());
    } else {
      args.args.push_back(eval(*a));
    }
  }
  for (const auto& k : e.keywords) {
    Value v = eval(*k.value);
    if (k.name.empty()) {
      if (v->kind != VK::Dict) raise("TypeError", "argument after ** must be a mapping, not " + typeName(v));
      for (auto& [kk, vv] : as<DictObj>(v)->items) {
        if (kk->kind != VK::Str) raise("TypeError", "keywords must be strings");
        args.kwargs.emplace_back(as<StrObj>(kk)->v, vv);
      }
    } else {
      args.kwargs.emplace_back(k.name, v);
    }
  }
  frames_.back().span = e.span;
  Span saved = e.span;
  Value r;
  if (tracer && frames_.size() == tracer->topDepth) {
    // A graph break inside this call resumes after it: remember what was on the stack.
    size_t mark = tracer->graphSize();
    int occurrence = tracer->countTopCall(&e);
    try {
      // The second pass of a capture that broke in this call stops before it: nothing the
      // call did the first time (graph nodes, side effects) is part of the graph.
      if (const GraphBreak* stop = tracer->stopBefore(&e, occurrence)) {
        GraphBreak again = *stop;
        again.at = GraphBreak::At::Unknown;
        throw again;
      }
      r = call(fn, args);
    } catch (GraphBreak& u) {
      if (u.at == GraphBreak::At::Unknown) {
        u.occurrence = occurrence;
        u.at = GraphBreak::At::Call;
        u.gradEnabled = autograd::isGradEnabled();  // the mode the call runs in, eagerly
        u.inferenceMode = tensor::inferenceModeEnabled();
        if (tracer) u.globalState = tracer->globalState();
        u.expr = &e;
        u.stmt = frames_.back().stmt;
        u.callee = fn;
        u.args = args.args;
        u.kwargs = args.kwargs;
        u.graphSize = mark;
        u.scope = frames_.back().scope;
      }
      throw;
    }
  } else {
    r = call(fn, args);
  }
  frames_.back().span = saved;
  return r;
}

Value Interpreter::call(const Value& fn, CallArgs& args) {
  checkInterrupt();
  switch (fn->kind) {
    case VK::Function:
      if (interceptDepth > 0 && compiler && !tracer && isUserFunction(*as<FunctionObj>(fn)))
        return compiler->callIntercepted(*this, fn, args, nullptr);
      return callFunction(*as<FunctionObj>(fn), args, nullptr);
    case VK::Builtin: try { return as<BuiltinObj>(fn)->fn(*this, args);
      } catch (const tensor::Interrupted&) {
        // A long native op stopped at Ctrl-C or a time limit (engine/tensor/stop.h).
        raiseStopped();
      } catch (const std::bad_alloc&) {
        // Native code that ran out of memory (a reduction over a huge broadcast view): the
        // script sees CPython's MemoryError and can catch it.
        raise("MemoryError", "");
      } catch (const tensor::TorchError& e) {
        // A torch error a binding did not turn into its Python exception itself (bindings that
        // capture do, as Dynamo would): the script sees PyTorch's exception with a traceback,
        // never Kiln's "internal error".
        raise(e.type(), e.what());
      }
    case VK::BoundMethod: {
      auto* bm = as<BoundMethodObj>(fn);
      if (bm->fn->kind == VK::Function) {
        if (interceptDepth > 0 && compiler && !tracer && isUserFunction(*as<FunctionObj>(bm->fn)))
          return compiler->callIntercepted(*this, bm->fn, args, bm->self);
        return callFunction(*as<FunctionObj>(bm->fn), args, bm->self);
      }
      args.args.insert(args.args.begin(), bm->self);
      return call(bm->fn, args);
    }
    case VK::Class: return instantiate(asShared<ClassObj>(fn), args);
    case VK::Instance: {
      Value c = getAttrOrNull(fn, "__call__");
      if (!c) break;
      if (tracer) tracer->onBoundMethod(fn, "__call__", c);  // Bump.__call__ may be replaced later
      // Calls of nn.Modules while capturing scope the nodes they record (module provenance).
      if (tracer && as<InstanceObj>(fn)->dict->getStr("_modules")) {
        tracer->enterModule(fn);
        struct Leave {
          TraceHooks* t;
          ~Leave() { t->leaveModule(); }
        } leave{tracer};
        return call(c, args);
      }
      return call(c, args);
    }
    default: break;
  }
  raise("TypeError", "'" + typeName(fn) + "' object is not callable");
}

Value Interpreter::iteratorAttr(const Value& obj, const std::string& name) {
  switch (obj->kind) {
    case VK::Generator: {
      auto* g = as<GeneratorObj>(obj);
      Value self = obj;
      if (name == "__next__")
        return makeBuiltin("generator.__next__", [self](Interpreter& in, CallArgs&) -> Value {
          CallArgs c;
          c.args = {self};
          return in.call(in.builtin("next"), c);
        });
      if (name == "__iter__") return makeBuiltin("generator.__iter__", [self](Interpreter&, CallArgs&) { return self; });
      if (name == "send")
        return makeBuiltin("generator.send", [self](Interpreter& in, CallArgs& a) -> Value {
          auto* gen = as<GeneratorObj>(self);
          Value v = in.resumeGenerator(*gen, a.args.empty() ? None() : a.args[0]);
          if (v) return v;
          in.raise("StopIteration", gen->returned ? in.str(gen->returned) : "");
        });
      if (name == "throw")
        return makeBuiltin("generator.throw", [self](Interpreter& in, CallArgs& a) -> Value {
          auto* gen = as<GeneratorObj>(self);
          if (a.args.empty()) in.raise("TypeError", "throw expected at least 1 argument, got 0");
          Value exc = a.args[0];
          if (exc->kind == VK::Class) {
            CallArgs c;
            if (a.args.size() > 1) c.args.push_back(a.args[1]);
            exc = in.call(exc, c);
          }
          if (exc->kind != VK::Instance || !as<InstanceObj>(exc)->cls->isException)
            in.raise("TypeError", "exceptions must be classes or instances deriving from BaseException, not " + typeName(exc));
          auto* inst = as<InstanceObj>(exc);
          Value args = inst->dict->getStr("args");
          std::string msg =
              args && args->kind == VK::Tuple && !as<TupleObj>(args)->items.empty() ? in.str(as<TupleObj>(args)->items[0]) : "";
          Value v = in.resumeGenerator(*gen, nullptr, std::make_exception_ptr(PyError(inst->cls->name, msg, exc)));
          if (v) return v;
          in.raise("StopIteration", "");
        });
      if (name == "close")
        return makeBuiltin("generator.close", [self](Interpreter& in, CallArgs&) -> Value {
          in.closeGenerator(*as<GeneratorObj>(self));
          return None();
        });
      if (name == "__name__") return makeStr(g->name);
      if (name == "__qualname__") return makeStr(g->qualname);
      if (name == "gi_running") return makeBool(g->co && g->co->running());
      raise("AttributeError", "'generator' object has no attribute '" + name + "'");
    }
    case VK::Iterator: {
      auto* it = as<IteratorObj>(obj);
      Value self = obj;
      if (it->rangeObject) {
        if (name == "start") return makeInt(it->rStart);
        if (name == "stop") return makeInt(it->rStop);
        if (name == "step") return makeInt(it->rStep);
        break;
      }
      if (name == "__next__")
        return makeBuiltin(it->typeName + ".__next__", [self](Interpreter& in, CallArgs&) -> Value {
          Value v = in.nextItem(self);
          if (!v) in.raise("StopIteration", "");
          return v;
        });
      if (name == "__iter__") return makeBuiltin(it->typeName + ".__iter__", [self](Interpreter&, CallArgs&) { return self; });
      break;
    }
    default: break;
  }
  raise("AttributeError", "'" + typeName(obj) + "' object has no attribute '" + name + "'");
}

bool Interpreter::truthy(const Value& v) {
  if (tracer) tracer->onUse(v);
  if (tracer && (v->kind == VK::Bool || v->kind == VK::Int || v->kind == VK::Float)) tracer->onSymbolicTruth(v);
  switch (v->kind) {
    case VK::None: return false;
    case VK::Bool: return as<BoolObj>(v)->v;
    case VK::Int: return as<IntObj>(v)->big || as<IntObj>(v)->small() != 0;
    case VK::Float: return as<FloatObj>(v)->v != 0.0;
    case VK::Str: return !as<StrObj>(v)->v.empty();
    case VK::Tuple:
    case VK::List:
      if (tracer) tracer->onSequence(v);  // `if xs:` depends on its length
      return v->kind == VK::Tuple ? !as<TupleObj>(v)->items.empty() : !as<ListObj>(v)->items.empty();
    case VK::Dict: return !as<DictObj>(v)->items.empty();
    case VK::Tensor: return tensorHooks().truthy(*this, v);
    case VK::Instance: {
      auto* inst = as<InstanceObj>(v);
      // Whether the class has __bool__/__len__ decides: the entry holds for this type only.
      if (tracer) tracer->onType(v);
      if (inst->cls->name == "set") return !std::static_pointer_cast<DictObj>(inst->native)->items.empty();
      if (Value b = inst->cls->lookup("__bool__")) {
        CallArgs a;
        Value r = call(std::make_shared<BoundMethodObj>(v, b), a);
        if (r->kind != VK::Bool) raise("TypeError", "__bool__ should return bool, returned " + typeName(r));
        return as<BoolObj>(r)->v;
      }
      if (Value l = inst->cls->lookup("__len__")) {
        CallArgs a;
        Value r = call(std::make_shared<BoundMethodObj>(v, l), a);
        if (r->kind != VK::Int && r->kind != VK::Bool)
          raise("TypeError", "'" + typeName(r) + "' object cannot be interpreted as an integer");
        if (r->kind == VK::Int && truthy(compare("<", r, makeInt(0)))) raise("ValueError", "__len__() should return >= 0");
        return truthy(r);
      }
      return true;
    }
    default: return true;
  }
}

bool Interpreter::equals(const Value& a, const Value& b) { return truthy(compare("==", a, b)); }

// Python int arithmetic on values (or results) beyond int64, exact through GMP. Sizes are
// checked first: 10 ** 10**12 is a MemoryError at once, not an allocation that never ends.
Value Interpreter::bigBinary(const std::string& op, const Value& a, const Value& b) {
  mpz_class x = toMpz(a), y = toMpz(b), r;
  auto bitsOf = [](const mpz_class& z) -> uint64_t { return z == 0 ? 0 : mpz_sizeinbase(z.get_mpz_t(), 2); };
  if (op == "+") return makeIntFrom(x + y);
  if (op == "-") return makeIntFrom(x - y);
  if (op == "*") {
    checkAllocation((bitsOf(x) + bitsOf(y)) / 8);
    return makeIntFrom(x * y);
  }
  if (op == "//" || op == "%") {
    if (y == 0) raise("ZeroDivisionError", op == "//" ? "integer division or modulo by zero" : "integer modulo by zero");
    if (op == "//") mpz_fdiv_q(r.get_mpz_t(), x.get_mpz_t(), y.get_mpz_t());
    else mpz_fdiv_r(r.get_mpz_t(), x.get_mpz_t(), y.get_mpz_t());
    return makeIntFrom(r);
  }
  if (op == "**") {
    if (y < 0) {
      if (x == 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
      return makeFloat(std::pow(asDouble(a), asDouble(b)));
    }
    if (x == 0 || x == 1) return makeIntFrom(x);
    if (x == -1) return makeInt(mpz_odd_p(y.get_mpz_t()) ? -1 : 1);
    if (!mpz_fits_ulong_p(y.get_mpz_t())) raise("MemoryError", "");
    unsigned long e = y.get_ui();
    unsigned __int128 bits = static_cast<unsigned __int128>(bitsOf(x)) * e;
    if (bits > (static_cast<unsigned __int128>(1) << 60)) raise("MemoryError", "");
    checkAllocation(static_cast<uint64_t>(bits / 8));
    mpz_pow_ui(r.get_mpz_t(), x.get_mpz_t(), e);
    return makeIntFrom(r);
  }
  if (op == "&") return makeIntFrom(x & y);
  if (op == "|") return makeIntFrom(x | y);
  if (op == "^") return makeIntFrom(x ^ y);
  if (op == "<<" || op == ">>") {
    if (y < 0) raise("ValueError", "negative shift count");
    if (op == ">>") {
      if (!mpz_fits_ulong_p(y.get_mpz_t())) return makeInt(x < 0 ? -1 : 0);
      mpz_fdiv_q_2exp(r.get_mpz_t(), x.get_mpz_t(), y.get_ui());
      return makeIntFrom(r);
    }
    if (x == 0) return makeInt(0);
    if (!mpz_fits_ulong_p(y.get_mpz_t())) raise("OverflowError", "too many digits in integer");
    checkAllocation((bitsOf(x) + y.get_ui()) / 8);
    mpz_mul_2exp(r.get_mpz_t(), x.get_mpz_t(), y.get_ui());
    return makeIntFrom(r);
  }
  raise("TypeError", "unsupported operand type(s) for " + op + ": '" + typeName(a) + "' and '" + typeName(b) + "'");
}

Value Interpreter::binaryOp(const std::string& opIn, const Value& a, const Value& b) {
  if (tracer) tracer->onUse(a), tracer->onUse(b);
  // Arithmetic on sizes of symbolic dims carries their expression on (capture/sym_expr.h).
  static thread_local bool symbolicOp = false;
  if (tracer && !symbolicOp && isNumber(a) && isNumber(b) && (tracer->isSymbolic(a) || tracer->isSymbolic(b))) {
    TraceHooks* t = tracer;
    symbolicOp = true;
    Value r;
    try {
      r = binaryOp(opIn, a, b);
    } catch (...) {
      symbolicOp = false;
      throw;
    }
    symbolicOp = false;
    return t->onSymbolicBinary(opIn, a, b, r);
  }
  std::string op = opIn;
  bool inplace = false;
  if (op.size() >= 2 && op.back() == '=') {
    op.pop_back();
    inplace = true;
  }
  if (isUserObject(a) || isUserObject(b))
    if (Value r = userBinary(op, a, b, inplace)) return r;
  if (a->kind == VK::Tensor || b->kind == VK::Tensor) {
    if (Value r = tensorHooks().binary(*this, inplace ? op + "=" : op, a, b)) return r;
  }
  if (isNumber(a) && isNumber(b)) {
    if (isIntLike(a) && isIntLike(b) && op != "/") {
      if (isBig(a) || isBig(b)) return bigBinary(op, a, b);
      int64_t x = asInt(a), y = asInt(b), r = 0;
      // The int64 fast path; a result that does not fit goes to the exact path (bigBinary).
      if (op == "+") return __builtin_add_overflow(x, y, &r) ? bigBinary(op, a, b) : makeInt(r);
      if (op == "-") return __builtin_sub_overflow(x, y, &r) ? bigBinary(op, a, b) : makeInt(r);
      if (op == "*") return mulOverflows(x, y, &r) ? bigBinary(op, a, b) : makeInt(r);
      if (op == "//") {
        if (y == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) return bigBinary(op, a, b);
        return makeInt(floorDiv(x, y));
      }
      if (op == "%") {
        if (y == 0) raise("ZeroDivisionError", "integer modulo by zero");
        return makeInt(floorMod(x, y));
      }
      if (op == "**") {
        if (y < 0) {
          if (x == 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
          return makeFloat(std::pow(double(x), double(y)));
        }
        // By squaring: 1 ** 10**18 must not loop 10**18 times.
        int64_t res = 1, base = x;
        for (int64_t e = y; e > 0; e >>= 1) {
          if ((e & 1) && mulOverflows(res, base, &res)) return bigBinary(op, a, b);
          if (e > 1 && mulOverflows(base, base, &base)) return bigBinary(op, a, b);
        }
        return makeInt(res);
      }
      // bool's own &, |, ^ keep bools (True | False is True, not 1).
      const bool bools = a->kind == VK::Bool && b->kind == VK::Bool;
      if (op == "&") return bools ? makeBool(x & y) : makeInt(x & y);
      if (op == "|") return bools ? makeBool(x | y) : makeInt(x | y);
      if (op == "^") return bools ? makeBool(x ^ y) : makeInt(x ^ y);
      if (op == "<<" || op == ">>") {
        if (y < 0) raise("ValueError", "negative shift count");
        if (op == ">>") return makeInt(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
        if (x == 0) return makeInt(0);
        int64_t shifted = y >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << y);
        if (y >= 64 || (shifted >> y) != x) return bigBinary(op, a, b);
        return makeInt(shifted);
      }
    } else {
      double x = asDouble(a), y = asDouble(b);
      if (op == "+") return makeFloat(x + y);
      if (op == "-") return makeFloat(x - y);
      if (op == "*") return makeFloat(x * y);
      if (op == "/") {
        if (y == 0) raise("ZeroDivisionError", isIntLike(a) && isIntLike(b) ? "division by zero" : "float division by zero");
        return makeFloat(x / y);
      }
      if (op == "//") {
        if (y == 0) raise("ZeroDivisionError", "float floor division by zero");
        return makeFloat(std::floor(x / y));
      }
      if (op == "%") {
        if (y == 0) raise("ZeroDivisionError", "float modulo");
        double r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return makeFloat(r);
      }
      if (op == "**") {
        if (x == 0 && y < 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
        return makeFloat(std::pow(x, y));
      }
    }
  }
  if (op == "+" && a->kind == VK::Str && b->kind == VK::Str) return makeStr(as<StrObj>(a)->v + as<StrObj>(b)->v);
  if (op == "+" && a->kind == b->kind && (a->kind == VK::List || a->kind == VK::Tuple)) {
    auto items = iterate(a);
    auto more = iterate(b);
    items.insert(items.end(), more.begin(), more.end());
    return a->kind == VK::List ? makeList(items) : isTorchSize(a) ? makeTorchSize(items) : makeTuple(items);
  }
  if (op == "*" && ((a->kind == VK::Str || a->kind == VK::List || a->kind == VK::Tuple) && isIntLike(b))) {
    int64_t n = std::max<int64_t>(0, asInt(b));
    if (a->kind == VK::Str) {
      const std::string& one = as<StrObj>(a)->v;
      uint64_t total = 0;
      if (__builtin_mul_overflow(static_cast<uint64_t>(one.size()), static_cast<uint64_t>(n), &total))
        raise("OverflowError", "repeated string is too long");
      checkAllocation(total);
      std::string s;
      s.reserve(total);
      for (int64_t i = 0; i < n; ++i) s += one;
      return makeStr(s);
    }
    auto items = iterate(a);
    uint64_t total = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(items.size()) * sizeof(Value), static_cast<uint64_t>(n), &total))
      raise("MemoryError", "");
    checkAllocation(total);
    std::vector<Value> out;
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
    return a->kind == VK::List ? makeList(out) : makeTuple(out);
  }
  if (op == "*" && isIntLike(a) && (b->kind == VK::Str || b->kind == VK::List || b->kind == VK::Tuple)) return binaryOp("*", b, a);
  if (op == "%" && a->kind == VK::Str) return makeStr(percentFormat(*this, as<StrObj>(a)->v, b));
  raise("TypeError", "unsupported operand type(s) for " + opIn + ": '" + typeName(a) + "' and '" + typeName(b) + "'");
}

bool Interpreter::isUserObject(const Value& v) { return v->kind == VK::Instance || v->sub != nullptr || v->kind == VK::Class; }

bool Interpreter::isNotImplemented(const Value& v) { return v && v == builtin("NotImplemented"); }

Value Interpreter::callDunder(const Value& self, const std::string& name, std::vector<Value> args) {
  auto cls = classOf(self);
  Value m = cls->lookup(name);
  if (!m && self->kind == VK::Class) return nullptr;
  if (!m) return nullptr;
  CallArgs ca;
  ca.args = std::move(args);
  return call(bindAttr(m, self, cls), ca);
}

Value Interpreter::userBinary(const std::string& op, const Value& a, const Value& b, bool inplace) {
  static const std::map<std::string, std::string> kNames = {
      {"+", "add"},  {"-", "sub"}, {"*", "mul"}, {"/", "truediv"}, {"@", "matmul"},  {"//", "floordiv"}, {"%", "mod"},
      {"**", "pow"}, {"&", "and"}, {"|", "or"},  {"^", "xor"},     {"<<", "lshift"}, {">>", "rshift"}};
  auto it = kNames.find(op);
  if (it == kNames.end()) return nullptr;
  const std::string& n = it->second;
  if (inplace && isUserObject(a))
    if (Value r = callDunder(a, "__i" + n + "__", {b}); r && !isNotImplemented(r)) return r;
  // A subclass's reflected method goes first (Python's rule for b's type deriving from a's).
  bool bFirst =
      isUserObject(b) && classOf(b) != classOf(a) && classOf(b)->isSubclassOf(classOf(a).get()) && classOf(b)->lookup("__r" + n + "__");
  if (bFirst)
    if (Value r = callDunder(b, "__r" + n + "__", {a}); r && !isNotImplemented(r)) return r;
  if (isUserObject(a))
    if (Value r = callDunder(a, "__" + n + "__", {b}); r && !isNotImplemented(r)) return r;
  if (!bFirst && isUserObject(b) && classOf(b) != classOf(a))
    if (Value r = callDunder(b, "__r" + n + "__", {a}); r && !isNotImplemented(r)) return r;
  return nullptr;
}

Value Interpreter::compare(const std::string& op, const Value& a, const Value& b) {
  if (tracer && (op == "is" || op == "is not")) tracer->onIdentity(a), tracer->onIdentity(b);
  if (tracer) tracer->onUse(a), tracer->onUse(b);
  if (op == "is")
    return makeBool(a == b || (a->kind == VK::None && b->kind == VK::None) ||
                    (a->kind == VK::Bool && b->kind == VK::Bool && asInt(a) == asInt(b)));
  if (op == "is not") return makeBool(!truthy(compare("is", a, b)));
  if ((op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") && (isUserObject(a) || isUserObject(b)) &&
      a->kind != VK::Tensor && b->kind != VK::Tensor) {
    static const std::map<std::string, std::pair<std::string, std::string>> kRich = {
        {"==", {"__eq__", "__eq__"}}, {"!=", {"__ne__", "__ne__"}}, {"<", {"__lt__", "__gt__"}},
        {"<=", {"__le__", "__ge__"}}, {">", {"__gt__", "__lt__"}},  {">=", {"__ge__", "__le__"}}};
    const auto& [mine, theirs] = kRich.at(op);
    bool bFirst = isUserObject(b) && classOf(b) != classOf(a) && classOf(b)->isSubclassOf(classOf(a).get());
    if (bFirst)
      if (Value r = callDunder(b, theirs, {a}); r && !isNotImplemented(r)) return r;
    if (isUserObject(a))
      if (Value r = callDunder(a, mine, {b}); r && !isNotImplemented(r)) return r;
    if (!bFirst && isUserObject(b))
      if (Value r = callDunder(b, theirs, {a}); r && !isNotImplemented(r)) return r;
    // Nothing decided: plain objects compare by identity; instances of user subclasses of
    // builtin types compare as their builtin values (a namedtuple equals a tuple).
    bool plain = a->kind == VK::Instance || b->kind == VK::Instance || a->kind == VK::Class || b->kind == VK::Class;
    if (plain && tracer && (op == "==" || op == "!=")) tracer->onIdentity(a), tracer->onIdentity(b);
    if (op == "==") return plain ? makeBool(a == b) : compareValue(op, a, b);
    if (op == "!=") return plain ? makeBool(a != b) : compareValue(op, a, b);
    if (!plain) return compareValue(op, a, b);  // a list subclass orders as a list
    raise("TypeError", "'" + op + "' not supported between instances of '" + typeName(a) + "' and '" + typeName(b) + "'");
  }
  if ((op == "in" || op == "not in") && tracer) {
    Value r = compareValue(op, a, b);
    tracer->onContains(b, a, truthy(r) == (op == "in"));
    return r;
  }
  // A comparison of symbolic sizes is a bool carrying the relation, guarded where it is used.
  if (tracer && isNumber(a) && isNumber(b) && (tracer->isSymbolic(a) || tracer->isSymbolic(b)))
    return tracer->onSymbolicCompare(op, a, b, compareValue(op, a, b));
  return compareValue(op, a, b);
}

Value Interpreter::compareValue(const std::string& op, const Value& a, const Value& b) {
  if (op == "is") return compare(op, a, b);
  RecursionGuard guard(*this, " in comparison");
  if (op == "in" || op == "not in") {
    bool found = false;
    // A __contains__ of the container's class (a user class, a metaclass, a builtin subclass).
    if (b->kind == VK::Instance || b->sub || b->kind == VK::Class)
      if (Value m = classOf(b)->lookup("__contains__")) {
        Value r = callDunder(b, "__contains__", {a});
        return makeBool(truthy(r) == (op == "in"));
      }
    if (b->kind == VK::Dict) found = as<DictObj>(b)->get(a) != nullptr;
    else if (b->kind == VK::Str && a->kind == VK::Str) found = as<StrObj>(b)->v.find(as<StrObj>(a)->v) != std::string::npos;
    else if (b->kind == VK::Instance && as<InstanceObj>(b)->cls->name == "set")
      found = std::static_pointer_cast<DictObj>(as<InstanceObj>(b)->native)->get(a) != nullptr;
    else
      for (auto& v : iterate(b))
        if (v == a || equals(v, a)) {
          found = true;
          break;
        }
    return makeBool(op == "in" ? found : !found);
  }
  if (a->kind == VK::Tensor || b->kind == VK::Tensor) {
    if (Value r = tensorHooks().binary(*this, op, a, b)) return r;
  }
  if (isNumber(a) && isNumber(b)) {
    // Exact, as CPython: big ints, and ints against floats (2**53 + 1 > 2.0**53).
    int c = 0;
    bool unordered = false, exact = false;
    if (isIntLike(a) && isIntLike(b) && (isBig(a) || isBig(b))) {
      c = cmp(toMpz(a), toMpz(b));
      exact = true;
    } else if (isIntLike(a) && b->kind == VK::Float) {
      c = compareIntDouble(a, asDouble(b), &unordered);
      exact = true;
    } else if (a->kind == VK::Float && isIntLike(b)) {
      c = -compareIntDouble(b, asDouble(a), &unordered);
      exact = true;
    }
    if (exact) {
      if (unordered) return makeBool(op == "!=");
      if (op == "<") return makeBool(c < 0);
      if (op == "<=") return makeBool(c <= 0);
      if (op == ">") return makeBool(c > 0);
      if (op == ">=") return makeBool(c >= 0);
      if (op == "==") return makeBool(c == 0);
      if (op == "!=") return makeBool(c != 0);
    }
    if (isIntLike(a) && isIntLike(b)) {
      int64_t x = asInt(a), y = asInt(b);
      if (op == "<") return makeBool(x < y);
      if (op == "<=") return makeBool(x <= y);
      if (op == ">") return makeBool(x > y);
      if (op == ">=") return makeBool(x >= y);
      if (op == "==") return makeBool(x == y);
      if (op == "!=") return makeBool(x != y);
    }
    double x = asDouble(a), y = asDouble(b);
    if (op == "<") return makeBool(x < y);
    if (op == "<=") return makeBool(x <= y);
    if (op == ">") return makeBool(x > y);
    if (op == ">=") return makeBool(x >= y);
    if (op == "==") return makeBool(x == y);
    if (op == "!=") return makeBool(x != y);
  }
  if (a->kind == VK::Str && b->kind == VK::Str) {
    int c = as<StrObj>(a)->v.compare(as<StrObj>(b)->v);
    if (op == "<") return makeBool(c < 0);
    if (op == "<=") return makeBool(c <= 0);
    if (op == ">") return makeBool(c > 0);
    if (op == ">=") return makeBool(c >= 0);
    if (op == "==") return makeBool(c == 0);
    if (op == "!=") return makeBool(c != 0);
  }
  if ((a->kind == VK::Tuple || a->kind == VK::List) && a->kind == b->kind) {
    auto& x = a->kind == VK::Tuple ? as<TupleObj>(a)->items : as<ListObj>(a)->items;
    auto& y = b->kind == VK::Tuple ? as<TupleObj>(b)->items : as<ListObj>(b)->items;
    size_t n = std::min(x.size(), y.size());
    for (size_t i = 0; i < n; ++i) {
      // Identical items are equal without asking (CPython's list and tuple compare do the same,
      // so [nan] == [nan] of one nan, and a list that contains itself, compare equal).
      if (x[i] != y[i] && !equals(x[i], y[i])) {
        if (op == "==") return False();
        if (op == "!=") return True();
        return compare(op, x[i], y[i]);
      }
    }
    if (op == "==") return makeBool(x.size() == y.size());
    if (op == "!=") return makeBool(x.size() != y.size());
    return compare(op, makeInt(static_cast<int64_t>(x.size())), makeInt(static_cast<int64_t>(y.size())));
  }
  if (op == "==") {
    if (a->kind == VK::Dict && b->kind == VK::Dict) {
      auto* x = as<DictObj>(a);
      auto* y = as<DictObj>(b);
      if (x->items.size() != y->items.size()) return False();
      for (auto& [k, v] : x->items) {
        Value o = y->get(k);
        if (!o || (o != v && !equals(v, o))) return False();
      }
      return True();
    }
    if (a->kind == VK::None || b->kind == VK::None) return makeBool(a->kind == b->kind);
    if (a->kind == VK::DType && b->kind == VK::DType) return makeBool(as<DTypeObj>(a)->d == as<DTypeObj>(b)->d);
    return makeBool(a == b);
  }
  if (op == "!=") return makeBool(!equals(a, b));
  raise("TypeError", "'" + op + "' not supported between instances of '" + typeName(a) + "' and '" + typeName(b) + "'");
}

namespace {
// Python slice semantics over a sequence of length n.
void sliceIndices(Interpreter& in, const SliceObj& s, int64_t n, int64_t* start, int64_t* stop, int64_t* step) {
  auto get = [&](const Value& v, int64_t dflt) -> int64_t {
    if (isNone(v)) return dflt;
    if (!isIntLike(v)) in.raise("TypeError", "slice indices must be integers or None or have an __index__ method");
    return asInt(v);
  };
  *step = get(s.step, 1);
  if (*step == 0) in.raise("ValueError", "slice step cannot be zero");
  int64_t lo = *step < 0 ? -1 : 0, hi = *step < 0 ? n - 1 : n;
  auto clamp = [&](int64_t v) {
    if (v < 0) v += n;
    return std::clamp(v, lo, hi);
  };
  *start = isNone(s.start) ? (*step < 0 ? hi : lo) : clamp(get(s.start, 0));
  *stop = isNone(s.stop) ? (*step < 0 ? lo : hi) : clamp(get(s.stop, 0));
}
}  // namespace

Value Interpreter::subscript(const Value& obj, const Value& index) {
  if (tracer && (obj->kind == VK::List || obj->kind == VK::Tuple) && index->kind == VK::Int) tracer->specialize(index);
  if (tracer && (obj->kind == VK::Dict || obj->kind == VK::List || obj->kind == VK::Tuple)) {
    Value r;
    try {
      r = subscriptValue(obj, index);
    } catch (const PyError& e) {
      // d[k] raising KeyError (caught by the program's try): the entry holds while k is absent.
      if (obj->kind == VK::Dict && e.type() == "KeyError") tracer->onContains(obj, index, false);
      throw;
    }
    return tracer->onItem(obj, index, r);
  }
  return subscriptValue(obj, index);
}

Value Interpreter::subscriptValue(const Value& obj, const Value& index) {
  if (obj->kind == VK::Tensor) return tensorHooks().subscript(*this, obj, index);
  // A user class's __getitem__ (on an instance, or on a subclass of a builtin type), a class's
  // __class_getitem__ (List[int], Generic[T]) or its metaclass's __getitem__ (Color['RED']).
  if (obj->kind == VK::Class) {
    auto c = asShared<ClassObj>(obj);
    if (Value cg = c->lookup("__class_getitem__")) {
      CallArgs a;
      a.args = {index};
      return call(bindAttr(cg, nullptr, c), a);
    }
    if (Value r = callDunder(obj, "__getitem__", {index})) return r;
    raise("TypeError", "type '" + c->name + "' is not subscriptable");
  }
  if (obj->kind == VK::Instance ||
      (obj->sub && classOf(obj)->lookup("__getitem__") && classOf(obj)->lookup("__getitem__")->kind == VK::Function)) {
    if (Value r = callDunder(obj, "__getitem__", {index})) return r;
    if (obj->kind == VK::Instance) raise("TypeError", "'" + typeName(obj) + "' object is not subscriptable");
  }
  if (obj->kind == VK::Dict) {
    Value v = as<DictObj>(obj)->get(index);
    if (!v) {
      // A dict subclass's __missing__ (defaultdict, Counter) supplies the value.
      if (obj->sub)
        if (Value r = callDunder(obj, "__missing__", {index})) return r;
      raiseWith("KeyError", {index});
    }
    return v;
  }
  if (obj->kind == VK::List || obj->kind == VK::Tuple || obj->kind == VK::Str) {
    if (tracer) tracer->onSequence(obj);
    int64_t n = obj->kind == VK::Str ? strLength(as<StrObj>(obj)->v) : static_cast<int64_t>(iterate(obj).size());
    std::string what = obj->kind == VK::List ? "list" : obj->kind == VK::Tuple ? "tuple" : "string";
    if (index->kind == VK::Slice) {
      int64_t start, stop, step;
      sliceIndices(*this, *as<SliceObj>(index), n, &start, &stop, &step);
      if (obj->kind == VK::Str) { return makeStr(strSlice(as<StrObj>(obj)->v, start, stop, step)); }
      auto items = iterate(obj);
      std::vector<Value> out;
      for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(items[i]);
      return obj->kind == VK::List ? makeList(out) : isTorchSize(obj) ? makeTorchSize(out) : makeTuple(out);
    }
    if (!isIntLike(index)) {
      if (index->kind == VK::Tensor) {
        auto items = iterate(index);
        (void)items;
      }
      raise("TypeError", what + " indices must be integers or slices, not " + typeName(index));
    }
    int64_t i = asInt(index);
    if (i < 0) i += n;
    if (i < 0 || i >= n) raise("IndexError", what + " index out of range");
    if (obj->kind == VK::Str) return makeStr(strSlice(as<StrObj>(obj)->v, i, i + 1, 1));
    return obj->kind == VK::List ? as<ListObj>(obj)->items[i] : as<TupleObj>(obj)->items[i];
  }
  if (obj->kind == VK::Instance) {
    if (Value m = as<InstanceObj>(obj)->cls->lookup("__getitem__")) {
      CallArgs ca;
      ca.args.push_back(index);
      return call(std::make_shared<BoundMethodObj>(obj, m), ca);
    }
  }
  if (obj->kind == VK::Class) return obj;  // typing generics: List[int], Optional[Tensor]
  raise("TypeError", "'" + typeName(obj) + "' object is not subscriptable");
}

void Interpreter::setSubscript(const Value& obj, const Value& index, Value v) {
  if (obj->kind == VK::Tensor) {
    tensorHooks().setSubscript(*this, obj, index, v);
    return;
  }
  if (obj->sub && classOf(obj)->lookup("__setitem__") && classOf(obj)->lookup("__setitem__")->kind == VK::Function) {
    callDunder(obj, "__setitem__", {index, std::move(v)});
    return;
  }
  if (tracer && (obj->kind == VK::Dict || obj->kind == VK::List)) tracer->onMutate(obj);
  if (obj->kind == VK::Dict) {
    as<DictObj>(obj)->set(index, std::move(v));
    return;
  }
  if (obj->kind == VK::List && index->kind == VK::Slice) {
    // lst[a:b] = values (a step slice needs as many values as it selects).
    auto& items = as<ListObj>(obj)->items;
    std::vector<Value> values = iterate(v);
    int64_t start, stop, step;
    sliceIndices(*this, *as<SliceObj>(index), static_cast<int64_t>(items.size()), &start, &stop, &step);
    if (step == 1) {
      stop = std::max(stop, start);
      items.erase(items.begin() + start, items.begin() + stop);
      items.insert(items.begin() + start, values.begin(), values.end());
      return;
    }
    std::vector<int64_t> at;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) at.push_back(i);
    if (at.size() != values.size())
      raise("ValueError", "attempt to assign sequence of size " + std::to_string(values.size()) + " to extended slice of size " +
                              std::to_string(at.size()));
    for (size_t k = 0; k < at.size(); ++k) items[static_cast<size_t>(at[k])] = values[k];
    return;
  }
  if (obj->kind == VK::List) {
    auto& items = as<ListObj>(obj)->items;
    if (!isIntLike(index)) raise("TypeError", "list indices must be integers or slices, not " + typeName(index));
    int64_t i = asInt(index), n = static_cast<int64_t>(items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) raise("IndexError", "list assignment index out of range");
    items[i] = std::move(v);
    return;
  }
  if (obj->kind == VK::Instance) {
    if (Value m = as<InstanceObj>(obj)->cls->lookup("__setitem__")) {
      CallArgs ca;
      ca.args = {index, v};
      call(std::make_shared<BoundMethodObj>(obj, m), ca);
      return;
    }
  }
  raise("TypeError", "'" + typeName(obj) + "' object does not support item assignment");
}

}  // namespace kiln::py
