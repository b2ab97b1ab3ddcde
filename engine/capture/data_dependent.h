// What Dynamo does with values that depend on tensor data while capturing, beyond breaking:
//  - `assert cond, "msg"` on a traced tensor becomes a `torch._assert_async(cond, 'msg')` node
//    (config.rewrite_assert_with_torch_assert), so the frame does not break and a failing
//    check is a RuntimeError when the graph runs;
//  - Tensor.item() under fullgraph=True (where Dynamo captures it as an unbacked SymInt or
//    SymFloat, u0 / zuf0): an unbacked scalar object. Branching on a relation of it is Dynamo's
//    guard on a data-dependent expression, a UserError; Kiln does not put the scalar in the
//    graph yet, so any other use stops the capture as a Kiln limitation (the frame runs eagerly);
//  - a frame with no tensor in its arguments that reads no `torch` module is not compiled at all
//    (Dynamo's has_tensor_in_frame): it runs as plain Python, with no compile, guard or break.
#pragma once

#include "engine/python/ast.h"
#include "engine/python/interpreter.h"
#include "engine/torch/unbacked.h"

namespace kiln::capture {

class Tracer;

// `assert` with test value `cond` and message expression `msg` (null when none) while tracing:
// records torch._assert_async when Dynamo rewrites it (a traced tensor, a constant message or
// none) and returns true; false when the assert runs as Python (and may break there).
bool rewriteAssert(Tracer& tracer, const py::Value& cond, const py::Expr* msg);

// Whether Dynamo would trace a call of `fn` with these arguments: some argument (or an item or
// attribute of one) is a tensor or an nn.Module, or the function's code reads a global bound
// to the torch module or one of its submodules.
bool hasTensorInFrame(py::Interpreter& in, const py::FunctionObj& fn, const std::vector<py::Value>& args, const py::Value& self);
// A resume function's code is a copy of the original function's: it reads the globals the whole
// original reads (its co_names), which hasTensorInFrame looks at.
void noteResumeCode(const py::Stmt& resumeDef, const py::Stmt& originalDef);

// Tensor.item()'s unbacked scalars are torch's (engine/torch/unbacked.h): Tracer::makeUnbacked
// makes them, capture refuses them and guards branches on their relations.
using torchapi::guardOnDataDependent;
using torchapi::isUnbacked;
using torchapi::unbackedLimitation;

}  // namespace kiln::capture
