#include "engine/runtime/functional_outputs.h"

#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/index_ops.h"

namespace kiln::runtime {

std::vector<tensor::Tensor> finishFunctionalOutputs(const std::vector<std::pair<int, int>>& inputMutations, size_t userOutputs,
                                                    const std::vector<passes::OutputAlias>& outputAliases,
                                                    const std::vector<tensor::Tensor>& in, std::vector<tensor::Tensor> outs) {
  for (const auto& [input, output] : inputMutations) {
    tensor::Tensor dst = in.at(static_cast<size_t>(input));
    ops::copyInto(dst, outs.at(static_cast<size_t>(output)));
  }
  outs.resize(userOutputs);
  ops::EagerDispatcher eager;
  const ir::Graph noNodes;
  for (const auto& a : outputAliases) {
    ops::Val v = ops::Val::of(in.at(a.input));
    try {
      for (const auto& step : a.chain) {
        std::vector<ops::Val> args{v};
        for (const auto& x : step.args) args.push_back(ops::GraphDispatcher::fromArg(noNodes, x));
        v = eager.call(step.op, args);
      }
    } catch (const tensor::TorchError&) {
      // The chain's view came from a reshape of the input's (contiguous) functional value;
      // on the real, non-contiguous input that reshape is a copy, which the graph computed.
      continue;
    }
    outs.at(a.output) = v.t;
  }
  return outs;
}

}  // namespace kiln::runtime
