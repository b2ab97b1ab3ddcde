// A small builder for kernel IR in tests: keeps SSA ids and result dtypes in one place.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace kiln::kir::testing {

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name, std::string kind = "pointwise") {
    k_.name = std::move(name);
    k_.kind = std::move(kind);
  }

  int input(std::string name, ir::DType d, std::vector<int64_t> shape) {
    k_.buffers.push_back({std::move(name), d, std::move(shape), false});
    return static_cast<int>(k_.buffers.size()) - 1;
  }
  int output(std::string name, ir::DType d, std::vector<int64_t> shape) {
    k_.buffers.push_back({std::move(name), d, std::move(shape), true});
    return static_cast<int>(k_.buffers.size()) - 1;
  }
  int loop(std::string var, int64_t extent, bool reduction = false) {
    k_.loops.push_back({std::move(var), extent, reduction});
    return static_cast<int>(k_.loops.size()) - 1;
  }

  // index({{loop, coeff}, ...}, offset)
  static IndexExpr index(std::initializer_list<std::pair<int, int64_t>> terms, int64_t offset = 0) {
    IndexExpr e;
    for (auto [l, c] : terms) e.terms.push_back({l, c});
    e.offset = offset;
    return e;
  }

  int load(int buffer, IndexExpr idx) {
    Instr in = make(Op::Load, {}, k_.buffers[buffer].dtype);
    in.buffer = buffer;
    in.index = std::move(idx);
    return push(std::move(in));
  }
  int constant(double v, ir::DType d) {
    Instr in = make(Op::Const, {}, d);
    in.constant = v;
    return push(std::move(in));
  }
  int unary(Op op, int a) { return push(make(op, {a}, typeOf(a))); }
  int binary(Op op, int a, int b) {
    bool cmp = op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne;
    return push(make(op, {a, b}, cmp ? ir::DType::Bool : typeOf(a)));
  }
  int where(int c, int a, int b) { return push(make(Op::Where, {c, a, b}, typeOf(a))); }
  int cast(int a, ir::DType d) { return push(make(Op::Cast, {a}, d)); }
  int reduce(Op op, int a) { return push(make(op, {a}, typeOf(a))); }
  // Any instruction with an explicit result dtype (exercises the `: dtype` suffix).
  int typed(Op op, std::vector<int> operands, ir::DType d) { return push(make(op, std::move(operands), d)); }
  void store(int buffer, IndexExpr idx, int v) {
    Instr in = make(Op::Store, {v}, k_.buffers[buffer].dtype);
    in.id = -1;
    in.buffer = buffer;
    in.index = std::move(idx);
    k_.body.push_back(std::move(in));
  }

  Kernel& kernel() { return k_; }

 private:
  Instr make(Op op, std::vector<int> operands, ir::DType d) {
    Instr in;
    in.id = next_;
    in.op = op;
    in.operands = std::move(operands);
    in.dtype = d;
    return in;
  }
  int push(Instr in) {
    k_.body.push_back(std::move(in));
    return next_++;
  }
  ir::DType typeOf(int id) const {
    for (const auto& in : k_.body)
      if (in.id == id) return in.dtype;
    return ir::DType::Float32;
  }

  Kernel k_;
  int next_ = 0;
};

}  // namespace kiln::kir::testing
