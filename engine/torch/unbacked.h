// Unbacked scalars: what Tensor.item() of a one-element traced tensor gives under fullgraph=True
// or config.capture_scalar_outputs (Dynamo's unbacked SymInt u0 / SymFloat zuf0), and the
// relations of one (a SymBool). Kiln does not put them in its graphs yet: comparing one makes a
// relation, and any other use stops the capture as a Kiln limitation. They live in torch (where
// item() makes them and torch functions refuse them); capture guards branches on a relation
// (engine/capture/data_dependent.h).
#pragma once

#include "engine/python/interpreter.h"

#include <cstdint>
#include <string>

namespace kiln::torchapi {

// A new unbacked SymFloat (zuf0, a floating tensor) or SymInt (u0), numbered per capture
// (`capture`: an id of the capture, the tracer's first object serial).
py::Value makeUnbacked(uint64_t capture, bool isFloat);
// An unbacked scalar or a relation of one (a SymBool).
bool isUnbacked(const py::Value& v);
// `if` / `while` on an unbacked relation: Dynamo cannot guard on it (GuardOnDataDependentSymNode),
// raised under fullgraph as torch._dynamo.exc.UserError.
[[noreturn]] void guardOnDataDependent(py::Interpreter& in, const py::Value& rel);
// Any other use of an unbacked scalar: what Kiln cannot capture yet (KB033, a Kiln limitation).
[[noreturn]] void unbackedLimitation(py::Interpreter& in, const std::string& use);

}  // namespace kiln::torchapi
