// The torch-level functions scripts call (torch.cos, Tensor.relu, x * 2 ...), each written
// once against an ops::Dispatcher. The same definition runs eagerly, types captured nodes
// (MetaDispatcher) and lowers captured graphs to ATen (a graph-recording dispatcher): this is
// how Kiln mirrors AOTAutograd's retracing without a second copy of each op's semantics.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ops/op_table.h"
#include "engine/passes/torch_level.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::torchapi {

struct TArgs {
  std::vector<ops::Val> args;
  std::vector<std::pair<std::string, ops::Val>> kwargs;
  const ops::Val* kw(const std::string& name) const;
  // Positional argument i, or keyword `name`, or null.
  const ops::Val* get(size_t i, const std::string& name) const;
};

// Argument i (or keyword `name`); TypeError worded like PyTorch's when missing / not a tensor.
const ops::Val& needArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn);
const ops::Val& tensorArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn);
// Argument i (or keyword `name`), or None when absent.
const ops::Val& opt(const TArgs& a, size_t i, const std::string& name);
// An int argument (a bool counts), `dflt` when absent or None; TypeError worded like PyTorch's.
int64_t intArg(const TArgs& a, size_t i, const std::string& name, const std::string& fn, int64_t dflt);

struct TorchFn {
  std::string target;                              // as the captured graph names it: "torch.cos", "_operator.mul", "relu"
  ir::NodeKind kind = ir::NodeKind::CallFunction;  // CallMethod for Tensor methods
  std::function<ops::Val(ops::Dispatcher&, const TArgs&)> impl;
};

// Registration, one function per family file (fns_*.cpp), called in torch_functions.cpp.
void registerPointwiseFns(std::vector<TorchFn>& t);
void registerShapeFns(std::vector<TorchFn>& t);
void registerReductionFns(std::vector<TorchFn>& t);
void registerIndexFns(std::vector<TorchFn>& t);
void registerNnFunctionalFns(std::vector<TorchFn>& t);
void registerLinalgFns(std::vector<TorchFn>& t);
void registerMoreFns(std::vector<TorchFn>& t);  // sdpa, outer, equal/allclose, sort/topk, one_hot, new_*, index_* ...

void registerFunctionalizedFns(std::vector<TorchFn>& t);
void registerCreationFns(std::vector<TorchFn>& t);
// add_, copy_ ...: in-place methods captured graphs functionalize (fns_functionalize.cpp).
bool isInplaceMethod(const std::string& name);
// A captured node that updates its first argument in place: an in-place method or x op= y.
bool isInplaceNode(const ir::Node& n);
// _operator.iadd -> _operator.add (the operator x op= y updates x with).
std::string outOfPlaceOperator(const std::string& target);
// `m_` for every method `m` that has no in-place form of its own (registered last).
void addInplaceVariants(std::vector<TorchFn>& t);

// A torch.autograd.Function call captured as one node (engine/torch/autograd_function.cpp):
// autograd_function_apply(inputs, outputs, saved, fn_id=..., name=..., first_node=...). Its
// forward ops are the graph's own (recorded under no_grad before it); the node hands back
// `outputs` (lowering: the same values) and, run eagerly under grad mode, makes them results of
// one <Name>Backward node that calls the user's backward with a ctx rebuilt from `saved`.
using passes::kAutogradFunctionApply;  // engine/passes/torch_level.h
// The eager run of such a node: `inputs` one per Function argument (undefined: not a tensor;
// for an input the forward marked dirty, its value before the forward changed it).
std::vector<tensor::Tensor> applyCapturedFunction(const ir::Node& n, const std::vector<tensor::Tensor>& inputs,
                                                  const std::vector<tensor::Tensor>& outputs, const std::vector<tensor::Tensor>& saved);

// Looks up a torch-level function by captured target and kind.
const TorchFn* findTorchFn(const std::string& target, ir::NodeKind kind);
const std::vector<TorchFn>& torchFns();

}  // namespace kiln::torchapi
