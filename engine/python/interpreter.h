// The interpreter for Kiln's Python subset: a tree walker over the AST. It runs the user's
// whole script; compiled regions call back through the hooks of trace_hooks.h.
#pragma once

#include "engine/python/ast.h"
#include "engine/python/interrupt.h"
#include "engine/python/objects.h"
#include "engine/python/stack_guard.h"

#include <exception>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::py {

class TraceHooks;  // trace_hooks.h
class CompilerHooks;
class TensorHooks;  // tensor_hooks.h
class GraphBreak;

struct TraceFrame {
  std::string file;
  std::string function;
  Span span;
};

// A Python exception propagating through C++. `traceback` is innermost last, like Python's.
class PyError : public std::exception {
 public:
  PyError(std::string type, std::string message, Value exc = nullptr)
      : type_(std::move(type)), message_(std::move(message)), exc_(std::move(exc)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& type() const { return type_; }
  const std::string& message() const { return message_; }
  const Value& exception() const { return exc_; }
  void setException(Value v) { exc_ = std::move(v); }
  std::vector<TraceFrame> traceback;

 private:
  std::string type_, message_;
  Value exc_;
};

class Interpreter {
 public:
  // An interpreter with Python's builtins and standard library; the torch modules, Tensor values
  // and the prelude come with torchapi::install(in) (engine/torch/install.h), which whoever
  // makes the interpreter calls next.
  explicit Interpreter(std::ostream& out);
  ~Interpreter();

  // Runs a parsed module as __main__. Throws PyError.
  void runModule(const Module& m);
  // Called before each top-level statement of the module run: its index, the count and its
  // line (how far a script has got: kiln run --progress).
  std::function<void(size_t done, size_t total, int line)> onModuleStatement;
  // Runs library code (the torch prelude) in an existing module's scope; keeps the AST alive.
  void runInModule(const std::shared_ptr<ModuleObj>& target, Module m);
  // Source text by file name, for tracebacks through library code.
  const std::map<std::string, std::string>& sources() const { return sources_; }
  std::shared_ptr<ModuleObj> mainModule() const { return main_; }
  const std::string& source() const { return source_; }
  const std::string& file() const { return file_; }

  // --- used by builtins, the torch module and capture ---
  Value call(const Value& fn, CallArgs& args);
  Value callFunction(FunctionObj& fn, CallArgs& args, const Value& self);
  Value getAttr(const Value& obj, const std::string& name);
  Value getAttrOrNull(const Value& obj, const std::string& name);
  void setAttr(const Value& obj, const std::string& name, Value v);
  void delAttr(const Value& obj, const std::string& name);
  // object.__setattr__: the store without the class's __setattr__ hook (descriptors, then the
  // instance dict).
  void genericSetAttr(const Value& obj, const std::string& name, Value v);
  void genericDelAttr(const Value& obj, const std::string& name);  // object.__delattr__
  // type(v): the class of an instance, a builtin type's class, a class's metaclass.
  std::shared_ptr<ClassObj> classOf(const Value& v);
  // The descriptor protocol: what reading `attr` (found on `owner`) through `instance` gives.
  Value bindAttr(const Value& attr, const Value& instance, const std::shared_ptr<ClassObj>& owner);
  // instance.__new__ and __init__, without a metaclass __call__ (object.__new__, type.__call__).
  Value createInstance(const std::shared_ptr<ClassObj>& cls, CallArgs& args);
  // A class as `class name(bases)` makes it (C3 MRO, inherited metaclass), before its body.
  std::shared_ptr<ClassObj> newClass(const std::string& name, const std::vector<std::shared_ptr<ClassObj>>& bases,
                                     const std::shared_ptr<ModuleObj>& module);
  // Fills a new class from its body's namespace (methods know their class, __set_name__ ...).
  void finishClass(const std::shared_ptr<ClassObj>& c, const std::unordered_map<std::string, Value>& vars,
                   const std::vector<std::string>& order, const std::string& docstring);
  void initSubclass(const std::shared_ptr<ClassObj>& c, CallArgs& kwargs);
  bool truthy(const Value& v);
  std::string repr(const Value& v);
  std::string str(const Value& v);
  std::string defaultRepr(const Value& v);
  // str.format: `fmt` with the replacement fields filled from args (args.args[0] is fmt itself).
  std::string formatStr(const std::string& fmt, const CallArgs& args);  // <__main__.A object at 0x...>, <class '__main__.A'>
  // object.__getattribute__: descriptors and the instance dict, without __getattr__.
  Value objectGetAttribute(const Value& obj, const std::string& name, bool* found);
  std::vector<Value> iterate(const Value& v);
  // Python's iteration protocol: iter(v), then next items until null (StopIteration).
  Value getIter(const Value& v);
  Value nextItem(const Value& iterator);
  // Runs a generator to its next yield: the value yielded, or null when it returned (its
  // value in g.returned). `throwIn` is raised at the suspended yield (generator.throw()).
  Value resumeGenerator(GeneratorObj& g, const Value& send, std::exception_ptr throwIn = nullptr);
  // generator.close(): GeneratorExit at the suspended yield; its finally blocks run.
  void closeGenerator(GeneratorObj& g);
  Value binaryOp(const std::string& op, const Value& a, const Value& b);
  // Int arithmetic beyond int64 (engine/python/bigint.h), exact.
  Value bigBinary(const std::string& op, const Value& a, const Value& b);
  Value compare(const std::string& op, const Value& a, const Value& b);
  bool equals(const Value& a, const Value& b);
  Value subscript(const Value& obj, const Value& index);
  Value subscriptValue(const Value& obj, const Value& index);  // without capture's guards
  Value compareValue(const std::string& op, const Value& a, const Value& b);
  // Operators on instances of user classes (and user subclasses of builtin types): the
  // dunder protocol with reflected methods and NotImplemented; null when nothing handled it.
  Value userBinary(const std::string& op, const Value& a, const Value& b, bool inplace);
  Value callDunder(const Value& self, const std::string& name, std::vector<Value> args);  // null: no such method
  bool isUserObject(const Value& v);
  bool isNotImplemented(const Value& v);
  void setSubscript(const Value& obj, const Value& index, Value v);
  bool isInstance(const Value& v, const Value& classOrTuple);
  std::ostream& out() { return out_; }

  [[noreturn]] void raise(const std::string& type, const std::string& message);
  // Raises an instance of exception class `type` made with `args` (KeyError(key) ...).
  [[noreturn]] void raiseWith(const std::string& type, std::vector<Value> args);
  std::shared_ptr<ClassObj> exceptionClass(const std::string& name);
  std::shared_ptr<ClassObj> builtinClass(const std::string& name);  // int, float, str, list ...
  std::shared_ptr<ModuleObj> importModule(const std::string& dotted);
  void registerModule(std::shared_ptr<ModuleObj> m);
  void registerClass(std::shared_ptr<ClassObj> c);
  Value builtin(const std::string& name) const;

  // Current user source location (innermost frame), for provenance.
  TraceFrame currentLocation() const;
  std::vector<TraceFrame> userStack() const;

  // What Tensor values do (tensor_hooks.h; engine/torch's, installed with the torch modules by
  // torchapi::install). Tensor values exist only once it is set.
  TensorHooks* tensors = nullptr;
  TensorHooks& tensorHooks();  // `tensors`, or a RuntimeError when none is installed
  // Capture: while a tracer is active, torch calls on fake tensors record graph nodes
  // (trace_hooks.h; engine/capture's Tracer).
  TraceHooks* tracer = nullptr;
  // The compiler hooks torch.compile'd callables use (engine/capture's CompileContext, set by the driver).
  CompilerHooks* compiler = nullptr;
  // > 0 while a compiled function runs (Dynamo's frame callback is active): calls to the
  // user's own functions from its eager parts are compiled as frames of their own.
  int interceptDepth = 0;
  size_t depth() const { return frames_.size(); }
  bool isUserFunction(const FunctionObj& f) const { return f.module && f.module == main_; }

  // Guard against runaway recursion (Python's default limit).
  static constexpr int kMaxDepth = 1000;
  // Native recursion over data (repr, ==, hashing of nested containers) counts toward
  // kMaxDepth with the Python frames, as CPython's C recursion check does: deep or cyclic data
  // raises RecursionError instead of overflowing the stack. `where` completes the message
  // ("maximum recursion depth exceeded" + where).
  class RecursionGuard {
   public:
    RecursionGuard(Interpreter& in, const char* where);
    ~RecursionGuard() { --in_.nativeDepth_; }
    RecursionGuard(const RecursionGuard&) = delete;
    RecursionGuard& operator=(const RecursionGuard&) = delete;

   private:
    Interpreter& in_;
  };
  // Raises MemoryError where one Python object of `bytes` would not fit the script's memory
  // limit (tensor::memoryLimit less the tensors alive): "a" * 10**12 fails at once, as in
  // CPython, instead of growing until the machine swaps.
  void checkAllocation(uint64_t bytes);
  // Raises KeyboardInterrupt, or the time-limit / termination error, where one was requested
  // (engine/python/interrupt.h). Cheap: one relaxed atomic load when nothing is pending.
  void checkInterrupt() {
    if (pendingInterrupt() != Interrupt::None) handleInterrupt();
  }
  void handleInterrupt();
  // Native code stopped at a stop request (tensor::Interrupted): raises that request as
  // checkInterrupt would (KeyboardInterrupt, TimeoutError, ...), or KeyboardInterrupt where it was
  // already taken.
  [[noreturn]] void raiseStopped();
  // Called on the interpreter's thread when a FlushOutput request is taken (the driver sends
  // what the script printed to the session, so a killed run keeps it).
  std::function<void()> onFlushOutput;
  // Seconds of --timeout, for the message of the error a time limit raises.
  double timeoutSeconds = 0;
  // Containers whose repr is being built (a list that contains itself prints as [...]).
  std::vector<const Obj*> reprActive;

 private:
  int nativeDepth_ = 0;
  enum class Flow { Normal, Break, Continue, Return };
  struct Frame {
    std::shared_ptr<Scope> scope;
    std::shared_ptr<ModuleObj> module;
    const std::set<std::string>* locals = nullptr;  // null at module level
    const std::set<std::string>* globalsDecl = nullptr;
    std::string function;
    Span span;  // currently executing expression/statement
    Value returnValue;
    Value classSelf;                      // for super(): the first argument of the method
    GeneratorObj* generator = nullptr;    // the generator whose body runs in this frame
    const FunctionObj* fn = nullptr;      // the function whose body runs in this frame
    bool classBody = false;               // a class body: its names are readable in it
    std::vector<std::string> scopeOrder;  // class body: names in the order they were bound
    const Stmt* stmt = nullptr;           // the statement executing (graph breaks resume after it)
    std::shared_ptr<ClassObj> classDef;   // for super(): the class the method was defined in
  };

  std::ostream& out_;
  std::string file_, source_;
  std::shared_ptr<ModuleObj> main_;
  std::map<std::string, std::shared_ptr<ModuleObj>> modules_;
  std::unordered_map<std::string, Value> builtins_;
  std::map<std::string, std::shared_ptr<ClassObj>> classes_;
  std::vector<Frame> frames_;
  std::vector<std::unique_ptr<Module>> ownedModules_;
  bool copyingName_ = false;  // evaluating the right side of `a = b`
  std::map<std::string, std::string> sources_;
  // Per function body: names assigned (locals) and declared global/nonlocal.
  struct FnInfo {
    std::set<std::string> locals, globals;
  };
  std::map<const void*, FnInfo> fnInfo_;

  void installBuiltins();
  void installContainerMethods();  // builtins_containers.cpp
  void installStrMethods();        // builtins_str.cpp
  void installMoreBuiltins();      // builtins_more.cpp
 public:
  Value callBuiltin(const std::string& name, std::vector<Value> args);

 private:
 public:
  // A set (or frozenset) holding `items`.
  Value makeSet(std::vector<Value> items, bool frozen = false);

 private:
  Flow execBody(const Body& body);
  Flow exec(const Stmt& s);
  Value eval(const Expr& e);
  Value evalExpr(const Expr& e);
  Value evalCall(const Expr& e);
  Value evalComprehension(const Expr& e);
  Value makeGenerator(FunctionObj& fn, Frame frame);
  Value makeGeneratorExpression(const Expr& e);
  Value yieldValue(Value v);
  Value evalYieldFrom(const Expr& e);
  // The comprehension loops of `e` in the current frame; `emit` receives each element (a
  // dict comprehension's key and value).
  void runComprehension(const Expr& e, const Value& firstIter, const std::function<void(Value, Value)>& emit);
  std::set<GeneratorObj*> liveGenerators_;  // suspended generators, closed when the interpreter ends
  std::vector<Value> handling_;             // exceptions being handled (innermost last): bare `raise`, __context__
  friend struct GeneratorObj;
  Value evalFString(const Expr& e);
  void assign(const Expr& target, Value v);
  void deleteTarget(const Expr& target);
  Value lookupName(const std::string& name, const Span& span);
  void storeName(const std::string& name, Value v);
  Value makeFunction(const Stmt* def, const Expr* lambda);
  Value makeClass(const Stmt& s);
  // A class statement in the compiled frame: Dynamo breaks at its __build_class__ call, makes
  // the class eagerly after the graph and resumes with it. Kiln does so where the class names
  // none of the frame's locals (it is then made in a scope of its own, the function's closure
  // above it) and has no decorators or class keywords (evaluated before the call in Python).
  bool classBreakable(const Stmt& s);
  void classBreak(const Stmt& s, GraphBreak& u);
  void doImport(const Stmt& s);
  Flow execTry(const Stmt& s);
  Flow execWith(const Stmt& s);
  const FnInfo& infoFor(const void* key, const Body* body, const std::vector<Param>& params, const Expr* lambdaBody);
  Value instantiate(const std::shared_ptr<ClassObj>& cls, CallArgs& args);
  Value superProxy(CallArgs& args);
  Value superAttr(const Value& proxy, const std::string& name);
  bool isDataDescriptor(const Value& attr);
  Value instanceAttr(const Value& obj, const std::shared_ptr<ClassObj>& cls, const std::shared_ptr<DictObj>& dict, const std::string& name,
                     bool* found);
  Value iteratorAttr(const Value& obj, const std::string& name);  // generator/iterator methods
  Value functionCode(const FunctionObj& f);
  PyError makeError(const std::string& type, const std::string& message);
  PyError errorFor(const Value& exc);  // a PyError carrying the exception instance
 public:
  // The exception instance of an error (made from its type and message when Kiln raised it).
  Value exceptionValue(PyError& e);

 private:
  friend struct FrameGuard;
  friend class Builtins;
};

// Pushes a frame and pops it on every exit path.
struct FrameGuard {
  Interpreter& in;
  FrameGuard(Interpreter& i, Interpreter::Frame f) : in(i) {
    if (static_cast<int>(in.frames_.size()) >= Interpreter::kMaxDepth || stackNearlyFull())
      in.raise("RecursionError", "maximum recursion depth exceeded");
    in.frames_.push_back(std::move(f));
  }
  ~FrameGuard() { in.frames_.pop_back(); }
};

// Line `line` (1-based) of `source`, "" past the end; with `stripIndent` without its leading
// blanks (as tracebacks and Dynamo's "code:" comments show it).
std::string sourceLine(const std::string& source, int line, bool stripIndent = false);

// Python-style rendering of an error: the traceback, each frame's source line with a caret
// under the failing expression, then `Type: message`.
std::string formatTraceback(const PyError& e, const std::string& source);
std::string formatTraceback(const PyError& e, const std::map<std::string, std::string>& sources);
std::string formatSyntaxError(const std::string& message, const std::string& file, int line, int col, const std::string& source);

}  // namespace kiln::py
