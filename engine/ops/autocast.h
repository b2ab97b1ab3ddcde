// torch.autocast: the per-device state (enabled, lower-precision dtype) and the casts it makes
// to the arguments of the ops it covers. Applied where ops are dispatched by name
// (Dispatcher::call), so eager runs, fake-tensor typing during capture and lowering to ATen all
// see the same casts, as PyTorch's Autocast dispatch key sits below every one of them.
#pragma once

#include "engine/ir/graph.h"
#include "engine/ops/val.h"

#include <map>
#include <string_view>
#include <vector>

namespace kiln::ops {
class Dispatcher;
}

namespace kiln::ops::autocast {

struct DeviceState {
  bool enabled = false;
  ir::DType dtype;
};

// "cpu" (lower precision bfloat16 unless set) or "cuda" (float16); null for another device.
DeviceState* state(std::string_view device);
bool anyEnabled();

// What PyTorch's CPU autocast does to an op's tensor arguments.
enum class Policy { None, LowerPrecision, Float32, Promote };
// The policy of an ATen op (Kiln's name, "aten.mm.default") under CPU autocast.
Policy cpuPolicy(std::string_view op);

// `args` as op runs them under the current autocast state: floating tensors (not float64) cast
// to the autocast dtype for lower-precision ops, 16-bit float tensors to float32 for float32
// ops, floating tensors to their widest dtype for promote ops. The casts are dispatched through
// `d` (prims.convert_element_type), so they are recorded where d records.
std::vector<Val> castArgs(Dispatcher& d, std::string_view op, const std::vector<Val>& args);
// The same casts under an explicit policy (no-op while CPU autocast is off).
std::vector<Val> castArgsAs(Dispatcher& d, Policy policy, const std::vector<Val>& args);

// The policy of a torch-level function (its captured target) that PyTorch casts before the op
// decomposes (Autocast sits above CompositeImplicitAutograd): matmul, linear, conv, the losses,
// prod. Kiln decomposes them into other ops (a vector matmul into mv/dot, cross_entropy into
// log_softmax + nll_loss) that the ATen-level lists would treat differently.
Policy compositePolicy(std::string_view torchTarget);

// Turns autocast off for its lifetime (the casts themselves; a graph's own autocast regions).
class Suspend {
 public:
  Suspend();
  ~Suspend();
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  bool cpu_, cuda_;
};

// The nodes Dynamo captures for an autocast block inside a compiled function:
// _enter_autocast(device, dtype, enabled, cache_enabled) -> its context, _exit_autocast(context).
inline constexpr const char* kEnterNode = "torch.amp.autocast_mode._enter_autocast";
inline constexpr const char* kExitNode = "torch.amp.autocast_mode._exit_autocast";

// Replays those nodes while a captured graph runs or is lowered: an enter sets the device's
// state, its exit puts back what the enter replaced; regions still open when this ends are
// closed then, so running a graph leaves the state as it found it.
class GraphRegions {
 public:
  GraphRegions() = default;
  GraphRegions(const GraphRegions&) = delete;
  GraphRegions& operator=(const GraphRegions&) = delete;
  ~GraphRegions();
  // True when `n` is an enter or exit node (applied), false for any other node.
  bool apply(const ir::Node& n);

 private:
  struct Saved {
    DeviceState* device;
    DeviceState previous;
  };
  std::vector<std::pair<int, Saved>> open_;  // enter node id -> what it replaced, innermost last
};

}  // namespace kiln::ops::autocast
