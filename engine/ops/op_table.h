// THE op table: one entry per ATen-level op. Everything the compiler knows about an op lives
// in its entry: shape/dtype inference (meta), the eager reference kernel, an optional
// decomposition into other ops, and for pointwise ops the scalar body used by code generation.
// Passes, the scheduler and the runtime look ops up here; no op knowledge lives elsewhere.
#pragma once

#include "engine/kir/kernel_ir.h"
#include "engine/ops/val.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ops {

class Dispatcher;

enum class OpKind { Pointwise, Reduction, View, Creation, Extern };

// Emits kernel IR for one pointwise op given the SSA ids of its tensor operands (in argument
// order) and the op's full argument list (scalars come from there). Returns the result id.
struct PointwiseEmitter {
  virtual ~PointwiseEmitter() = default;
  virtual int emit(kir::Op op, std::vector<int> operands, ir::DType dtype) = 0;
  virtual int constant(double v, ir::DType dtype) = 0;
};

// What a derivative formula sees (OpDef::backward): the op's arguments and result as the
// forward saved them, the gradient of the result, and which arguments need a gradient.
struct GradContext {
  const std::vector<Val>& inputs;
  const Val& output;            // a Val list for ops with several results
  const Val& gradOutput;        // likewise (None where no gradient flows into a result)
  std::vector<bool> needsGrad;  // per argument (a list argument counts once)
  bool needs(size_t i) const { return i < needsGrad.size() && needsGrad[i]; }
};

// How a reduction op is generated: which kernel IR reduction over which dims (normalized,
// ascending), whether the result keeps them, and whether it is a mean (sum scaled by 1/n) or a
// variance (two passes: the mean, then the sum of squared deviations / (n - correction);
// `sqrt` makes it a standard deviation).
struct ReductionSpec {
  kir::Op op = kir::Op::ReduceSum;
  std::vector<int64_t> dims;
  bool keepdim = false;
  bool mean = false;
  bool variance = false;
  bool sqrt = false;
  double correction = 1.0;
};

struct OpDef {
  std::string name;  // "aten.mul.Tensor"
  OpKind kind = OpKind::Extern;
  std::function<ir::TensorType(const std::vector<Val>&)> meta;
  std::function<tensor::Tensor(const std::vector<Val>&)> eager;
  // Rewrites the op into other (core) ops; empty for core ops.
  std::function<Val(Dispatcher&, const std::vector<Val>&)> decompose;
  // Pointwise ops only: the scalar body.
  std::function<int(PointwiseEmitter&, const std::vector<int>& operands, const std::vector<Val>& args, ir::DType resultType)> pointwise;
  // Reduction ops code generation can do (sum, mean, amax ...): the reduction to emit.
  std::function<ReductionSpec(const std::vector<Val>&)> reduction;
  // Ops with several results (max.dim, var_mean, native_layer_norm): every result's type and
  // value; the dispatchers return them as a Val list. `meta` then gives the first result.
  std::function<std::vector<ir::TensorType>(const std::vector<Val>&)> metaMulti;
  std::function<std::vector<tensor::Tensor>(const std::vector<Val>&)> eagerMulti;
  // The derivative (engine/autograd/derivatives_*.cpp attach them): one gradient per argument
  // (None when it has none; a Val list for a list argument), written with ATen ops against a
  // Dispatcher so eager backward runs it and a graph-recording dispatcher can trace it.
  std::function<std::vector<Val>(Dispatcher&, const GradContext&)> backward;
  std::string backwardName;  // grad_fn name as PyTorch prints it: "MulBackward0"
};

const OpDef* findOp(std::string_view name);
const OpDef& op(std::string_view name);  // throws std::logic_error for an unknown op
std::vector<const OpDef*> allOps();

// Runs ops: eagerly on real tensors, or by recording nodes into a graph (capture, lowering).
class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  virtual Val call(const OpDef& op, const std::vector<Val>& args) = 0;
  // By name: where torch.autocast casts the arguments of the ops it covers (ops/autocast.h).
  Val call(std::string_view name, const std::vector<Val>& args);
  // True when multi-output ops (OpDef::eagerMulti/metaMulti) come back as a Val list. Graph-
  // recording dispatchers have no multi-output nodes yet: torch-level functions then use
  // single-output decompositions (layer_norm as var + mean + ..., max(dim) as amax + argmax).
  virtual bool multiOutput() const { return false; }
  // An op's decomposition that updates an argument in place (training batch_norm's running
  // stats): `target` takes `value`. Eager dispatchers copy it in; graph-recording ones record it
  // for functionalization (the graph returns the new value, the caller copies it back).
  virtual void mutateInput(const Val& target, const Val& value);
};

// Runs every op's eager kernel.
class EagerDispatcher : public Dispatcher {
 public:
  using Dispatcher::call;
  Val call(const OpDef& op, const std::vector<Val>& args) override;
  bool multiOutput() const override { return true; }
};

// Only infers result types (fake tensors): used to type captured nodes.
class MetaDispatcher : public Dispatcher {
 public:
  using Dispatcher::call;
  Val call(const OpDef& op, const std::vector<Val>& args) override;
  bool multiOutput() const override { return true; }
};

// PyTorch's type promotion for a binary op (tensor/scalar categories, dim-0 tensors).
ir::DType promoteTypes(const Val& a, const Val& b);

// Registration, one function per family (explicit: no static self-registration).
void registerPointwiseOps(std::vector<OpDef>& table);
void registerReductionOps(std::vector<OpDef>& table);
void registerViewOps(std::vector<OpDef>& table);
void registerCreationOps(std::vector<OpDef>& table);
void registerWhereOp(std::vector<OpDef>& table);
void registerIndexOps(std::vector<OpDef>& table);
void registerNormOps(std::vector<OpDef>& table);
void registerLinalgOps(std::vector<OpDef>& table);  // mm/addmm/bmm, embedding, convolution, pooling, padding
void registerSortOps(std::vector<OpDef>& table);    // argsort, topk indices, one_hot
void registerRandomOps(std::vector<OpDef>& table);  // random.cpp
// Attaches derivative formulas (engine/autograd/derivatives_*.cpp); runs after every family.
void registerDerivatives(std::vector<OpDef>& table);
// The eager dispatcher calls it after every kernel: results become new tensors and, when grad
// mode is on and an argument requires grad, get a grad_fn. engine/autograd/record.cpp defines it
// (autograd sits above ops: ops declares what it calls and never includes autograd).
void recordEager(const OpDef& op, const std::vector<Val>& args, Val& result);

}  // namespace kiln::ops
