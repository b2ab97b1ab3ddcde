// What the interpreter calls while a compiled function is being captured, and when a compiled
// function runs. The interpreter knows only these interfaces; engine/capture implements them
// (capture::Tracer is the TraceHooks, capture::CompileContext the CompilerHooks) and installs
// them in `Interpreter::tracer` / `Interpreter::compiler`. Each hook returns the value the
// program should see, and may record a guard or a graph input on the way.
#pragma once

#include "engine/ir/types.h"
#include "engine/python/ast.h"
#include "engine/python/interpreter.h"
#include "engine/python/objects.h"

#include <any>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::py {

// A graph break (torch._dynamo.exc.Unsupported): thrown where capture meets something it must
// not trace, and annotated by the interpreter as it unwinds with where it sits in the compiled
// (top) frame. capture::Unsupported is this class.
class GraphBreak : public std::runtime_error {
 public:
  GraphBreak(std::string code, std::string title, std::string explanation, std::vector<std::string> hints = {})
      : std::runtime_error(title),
        code(std::move(code)),
        title(std::move(title)),
        explanation(std::move(explanation)),
        hints(std::move(hints)) {}
  std::string code, title, explanation;
  std::vector<std::string> hints;
  // A break for something PyTorch captures but Kiln cannot yet (KB020, KB021, KB030, KB031),
  // not one Dynamo makes too: under fullgraph=True the frame then runs eagerly instead of
  // failing the program.
  bool kilnLimitation = false;
  // The torch._dynamo.exc class a fullgraph=True compile raises for it: Unsupported, or one of
  // its subclasses (UserError: the program is wrong in a way Dynamo reports, zip(strict=True)
  // over lists of different lengths). Without fullgraph it is a graph break all the same.
  std::string errorClass = "Unsupported";
  bool gradEnabled = true;     // Call: grad mode where the top frame made the call
  bool inferenceMode = false;  // Call: and whether inference mode was on there
  std::any globalState;        // Call: and the rest of the global state (TraceHooks::globalState())
  TraceFrame where;
  std::vector<TraceFrame> stack;

  // Where the break sits in the compiled (top) frame.
  enum class At { Unknown, Call, Branch } at = At::Unknown;
  const Stmt* stmt = nullptr;  // the top-frame statement being executed
  const Expr* expr = nullptr;  // Call: the top-frame call expression; Branch: the test
  Value callee;                // Call: the callee value; Branch: the test value
  std::vector<Value> args;     // Call: evaluated positional arguments
  std::vector<std::pair<std::string, Value>> kwargs;
  size_t graphSize = 0;          // node ids below this existed before the breaking call began
  int occurrence = 0;            // Call: which evaluation of `expr` in the frame broke (1-based)
  std::shared_ptr<Scope> scope;  // the compiled frame's variables when the break happened
};

// The capture of one compiled frame, as the interpreter sees it (capture::Tracer).
class TraceHooks {
 public:
  virtual ~TraceHooks() = default;

  size_t topDepth = 0;     // interpreter frame depth of the compiled function
  bool fullgraph = false;  // the frame was compiled with fullgraph=True

  // --- where a break sits in the compiled frame ---
  virtual size_t graphSize() const = 0;            // the next node id (nodes below it exist now)
  virtual int countTopCall(const Expr* call) = 0;  // this evaluation's number (1-based) of a top-frame call
  // The second pass of a capture that broke in a call stops before it: the break to raise again
  // at this evaluation of `call`, or null.
  virtual const GraphBreak* stopBefore(const Expr* call, int occurrence) const = 0;
  virtual std::any globalState() const = 0;                   // what GraphBreak::globalState records
  virtual void onTopExpr(const Expr* e, const Value& v) = 0;  // a top-frame expression's value (the stack at a break)

  // --- reads: return the value the program should see (guarded, or a graph input) ---
  virtual Value onAttribute(const Value& obj, const std::string& name, Value result) = 0;
  virtual Value onGlobal(const std::string& name, Value v) = 0;
  virtual Value onItem(const Value& container, const Value& key, Value result) = 0;
  virtual Value onFreeVar(const FunctionObj* fn, const std::string& name, Value v) = 0;
  virtual Value onClosure(const std::string& name, Value v) = 0;
  virtual void onLocalRead(const std::string& name, const Value& v, const ir::SourceLoc* at = nullptr) = 0;
  virtual void onDefault(const FunctionObj* fn, size_t i, const Value& v) = 0;
  virtual void onBoundMethod(const Value& obj, const std::string& name, const Value& method) = 0;
  virtual void nameHint(const Value& v, const std::string& name) = 0;

  // --- what the trace depends on: guards ---
  virtual void onUse(const Value& v) = 0;
  virtual void onIterate(const Value& v) = 0;
  virtual void onSequence(const Value& v) = 0;
  virtual void onHasattr(const Value& obj, const std::string& name, bool result) = 0;
  virtual void onContains(const Value& container, const Value& key, bool result) = 0;
  virtual void onIdentity(const Value& v) = 0;
  virtual void onType(const Value& obj) = 0;
  virtual void onDictKeys(const Value& dict) = 0;
  virtual bool onTupleIteratorNext(const Value& it) = 0;
  virtual bool isNew(const Value& v) const = 0;  // made during the trace
  virtual bool dependsOnInputs(const Value& tensor) = 0;

  // --- side effects on objects that existed before the trace (replayed by the entry) ---
  virtual void onSetAttr(const Value& obj, const std::string& name, const Value& value, bool raw = false) = 0;
  virtual void onMutate(const Value& container) = 0;
  virtual void onStoreGlobal(const std::shared_ptr<ModuleObj>& module, const std::string& name) = 0;
  virtual void onStoreCell(const std::shared_ptr<Scope>& scope, const std::string& name) = 0;

  // --- nn.Module scopes (node provenance) ---
  virtual void enterModule(const Value& module) = 0;
  virtual void leaveModule() = 0;

  // --- symbolic sizes and scalars ---
  virtual bool isSymbolic(const Value& v) = 0;
  virtual Value symbolicSize(const Value& tensor, int64_t dim, Value size) = 0;
  virtual Value onSymbolicBinary(const std::string& op, const Value& a, const Value& b, Value result) = 0;
  virtual Value onSymbolicUnary(const std::string& op, const Value& a, Value result) = 0;
  virtual Value onSymbolicCompare(const std::string& op, const Value& a, const Value& b, Value result) = 0;
  virtual void onSymbolicTruth(const Value& v) = 0;
  virtual void specialize(const Value& v) = 0;

  // --- values that depend on tensor data ---
  virtual bool isUnbacked(const Value& v) const = 0;  // Tensor.item() under fullgraph
  virtual void onBranch(const Value& test) = 0;       // `if` / `while` on `test` (raises on an unbacked relation)
  // `assert cond, msg` on a traced value: true when it became a graph node (no Python assert).
  virtual bool rewriteAssert(const Value& cond, const Expr* msg) = 0;

  // --- class statements in the compiled frame ---
  virtual std::set<std::string> classStatementNames(const Stmt& cls) = 0;  // the names it binds or reads
};

// What a torch.compile'd callable's eager parts call back into (capture::CompileContext).
class CompilerHooks {
 public:
  virtual ~CompilerHooks() = default;
  // A user function called while a compiled function runs: compiled as a frame of its own.
  virtual Value callIntercepted(Interpreter& in, const Value& fn, CallArgs& args, const Value& self) = 0;
};

}  // namespace kiln::py
