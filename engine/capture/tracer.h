// Tracer: builds the captured graph while the interpreter evaluates a compiled function with
// fake tensors, as Dynamo's symbolic evaluation does:
//  - every torch-level call touching a fake tensor becomes a node, named after the op and
//    renamed to the local it is first stored into, with source line and user stack;
//  - tensors the function reads (arguments, module parameters and buffers, globals) become
//    graph inputs when first used, named after their source (L_self_modules_fc_parameters_weight_),
//    each with a TENSOR_MATCH guard;
//  - Python constants it reads through a source (self.counter, G['SCALE'], n) become
//    CONSTANT_MATCH guards.
#pragma once

#include "engine/capture/global_state.h"
#include "engine/capture/guards.h"
#include "engine/capture/source.h"
#include "engine/capture/sym_expr.h"
#include "engine/ir/graph.h"
#include "engine/python/interpreter.h"
#include "engine/python/trace_hooks.h"
#include "engine/torch/capture_hooks.h"

#include <any>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::capture {

// A graph break: its code, title, explanation and hints as Dynamo words them, annotated by the
// interpreter with where it sits in the compiled frame (engine/python/trace_hooks.h).
using Unsupported = py::GraphBreak;

// A capture that broke inside a call is run again, stopping before that call (Dynamo restarts
// its analysis the same way), so nothing the call did is part of the graph or its side effects.
struct StopAtCall {
  const py::Expr* expr = nullptr;
  int occurrence = 0;
  std::shared_ptr<Unsupported> reason;
};

struct GraphInput {
  Source source;
  int node = -1;
};

class Tracer : public torchapi::TracerHooks {
 public:
  Tracer(py::Interpreter& in, std::string fileBaseName, std::shared_ptr<py::ModuleObj> globals);

  // Binds a frame argument: tensors become lazy graph inputs (realized at first use), Python
  // constants get a CONSTANT_MATCH guard, objects become roots for finding sources.
  py::Value bindArg(const std::string& name, const py::Value& v);
  // Records a call on fake tensors; returns the fake result.
  py::Value record(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                   const std::vector<std::pair<std::string, py::Value>>& kwargs, const ir::TensorType& result) override;
  // A call with several tensor results (chunk, split, unbind): the call node, then a getitem
  // node per result; returns the getitems' fake tensors.
  std::vector<py::Value> recordMulti(const std::string& target, ir::NodeKind kind, const std::vector<py::Value>& args,
                                     const std::vector<std::pair<std::string, py::Value>>& kwargs,
                                     const std::vector<ir::TensorType>& results) override;
  // Interpreter hooks while capturing (return the value the program should see).
  py::Value onAttribute(const py::Value& obj, const std::string& name, py::Value result) override;
  py::Value onGlobal(const std::string& name, py::Value v) override;
  py::Value onSuperAttribute(const py::Value& proxy, const std::string& name, py::Value result);
  py::Value onInputGrad(py::TensorObj* fake, py::Value result);  // x.grad of an input tensor
  py::Value gradThrough(const Source& src, const tensor::Tensor& real);
  // Parameter `i` of `fn` takes its default value `v` in a call while tracing: an object that
  // existed before is read through fn.__defaults__[k] / fn.__kwdefaults__['name'] when fn has a
  // source (never through another name that happens to hold it now).
  void onDefault(const py::FunctionObj* fn, size_t i, const py::Value& v) override;
  // A list or tuple the function iterates, indexes or measures: its length is guarded.
  void onBoundMethod(const py::Value& obj, const std::string& name, const py::Value& method) override;
  void onIterate(const py::Value& v) override;  // a loop or builtin reads every item
  void onUse(const py::Value& v) override;      // the trace depends on this value (arithmetic, a test, a graph constant)
  void onSequence(const py::Value& v) override;
  // container[key] read while capturing: the item is read through container's source
  // (a constant gets CONSTANT_MATCH `d['k'] == 2`, a tensor becomes a graph input).
  py::Value onItem(const py::Value& container, const py::Value& key, py::Value result) override;
  // hasattr(obj, name) and `key in container` answered while capturing are guarded.
  void onHasattr(const py::Value& obj, const std::string& name, bool result) override;
  void onContains(const py::Value& container, const py::Value& key, bool result) override;
  // The function compared an object by identity (`mode is Mode.SIN`, == without __eq__):
  // ID_MATCH on it when it has a source (constants have CONSTANT_MATCH already).
  void onIdentity(const py::Value& v) override;
  // The function looked at an object's type (isinstance, type(), attribute access): TYPE_MATCH.
  void onType(const py::Value& obj) override;
  // A dict's keys were iterated: they are guarded in order.
  void onDictKeys(const py::Value& dict) override;
  // A free variable `name` of function `fn` read (in a call below the compiled frame): read
  // through fn.__closure__[i].cell_contents when fn has a source.
  py::Value onFreeVar(const py::FunctionObj* fn, const std::string& name, py::Value v) override;
  // co_freevars of `fn`: the names its body reads that live in enclosing function scopes, sorted
  // (worked out once per function definition).
  const std::vector<std::string>& freeVarsOf(const py::FunctionObj* fn);
  // Adds NO_TENSOR_ALIASING over the graph's tensor inputs (call before taking the guards).
  void guardNoAliasing();
  // A free variable of the compiled function: a source root, read like a local (L['offset']).
  void addClosure(const std::string& name, const py::Value& v) { closureValues[name] = v; }
  void onLocalRead(const std::string& name, const py::Value& v, const ir::SourceLoc* at = nullptr) override;
  py::Value onClosure(const std::string& name, py::Value v) override;
  void nameHint(const py::Value& v, const std::string& name) override;
  // An attribute store on an object that existed before capture (self.counter += 1): it is
  // recorded so the compiled code replays it, and undone when capture ends — capture itself
  // leaves no trace on the program's objects, as Dynamo's side-effect tracking.
  // `raw`: the store object.__setattr__ makes (the one a user __setattr__ ends in); a store
  // through a class's own Python __setattr__ is not recorded itself, what its body does is.
  void onSetAttr(const py::Value& obj, const std::string& name, const py::Value& value, bool raw = false) override;
  void undoSideEffects();
  // next() on an iterator over a tuple that existed before the frame (an argument): Dynamo
  // traces it (TUPLE_ITERATOR_LEN `___tuple_iterator_len(it) == 5`, each item used guarded as
  // `___tuple_iterator_getitem(it, 0) == 2`) and the entry advances the real iterator as far
  // after its graph. A range iterator likewise, guarded whole by RANGE_ITERATOR_MATCH (its
  // items are then constants). False when `it` is no such iterator (the caller breaks instead).
  bool onTupleIteratorNext(const py::Value& it) override;
  struct IteratorStep {
    py::Value iterator;
    Source source;
    size_t start = 0;        // its position when the frame began
    int64_t rangeStart = 0;  // a range iterator's next value when the frame began
    size_t count = 0;        // how far the frame advanced it
  };
  std::vector<IteratorStep> iteratorSteps;
  // x.data = v on a traced tensor x: x is v's value in the rest of the trace (they share storage
  // now), and when x is the program's tensor the store is a side effect replayed after the graph.
  void onSetData(const py::Value& x, const py::Value& v) override;
  // The source an item that was in a mutated container before capture is read from (its
  // position then); null when `v` is not one.
  const Source* originalItemSource(const py::Value& v);
  std::map<const py::Obj*, Source> originalItems_;
  struct SideEffect {
    Source object;
    std::string attr;
    py::Value value;        // capture-time value (may be a fake tensor)
    py::Value target, old;  // for undo
  };
  std::vector<SideEffect> sideEffects;

  // A list, dict or set that existed before capture is about to be changed (append, d[k] = v,
  // pop, add ...): its contents are saved first, restored when capture ends, and its final
  // contents become part of what the entry does each call (Dynamo's mutable side effects).
  // Its length is guarded, since the replay is relative to it.
  void onMutate(const py::Value& container) override;
  struct ContainerEffect {
    py::Value object;
    Source source;
    std::vector<py::Value> before;                            // list items / set members
    std::vector<std::pair<py::Value, py::Value>> beforeDict;  // dict items
  };
  std::vector<ContainerEffect> containerEffects;
  // A global or a closure cell written while capturing (`global n; n += 1`, nonlocal): the old
  // value comes back after capture, the new one is stored by the entry each call.
  void onStoreGlobal(const std::shared_ptr<py::ModuleObj>& module, const std::string& name) override;
  void onStoreCell(const std::shared_ptr<py::Scope>& scope, const std::string& name) override;
  struct VarEffect {
    std::shared_ptr<py::ModuleObj> module;  // a global
    std::shared_ptr<py::Scope> scope;       // a closure cell
    std::string name;
    py::Value old;  // null when it did not exist
  };
  std::vector<VarEffect> varEffects;
  uint64_t firstScope = py::Scope::nextSerial();  // scopes with smaller serials existed before capture
  uint64_t firstObject = py::Obj::nextSerial();   // objects with smaller serials existed before capture
  // Made during the trace: it cannot be read through a source when the entry runs.
  std::string keyRepr(const py::Value& k);
  void guardMetadata(py::TensorObj* t);
  ir::TensorType withRequiresGrad(const ir::Node& n, ir::TensorType t) const;
  bool isNew(const py::Value& v) const override { return v && v->serial >= firstObject; }
  void onTopExpr(const py::Expr* e, const py::Value& v) override { exprValues[e] = v; }

  // An nn.Module instance is being called / has returned: nodes recorded in between get its
  // path below the compiled function's roots ("transformer_blocks.0.attention", as FX's
  // nn_module_stack keys) as provenance, which the studio collapses and expands by.
  void enterModule(const py::Value& module) override;
  void leaveModule() override {
    if (!moduleStack_.empty()) moduleStack_.pop_back();
  }

  // Grad mode changed while tracing (entering/leaving torch.no_grad(), set_grad_enabled):
  // recorded as Dynamo records it, `torch._C._set_grad_enabled(False)`.
  void onGradMode(bool enabled) override;
  // Dynamo's cleanup_graph: a grad-mode change immediately undone (set_grad_enabled(False)
  // then (True), nothing between) is no part of the graph; `atEntry` is the mode the frame
  // started in. A graph left with no calls is not compiled.
  void dropCancellingGradModes(bool atEntry);
  // Whether a tensor's value is the program's input rather than a capture-time constant:
  // fake tensors and real ones read through a source. A real tensor that existed before
  // capture but that no source names (reached through something Kiln cannot spell) would be
  // baked into the graph with this call's values, so it stops capture instead (KB020).
  bool dependsOnInputs(const py::Value& tensor) override;
  // The fake tensor standing for `v` in the graph: v itself when fake; for a real tensor the
  // program reached through its arguments, closures or globals, its graph input (lifted once);
  // for any other real tensor a constant input. Null for non-tensors.
  py::Value fakeOf(const py::Value& v) override;
  // The graph node a fake tensor stands for (realizing a lazy input); -1 if not fake.
  int nodeOf(const py::Value& v) override;
  // The source of a tensor/object the function can reach (arguments, globals), if any.
  const Source* sourceOf(const py::Value& v);
  bool hasSource(const py::Value& v) override { return sourceOf(v) != nullptr; }
  bool isInput(int node) const override;
  const Source* inputSource(int node) const;

  // Drops the nodes (and inputs) made since the graph's id counter stood at `n` (a break inside a
  // call discards the callee's ops); by id, not position: realized inputs sit where they were read
  // until placeInputsFirst().
  void truncate(size_t n) override;
  // Moves the inputs realized during the trace, appended where they were first read, in front of
  // the computation in the order they were realized (FX's placeholders first). Call once the
  // trace is over, before anything reads the nodes' order.
  void placeInputsFirst();
  void finish(const std::vector<int>& outputs);

  // Dynamic shapes, as Dynamo's ShapeEnv traces them (tracer_shapes.cpp). When the trace first
  // reads an input tensor, `dimPlan` says how each of its dims is traced: Static (a constant),
  // Duck (dynamic=True: equal sizes share one symbol, `x.size()[1] == x.size()[0]`) or Dynamic
  // (a size that changed between compiles, or one mark_dynamic marked: a symbol of its own);
  // sizes 0 and 1 stay constants. Sizes read from such a tensor are ints that carry their
  // expression (s0, s0 // 13 * 13); arithmetic on them carries it on, comparisons give bools
  // that carry the relation, and where the trace depends on one (a branch, torch._check, a
  // value it must know: str(), range(), iterating a tensor) the relation becomes a guard, a
  // bound of the symbol's value range, or the symbol's value (it is specialized). The entry's
  // shape guards and symbolic TENSOR_MATCH sizes come from produceShapeGuards().
  enum class DimKind { Static, Duck, Dynamic };
  struct DimPlan {
    std::vector<DimKind> kinds;   // per dim
    std::vector<int64_t> marked;  // dims mark_dynamic marked (a DynamicIndices guard)
    bool parameter = false;       // an nn.Parameter (TENSOR_MATCH says so when it fails)
    ir::SourceLoc at;             // (the tracer's) where the trace first read the tensor
  };
  std::function<DimPlan(const Source&, const py::TensorObj& fake, const py::TensorObj* real)> dimPlan;
  bool dynamicInts = false;  // dynamic=True: CONSTANT_MATCH on an int argument is a shape guard
  // Automatic dynamic ints: whether an int read through this source (not an attribute) is
  // traced as a symbol (its value changed between compiles) instead of guarded as a constant.
  std::function<bool(const Source&, int64_t)> intPlan;
  std::vector<std::pair<Source, int64_t>> intReads;  // ints read through sources (the frame's state)
  // Automatic dynamic floats (Dynamo's wrap_symfloat with specialize_float off): a float read
  // through a source whose value (or kind) changed between compiles, or any with dynamic=True,
  // is not guarded by value: the entry holds for every float there (TYPE_MATCH), Kiln traces
  // each value again concretely (the entry is dynamic), and what the trace decides on the value
  // is guarded (FloatValue: `___as_tensor(y).item() != 5.0`); NaN and inf are specialized.
  std::function<bool(const Source&, double)> floatPlan;
  std::vector<std::pair<Source, double>> floatReads;  // floats read through sources (the frame's state)
  bool hasDynamicFloats() const { return !dynFloatSources_.empty(); }
  // Appends each dynamic float's last guard: it is not NaN (`y == ___as_tensor(y).item()`).
  void finishDynamicFloats();
  // The frame's *args tuple or **kwargs dict (`name`): guarded as Dynamo guards them (its type and
  // length, `not kwargs` / `len(kwargs) == 1`, a dict's keys in order, each constant item's
  // value), and returned with its tensors as the trace's stand-ins (read through args[0],
  // kwargs['alpha']). Null when an item is something else (the frame then runs eagerly).
  py::Value bindVarArgs(const std::string& name, const py::Value& container);
  // `v` leaves the frame (returned, stored in a cell, a global or an attribute): a value computed
  // from dynamic floats is specialized there (Dynamo restarts the analysis with those floats
  // specialized, `___as_tensor(x).item() == 1.5`, as the graph cannot output a SymFloat).
  void onFloatEscapes(const py::Value& v);
  // A dim mark_dynamic marked that the trace specialized: Dynamo's ConstraintViolationError
  // message, raised once the entry is compiled ("" when none).
  std::string constraintViolation;
  bool isSymbolic(const py::Value& v) override;
  // Operations on symbolic ints and floats the trace made (a symbolic size read, arithmetic, a
  // comparison): each is a call node in Dynamo's FX graph even when it leaves no tensor op, and
  // count_calls() > 0 makes Dynamo compile the graph (counted, though DCE may empty it) and not
  // skip the frame as one with "No ops traced".
  int symbolicCalls = 0;
  // x.shape / x.size() / x.size(d) / x.numel() / len(x) of `tensor` (the concrete value given):
  // the value carrying its expression when the dims are symbolic.
  py::Value symbolicSizes(const py::Value& tensor, py::Value sizes) override;
  py::Value symbolicSize(const py::Value& tensor, int64_t dim, py::Value size) override;
  py::Value symbolicNumel(const py::Value& tensor, py::Value numel) override;
  // Python arithmetic and comparisons on such values (result: the concrete result, returned
  // carrying the expression when there is one); "ceil" / "floor" / "int" / "neg" for `unary`.
  py::Value onSymbolicBinary(const std::string& op, const py::Value& a, const py::Value& b, py::Value result) override;
  py::Value onSymbolicUnary(const std::string& op, const py::Value& a, py::Value result) override;
  py::Value onSymbolicCompare(const std::string& op, const py::Value& a, const py::Value& b, py::Value result) override;
  // The trace took `v`'s truth (a branch, `not`, torch._check): its relation is guarded.
  void onSymbolicTruth(const py::Value& v) override;
  // The trace needs `v`'s exact value (str(), range(), a list index): `expr == value`.
  void specialize(const py::Value& v) override;
  // x[...] on a traced tensor: slice bounds against symbolic sizes are guarded (`5 <= s0`).
  void onTensorIndex(const py::Value& tensor, const py::Value& index) override;
  // A call recorded with sizes or parameters that carry expressions: a tensor made with a
  // symbolic element count guards whether it is empty or has one element, as functionalization
  // does; conv's padding, stride and dilation must be constants (Inductor specializes them).
  void onSymbolicCall(const std::string& target, const std::vector<py::Value>& args,
                      const std::vector<std::pair<std::string, py::Value>>& kwargs);
  // Sets the TENSOR_MATCH sizes of dynamic dims to their symbols (s0, s1 ... in guard order)
  // and appends the shape guards, in Dynamo's order: sizes equal to another size (duck sizing)
  // and CONSTANT_MATCHes that are shape guards, then the relations the trace guarded, then each
  // symbol's value range. Returns whether some dim stayed symbolic.
  bool produceShapeGuards(std::vector<Guard>& guards);
  // The marks of a tensor (for the compile context's plan): torch._dynamo.mark_dynamic /
  // mark_static dims.
  static std::vector<int64_t> markedDims(py::Interpreter& in, const py::TensorObj& t, const char* attr);

  ir::Graph graph;
  std::vector<GraphInput> inputs;  // in placeholder order
  std::vector<Guard> guards;
  std::map<std::string, py::Value> argValues;       // frame arguments by name (capture-time values)
  std::map<std::string, py::Value> closureValues;   // free variables by name
  std::map<const py::Expr*, py::Value> exprValues;  // top-frame expression values (stack at a break)
  const StopAtCall* stopAt = nullptr;               // second pass: where to stop
  // py::TraceHooks besides the interpreter hooks above (tracer.cpp).
  size_t graphSize() const override { return static_cast<size_t>(graph.nextId()); }
  int countTopCall(const py::Expr* call) override { return ++topCalls[call]; }
  const py::GraphBreak* stopBefore(const py::Expr* call, int occurrence) const override;
  std::any globalState() const override;
  bool isUnbacked(const py::Value& v) const override;
  void onBranch(const py::Value& test) override;
  bool rewriteAssert(const py::Value& cond, const py::Expr* msg) override;
  std::set<std::string> classStatementNames(const py::Stmt& cls) override;
  // torchapi::TracerHooks besides the calls above (tracer.cpp).
  ir::Graph& capturedGraph() override { return graph; }
  size_t sideEffectCount() const override { return sideEffects.size() + containerEffects.size() + varEffects.size(); }
  int onEnterAutocast(const std::string& device, ir::DType dtype, bool enabled) override;
  void onExitAutocast(int enterNode) override;
  py::Value makeUnbacked(bool isFloat) override;
  std::map<const py::Expr*, int> topCalls;  // evaluations of each call expression in the frame

 private:
  std::vector<std::string> moduleStack_;
  std::map<const py::Obj*, py::Value> unreachable_;  // searched for and not found (held alive)
  ir::Arg toArg(const py::Value& v);
  int realize(py::TensorObj* t);
  py::Value lift(const tensor::Tensor& real, const Source& src);
  py::Value readThrough(const Source& src, const py::Value& v, bool moduleAttr);
  void guardConstant(const Source& src, const py::Value& v, bool moduleAttr = false, const ir::SourceLoc* at = nullptr);
  bool guardLiteralSet(const Source& src, const py::Value& v, const ir::SourceLoc* at);
  void addGuard(Guard g, const std::string& key);             // once per key
  static bool isKey(const py::Value& v);                      // a constant usable as a guarded dict key / index
  std::map<const void*, std::vector<std::string>> freeVars_;  // per function definition, sorted (co_freevars)
  // Dynamic floats: values that are one (`direct`) or were computed from them, with the sources
  // they come from; a decision on a computed one specializes its sources.
  struct DynFloat {
    py::Value value;
    std::vector<Source> sources;
    bool direct = true;
  };
  std::map<const py::Obj*, DynFloat> dynFloats_;
  std::vector<std::pair<Source, double>> dynFloatSources_;  // each dynamic float source, its value
  bool floatSymbol(const Source& src, const py::Value& v);
  void specializeFloat(const py::Value& v);  // guard its sources' values (`== 1.5`)
  void guardFloat(const Source& src, const std::string& op, double c);
  // A TYPE_MATCH guard on `src` (the type of `v`) at the current line: a symbolic int or float
  // source keeps its Python type, as Dynamo's TYPE_MATCH does.
  void guardTypeHere(const Source& src, const py::Value& v);
  const DynFloat* dynFloat(const py::Value& v) const;
  py::Value onFloatBinary(const py::Value& a, const py::Value& b, py::Value result);
  py::Value onFloatCompare(const std::string& op, const py::Value& a, const py::Value& b, py::Value result);
  void onFloatTruth(const py::Value& v);
  bool isSymbolicInt(const py::Value& v);  // a value carrying a size expression
  ir::SourceLoc here() const;
  // py::sourceLine(source, line, true) through a per-source index of line starts: scanning from
  // the top for every node and guard (prelude modules run to thousands of lines) was a tenth of
  // a 200-layer model's capture.
  std::string codeLine(const std::string& source, int line) const;
  mutable std::map<std::pair<const char*, size_t>, std::vector<size_t>> lineStarts_;
  bool search(const py::Value& root, const Source& src, const py::Obj* target, int depth, std::set<const py::Obj*>& seen);

  py::Interpreter& in_;
  std::string file_;
  std::shared_ptr<py::ModuleObj> globals_;
  std::set<int> named_;
  std::map<const py::Obj*, Source> sources_;  // known objects -> source
  std::vector<py::Value> held_;               // the objects sources_ names, kept alive
  void noteSource(const py::Value& v, const Source& src, bool replace = false);
  std::map<const py::Obj*, tensor::Tensor> lazy_;                      // lazy fake inputs -> their real tensor
  std::map<std::string, std::pair<Source, ir::TensorType>> metaRead_;  // inputs whose metadata the trace read
  // Constant items read by iterating a sourced list, guarded on first use (onUse).
  std::map<const py::Obj*, std::pair<py::Value, Source>> pendingItems_;
  std::map<const py::Obj*, py::Value> liftedBy_;                       // real TensorObj -> its fake stand-in
  std::map<int, std::pair<py::TensorObj*, tensor::Tensor>> realized_;  // input node -> its fake and real tensor
  std::map<std::string, py::Value> gradInputs_;                        // x.grad read while tracing, by source text
  std::set<int> inferenceModeChanges_;                                 // grad-mode nodes an inference_mode block made
  std::set<std::string> guarded_;
  int constants_ = 0;

  // Dynamic shapes (tracer_shapes.cpp).
  struct ShapeSymbol {
    int64_t hint = 0;
    Source source;  // where it was first read (duck sizing compares other sizes with it)
    int dim = 0;
    int64_t lower = 2;
    std::optional<int64_t> upper, value;  // value: specialized
    ir::SourceLoc firstUse, lowerAt, upperAt;
    bool lowerRefined = false;
    bool isInt = false;   // an int argument's symbol (dim -1; no 0/1 specialization, unbounded range)
    bool marked = false;  // mark_dynamic marked it: specializing it is a constraint violation
  };
  struct SizeUse {
    Source source;
    int dim = 0;
    int symbol = -1;
    size_t order = 0;
  };
  struct PendingShapeGuard {
    SymExpr relation;
    ir::SourceLoc at;
  };
  std::vector<ShapeSymbol> symbols_;
  std::vector<SizeUse> sizeUses_;
  std::map<int64_t, int> duckSymbols_;                                 // size -> its duck-sized symbol
  std::map<const py::Obj*, std::vector<int>> symDims_;                 // input fake tensor -> symbol per dim (-1: static)
  std::map<std::string, DimPlan> plans_;                               // by source text
  std::map<const py::Obj*, std::pair<py::Value, SymExpr>> symValues_;  // ints, floats and bools that carry an expression
  std::vector<PendingShapeGuard> shapeGuards_;
  std::map<const py::Obj*, py::Value> realTensors_;  // input fake tensor -> the argument it stands for
  std::map<std::string, size_t> shapePhaseOrder_;    // shape-phase CONSTANT_MATCH (source text) -> order
  size_t shapeOrder_ = 0;
  void wrapSymbols(py::TensorObj* fake);
  bool intSymbol(const Source& src, const py::Value& v);  // an automatic dynamic int: tagged, no CONSTANT_MATCH
  // The size expressions of a recorded call's result, from its first tensor argument's (same
  // sizes carry over; conv and pooling windows by their formula); an adaptive pooling's input
  // sizes must be constants for Inductor: `(x.size()[2] // 2) == 6`.
  // Keyed by the result's address, so the entry holds the result alive: a freed fake tensor's
  // address reused by another tensor (of another rank) read a stale entry (a difffuzz crash).
  std::map<const py::Obj*, std::pair<py::Value, std::vector<SymExpr>>> dimExprs_;
  std::vector<SymExpr> dimExprsOf(py::TensorObj* t);
  void propagateShapes(const std::string& target, const std::vector<py::Value>& args, const py::Value& result);
  SymExpr exprOf(const py::Value& v);
  SymExpr operandExpr(const py::Value& v);
  py::Value tagged(py::Value v, const SymExpr& e);
  void guardRelation(SymExpr relation, const ir::SourceLoc& at);
  void specializeSymbol(int symbol, int64_t value);
  std::function<SymRange(int)> ranges();
};

// The FX name of a captured target: torch.cos -> cos, _operator.mul -> mul (torch names targets).
using torchapi::fxBaseName;

// The tracer capturing now (the interpreter's TraceHooks are always a Tracer: capture installs them).
inline Tracer* tracerOf(py::Interpreter& in) { return static_cast<Tracer*>(in.tracer); }

}  // namespace kiln::capture
