#include "engine/capture/global_state.h"

#include "engine/ops/autocast.h"

#include <algorithm>

namespace kiln::capture {

GlobalState currentGlobalState() {
  GlobalState s;
  s.defaultDType = ir::defaultFloatDType();
  const auto* cpu = ops::autocast::state("cpu");
  const auto* cuda = ops::autocast::state("cuda");
  s.autocastCpu = cpu->enabled;
  s.autocastCpuDType = cpu->dtype;
  s.autocastCuda = cuda->enabled;
  s.autocastCudaDType = cuda->dtype;
  return s;
}

std::string globalStateChange(const GlobalState& was, const GlobalState& now) {
  // Dynamo's GlobalStateGuard compares the default dtype before the autocast state, and the
  // autocast state device by device in c10's device-type order (cpu first), enabled before dtype.
  if (was.defaultDType != now.defaultDType) return "default_dtype";
  if (was.autocastCpu != now.autocastCpu) return "autocast(cpu)_enabled";
  if (was.autocastCpuDType != now.autocastCpuDType) return "autocast(cpu)_dtype";
  if (was.autocastCuda != now.autocastCuda) return "autocast(cuda)_enabled";
  if (was.autocastCudaDType != now.autocastCudaDType) return "autocast(cuda)_dtype";
  return "";
}

void restoreAutocast(const GlobalState& s) {
  *ops::autocast::state("cpu") = {s.autocastCpu, s.autocastCpuDType};
  *ops::autocast::state("cuda") = {s.autocastCuda, s.autocastCudaDType};
}

int recordEnterAutocast(ir::Graph& g, const std::string& device, ir::DType dtype, bool enabled) {
  ir::Node n;
  n.kind = ir::NodeKind::CallFunction;
  n.target = ops::autocast::kEnterNode;
  n.name = "_enter_autocast";
  n.args = {ir::Arg::string(device), ir::Arg::dtypeArg(dtype), ir::Arg::boolean(enabled), ir::Arg::none()};
  return g.add(std::move(n)).id;  // no result type, no source location: "No stacktrace found"
}

void recordExitAutocast(ir::Graph& g, int enterNode) {
  ir::Node n;
  n.kind = ir::NodeKind::CallFunction;
  n.target = ops::autocast::kExitNode;
  n.name = "_exit_autocast";
  n.args = {ir::Arg::ref(enterNode)};
  g.add(std::move(n));
}

void closeAutocastRegions(ir::Graph& g) {
  std::vector<int> open;
  for (const auto& n : g.nodes) {
    if (n.target == ops::autocast::kEnterNode) open.push_back(n.id);
    if (n.target == ops::autocast::kExitNode && !n.args.empty() && n.args[0].isNode())
      open.erase(std::remove(open.begin(), open.end(), n.args[0].node), open.end());
  }
  for (auto it = open.rbegin(); it != open.rend(); ++it) recordExitAutocast(g, *it);
}

}  // namespace kiln::capture
