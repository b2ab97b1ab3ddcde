// Derivatives of the neural-network ops (softmax, normalization, losses, convolution, pooling).
#include "engine/autograd/derivative_util.h"

namespace kiln::autograd::dv {

void registerNnDerivatives(std::vector<ops::OpDef>&) {}

}  // namespace kiln::autograd::dv
