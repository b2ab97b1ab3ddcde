// Generators: a generator function's body (or a generator expression) runs on a coroutine of
// its own (engine/python/coroutine.h). `yield` suspends the coroutine with the generator's
// interpreter frame taken off the frame stack; resuming puts the frame back on top of the
// resumer's frames, so tracebacks, closures and capture see the same stack Python would.
#include "engine/python/coroutine.h"
#include "engine/python/interpreter.h"

namespace kiln::py {

namespace {
// Thrown into a generator to unwind it when it is closed or destroyed (Python's GeneratorExit).
PyError generatorExit() { return PyError("GeneratorExit", ""); }
}  // namespace

GeneratorObj::GeneratorObj() : Obj(VK::Generator) {}
bool GeneratorObj::finished() const { return !co || co->done(); }

GeneratorObj::~GeneratorObj() {
  // A suspended generator still has C++ frames on its stack: unwind them (its finally blocks
  // run, as when Python finalizes a generator), ignoring what they raise.
  if (in && co && co->started() && !co->done()) {
    try {
      in->closeGenerator(*this);
    } catch (...) {}
  }
  if (in) in->liveGenerators_.erase(this);
}

Value Interpreter::makeGenerator(FunctionObj& fn, Frame frame) {
  auto g = std::make_shared<GeneratorObj>();
  g->name = fn.name;
  g->qualname = fn.qualname;
  g->in = this;
  GeneratorObj* raw = g.get();
  frame.generator = raw;
  auto body = fn.def;
  std::string file = fn.module ? fn.module->file : file_;
  std::string name = fn.name;
  g->frame = std::make_shared<Frame>(std::move(frame));
  g->co = std::make_unique<Coroutine>([this, raw, body, file, name] {
    Frame f = std::move(*std::static_pointer_cast<Frame>(raw->frame));
    raw->frame.reset();
    FrameGuard guard(*this, std::move(f));
    try {
      Flow fl = execBody(body->body);
      raw->returned = fl == Flow::Return ? frames_.back().returnValue : None();
    } catch (PyError& e) {
      e.traceback.insert(e.traceback.begin(), TraceFrame{file, name, frames_.back().span});
      // PEP 479: a StopIteration escaping a generator body is a RuntimeError.
      if (e.type() == "StopIteration") {
        PyError r("RuntimeError", "generator raised StopIteration");
        r.traceback = e.traceback;
        throw r;
      }
      throw;
    }
  });
  liveGenerators_.insert(raw);
  return g;
}

Value Interpreter::yieldValue(Value v) {
  GeneratorObj* g = frames_.empty() ? nullptr : frames_.back().generator;
  if (!g || Coroutine::current() != g->co.get()) raise("SyntaxError", "'yield' outside function");
  g->yielded = std::move(v);
  // Off the frame stack while suspended: the resumer's frames must be the top ones.
  g->frame = std::make_shared<Frame>(std::move(frames_.back()));
  frames_.pop_back();
  g->co->suspend();
  frames_.push_back(std::move(*std::static_pointer_cast<Frame>(g->frame)));
  g->frame.reset();
  if (g->pending) {
    std::exception_ptr e = g->pending;
    g->pending = nullptr;
    std::rethrow_exception(e);
  }
  Value sent = g->sent ? g->sent : None();
  g->sent = nullptr;
  return sent;
}

Value Interpreter::resumeGenerator(GeneratorObj& g, const Value& send, std::exception_ptr throwIn) {
  if (!g.co) raise("RuntimeError", "generator is not initialized");
  if (g.co->running()) raise("ValueError", "generator already executing");
  if (g.co->done()) {
    if (throwIn) std::rethrow_exception(throwIn);
    return nullptr;
  }
  if (!g.co->started()) {
    if (throwIn) {
      // Thrown into a generator that never ran: it ends without running its body.
      liveGenerators_.erase(&g);
      g.co.reset();
      std::rethrow_exception(throwIn);
    }
    if (send && !isNone(send)) raise("TypeError", "can't send non-None value to a just-started generator");
  }
  if (static_cast<int>(frames_.size()) >= kMaxDepth) raise("RecursionError", "maximum recursion depth exceeded");
  g.sent = send;
  g.pending = throwIn;
  g.yielded = nullptr;
  // Held while it runs: the body may drop the last other reference to the generator.
  std::shared_ptr<void> self;
  try {
    g.co->resume();
  } catch (...) {
    liveGenerators_.erase(&g);
    throw;
  }
  if (g.co->done()) {
    liveGenerators_.erase(&g);
    return nullptr;
  }
  return g.yielded;
}

void Interpreter::closeGenerator(GeneratorObj& g) {
  if (!g.co || !g.co->started() || g.co->done()) {
    if (g.co && !g.co->started()) {
      liveGenerators_.erase(&g);
      g.co.reset();
    }
    return;
  }
  try {
    Value v = resumeGenerator(g, nullptr, std::make_exception_ptr(generatorExit()));
    if (v) raise("RuntimeError", "generator ignored GeneratorExit");
  } catch (const PyError& e) {
    if (e.type() != "GeneratorExit" && e.type() != "StopIteration") throw;
  }
}

Value Interpreter::evalYieldFrom(const Expr& e) {
  Value it = getIter(eval(*e.target));
  if (it->kind == VK::Generator) {
    // Delegation: send() and throw() reach the inner generator.
    auto* inner = as<GeneratorObj>(it);
    Value send;
    std::exception_ptr throwIn;
    while (true) {
      Value v = resumeGenerator(*inner, send, throwIn);
      throwIn = nullptr;
      if (!v) return inner->returned ? inner->returned : None();
      try {
        send = yieldValue(v);
      } catch (const PyError& err) {
        if (err.type() == "GeneratorExit") {
          closeGenerator(*inner);
          throw;
        }
        throwIn = std::current_exception();
        send = nullptr;
      }
    }
  }
  while (Value v = nextItem(it)) yieldValue(v);
  return None();
}

Value Interpreter::makeGeneratorExpression(const Expr& e) {
  // The first iterable is evaluated now, in the enclosing scope; the rest runs lazily.
  Value firstIter = getIter(eval(*e.generators[0].iter));
  auto scope = std::make_shared<Scope>();
  Frame& outer = frames_.back();
  scope->parent = outer.locals ? outer.scope : nullptr;
  auto locals = std::make_shared<std::set<std::string>>();
  for (const auto& g : e.generators) {
    std::function<void(const Expr&)> collect = [&](const Expr& t) {
      if (t.kind == ExprKind::Name) locals->insert(t.name);
      for (auto& x : t.items) collect(*x);
      if (t.kind == ExprKind::Starred) collect(*t.target);
    };
    collect(*g.target);
  }
  auto g = std::make_shared<GeneratorObj>();
  g->name = g->qualname = "<genexpr>";
  g->in = this;
  g->keepAlive = locals;
  GeneratorObj* raw = g.get();
  Frame f;
  f.scope = scope;
  f.module = outer.module;
  f.locals = locals.get();
  f.globalsDecl = outer.globalsDecl;
  f.function = "<genexpr>";
  f.span = e.span;
  f.generator = raw;
  g->frame = std::make_shared<Frame>(std::move(f));
  const Expr* expr = &e;
  std::string file = outer.module ? outer.module->file : file_;
  g->co = std::make_unique<Coroutine>([this, raw, expr, firstIter, file] {
    Frame fr = std::move(*std::static_pointer_cast<Frame>(raw->frame));
    raw->frame.reset();
    FrameGuard guard(*this, std::move(fr));
    try {
      runComprehension(*expr, firstIter, [this](Value v, Value) { yieldValue(std::move(v)); });
      raw->returned = None();
    } catch (PyError& err) {
      err.traceback.insert(err.traceback.begin(), TraceFrame{file, "<genexpr>", frames_.back().span});
      throw;
    }
  });
  liveGenerators_.insert(raw);
  return g;
}

}  // namespace kiln::py
