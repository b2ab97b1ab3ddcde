// Scalar semantics of kernel IR ops in LLVM IR: types, casts, pointwise math, comparisons and
// reduction steps. The loop structure around them is built by llvm_emitter.cpp.
//
// Registers hold f32 -> float, f64 -> double, i64 -> i64, i32 -> i32, bool -> i1, f16 -> half and
// bf16 -> i16 (its bits; both only converted, never computed in); memory holds bool as i8 (0 or
// 1). Semantics follow PyTorch (see engine/codegen/README.md).
#pragma once

#include "engine/kir/kernel_ir.h"

#include <llvm/IR/IRBuilder.h>

namespace kiln::codegen::llvmcg {

class OpEmitter {
 public:
  OpEmitter(llvm::IRBuilder<>& b, llvm::Module& m) : b_(b), m_(m) {}

  // The register type of a dtype; throws std::runtime_error for dtypes the backend lacks.
  llvm::Type* type(ir::DType d);
  // The in-memory element type (bool is i8).
  llvm::Type* memType(ir::DType d);
  llvm::Value* fromMemory(llvm::Value* v, ir::DType d);
  llvm::Value* toMemory(llvm::Value* v, ir::DType d);

  llvm::Value* constant(double v, ir::DType d);
  // torch casting: float -> int truncates toward zero, x -> bool is x != 0, bool -> x is 0/1.
  llvm::Value* convert(llvm::Value* v, ir::DType from, ir::DType to);

  llvm::Value* unary(kir::Op op, llvm::Value* x, ir::DType d);
  llvm::Value* binary(kir::Op op, llvm::Value* a, llvm::Value* b, ir::DType d);
  // Lt..Ne on two values of type d; the result is an i1.
  llvm::Value* compare(kir::Op op, llvm::Value* a, llvm::Value* b, ir::DType d);

  llvm::Value* reduceIdentity(kir::Op op, ir::DType d);
  llvm::Value* reduceStep(kir::Op op, llvm::Value* acc, llvm::Value* v, ir::DType d);

 private:
  [[noreturn]] void unsupported(kir::Op op, ir::DType d) const;
  llvm::Value* floatToBf16(llvm::Value* f);
  llvm::Value* libmCall(const char* f32Name, const char* f64Name, llvm::Value* x, ir::DType d);
  llvm::Value* floorDiv(llvm::Value* a, llvm::Value* b);
  llvm::Value* floorMod(llvm::Value* a, llvm::Value* b, ir::DType d);
  llvm::Value* intPow(llvm::Value* a, llvm::Value* b);
  llvm::Function* intPowFunction(llvm::Type* t);

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
};

}  // namespace kiln::codegen::llvmcg
