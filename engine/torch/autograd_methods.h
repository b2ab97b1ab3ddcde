// The autograd surface of tensors: requires_grad, grad, grad_fn, is_leaf, backward(),
// detach(), requires_grad_(), retain_grad(); and setting .grad / .requires_grad.
#pragma once

#include "engine/python/interpreter.h"

namespace kiln::torchapi {

// The attribute or bound method, or null when `name` is not part of the autograd surface.
py::Value autogradAttr(py::Interpreter& in, const py::Value& t, const std::string& name);
// Handles `t.name = v`; false when `name` is not an autograd attribute.
bool autogradSetAttr(py::Interpreter& in, const py::Value& t, const std::string& name, const py::Value& v);

}  // namespace kiln::torchapi

namespace kiln::torchapi {
// torch.no_grad / enable_grad / set_grad_enabled / is_grad_enabled and the random functions
// (manual_seed, rand, randn, randint, *_like, normal) on the torch module.
void installGradModeAndRandom(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch);
}  // namespace kiln::torchapi
