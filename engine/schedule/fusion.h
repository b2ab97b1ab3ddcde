// fuse: groups pointwise ATen nodes into kernels (the "fused" stage). A pointwise node joins
// the kernel of a pointwise producer with the same iteration shape, unless one of its other
// inputs depends on that kernel through a node outside it (which would make the kernel wait
// on itself). Every pair considered is recorded as a rule hit: "fused: <consumer> into
// <kernel>" or "not fused: <reason>". Kernels are named like Inductor's: cpp_fused_<ops>_<n>.
#pragma once

#include "engine/passes/pass.h"

namespace kiln::schedule {

passes::PassResult fuse(const ir::Graph& g, passes::PassContext& ctx);

}  // namespace kiln::schedule
