// Val: an argument or result of an ATen-level op. A tensor is either real (eager) or
// symbolic (a node of the graph being built, known only by its type).
#pragma once

#include "engine/ir/graph.h"
#include "engine/tensor/tensor.h"

#include <string>
#include <vector>

namespace kiln::ops {

struct Val {
  enum class Kind { None, Tensor, Sym, Int, Float, Bool, DType, List, String };
  Kind kind = Kind::None;
  tensor::Tensor t;     // Tensor
  ir::TensorType type;  // Sym (and Tensor, lazily via tensorType())
  int node = -1;        // Sym: graph node id (-1 when only the type is known)
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  ir::DType dtype = ir::DType::Float32;
  std::vector<Val> list;
  std::string s;

  static Val none() { return {}; }
  static Val of(tensor::Tensor t) {
    Val v;
    v.kind = Kind::Tensor;
    v.t = std::move(t);
    return v;
  }
  static Val sym(ir::TensorType ty, int node = -1) {
    Val v;
    v.kind = Kind::Sym;
    v.type = std::move(ty);
    v.node = node;
    return v;
  }
  static Val integer(int64_t x) {
    Val v;
    v.kind = Kind::Int;
    v.i = x;
    return v;
  }
  static Val real(double x) {
    Val v;
    v.kind = Kind::Float;
    v.f = x;
    return v;
  }
  static Val boolean(bool x) {
    Val v;
    v.kind = Kind::Bool;
    v.b = x;
    return v;
  }
  static Val dtypeVal(ir::DType d) {
    Val v;
    v.kind = Kind::DType;
    v.dtype = d;
    return v;
  }
  static Val listOf(std::vector<Val> xs) {
    Val v;
    v.kind = Kind::List;
    v.list = std::move(xs);
    return v;
  }
  static Val string(std::string x) {
    Val v;
    v.kind = Kind::String;
    v.s = std::move(x);
    return v;
  }

  bool isTensor() const { return kind == Kind::Tensor || kind == Kind::Sym; }
  bool isScalar() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool isNone() const { return kind == Kind::None; }
  double number() const { return kind == Kind::Float ? f : kind == Kind::Int ? double(i) : b ? 1.0 : 0.0; }
  // The type of a tensor Val (real or symbolic).
  ir::TensorType tensorType() const { return kind == Kind::Tensor ? t.type() : type; }
  std::vector<int64_t> ints() const;  // a list of ints (shapes, dims); throws when not one
};

}  // namespace kiln::ops
