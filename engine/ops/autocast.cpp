#include "engine/ops/autocast.h"

#include "engine/ops/op_table.h"

#include <algorithm>
#include <array>

namespace kiln::ops::autocast {

namespace {
DeviceState gCpu{false, ir::DType::BFloat16};
DeviceState gCuda{false, ir::DType::Float16};

// PyTorch's CPU autocast lists (aten/src/ATen/autocast_mode.cpp), by the ATen names Kiln's ops
// carry. Composite ops PyTorch casts before decomposing (linear, matmul, conv2d) reach Kiln's
// dispatcher as the products they decompose into (mm, addmm, bmm, convolution), which
// get the same casts.
constexpr std::array kLowerPrecision = {
    "aten.mm.default",     "aten.bmm.default",         "aten.addmm.default", "aten.baddbmm.default",
    "aten.addbmm.default", "aten.convolution.default", "aten.prelu.default", "aten._scaled_dot_product_flash_attention_for_cpu.default",
};
constexpr std::array kFloat32 = {
    "aten.prod.default",
    "aten.prod.dim_int",
    "aten.cdist.default",
    "aten.trace.default",
    "aten.polar.default",
    "aten.view_as_complex.default",
    "aten.mse_loss.default",
    "aten.l1_loss.default",
    "aten.smooth_l1_loss.default",
    "aten.huber_loss.default",
    "aten.binary_cross_entropy.default",
    "aten.binary_cross_entropy_with_logits.default",
    "aten.kl_div.default",
    "aten.nll_loss_forward.default",
    "aten.nll_loss2d_forward.default",
    "aten.avg_pool3d.default",
    "aten.max_pool3d.default",
    "aten.adaptive_avg_pool3d.default",
    "aten.inverse.default",
    "aten.cholesky.default",
};
constexpr std::array kPromote = {"aten.cat.default", "aten.stack.default", "aten.index_copy.default"};

template <size_t N>
bool listed(const std::array<const char*, N>& list, std::string_view op) {
  return std::find(list.begin(), list.end(), op) != list.end();
}

// A tensor autocast may cast: floating, and not float64 (PyTorch's is_autocast_eligible).
bool eligible(const Val& v) {
  if (!v.isTensor()) return false;
  ir::DType d = v.tensorType().dtype;
  return ir::isFloating(d) && d != ir::DType::Float64;
}

Val castTo(Dispatcher& d, const Val& v, ir::DType to) {
  if (!eligible(v) || v.tensorType().dtype == to) return v;
  return d.call("prims.convert_element_type.default", {v, Val::dtypeVal(to)});
}

// Applies f to every tensor argument, also inside list arguments (cat's tensors).
template <typename F>
std::vector<Val> mapTensors(const std::vector<Val>& args, F&& f) {
  std::vector<Val> out;
  out.reserve(args.size());
  for (const auto& a : args) {
    if (a.kind == Val::Kind::List) {
      Val l = a;
      for (auto& x : l.list) x = f(x);
      out.push_back(std::move(l));
    } else {
      out.push_back(f(a));
    }
  }
  return out;
}
}  // namespace

DeviceState* state(std::string_view device) {
  if (device == "cpu") return &gCpu;
  if (device == "cuda") return &gCuda;
  return nullptr;
}

bool anyEnabled() { return gCpu.enabled; }  // Kiln's tensors are CPU tensors: only CPU autocast casts

Policy cpuPolicy(std::string_view op) {
  if (listed(kLowerPrecision, op)) return Policy::LowerPrecision;
  if (listed(kFloat32, op)) return Policy::Float32;
  if (listed(kPromote, op)) return Policy::Promote;
  return Policy::None;
}

Policy compositePolicy(std::string_view t) {
  static constexpr std::array kLower = {"torch.matmul",        "_operator.matmul", "matmul",
                                        "torch._C._nn.linear", "torch.conv1d",     "torch.conv2d"};
  static constexpr std::array kF32 = {"torch.nn.functional.cross_entropy",
                                      "torch.nn.functional.mse_loss",
                                      "torch.nn.functional.nll_loss",
                                      "torch.nn.functional.smooth_l1_loss",
                                      "torch.prod",
                                      "prod"};
  if (listed(kLower, t)) return Policy::LowerPrecision;
  if (listed(kF32, t)) return Policy::Float32;
  return Policy::None;
}

std::vector<Val> castArgs(Dispatcher& d, std::string_view op, const std::vector<Val>& args) {
  if (!gCpu.enabled) return args;
  return castArgsAs(d, cpuPolicy(op), args);
}

std::vector<Val> castArgsAs(Dispatcher& d, Policy policy, const std::vector<Val>& args) {
  if (!gCpu.enabled) return args;
  switch (policy) {
    case Policy::None: return args;
    case Policy::LowerPrecision: {
      const ir::DType to = gCpu.dtype;
      Suspend off;
      return mapTensors(args, [&](const Val& v) { return castTo(d, v, to); });
    }
    case Policy::Float32: {
      Suspend off;
      return mapTensors(args, [&](const Val& v) { return castTo(d, v, ir::DType::Float32); });
    }
    case Policy::Promote: {
      bool any = false;
      ir::DType widest = ir::DType::Bool;
      mapTensors(args, [&](const Val& v) {
        if (eligible(v)) widest = any ? ir::promoteTypes(widest, v.tensorType().dtype) : v.tensorType().dtype, any = true;
        return v;
      });
      if (!any) return args;
      Suspend off;
      return mapTensors(args, [&](const Val& v) { return castTo(d, v, widest); });
    }
  }
  return args;
}

bool GraphRegions::apply(const ir::Node& n) {
  if (n.target == kEnterNode) {
    DeviceState* d = n.args.size() >= 3 && n.args[0].kind == ir::Arg::Kind::String ? state(n.args[0].s) : nullptr;
    if (!d) return true;
    open_.push_back({n.id, Saved{d, *d}});
    if (n.args[1].kind == ir::Arg::Kind::DType) d->dtype = n.args[1].dtype;
    if (n.args[2].kind == ir::Arg::Kind::Bool) d->enabled = n.args[2].b;
    return true;
  }
  if (n.target == kExitNode) {
    const int enter = !n.args.empty() && n.args[0].isNode() ? n.args[0].node : -1;
    for (size_t i = open_.size(); i-- > 0;) {
      if (open_[i].first != enter) continue;
      // Regions close innermost first; restoring down to this one also closes any left open.
      while (open_.size() > i) {
        *open_.back().second.device = open_.back().second.previous;
        open_.pop_back();
      }
      break;
    }
    return true;
  }
  return false;
}

GraphRegions::~GraphRegions() {
  while (!open_.empty()) {
    *open_.back().second.device = open_.back().second.previous;
    open_.pop_back();
  }
}

Suspend::Suspend() : cpu_(gCpu.enabled), cuda_(gCuda.enabled) { gCpu.enabled = gCuda.enabled = false; }
Suspend::~Suspend() {
  gCpu.enabled = cpu_;
  gCuda.enabled = cuda_;
}

}  // namespace kiln::ops::autocast
