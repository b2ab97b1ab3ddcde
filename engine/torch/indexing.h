// Tensor indexing shared by the torch-level _operator.getitem (fns_index.cpp) and subscript
// assignment in the interpreter (tensor_protocol.cpp). See fns_index.cpp for the index encoding.
#pragma once

#include "engine/ops/op_table.h"

#include <vector>

namespace kiln::torchapi {

// Applies the basic part of `index` (ints, slices, None, Ellipsis) to x as views and returns
// the view; `advanced` receives aten.index's index list (empty when there are no tensor indices).
ops::Val applyBasicIndexing(ops::Dispatcher& d, const ops::Val& x, const ops::Val& index, std::vector<ops::Val>& advanced);

}  // namespace kiln::torchapi
