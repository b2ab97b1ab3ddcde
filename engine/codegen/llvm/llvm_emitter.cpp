// Kernel IR -> LLVM IR: the loop nest, the placement of instructions around the reduction nest,
// and the CpuKernelFn entry point. Per-op semantics live in llvm_ops.cpp.
//
// For a kernel with loops i0, i1 (parallel) and r0 (reduction) the emitted code is
//
//   void kiln.name(void* const* buffers, int64_t begin, int64_t end) {   // entry point (ABI)
//     kiln.name.body(buffers[0], buffers[1], ..., begin, end);            // always inlined
//   }
//   void kiln.name.body(T* noalias buf0, ..., int64_t begin, int64_t end) {
//     for (i0 = max(begin, 0); i0 < min(end, N0); ++i0)
//       for (i1 = 0; i1 < N1; ++i1) {
//         <gap 0: instructions independent of r0>
//         acc = identity;
//         for (r0 = 0; r0 < R0; ++r0) { <nest 0: reads indexed by r0>; acc = step(acc, x); }
//         <gap 1: instructions consuming the reduce results of nest 0>
//         for (r0 = 0; r0 < R0; ++r0) { <nest 1> }   // chained reductions (kir::place)
//         ...
//       }
//   }
//
// The noalias parameters of the inlined body become alias scopes, which lets the loop
// vectorizer skip runtime overlap checks; simple counted loops with i64 induction variables
// keep SCEV happy.
#include "engine/codegen/llvm/llvm_emitter.h"

#include "engine/codegen/llvm/llvm_ops.h"
#include "engine/ir/sym.h"
#include "engine/tensor/stop.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace kiln::codegen::llvmcg {

namespace {

using ir::DType;
using kir::Instr;
using kir::Op;
using llvm::Value;

bool isReduce(Op op) { return op == Op::ReduceSum || op == Op::ReduceMax || op == Op::ReduceMin; }
bool isCompare(Op op) { return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne; }

// torch's promotion among the supported types: bool < i32 < i64 < f32 < f64.
DType promote(DType a, DType b) {
  auto rank = [](DType d) {
    switch (d) {
      case DType::Bool: return 0;
      case DType::Int32: return 1;
      case DType::Int64: return 2;
      case DType::Float32: return 3;
      default: return 4;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

class KernelEmitter {
 public:
  KernelEmitter(const kir::Kernel& k, llvm::Module& m, llvm::DIBuilder* di, llvm::DICompileUnit* cu)
      : k_(k), m_(m), b_(m.getContext()), ops_(b_, m), di_(di), cu_(cu) {}

  void emit() {
    classify();
    emitBody();
    emitEntry();
  }

 private:
  void classify() {
    placement_ = kir::place(k_);
    for (const auto& l : k_.loops) parallelLoops_ += l.reduction ? 0 : 1;
  }

  void emitBody() {
    auto& ctx = m_.getContext();
    std::vector<llvm::Type*> params(k_.buffers.size(), b_.getPtrTy());
    if (symbolic_) params.push_back(b_.getPtrTy());  // the size symbols' values (dynamic shapes)
    params.push_back(b_.getInt64Ty());
    params.push_back(b_.getInt64Ty());
    body_ = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), params, false), llvm::GlobalValue::InternalLinkage,
                                   kernelSymbol(k_) + ".body", m_);
    body_->addFnAttr(llvm::Attribute::AlwaysInline);
    body_->addFnAttr(llvm::Attribute::NoUnwind);
    bodyScope_ = subprogram(body_);
    locate(0, bodyScope_);
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      llvm::Argument* a = body_->getArg(i);
      a->setName(k_.buffers[i].name);
      a->addAttr(llvm::Attribute::NoAlias);
      a->addAttr(llvm::Attribute::NoCapture);
      if (!k_.buffers[i].output) a->addAttr(llvm::Attribute::ReadOnly);
      buffers_.push_back(a);
    }
    const unsigned first = static_cast<unsigned>(k_.buffers.size()) + (symbolic_ ? 1 : 0);
    Value* begin = body_->getArg(first);
    Value* end = body_->getArg(first + 1);
    begin->setName("begin");
    end->setName("end");

    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", body_));
    for (const Instr& in : k_.body)
      if (isReduce(in.op)) acc_[in.id] = b_.CreateAlloca(ops_.type(in.dtype), nullptr, "acc");
    if (symbolic_) loadSizes(body_->getArg(static_cast<unsigned>(k_.buffers.size())));
    ivs_.assign(k_.loops.size(), nullptr);
    emitParallel(0, begin, end);
    b_.CreateRetVoid();
  }

  // The CpuKernelFn entry point: unpack the buffer array and call the noalias body.
  void emitEntry() {
    auto* fnTy = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    auto* f = llvm::Function::Create(fnTy, llvm::GlobalValue::ExternalLinkage, kernelSymbol(k_), m_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->getArg(0)->setName("buffers");
    f->getArg(1)->setName("begin");
    f->getArg(2)->setName("end");
    b_.SetInsertPoint(llvm::BasicBlock::Create(m_.getContext(), "entry", f));
    locate(0, subprogram(f));  // the call of the inlined body needs a location
    std::vector<Value*> args;
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), f->getArg(0), i);
      args.push_back(b_.CreateAlignedLoad(b_.getPtrTy(), slot, llvm::Align(8), k_.buffers[i].name + ".ptr"));
    }
    if (symbolic_) {  // the runtime passes the size array after the buffers
      Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), f->getArg(0), k_.buffers.size());
      args.push_back(b_.CreateAlignedLoad(b_.getPtrTy(), slot, llvm::Align(8), "sizes.ptr"));
    }
    args.push_back(f->getArg(1));
    args.push_back(f->getArg(2));
    b_.CreateCall(body_, args);
    b_.CreateRetVoid();
  }

  // for (iv = lo; iv < hi; ++iv) body(iv); leaves the builder in the exit block. Loops are
  // marked llvm.loop.unroll.disable: fully unrolling small constant loops (a 2x4x8x8 transpose
  // copy, a 2x10 GRU gate) gave straight-line blocks that the SLP vectorizer spent 30-40 ms per
  // kernel on, for no measurable gain at run time; the loop vectorizer still interleaves
  // (docs/perf.md: seed_mini_transformer codegen 330 -> 160 ms per compile).
  template <class Body>
  void emitLoop(Value* lo, Value* hi, const std::string& name, Body body) {
    auto& ctx = m_.getContext();
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx, name + ".header", body_);
    auto* inside = llvm::BasicBlock::Create(ctx, name + ".body", body_);
    auto* exit = llvm::BasicBlock::Create(ctx, name + ".exit", body_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, name);
    iv->addIncoming(lo, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(iv, hi), inside, exit);
    b_.SetInsertPoint(inside);
    body(iv);
    Value* next = b_.CreateAdd(iv, b_.getInt64(1), name + ".next", /*HasNUW=*/true,
                               /*HasNSW=*/true);
    iv->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateBr(header);
    {
      auto& ctx = m_.getContext();
      llvm::Metadata* disable = llvm::MDNode::get(ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"));
      llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, {nullptr, disable});
      id->replaceOperandWith(0, id);
      latch->setMetadata(llvm::LLVMContext::MD_loop, id);
    }
    b_.SetInsertPoint(exit);
  }

  void emitParallel(size_t level, Value* begin, Value* end) {
    if (level == parallelLoops_) {
      emitPoint();
      return;
    }
    const kir::Loop& l = k_.loops[level];
    Value* lo = b_.getInt64(0);
    Value* hi = size(l.extent, l.extentSym);
    if (level == 0) {  // the runtime's [begin, end), clamped to the loop
      lo = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, begin, lo);
      hi = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end, hi);
    }
    emitLoop(lo, hi, l.var, [&](Value* iv) {
      ivs_[level] = iv;
      emitParallel(level + 1, begin, end);
    });
  }

  void emitPoint() {
    for (int q = 0; q <= placement_.nests; ++q) {
      emitGap(q);
      if (q == placement_.nests) break;
      for (int i : placement_.nestBody[q])
        if (isReduce(k_.body[i].op)) b_.CreateStore(ops_.reduceIdentity(k_.body[i].op, k_.body[i].dtype), acc_.at(k_.body[i].id));
      emitReduction(parallelLoops_, q);
      for (int i : placement_.nestBody[q])
        if (isReduce(k_.body[i].op)) define(k_.body[i], b_.CreateLoad(ops_.type(k_.body[i].dtype), acc_.at(k_.body[i].id)));
    }
  }

  void emitReduction(size_t level, int nest) {
    if (level == k_.loops.size()) {
      for (int i : placement_.nestBody[nest]) emitInstr(k_.body[i]);
      return;
    }
    const kir::Loop& l = k_.loops[level];
    Value* extent = size(l.extent, l.extentSym);
    auto inner = [&](Value* iv) {
      ivs_[level] = iv;
      emitReduction(level + 1, nest);
    };
    if (level != parallelLoops_ || !checksStop()) {
      emitLoop(b_.getInt64(0), extent, l.var, inner);
      return;
    }
    // The outermost reduction loop of a long nest runs in chunks of about kStopChunk elements,
    // with a stop check before each (engine/tensor/stop.h): a Ctrl-C or a time limit ends the
    // kernel early (the runtime then throws; what it wrote is never used). The chunk's own loop
    // is the plain counted loop the vectorizer sees without the check.
    const int64_t chunk = std::max<int64_t>(1, tensor::kStopChunk / innerWork(level + 1));
    Value* chunks = b_.CreateSDiv(b_.CreateAdd(extent, b_.getInt64(chunk - 1)), b_.getInt64(chunk), l.var + ".chunks");
    emitLoop(b_.getInt64(0), chunks, l.var + ".chunk", [&](Value* c) {
      emitStopCheck();
      Value* lo = b_.CreateMul(c, b_.getInt64(chunk), "", true, true);
      Value* hi = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateAdd(lo, b_.getInt64(chunk), "", true, true), extent);
      emitLoop(lo, hi, l.var, inner);
    });
  }

  // Elements (hint sizes) one iteration of loop `level - 1` runs: the product of loops from
  // `level` on.
  int64_t innerWork(size_t level) const {
    int64_t w = 1;
    for (size_t i = level; i < k_.loops.size(); ++i) w = std::min<int64_t>(w * std::max<int64_t>(1, k_.loops[i].extent), int64_t{1} << 40);
    return w;
  }

  // Whether the reduction nest checks for a stop request: always where the kernel's outer loop is
  // a reduction (the runtime runs it as one call, so nothing else could stop it), and where a
  // parallel point's reduction is long (a sliced call of the thread pool can then be one point).
  bool checksStop() const {
    if (parallelLoops_ == 0) return true;
    for (size_t i = parallelLoops_; i < k_.loops.size(); ++i)
      if (!k_.loops[i].extentSym.empty()) return true;
    return innerWork(parallelLoops_) >= 16 * tensor::kStopChunk;
  }

  // if (kiln_stop_flag) return;  (a relaxed load of tensor::stopFlag, which the JIT defines)
  void emitStopCheck() {
    auto& ctx = m_.getContext();
    llvm::GlobalVariable* flag = m_.getGlobalVariable(kStopFlagSymbol);
    if (!flag) flag = new llvm::GlobalVariable(m_, b_.getInt8Ty(), false, llvm::GlobalValue::ExternalLinkage, nullptr, kStopFlagSymbol);
    llvm::LoadInst* v = b_.CreateAlignedLoad(b_.getInt8Ty(), flag, llvm::Align(1), "stop");
    v->setAtomic(llvm::AtomicOrdering::Monotonic);
    if (!stopped_) {
      llvm::IRBuilderBase::InsertPointGuard keep(b_);
      stopped_ = llvm::BasicBlock::Create(ctx, "stopped", body_);
      b_.SetInsertPoint(stopped_);
      b_.CreateRetVoid();
    }
    auto* go = llvm::BasicBlock::Create(ctx, "go", body_);
    b_.CreateCondBr(b_.CreateICmpNE(v, b_.getInt8(0)), stopped_, go);
    b_.SetInsertPoint(go);
  }

  // The outer instructions of gap q, once per point of the parallel loops.
  void emitGap(int q) {
    for (size_t i = 0; i < k_.body.size(); ++i)
      if (!placement_.inner[i] && placement_.stage[i] == q) emitInstr(k_.body[i]);
  }

  void define(const Instr& in, Value* v) {
    values_[in.id] = v;
    types_[in.id] = in.dtype;
  }

  // The operand converted to `to` (a no-op when the kernel is already consistently typed).
  Value* operand(const Instr& in, size_t i, DType to) {
    int id = in.operands[i];
    return ops_.convert(values_.at(id), types_.at(id), to);
  }

  Value* address(const Instr& in) {
    Value* idx = b_.getInt64(in.index.offset);
    for (const auto& t : in.index.terms) {
      if (t.coeff == 0 && t.coeffSym.empty()) continue;  // broadcast dimension
      Value* term = ivs_[t.loop];
      if (!t.coeffSym.empty()) term = b_.CreateMul(term, size(t.coeff, t.coeffSym), "", false, true);
      else if (t.coeff != 1) term = b_.CreateMul(term, b_.getInt64(t.coeff), "", false, true);
      idx = b_.CreateAdd(idx, term, "", false, /*HasNSW=*/true);
    }
    const kir::Buffer& buf = k_.buffers[in.buffer];
    return b_.CreateInBoundsGEP(ops_.memType(buf.dtype), buffers_[in.buffer], idx, buf.name + ".addr");
  }

  // Debug info: one subprogram per function, its lines are graph node ids.
  llvm::DISubprogram* subprogram(llvm::Function* f) {
    if (!di_) return nullptr;
    auto* type = di_->createSubroutineType(di_->getOrCreateTypeArray({}));
    auto* sp = di_->createFunction(cu_->getFile(), f->getName(), f->getName(), cu_->getFile(), 0, type, 0, llvm::DINode::FlagZero,
                                   llvm::DISubprogram::SPFlagDefinition);
    f->setSubprogram(sp);
    return sp;
  }

  void locate(int node, llvm::DISubprogram* scope) {
    if (di_ && scope)
      b_.SetCurrentDebugLocation(llvm::DILocation::get(m_.getContext(), static_cast<unsigned>(std::max(node, 0)), 0, scope));
  }

  void emitInstr(const Instr& in) {
    locate(in.node, bodyScope_);
    emitInstrAt(in);
    locate(0, bodyScope_);  // loop control and accumulators belong to no node
  }

  void emitInstrAt(const Instr& in) {
    std::string name = "v" + std::to_string(in.id);
    switch (in.op) {
      case Op::Load: {
        DType d = k_.buffers[in.buffer].dtype;
        Value* v = b_.CreateLoad(ops_.memType(d), address(in), name);
        define(in, ops_.convert(ops_.fromMemory(v, d), d, in.dtype));
        return;
      }
      case Op::Store: {
        // A store has no result, so its dtype field is ignored: the value is converted
        // straight to the buffer's dtype.
        DType d = k_.buffers[in.buffer].dtype;
        b_.CreateStore(ops_.toMemory(operand(in, 0, d), d), address(in));
        return;
      }
      case Op::Const:
        if (!in.constSym.empty()) define(in, ops_.convert(size(0, in.constSym), DType::Int64, in.dtype));
        else define(in, ops_.constant(in.constant, in.dtype));
        return;
      case Op::Cast: define(in, operand(in, 0, in.dtype)); return;
      case Op::Where: {
        Value* c = operand(in, 0, DType::Bool);
        define(in, b_.CreateSelect(c, operand(in, 1, in.dtype), operand(in, 2, in.dtype), name));
        return;
      }
      case Op::ReduceSum:
      case Op::ReduceMax:
      case Op::ReduceMin: {
        llvm::AllocaInst* acc = acc_.at(in.id);
        Value* cur = b_.CreateLoad(acc->getAllocatedType(), acc);
        b_.CreateStore(ops_.reduceStep(in.op, cur, operand(in, 0, in.dtype), in.dtype), acc);
        return;  // defined after its nest (emitPoint)
      }
      default: break;
    }
    if (isCompare(in.op)) {
      DType common = promote(types_.at(in.operands[0]), types_.at(in.operands[1]));
      Value* r = ops_.compare(in.op, operand(in, 0, common), operand(in, 1, common), common);
      define(in, ops_.convert(r, DType::Bool, in.dtype));
    } else if (in.operands.size() == 1) {
      define(in, ops_.unary(in.op, operand(in, 0, in.dtype), in.dtype));
    } else {
      define(in, ops_.binary(in.op, operand(in, 0, in.dtype), operand(in, 1, in.dtype), in.dtype));
    }
    if (auto* v = llvm::dyn_cast<llvm::Instruction>(values_[in.id]); v && !v->hasName()) v->setName(name);
  }

  // Dynamic shapes: every size expression the kernel uses is computed once, in the entry block,
  // from the size array (s<N> at index N); loops, indices and constants then use the values.
  void loadSizes(Value* sizes) {
    std::vector<std::string> exprs;
    for (const auto& l : k_.loops) exprs.push_back(l.extentSym);
    for (const auto& in : k_.body) {
      exprs.push_back(in.constSym);
      for (const auto& t : in.index.terms) exprs.push_back(t.coeffSym);
    }
    std::unordered_map<int, Value*> symbol;
    for (const auto& e : exprs) {
      if (e.empty() || sizes_.count(e)) continue;
      auto p = ir::parseSym(e);
      if (!p) throw std::runtime_error("kernel " + k_.name + ": bad size expression '" + e + "'");
      Value* v = b_.getInt64(p->coeff);
      for (int s : p->syms) {
        Value*& sv = symbol[s];
        if (!sv) {
          Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), sizes, static_cast<uint64_t>(s));
          sv = b_.CreateAlignedLoad(b_.getInt64Ty(), slot, llvm::Align(8), "s" + std::to_string(s));
        }
        v = p->coeff == 1 && v == b_.getInt64(1) ? sv : b_.CreateMul(v, sv, e, true, true);
      }
      sizes_[e] = v;
    }
  }

  Value* size(int64_t hint, const std::string& sym) { return sym.empty() ? b_.getInt64(hint) : sizes_.at(sym); }

  const kir::Kernel& k_;
  bool symbolic_ = k_.symbolic();
  std::unordered_map<std::string, Value*> sizes_;  // size expression -> its value
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  OpEmitter ops_;
  llvm::Function* body_ = nullptr;
  llvm::DIBuilder* di_;
  llvm::DICompileUnit* cu_;
  llvm::DISubprogram* bodyScope_ = nullptr;
  llvm::BasicBlock* stopped_ = nullptr;  // returns early at a stop request
  size_t parallelLoops_ = 0;
  kir::Placement placement_;
  std::vector<Value*> buffers_;  // the body's buffer parameters
  std::vector<Value*> ivs_;      // per loop, set while emitting inside it
  std::unordered_map<int, Value*> values_;
  std::unordered_map<int, DType> types_;
  std::unordered_map<int, llvm::AllocaInst*> acc_;  // reduce id -> accumulator
};

}  // namespace

std::string kernelSymbol(const kir::Kernel& k) { return kernelSymbol(k.name); }
std::string kernelSymbol(const std::string& kernelName) { return "kiln." + kernelName; }

void emitKernelInto(const kir::Kernel& k, llvm::Module& m, llvm::DIBuilder* di, llvm::DICompileUnit* cu) {
  if (std::string err = kir::verify(k); !err.empty()) throw std::runtime_error("kernel " + k.name + " is malformed: " + err);
  KernelEmitter(k, m, di, cu).emit();
}

}  // namespace kiln::codegen::llvmcg
