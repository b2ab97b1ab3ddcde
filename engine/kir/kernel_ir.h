// Kernel IR: loop-level, backend-neutral description of one generated kernel.
//
// A kernel iterates over `loops` (outermost first; the outermost loop is the one the runtime
// splits across threads). Loops marked `reduction` are innermost and are reduced by Reduce
// instructions. The body is a list of SSA instructions executed once per point of the
// iteration space; loads and stores address buffers with affine index expressions over the
// loop variables (strided and broadcast views are just coefficients, 0 for a broadcast dim).
//
// A kernel may chain reductions (softmax: max, then a sum of exp(x - max), then a store of
// exp(x - max) / sum): for each point of the parallel loops the reduction loops then run once
// per "nest", in order, and a value computed inside one nest that a later nest needs is
// recomputed there (loads are repeated, as Inductor's CPU kernels do). `place()` below says
// where every instruction runs; code generators follow it.
//
// Text form (printed and parsed by kernel_ir_text.cpp):
//
//   kernel kernel_0 pointwise
//     in buf0: f32[4096]
//     out buf1: f32[4096]
//     loop i0 in 0..4096
//     %0 = load buf0[i0]
//     %1 = const 2.0 : f32
//     %2 = mul %0, %1
//     store buf1[i0], %2
//   end
#pragma once

#include "engine/ir/types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::kir {

// Dynamic shapes: a loop extent, a coefficient, a buffer dim or a constant may be a size
// expression (engine/ir/sym.h: `s0`, `16*s0`), read from the size array the runtime passes
// after the buffers. The integer beside it is its hint (its value at the captured shape); the
// expression, when present, is what the generated code uses.
struct IndexTerm {
  int loop = 0;       // index into Kernel::loops
  int64_t coeff = 1;  // element stride
  std::string coeffSym{};
  bool operator==(const IndexTerm&) const = default;
};

struct IndexExpr {
  std::vector<IndexTerm> terms;
  int64_t offset = 0;
  bool operator==(const IndexExpr&) const = default;
};

struct Buffer {
  std::string name;
  ir::DType dtype = ir::DType::Float32;
  std::vector<int64_t> shape;
  bool output = false;
  // An input the kernel overwrites with an output of the same size (in-place reuse, printed
  // `inout`, Inductor's in_out_ptr): loaded and stored at the same index. `output` is set too.
  bool inOut = false;
  std::vector<std::string> shapeSym{};  // empty, or per dim its size expression ("" = concrete)
  bool operator==(const Buffer&) const = default;
};

struct Loop {
  std::string var;  // i0, i1 ... for parallel loops, r0 ... for reduction loops
  int64_t extent = 1;
  bool reduction = false;
  std::string extentSym{};  // ({}: Loop{var, extent, reduction} leaves nothing out)
  bool operator==(const Loop&) const = default;
};

enum class Op {
  Load,
  Store,
  Const,
  // unary
  Neg,
  Exp,
  Log,
  Sin,
  Cos,
  Tanh,
  Sqrt,
  Rsqrt,
  Abs,
  Sigmoid,
  Erf,
  Recip,
  Floor,
  Ceil,
  Not,
  // binary
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Mod,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  // other
  Where,
  Cast,
  ReduceSum,
  ReduceMax,
  ReduceMin,
};

std::string_view opName(Op op);
bool opFromName(std::string_view name, Op* out);
int opArity(Op op);  // operands taken (Load: 0, Store: 1, Const: 0, Where: 3, ...)

struct Instr {
  int id = -1;  // SSA value %id (-1 for Store)
  Op op = Op::Const;
  std::vector<int> operands;             // SSA ids
  int buffer = -1;                       // Load/Store: index into Kernel::buffers
  IndexExpr index;                       // Load/Store
  double constant = 0.0;                 // Const
  std::string constSym;                  // Const: a size expression instead (its value, converted)
  ir::DType dtype = ir::DType::Float32;  // result type (Cast: target type)
  // Provenance: the id of the graph node this instruction computes (or loads for, or stores),
  // printed as a trailing `@N`; -1 when unknown. The studio colours kernel lines by it.
  int node = -1;
  bool operator==(const Instr&) const = default;
};

struct Kernel {
  std::string name;
  std::string kind = "pointwise";  // pointwise | reduction
  std::vector<Buffer> buffers;     // the kernel's parameters, in call order
  std::vector<Loop> loops;
  std::vector<Instr> body;
  std::vector<int> sourceNodes;  // ids of the ATen nodes fused into this kernel (provenance)
  bool operator==(const Kernel&) const = default;

  int64_t pointCount() const;  // product of loop extents (hints)
  int64_t bytes() const;       // size of all its buffers: the least memory traffic of a call
  bool symbolic() const;       // reads size expressions (dynamic shapes)
  // Product of loop extents with size symbol values `sizes` (s<N> = sizes[N]).
  int64_t pointCountAt(const std::vector<int64_t>& sizes) const;
};

// The kernel with hints cleared wherever a size expression stands: two kernels built for two
// shapes of a dynamic graph are the same code exactly when these are equal.
Kernel withoutHints(Kernel k);

// Where each instruction of a kernel runs, for each point of the parallel loops:
//
//   gap 0 | nest 0 | gap 1 | nest 1 | ... | nest n-1 | gap n
//
// Outer instructions (not indexed by a reduction variable, directly or through operands) run
// once, in the gap after the last nest whose reduce result they need. Inner instructions run
// inside a nest: a reduce's accumulation step and an inner store are roots in the first nest
// where all their operands exist; the inner values a root needs are (re)computed in its nest.
// A reduce result is an outer value available from the gap after its nest.
struct Placement {
  std::vector<bool> inner;  // per body instruction
  std::vector<int> stage;   // per body instruction: its gap (outer) or its nest (inner)
  int nests = 0;            // 0 for kernels without reduce or inner store
  // Per nest, the body indices to emit inside it in order: its roots and the inner values
  // they need (an inner value used by two nests appears in both).
  std::vector<std::vector<int>> nestBody;
};
Placement place(const Kernel& k);

// Fewer, longer loops vectorize and split better: drops extent-1 loops (keeping one reduction
// loop if the kernel reduces) and merges adjacent loops of the same kind that every load and
// store walks contiguously (coefficient of the outer = coefficient of the inner * its extent).
// Loops are renamed i0, i1, ... and r0, r1, ... (kernel_ir_collapse.cpp).
void collapseLoops(Kernel& k);

// A transcendental (exp, log, tanh ...) computed in one reduction nest and recomputed in a later
// one that stores to an output buffer over the same points is stored to that buffer where it is
// first computed and loaded back in the later nest (softmax: exp(x - max) once, not twice;
// kernel_ir_reuse.cpp).
void storeOnceReloadLater(Kernel& k);

std::string print(const Kernel& k);
std::string print(const std::vector<Kernel>& ks);
// Throws kiln::ParseError (engine/support/error.h) with line:col on malformed text.
Kernel parseKernel(std::string_view text);
std::vector<Kernel> parseKernels(std::string_view text);
// Structural checks (SSA defined before use, buffer indices, arities). Returns "" when valid.
std::string verify(const Kernel& k);

}  // namespace kiln::kir
