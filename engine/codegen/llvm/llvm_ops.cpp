// Scalar semantics of kernel IR ops (see llvm_ops.h).
#include "engine/codegen/llvm/llvm_ops.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::codegen::llvmcg {

using ir::DType;
using kir::Op;
using llvm::Value;

namespace {
bool isFloat(DType d) { return d == DType::Float32 || d == DType::Float64; }
bool isInt(DType d) { return d == DType::Int64 || d == DType::Int32; }
}  // namespace

void OpEmitter::unsupported(Op op, DType d) const {
  throw std::runtime_error("LLVM CPU backend: op '" + std::string(kir::opName(op)) + "' is not supported on " +
                           std::string(ir::shortName(d)));
}

llvm::Type* OpEmitter::type(DType d) {
  switch (d) {
    case DType::Float32: return b_.getFloatTy();
    case DType::Float64: return b_.getDoubleTy();
    case DType::Int64: return b_.getInt64Ty();
    case DType::Int32: return b_.getInt32Ty();
    case DType::Bool: return b_.getInt1Ty();
    // 16-bit floats are storage types: kernels compute in f32 (engine/schedule/kernel_builder.cpp)
    // and only convert to and from them. bf16 is held as its bits, which keeps its rounding ours
    // (no compiler-rt call), f16 as LLVM's half (F16C's vcvtps2ph / vcvtph2ps where the host has it).
    case DType::BFloat16: return b_.getInt16Ty();
    case DType::Float16: return b_.getHalfTy();
    default: throw std::runtime_error("LLVM CPU backend: dtype " + std::string(ir::shortName(d)) + " is not supported");
  }
}

llvm::Type* OpEmitter::memType(DType d) { return d == DType::Bool ? b_.getInt8Ty() : type(d); }

Value* OpEmitter::fromMemory(Value* v, DType d) {
  // Any non-zero byte is true, like torch's bool reinterpretation of uint8.
  return d == DType::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
}

Value* OpEmitter::toMemory(Value* v, DType d) { return d == DType::Bool ? b_.CreateZExt(v, b_.getInt8Ty()) : v; }

Value* OpEmitter::constant(double v, DType d) {
  if (ir::isReducedFloat(d)) return convert(llvm::ConstantFP::get(b_.getFloatTy(), v), DType::Float32, d);
  llvm::Type* t = type(d);
  if (isFloat(d)) return llvm::ConstantFP::get(t, v);
  if (d == DType::Bool) return b_.getInt1(v != 0);
  // Out-of-range doubles saturate instead of invoking undefined behaviour in the cast.
  int64_t i;
  if (v != v) i = 0;
  else if (v >= 9.2233720368547758e18) i = std::numeric_limits<int64_t>::max();
  else if (v <= -9.2233720368547758e18) i = std::numeric_limits<int64_t>::min();
  else i = static_cast<int64_t>(v);
  return llvm::ConstantInt::get(t, static_cast<uint64_t>(i), /*isSigned=*/true);
}

// f32 -> bf16 bits, rounded to nearest even as c10::BFloat16 does (round_to_nearest_even):
// bits + 0x7fff + (bit 16 of bits), high half; any NaN becomes 0x7fc0, as there.
Value* OpEmitter::floatToBf16(Value* f) {
  Value* bits = b_.CreateBitCast(f, b_.getInt32Ty());
  Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), b_.getInt32(1));
  Value* rounded = b_.CreateAdd(bits, b_.CreateAdd(lsb, b_.getInt32(0x7fff)));
  Value* hi = b_.CreateTrunc(b_.CreateLShr(rounded, 16), b_.getInt16Ty());
  return b_.CreateSelect(b_.CreateFCmpUNO(f, f), b_.getInt16(0x7fc0), hi);
}

Value* OpEmitter::convert(Value* v, DType from, DType to) {
  if (from == to) return v;
  // Through f32, as c10::BFloat16 / c10::Half convert (a double is made a float first).
  if (from == DType::BFloat16) {
    Value* f = b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    return convert(f, DType::Float32, to);
  }
  if (from == DType::Float16) return convert(b_.CreateFPExt(v, b_.getFloatTy()), DType::Float32, to);
  if (to == DType::BFloat16) return floatToBf16(convert(v, from, DType::Float32));
  if (to == DType::Float16) return b_.CreateFPTrunc(convert(v, from, DType::Float32), b_.getHalfTy());
  llvm::Type* t = type(to);
  type(from);  // rejects unsupported source types with a clear message
  if (to == DType::Bool) {
    if (isFloat(from)) return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == DType::Bool) return isFloat(to) ? b_.CreateUIToFP(v, t) : b_.CreateZExt(v, t);
  if (isFloat(from) && isFloat(to)) return b_.CreateFPCast(v, t);
  if (isFloat(from)) return b_.CreateFPToSI(v, t);  // truncation toward zero, as in torch
  if (isFloat(to)) return b_.CreateSIToFP(v, t);
  return b_.CreateSExtOrTrunc(v, t);
}

Value* OpEmitter::libmCall(const char* f32Name, const char* f64Name, Value* x, DType d) {
  // Declared memory(none): errno is never read, and it lets the loop vectorizer replace the
  // call with a libmvec variant.
  llvm::Type* t = type(d);
  auto callee = m_.getOrInsertFunction(d == DType::Float32 ? f32Name : f64Name, llvm::FunctionType::get(t, {t}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  llvm::CallInst* call = b_.CreateCall(callee, {x});
  call->setDoesNotThrow();
  call->setDoesNotAccessMemory();
  return call;
}

Value* OpEmitter::unary(Op op, Value* x, DType d) {
  if (ir::isReducedFloat(d)) unsupported(op, d);  // computed in f32
  llvm::Type* t = type(d);
  if (isFloat(d)) {
    auto one = llvm::ConstantFP::get(t, 1.0);
    switch (op) {
      case Op::Neg: return b_.CreateFNeg(x);
      case Op::Exp: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
      case Op::Log: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
      case Op::Sin: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
      case Op::Cos: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x);
      case Op::Tanh: return libmCall("tanhf", "tanh", x, d);
      case Op::Erf: return libmCall("erff", "erf", x, d);
      case Op::Sqrt: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      case Op::Rsqrt: return b_.CreateFDiv(one, b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
      case Op::Abs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      case Op::Sigmoid: {
        Value* e = b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b_.CreateFNeg(x));
        return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
      }
      case Op::Recip: return b_.CreateFDiv(one, x);
      case Op::Floor: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
      case Op::Ceil: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
      case Op::Not: return b_.CreateUIToFP(b_.CreateFCmpOEQ(x, llvm::ConstantFP::get(t, 0.0)), t);
      default: break;
    }
  } else if (isInt(d)) {
    switch (op) {
      case Op::Neg: return b_.CreateNeg(x);
      case Op::Abs: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse());
      case Op::Floor:
      case Op::Ceil: return x;
      case Op::Not: return b_.CreateNot(x);  // bitwise, as torch.bitwise_not
      default: break;
    }
  } else {  // bool
    switch (op) {
      case Op::Not: return b_.CreateNot(x);
      case Op::Abs:
      case Op::Floor:
      case Op::Ceil: return x;
      default: break;
    }
  }
  unsupported(op, d);
}

Value* OpEmitter::floorDiv(Value* a, Value* b) {
  // Python/torch floor division. x86 idiv traps on b == 0 and on INT_MIN / -1, so those
  // divisors are replaced: b == 0 yields 0 and b == -1 yields -a (wrapping).
  llvm::Type* t = a->getType();
  auto zero = llvm::ConstantInt::get(t, 0), one = llvm::ConstantInt::get(t, 1);
  auto minusOne = llvm::ConstantInt::getSigned(t, -1);
  Value* isZero = b_.CreateICmpEQ(b, zero);
  Value* isMinusOne = b_.CreateICmpEQ(b, minusOne);
  Value* safe = b_.CreateSelect(b_.CreateOr(isZero, isMinusOne), one, b);
  Value* q = b_.CreateSDiv(a, safe);
  Value* r = b_.CreateSRem(a, safe);
  // Round toward -inf when the remainder is non-zero and its sign differs from the divisor's.
  Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, safe), zero));
  q = b_.CreateSub(q, b_.CreateZExt(adjust, t));
  q = b_.CreateSelect(isMinusOne, b_.CreateNeg(a), q);
  return b_.CreateSelect(isZero, zero, q);
}

Value* OpEmitter::floorMod(Value* a, Value* b, DType d) {
  // torch.remainder: the result has the divisor's sign.
  if (isFloat(d)) {
    auto zero = llvm::ConstantFP::get(a->getType(), 0.0);
    Value* r = b_.CreateFRem(a, b);
    Value* signsDiffer = b_.CreateXor(b_.CreateFCmpOLT(r, zero), b_.CreateFCmpOLT(b, zero));
    Value* adjust = b_.CreateAnd(b_.CreateFCmpUNE(r, zero), signsDiffer);
    return b_.CreateSelect(adjust, b_.CreateFAdd(r, b), r);
  }
  llvm::Type* t = a->getType();
  auto zero = llvm::ConstantInt::get(t, 0), one = llvm::ConstantInt::get(t, 1);
  // x % 0 yields 0 and x % -1 is 0 anyway; both avoid idiv traps.
  Value* bad = b_.CreateOr(b_.CreateICmpEQ(b, zero), b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(t, -1)));
  Value* safe = b_.CreateSelect(bad, one, b);
  Value* r = b_.CreateSRem(a, safe);
  Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, safe), zero));
  return b_.CreateSelect(adjust, b_.CreateAdd(r, safe), r);
}

llvm::Function* OpEmitter::intPowFunction(llvm::Type* t) {
  // Exponentiation by squaring with wrap-around, as torch.pow on integer tensors. Negative
  // exponents give 1 / a^-e truncated: 1 for a == 1, +-1 for a == -1, else 0.
  std::string name = "kiln.ipow.i" + std::to_string(t->getIntegerBitWidth());
  if (llvm::Function* f = m_.getFunction(name)) return f;
  auto* f = llvm::Function::Create(llvm::FunctionType::get(t, {t, t}, false), llvm::GlobalValue::InternalLinkage, name, m_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(m_.getContext());
  auto& ctx = m_.getContext();
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", f);
  auto* negative = llvm::BasicBlock::Create(ctx, "negative", f);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", f);
  auto* done = llvm::BasicBlock::Create(ctx, "done", f);
  Value* base = f->getArg(0);
  Value* exp = f->getArg(1);
  auto c = [&](int64_t v) { return llvm::ConstantInt::getSigned(t, v); };

  b.SetInsertPoint(entry);
  b.CreateCondBr(b.CreateICmpSLT(exp, c(0)), negative, loop);

  b.SetInsertPoint(negative);
  Value* odd = b.CreateICmpNE(b.CreateAnd(exp, c(1)), c(0));
  Value* minusOne = b.CreateSelect(odd, c(-1), c(1));
  Value* r = b.CreateSelect(b.CreateICmpEQ(base, c(1)), c(1), b.CreateSelect(b.CreateICmpEQ(base, c(-1)), minusOne, c(0)));
  b.CreateRet(r);

  b.SetInsertPoint(loop);
  auto* acc = b.CreatePHI(t, 2, "acc");
  auto* sq = b.CreatePHI(t, 2, "sq");
  auto* e = b.CreatePHI(t, 2, "e");
  Value* bit = b.CreateICmpNE(b.CreateAnd(e, c(1)), c(0));
  Value* acc2 = b.CreateSelect(bit, b.CreateMul(acc, sq), acc);
  Value* sq2 = b.CreateMul(sq, sq);
  Value* e2 = b.CreateLShr(e, c(1));
  acc->addIncoming(c(1), entry);
  sq->addIncoming(base, entry);
  e->addIncoming(exp, entry);
  acc->addIncoming(acc2, loop);
  sq->addIncoming(sq2, loop);
  e->addIncoming(e2, loop);
  b.CreateCondBr(b.CreateICmpEQ(e2, c(0)), done, loop);

  b.SetInsertPoint(done);
  b.CreateRet(acc2);
  return f;
}

Value* OpEmitter::intPow(Value* a, Value* b) { return b_.CreateCall(intPowFunction(a->getType()), {a, b}); }

Value* OpEmitter::binary(Op op, Value* a, Value* b, DType d) {
  if (ir::isReducedFloat(d)) unsupported(op, d);  // computed in f32
  if (isFloat(d)) {
    llvm::Type* t = type(d);
    switch (op) {
      case Op::Add: return b_.CreateFAdd(a, b);
      case Op::Sub: return b_.CreateFSub(a, b);
      case Op::Mul: return b_.CreateFMul(a, b);
      case Op::Div: return b_.CreateFDiv(a, b);
      // llvm.maximum/minimum propagate NaN, like torch.maximum/minimum.
      case Op::Max: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, a, b);
      case Op::Min: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, a, b);
      case Op::Pow: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a, b);
      case Op::Mod: return floorMod(a, b, d);
      case Op::And:
      case Op::Or: {  // logical, as torch.logical_and/or, with the result in d
        auto zero = llvm::ConstantFP::get(t, 0.0);
        Value* x = b_.CreateFCmpUNE(a, zero);
        Value* y = b_.CreateFCmpUNE(b, zero);
        return b_.CreateUIToFP(op == Op::And ? b_.CreateAnd(x, y) : b_.CreateOr(x, y), t);
      }
      default: break;
    }
  } else if (isInt(d)) {
    switch (op) {
      case Op::Add: return b_.CreateAdd(a, b);
      case Op::Sub: return b_.CreateSub(a, b);
      case Op::Mul: return b_.CreateMul(a, b);
      case Op::Div: return floorDiv(a, b);
      case Op::Max: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
      case Op::Min: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b);
      case Op::Pow: return intPow(a, b);
      case Op::Mod: return floorMod(a, b, d);
      case Op::And: return b_.CreateAnd(a, b);
      case Op::Or: return b_.CreateOr(a, b);
      default: break;
    }
  } else {  // bool: max is or, min is and, as in torch
    switch (op) {
      case Op::Add:
      case Op::Max:
      case Op::Or: return b_.CreateOr(a, b);
      case Op::Mul:
      case Op::Min:
      case Op::And: return b_.CreateAnd(a, b);
      default: break;
    }
  }
  unsupported(op, d);
}

Value* OpEmitter::compare(Op op, Value* a, Value* b, DType d) {
  if (ir::isReducedFloat(d)) unsupported(op, d);  // computed in f32
  using P = llvm::CmpInst::Predicate;
  type(d);
  P p;
  if (isFloat(d)) {
    // Ordered except Ne: every comparison with NaN is false, NaN != x is true.
    switch (op) {
      case Op::Lt: p = P::FCMP_OLT; break;
      case Op::Le: p = P::FCMP_OLE; break;
      case Op::Gt: p = P::FCMP_OGT; break;
      case Op::Ge: p = P::FCMP_OGE; break;
      case Op::Eq: p = P::FCMP_OEQ; break;
      case Op::Ne: p = P::FCMP_UNE; break;
      default: unsupported(op, d);
    }
    return b_.CreateFCmp(p, a, b);
  }
  // i1 true is -1 when signed, so bools compare unsigned.
  bool u = d == DType::Bool;
  switch (op) {
    case Op::Lt: p = u ? P::ICMP_ULT : P::ICMP_SLT; break;
    case Op::Le: p = u ? P::ICMP_ULE : P::ICMP_SLE; break;
    case Op::Gt: p = u ? P::ICMP_UGT : P::ICMP_SGT; break;
    case Op::Ge: p = u ? P::ICMP_UGE : P::ICMP_SGE; break;
    case Op::Eq: p = P::ICMP_EQ; break;
    case Op::Ne: p = P::ICMP_NE; break;
    default: unsupported(op, d);
  }
  return b_.CreateICmp(p, a, b);
}

Value* OpEmitter::reduceIdentity(Op op, DType d) {
  if (ir::isReducedFloat(d)) unsupported(op, d);  // computed in f32
  llvm::Type* t = type(d);
  if (isFloat(d)) {
    if (op == Op::ReduceSum) return llvm::ConstantFP::get(t, 0.0);
    return llvm::ConstantFP::getInfinity(t, /*Negative=*/op == Op::ReduceMax);
  }
  if (d == DType::Bool) {
    if (op == Op::ReduceSum) unsupported(op, d);  // torch sums bools as i64: cast first
    return b_.getInt1(op == Op::ReduceMin);
  }
  unsigned bits = t->getIntegerBitWidth();
  if (op == Op::ReduceSum) return llvm::ConstantInt::get(t, 0);
  return llvm::ConstantInt::get(b_.getContext(),
                                op == Op::ReduceMax ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getSignedMaxValue(bits));
}

Value* OpEmitter::reduceStep(Op op, Value* acc, Value* v, DType d) {
  if (ir::isReducedFloat(d)) unsupported(op, d);  // computed in f32
  if (op == Op::ReduceSum && isFloat(d)) {
    // reassoc lets the loop vectorizer keep partial sums per lane (as Inductor's vectorized
    // reductions do); the sum stays in the element type.
    auto* add = llvm::cast<llvm::Instruction>(b_.CreateFAdd(acc, v));
    add->setHasAllowReassoc(true);
    return add;
  }
  switch (op) {
    case Op::ReduceSum: return binary(Op::Add, acc, v, d);
    case Op::ReduceMax: return binary(Op::Max, acc, v, d);
    case Op::ReduceMin: return binary(Op::Min, acc, v, d);
    default: unsupported(op, d);
  }
}

}  // namespace kiln::codegen::llvmcg
