// Kernels of one batch that are the same code. A deep model repeats its layers, and so its
// kernels: the 1,601 kernels of a 200-layer transformer are ~10 distinct bodies that differ only
// in the kernel's name, its buffers' names and its provenance (the graph node ids behind `@N`).
// None of these changes the machine code, so a backend compiles each distinct body once and
// binds the other kernels to that entry point; the kernel cache keys on the bodies too, so a
// later graph whose kernels are named and numbered otherwise still hits. Constants, sizes,
// strides, dtypes, loops and ops are part of the body: kernels differing in any of them do not
// share.
//
// Provenance in the code: a body is emitted with canonical provenance (the kernel's distinct
// node ids renumbered 1, 2, ... in order of first appearance), so its printed LLVM IR and
// assembly name canonical nodes (`; @c`, `# @c`); withProvenance() gives each kernel of the
// body its own node ids back, so every kernel's text names its own nodes exactly.
#pragma once

#include "engine/kir/kernel_ir.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::codegen {

// `k` with its instructions' provenance renumbered 1, 2, ... by first appearance (-1, unknown,
// stays) and no source-node list; name and buffer names kept.
kir::Kernel withCanonicalProvenance(const kir::Kernel& k);

// The distinct node ids of k's instructions in order of first appearance: canonical provenance
// c stands for nodes[c - 1].
std::vector<int> provenanceNodes(const kir::Kernel& k);

// What decides a kernel's code: its text with the kernel named `body`, its buffers b0, b1, ...
// and canonical provenance.
std::string bodyText(const kir::Kernel& k);

struct KernelBodies {
  std::vector<size_t> bodyOf;     // per kernel: its body (index into `first` and `text`)
  std::vector<size_t> first;      // per distinct body, in order: the first kernel with it
  std::vector<std::string> text;  // per distinct body: bodyText()
};
KernelBodies groupByBody(const std::vector<kir::Kernel>& kernels);

// `text` (LLVM IR or assembly printed from a body with canonical provenance) with every
// provenance mark, `; @c` or `# @c`, naming nodes[c - 1] instead. Marks beyond `nodes` stay.
std::string withProvenance(const std::string& text, const std::vector<int>& nodes);

}  // namespace kiln::codegen
