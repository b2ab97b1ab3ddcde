// Makes an interpreter a torch one: Tensor values (the interpreter's py::TensorHooks, the
// operators, attributes, subscripts, printing and iteration of tensor_protocol.h and
// autograd_methods.h), the torch modules (installModules) and the prelude (prelude/*.py).
// The interpreter does not include torch (engine/layers.txt: python < torch), so whoever makes
// one calls this right after: the driver's runScript, the tests, the fuzzers, the benches.
#pragma once

namespace kiln::py {
class Interpreter;
}

namespace kiln::torchapi {

// Throws py::PyError on a broken prelude.
void install(py::Interpreter& in);

}  // namespace kiln::torchapi
