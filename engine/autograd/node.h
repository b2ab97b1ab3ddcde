// The backward graph: every op that ran on a tensor requiring grad leaves a Node (its
// grad_fn); edges lead to the nodes that produced its inputs, or to the AccumulateGrad node
// of a leaf. Mirrors torch/csrc/autograd/function.h in shape, with Kiln's Val-based formulas.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::autograd {

using tensor::Tensor;

class Node;

// Where the gradient of one input goes: slot `inputNr` of `fn` (null fn: no gradient needed).
struct Edge {
  std::shared_ptr<Node> fn;
  int inputNr = 0;
  bool valid() const { return fn != nullptr; }
};

// Shape and dtype of a differentiable input, to validate and reshape incoming gradients.
struct InputMeta {
  tensor::Shape sizes;
  ir::DType dtype = ir::DType::Float32;
  tensor::Device device;  // where a materialized zero gradient must live
};

class Node {
 public:
  virtual ~Node() = default;
  // One gradient per edge in next(); undefined tensors mean "no gradient".
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& gradOutputs) = 0;
  // Frees saved tensors after a backward without retain_graph.
  virtual void release() {}
  virtual std::string name() const = 0;
  virtual size_t numOutputs() const { return 1; }

  const std::vector<Edge>& next() const { return next_; }
  const std::vector<InputMeta>& inputMeta() const { return inputMeta_; }
  uint64_t sequenceNr() const { return seq_; }
  // Metadata of the tensors this node produced (for retain_grad and zero-filling).
  std::vector<std::weak_ptr<tensor::AutogradMeta>> outputs;
  std::vector<InputMeta> outputMeta;

 protected:
  Node();
  std::vector<Edge> next_;
  std::vector<InputMeta> inputMeta_;

 private:
  uint64_t seq_;
};

// The sink of a leaf tensor: sums incoming gradients into its .grad.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<tensor::AutogradMeta> leaf, InputMeta meta);
  std::vector<Tensor> apply(std::vector<Tensor>&& gradOutputs) override;
  std::string name() const override { return "AccumulateGrad"; }
  const std::shared_ptr<tensor::AutogradMeta>& leaf() const { return leaf_; }

 private:
  std::shared_ptr<tensor::AutogradMeta> leaf_;
};

// The grad_fn of one op-table op: runs the op's derivative formula on the saved arguments.
class OpNode : public Node {
 public:
  OpNode(const ops::OpDef& op, const std::vector<ops::Val>& args, const ops::Val& result);
  std::vector<Tensor> apply(std::vector<Tensor>&& gradOutputs) override;
  void release() override;
  std::string name() const override;
  size_t numOutputs() const override { return outputMeta.size(); }

 private:
  const ops::OpDef& op_;
  std::vector<ops::Val> saved_;  // the arguments, detached (no autograd meta: no cycles)
  ops::Val savedResult_;
  std::vector<std::pair<size_t, int>> edgeArg_;  // per edge: (argument index, list index or -1)
  bool released_ = false;
  // Whether every input that needs a gradient is empty (and one does).
  bool onlyEmptyInputsNeedGrad() const;
};

// The edge a tensor's gradient flows into: its grad_fn, or its leaf accumulator (made once).
Edge gradientEdge(const Tensor& t);
// PyTorch's error for a backward through freed saved values (no retain_graph).
tensor::TorchError secondBackwardError();

// A formula's name for error messages and grad_fn repr: "MulBackward0".
std::string backwardName(const ops::OpDef& op);

}  // namespace kiln::autograd
