#include "engine/capture/resume.h"

#include "engine/capture/tracer.h"

#include <algorithm>
#include <functional>

namespace kiln::capture {

using py::Body;
using py::Expr;
using py::ExprKind;
using py::ExprP;
using py::Stmt;
using py::StmtKind;
using py::StmtP;

namespace {

struct Level {
  const Body* body;
  size_t index;
  const Stmt* owner;  // the compound statement owning `body` (null for the function body)
};

bool findPath(const Body& body, const Stmt* owner, const Stmt* target, std::vector<Level>& path) {
  for (size_t i = 0; i < body.size(); ++i) {
    const Stmt* s = body[i].get();
    path.push_back(Level{&body, i, owner});
    if (s == target) return true;
    if (s->kind != StmtKind::FunctionDef && s->kind != StmtKind::ClassDef) {
      for (const Body* b : {&s->body, &s->orelse, &s->finalbody})
        if (findPath(*b, s, target, path)) return true;
      for (const auto& h : s->handlers)
        if (findPath(h.body, s, target, path)) return true;
    }
    path.pop_back();
  }
  return false;
}

bool contains(const Expr* root, const Expr* target) {
  if (!root) return false;
  if (root == target) return true;
  for (const auto& x : root->items)
    if (contains(x.get(), target)) return true;
  for (const auto& x : root->values)
    if (contains(x.get(), target)) return true;
  for (const auto& k : root->keywords)
    if (contains(k.value.get(), target)) return true;
  return contains(root->target.get(), target) || contains(root->a.get(), target) || contains(root->b.get(), target) ||
         contains(root->c.get(), target);
}

ExprP stackName(int i, const py::Span& span) {
  auto n = py::makeExpr(ExprKind::Name, span);
  n->name = "___stack" + std::to_string(i);
  return n;
}

// Copies the expression spine from `e` down to `target`, replacing `target` and every
// sub-expression evaluated before it by stack names. `done` collects those, in order.
class Substituter {
 public:
  Substituter(const Expr* target, std::vector<const Expr*>& done, std::string& whyNot) : target_(target), done_(done), why_(whyNot) {}

  ExprP rewrite(const ExprP& e) {
    if (!e || !contains(e.get(), target_)) return e;
    if (e.get() == target_) return nullptr;  // placeholder for the result, filled by the caller
    auto c = std::make_shared<Expr>(*e);
    auto sub = [&](ExprP& slot) { slot = take(slot); };
    switch (e->kind) {
      case ExprKind::Call: {
        if (contains(c->target.get(), target_)) {
          sub(c->target);
          break;
        }
        stack(c->target);
        for (auto& a : c->items) {
          if (contains(a.get(), target_)) {
            sub(a);
            return c;
          }
          stack(a);
        }
        for (auto& k : c->keywords) {
          if (contains(k.value.get(), target_)) {
            sub(k.value);
            return c;
          }
          stack(k.value);
        }
        break;
      }
      case ExprKind::BinOp:
        if (contains(c->a.get(), target_)) sub(c->a);
        else {
          stack(c->a);
          sub(c->b);
        }
        break;
      case ExprKind::Compare:
      case ExprKind::BoolOp:
      case ExprKind::Tuple:
      case ExprKind::List:
      case ExprKind::Set:
      case ExprKind::FString:
        for (auto& a : c->items) {
          if (contains(a.get(), target_)) {
            sub(a);
            break;
          }
          stack(a);
        }
        break;
      case ExprKind::Subscript:
        if (contains(c->target.get(), target_)) sub(c->target);
        else {
          stack(c->target);
          sub(c->a);
        }
        break;
      case ExprKind::Attribute:
      case ExprKind::Starred: sub(c->target); break;
      case ExprKind::UnaryOp: sub(c->a); break;
      default: why_ = "graph break inside an expression Kiln cannot resume from"; break;
    }
    return c;
  }

  ExprP take(const ExprP& slot) {
    ExprP r = rewrite(slot);
    return r ? r : result();
  }

  ExprP result() {
    if (!resultExpr_) resultExpr_ = stackName(0, target_->span);  // renamed once the stack is known
    return resultExpr_;
  }
  ExprP resultExpr_;

 private:
  void stack(ExprP& slot) {
    if (!slot) return;
    // Constants need no stack slot: they are the same in the resume function.
    switch (slot->kind) {
      case ExprKind::Int:
      case ExprKind::Float:
      case ExprKind::Str:
      case ExprKind::Bool:
      case ExprKind::None: return;
      default: break;
    }
    done_.push_back(slot.get());
    slot = stackName(static_cast<int>(done_.size()) - 1, slot->span);
  }
  const Expr* target_;
  std::vector<const Expr*>& done_;
  std::string& why_;
};

void collectNames(const Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Name) out.insert(e->name);
  for (const auto& x : e->items) collectNames(x.get(), out);
  for (const auto& x : e->values) collectNames(x.get(), out);
  for (const auto& k : e->keywords) collectNames(k.value.get(), out);
  for (const auto& g : e->generators) {
    collectNames(g.target.get(), out);
    collectNames(g.iter.get(), out);
    for (const auto& i : g.ifs) collectNames(i.get(), out);
  }
  for (const auto& p : e->params) collectNames(p.defaultValue.get(), out);
  collectNames(e->target.get(), out);
  collectNames(e->a.get(), out);
  collectNames(e->b.get(), out);
  collectNames(e->c.get(), out);
}

void collectNames(const Body& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    for (const auto& t : s->targets) collectNames(t.get(), out);
    collectNames(s->value.get(), out);
    collectNames(s->target.get(), out);
    collectNames(s->test.get(), out);
    collectNames(s->value2.get(), out);
    for (const auto& d : s->decorators) collectNames(d.get(), out);
    for (const auto& b : s->bases) collectNames(b.get(), out);
    for (const auto& it : s->items) {
      collectNames(it.context.get(), out);
      collectNames(it.target.get(), out);
    }
    for (const auto& p : s->params) collectNames(p.defaultValue.get(), out);
    collectNames(s->body, out);
    collectNames(s->orelse, out);
    collectNames(s->finalbody, out);
    for (const auto& h : s->handlers) {
      collectNames(h.type.get(), out);
      collectNames(h.body, out);
    }
  }
}

// Names `body` may read before writing them: what a resume function needs passed in. Simple
// assignments at the top level kill their targets (`h = ___stack0` does not need the old h);
// any other statement counts every name in it as read.
std::set<std::string> liveReads(const Body& body) {
  std::set<std::string> live, killed;
  auto readAll = [&](const std::set<std::string>& names) {
    for (const auto& n : names)
      if (!killed.count(n)) live.insert(n);
  };
  for (const auto& s : body) {
    bool simpleTargets = s->kind == StmtKind::Assign && !s->targets.empty();
    for (const auto& t : s->targets) simpleTargets = simpleTargets && t && t->kind == ExprKind::Name;
    if (simpleTargets) {
      std::set<std::string> reads;
      collectNames(s->value.get(), reads);
      readAll(reads);
      for (const auto& t : s->targets) killed.insert(t->name);
      continue;
    }
    std::set<std::string> reads;
    collectNames(Body{s}, reads);
    readAll(reads);
  }
  return live;
}

// Zero-argument super() reads the method's first argument (CPython's co_varnames[0]) without
// naming it: code after the break that calls super() needs it passed in, and the resume
// function's frame takes it as super()'s object (makeResume).
void keepSuperSelf(const Stmt& fnDef, std::set<std::string>& used) {
  if (used.count("super") && !fnDef.params.empty() && fnDef.params[0].kind == py::Param::Normal) used.insert(fnDef.params[0].name);
}

// Order of locals as CPython's co_varnames: parameters, then first assignment.
void assignedOrder(const Body& body, std::vector<std::string>& out) {
  auto add = [&](const std::string& n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  std::function<void(const Expr*)> targets = [&](const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Name) add(e->name);
    for (const auto& x : e->items) targets(x.get());
    if (e->kind == ExprKind::Starred) targets(e->target.get());
  };
  for (const auto& s : body) {
    for (const auto& t : s->targets) targets(t.get());
    if (s->kind == StmtKind::AugAssign || s->kind == StmtKind::AnnAssign || s->kind == StmtKind::For) targets(s->target.get());
    for (const auto& it : s->items) targets(it.target.get());
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) add(s->name);
    if (s->kind != StmtKind::FunctionDef && s->kind != StmtKind::ClassDef) {
      assignedOrder(s->body, out);
      assignedOrder(s->orelse, out);
      assignedOrder(s->finalbody, out);
      for (const auto& h : s->handlers) {
        if (!h.name.empty()) add(h.name);
        assignedOrder(h.body, out);
      }
    }
  }
}

bool resumableContext(const Stmt& with) {
  // Context managers Dynamo models (and re-enters in the resume function): grad mode, autocast.
  for (const auto& it : with.items) {
    const Expr* c = it.context.get();
    if (c->kind != ExprKind::Call || c->target->kind != ExprKind::Attribute) return false;
    const std::string& n = c->target->name;
    if (n != "no_grad" && n != "enable_grad" && n != "set_grad_enabled" && n != "inference_mode" && n != "autocast") return false;
  }
  return true;
}

// The names `body` declares global (or nonlocal), in compound statements too but not in the
// functions and classes it defines.
void declared(const Body& body, StmtKind kind, std::set<std::string>& out) {
  for (const auto& s : body) {
    if (s->kind == kind)
      for (const auto& t : s->targets) out.insert(t->name);
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) continue;
    for (const Body* b : {&s->body, &s->orelse, &s->finalbody}) declared(*b, kind, out);
    for (const auto& h : s->handlers) declared(h.body, kind, out);
  }
}

// Names read or written by the functions, lambdas and classes defined in `body` (at any depth).
void nestedNames(const Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Lambda) {
    collectNames(e, out);
    return;
  }
  for (const auto& x : e->items) nestedNames(x.get(), out);
  for (const auto& x : e->values) nestedNames(x.get(), out);
  for (const auto& k : e->keywords) nestedNames(k.value.get(), out);
  for (const auto& g : e->generators) {
    nestedNames(g.iter.get(), out);
    for (const auto& i : g.ifs) nestedNames(i.get(), out);
  }
  for (const ExprP* x : {&e->target, &e->a, &e->b, &e->c}) nestedNames(x->get(), out);
}
void nestedNames(const Body& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::FunctionDef || s->kind == StmtKind::ClassDef) {
      collectNames(s->body, out);
      declared(s->body, StmtKind::Nonlocal, out);
      for (const auto& p : s->params) collectNames(p.defaultValue.get(), out);
      continue;
    }
    for (const auto& t : s->targets) nestedNames(t.get(), out);
    for (const Expr* x : {s->value.get(), s->target.get(), s->test.get(), s->value2.get()}) nestedNames(x, out);
    for (const auto& it : s->items) nestedNames(it.context.get(), out);
    for (const Body* b : {&s->body, &s->orelse, &s->finalbody}) nestedNames(*b, out);
    for (const auto& h : s->handlers) nestedNames(h.body, out);
  }
}

StmtP makeFunction(const Stmt& fnDef, const std::string& name, const std::vector<std::string>& params, Body body, const py::Span& span,
                   const std::set<std::string>& cells) {
  auto f = py::makeStmt(StmtKind::FunctionDef, span);
  f->name = name;
  for (const auto& p : params) f->params.push_back(py::Param{p, nullptr, py::Param::Normal});
  if (body.empty()) body.push_back(py::makeStmt(StmtKind::Return, span));
  // The original function's declarations hold in the code after the break (a `nonlocal n` or
  // `global n` store there must not make a local), and so do the shared cells.
  std::set<std::string> globals, nonlocals = cells;
  declared(fnDef.body, StmtKind::Global, globals);
  declared(fnDef.body, StmtKind::Nonlocal, nonlocals);
  Body decls;
  for (auto [kind, names] : {std::make_pair(StmtKind::Global, &globals), std::make_pair(StmtKind::Nonlocal, &nonlocals)}) {
    if (names->empty()) continue;
    auto d = py::makeStmt(kind, span);
    for (const auto& n : *names) {
      auto e = py::makeExpr(ExprKind::Name, span);
      e->name = n;
      d->targets.push_back(e);
    }
    decls.push_back(d);
  }
  body.insert(body.begin(), decls.begin(), decls.end());
  f->body = std::move(body);
  return f;
}

}  // namespace

std::set<std::string> classStatementNames(const Stmt& cls) {
  std::set<std::string> out;
  for (const auto& b : cls.bases) collectNames(b.get(), out);
  for (const auto& d : cls.decorators) collectNames(d.get(), out);
  for (const auto& k : cls.classKeywords) collectNames(k.value.get(), out);
  collectNames(cls.body, out);
  return out;
}

std::set<std::string> cellVars(const Stmt& fnDef) {
  std::set<std::string> used, notLocal;
  nestedNames(fnDef.body, used);
  declared(fnDef.body, StmtKind::Global, notLocal);
  declared(fnDef.body, StmtKind::Nonlocal, notLocal);
  std::vector<std::string> locals;
  for (const auto& p : fnDef.params) locals.push_back(p.name);
  assignedOrder(fnDef.body, locals);
  std::set<std::string> cells;
  for (const auto& n : locals)
    if (used.count(n) && !notLocal.count(n)) cells.insert(n);
  return cells;
}

// A break in a `while` test's first evaluation (the frame's statement is the `while` itself; later
// evaluations run after a body statement, inside the loop, where Dynamo skips the frame): before
// the loop's back edge, so Dynamo resumes there. The resume function finishes that evaluation
// with the call's result (`loop`'s test, rewritten) and then loops as the original does:
//   ___first = True
//   while (REWRITTEN_TEST if ___first else ORIGINAL_TEST):
//       ___first = False
//       BODY
//   else: ORELSE
static void whileFromFirstTest(Stmt& loop, const Stmt& original, Body& before) {
  auto name = [&]() {
    auto n = std::make_shared<Expr>();
    n->kind = ExprKind::Name;
    n->name = "___first";
    n->span = original.span;
    return n;
  };
  auto set = [&](bool v) {
    auto c = std::make_shared<Expr>();
    c->kind = ExprKind::Bool;
    c->bval = v;
    c->span = original.span;
    auto st = std::make_shared<Stmt>();
    st->kind = StmtKind::Assign;
    st->span = original.span;
    st->targets.push_back(name());
    st->value = c;
    return st;
  };
  auto test = std::make_shared<Expr>();
  test->kind = ExprKind::IfExp;
  test->span = original.test->span;
  test->target = name();
  test->a = loop.test;
  test->b = original.test;
  loop.test = test;
  loop.body.insert(loop.body.begin(), set(false));
  before.push_back(set(true));
}

ResumePlan planResume(const Stmt& fnDef, const Unsupported& u, const std::set<std::string>& bound, const std::set<std::string>& cells) {
  ResumePlan plan;
  std::vector<Level> path;
  if (!u.stmt || !findPath(fnDef.body, nullptr, u.stmt, path)) {
    plan.whyNot = "graph break outside a statement Kiln can resume after";
    return plan;
  }
  for (size_t i = 1; i < path.size(); ++i) {
    const Stmt* owner = path[i].owner;
    if (owner->kind == StmtKind::For || owner->kind == StmtKind::While) {
      plan.whyNot = "graph break in loop";
      return plan;
    }
    if (owner->kind == StmtKind::Try) {
      plan.whyNot = "graph break in a try block";
      return plan;
    }
    if (owner->kind == StmtKind::With && !resumableContext(*owner)) {
      plan.whyNot = "Graph break under GenericContextWrappingVariable";
      return plan;
    }
  }
  const Stmt& s = *u.stmt;
  plan.line = s.span.line;
  // Resume functions of resume functions are named after the original function, as in Dynamo.
  std::string baseName = fnDef.name;
  if (baseName.rfind("torch_dynamo_resume_in_", 0) == 0) {
    baseName = baseName.substr(23);
    baseName = baseName.substr(0, baseName.rfind("_at_"));
  }

  // Statements after the break: the rest of the innermost block, then of each enclosing
  // block; an enclosing `with` (grad mode) is re-entered around what remains inside it.
  auto tail = [&](size_t k) { return Body(path[k].body->begin() + static_cast<long>(path[k].index) + 1, path[k].body->end()); };
  // Code after a block that ends in `return` or `raise` never runs: it is not part of the resume
  // function (so it reads none of its locals), as Dynamo's resume code holds only what is
  // reachable from the resume point.
  auto endsFlow = [](const Body& b) { return !b.empty() && (b.back()->kind == StmtKind::Return || b.back()->kind == StmtKind::Raise); };
  auto continueAfter = [&](Body inner) {
    Body acc = std::move(inner);
    bool done = endsFlow(acc);
    Body t = done ? Body() : tail(path.size() - 1);
    acc.insert(acc.end(), t.begin(), t.end());
    done = done || endsFlow(acc);
    for (size_t k = path.size() - 1; k >= 1; --k) {
      const Stmt* owner = path[k].owner;
      Body wrapped;
      if (owner->kind == StmtKind::With && !acc.empty()) {
        auto w = std::make_shared<Stmt>(*owner);
        w->body = acc;
        wrapped.push_back(w);
      } else {
        wrapped = acc;
      }
      Body up = done ? Body() : tail(k - 1);
      wrapped.insert(wrapped.end(), up.begin(), up.end());
      done = done || endsFlow(wrapped);
      acc = std::move(wrapped);
    }
    return acc;
  };

  std::string why;
  std::vector<const Expr*> done;
  Body first;  // the rewritten breaking statement (Call) or nothing (Branch)
  if (u.at == Unsupported::At::Call) {
    Substituter sub(u.expr, done, why);
    StmtP copy = std::make_shared<Stmt>(s);
    bool placed = false;
    auto rewriteSlot = [&](ExprP& slot) {
      if (placed || !slot || !contains(slot.get(), u.expr)) return;
      slot = sub.take(slot);
      placed = true;
    };
    const bool storeBroke = s.kind == StmtKind::Assign && s.targets.size() == 1 && s.targets[0].get() == u.expr;
    if (s.kind == StmtKind::ClassDef) {
      // A class statement is Dynamo's call of builtins.__build_class__ (LOAD_BUILD_CLASS): the
      // class is made eagerly and the resume function receives it as the call's result, storing
      // it to the class's name first.
      auto store = py::makeStmt(StmtKind::Assign, s.span);
      auto name = py::makeExpr(ExprKind::Name, s.span);
      name->name = s.name;
      store->targets.push_back(name);
      store->value = stackName(0, s.span);
      first.push_back(store);
    } else if ((s.kind == StmtKind::Expr && s.value.get() == u.expr) || storeBroke) {
      // The call's value was discarded, or the break was in the statement's store (STORE_ATTR:
      // the store runs eagerly, as setattr, and nothing of the statement is left).
      plan.resultUsed = false;
    } else {
      for (auto& t : copy->targets) rewriteSlot(t);
      rewriteSlot(copy->value);
      rewriteSlot(copy->test);
      rewriteSlot(copy->value2);
      for (auto& it : copy->items) rewriteSlot(it.context);
      if (!placed ||
          (s.kind != StmtKind::Assign && s.kind != StmtKind::Return && s.kind != StmtKind::Expr && s.kind != StmtKind::AugAssign &&
           s.kind != StmtKind::AnnAssign && s.kind != StmtKind::If && s.kind != StmtKind::While)) {
        plan.whyNot = why.empty() ? "graph break in a statement Kiln cannot resume from" : why;
        return plan;
      }
      // The call's result is the last stack slot.
      if (sub.resultExpr_) sub.resultExpr_->name = "___stack" + std::to_string(done.size());
      if (s.kind == StmtKind::While) whileFromFirstTest(*copy, s, first);
      first.push_back(copy);
    }
    if (!why.empty()) {
      plan.whyNot = why;
      return plan;
    }
    plan.stack = done;
    Body rest = continueAfter(first);
    std::set<std::string> used = liveReads(rest);
    keepSuperSelf(fnDef, used);
    std::vector<std::string> order;
    for (const auto& p : fnDef.params) order.push_back(p.name);
    assignedOrder(fnDef.body, order);
    // Stack names in the rest of the code are this break's new stack slots: an older ___stackN
    // of the frame (a resume function's own parameter) is never live past the break.
    for (const auto& n : order)
      if (used.count(n) && bound.count(n) && !cells.count(n) && n.rfind("___stack", 0) != 0) plan.live.push_back(n);
    std::vector<std::string> params;
    for (size_t i = 0; i < done.size(); ++i) params.push_back("___stack" + std::to_string(i));
    if (plan.resultUsed) params.push_back("___stack" + std::to_string(done.size()));
    params.insert(params.end(), plan.live.begin(), plan.live.end());
    plan.resume = makeFunction(fnDef, "torch_dynamo_resume_in_" + baseName + "_at_" + std::to_string(plan.line), params, std::move(rest),
                               s.span, cells);
    plan.resumable = true;
    return plan;
  }
  if (u.at == Unsupported::At::Branch && s.kind == StmtKind::If) {
    // The jump is on the test under its `not`s (the interpreter branched on u.expr): an odd
    // number of them swaps which way is taken when the value is true.
    bool negated = false;
    for (const Expr* t = s.test.get(); t && t != u.expr && t->kind == ExprKind::UnaryOp && t->name == "not"; t = t->a.get())
      negated = !negated;
    Body onTrue = continueAfter(negated ? s.orelse : s.body);
    Body onFalse = continueAfter(negated ? s.body : s.orelse);
    // Each branch's function takes the locals its own code reads (Dynamo's liveness at each
    // jump target); the entry rebuilds the union at the break.
    std::set<std::string> usedTrue, usedFalse;
    collectNames(onTrue, usedTrue);
    collectNames(onFalse, usedFalse);
    keepSuperSelf(fnDef, usedTrue);
    keepSuperSelf(fnDef, usedFalse);
    std::vector<std::string> order;
    for (const auto& p : fnDef.params) order.push_back(p.name);
    assignedOrder(fnDef.body, order);
    std::vector<std::string> liveTrue, liveFalse;
    for (const auto& n : order) {
      if (!bound.count(n) || cells.count(n) || (!usedTrue.count(n) && !usedFalse.count(n))) continue;
      plan.live.push_back(n);
      plan.liveTrue.push_back(usedTrue.count(n) > 0);
      plan.liveElse.push_back(usedFalse.count(n) > 0);
      if (usedTrue.count(n)) liveTrue.push_back(n);
      if (usedFalse.count(n)) liveFalse.push_back(n);
    }
    std::string name = "torch_dynamo_resume_in_" + baseName + "_at_" + std::to_string(plan.line);
    plan.resume = makeFunction(fnDef, name, liveTrue, std::move(onTrue), s.span, cells);
    plan.resumeElse = makeFunction(fnDef, name, liveFalse, std::move(onFalse), s.span, cells);
    plan.resumable = true;
    return plan;
  }
  plan.whyNot = "graph break Kiln cannot resume from";
  return plan;
}

}  // namespace kiln::capture
