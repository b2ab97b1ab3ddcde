#include "engine/ops/device_dispatch.h"

#include "engine/ops/op_table.h"
#include "engine/tensor/current_device.h"

namespace kiln::ops {

namespace {
DeviceKernels& kernels() {
  static DeviceKernels k;
  return k;
}

void collect(const Val& v, std::vector<const tensor::Tensor*>& out) {
  if (v.kind == Val::Kind::Tensor && v.t.defined()) out.push_back(&v.t);
  if (v.kind == Val::Kind::List)
    for (const auto& x : v.list) collect(x, out);
}
}  // namespace

void setDeviceKernels(DeviceKernels k) { kernels() = std::move(k); }

namespace {
DeviceCopy& copyHook() {
  static DeviceCopy c;
  return c;
}
}  // namespace
const DeviceCopy& deviceCopy() { return copyHook(); }
void setDeviceCopy(DeviceCopy c) { copyHook() = std::move(c); }

std::optional<tensor::Device> opDevice(const OpDef& op, const std::vector<Val>& args) {
  std::vector<const tensor::Tensor*> ts;
  for (const auto& a : args) collect(a, ts);
  bool anyDevice = false;
  for (const auto* t : ts) anyDevice = anyDevice || !t->isCpu();
  if (!anyDevice) return std::nullopt;
  // TensorIterator's rule: the first operand's device is the common one; a CPU scalar (0-dim)
  // may join device tensors in pointwise ops. Other ops check every tensor argument.
  const bool scalarsMayStay = op.kind == OpKind::Pointwise;
  std::optional<tensor::Device> common;
  for (const auto* t : ts) {
    if (scalarsMayStay && t->isCpu() && t->dim() == 0) continue;
    if (!common) {
      common = t->device();
      continue;
    }
    if (t->device() != *common)
      throw tensor::TorchError("RuntimeError", "Expected all tensors to be on the same device, but found at least two devices, " +
                                                   common->str() + " and " + t->device().str() + "!");
  }
  return common;
}

Val runOnDevice(const OpDef& op, const std::vector<Val>& args, const tensor::Device& device) {
  if (kernels())
    if (auto r = kernels()(op, args, device)) return *r;
  // Views only make new sizes and strides over the same storage: no kernel, no data touched
  // (Storage::data() would throw if one did).
  if (op.kind == OpKind::View && op.eager) {
    try {
      return Val::of(op.eager(args));
    } catch (const tensor::TorchError& e) {
      if (std::string(e.type()) != "NotImplementedError") throw;
    }
  }
  throw tensor::TorchError("NotImplementedError", "Kiln cannot run " + op.name + " on " + device.str() +
                                                      " tensors yet: it has no CUDA kernel for this op (move the tensors to the "
                                                      "CPU with .cpu() to run it there)");
}

tensor::Device parseDeviceString(const std::string& s) {
  if (s == "cpu" || s.rfind("cpu:", 0) == 0) return tensor::Device::cpu();
  if (s.rfind("cuda", 0) == 0) {
    if (s.size() == 4) return tensor::Device::cuda(tensor::currentCudaIndex());
    if (s[4] == ':' && s.size() > 5 && s.find_first_not_of("0123456789", 5) == std::string::npos)
      return tensor::Device::cuda(std::stoi(s.substr(5)));
  }
  throw tensor::TorchError("RuntimeError", "Invalid device string: '" + s + "'");
}

std::string metaDevice(const std::vector<Val>& args) {
  for (const auto& a : args) {
    if (a.isTensor() && a.tensorType().device != "cpu") return a.tensorType().device;
    if (a.kind == Val::Kind::List)
      for (const auto& x : a.list)
        if (x.isTensor() && x.tensorType().device != "cpu") return x.tensorType().device;
  }
  return "cpu";
}

void registerDeviceOps(std::vector<OpDef>& table) {
  OpDef o;
  o.name = kToDeviceOp;
  o.kind = OpKind::Extern;
  o.meta = [](const std::vector<Val>& a) {
    ir::TensorType t = a.at(0).tensorType();
    t.strides.clear();  // contiguous
    t.device = parseDeviceString(a.at(1).s).str();
    return t;
  };
  o.eager = [](const std::vector<Val>& a) { return a.at(0).t.toDevice(parseDeviceString(a.at(1).s)).detach(); };
  o.backward = [](Dispatcher& d, const GradContext& c) -> std::vector<Val> {
    if (!c.needs(0)) return {Val::none(), Val::none()};
    return {d.call(kToDeviceOp, {c.gradOutput, Val::string(c.inputs.at(0).t.device().str())}), Val::none()};
  };
  o.backwardName = "ToCopyBackward0";
  table.push_back(std::move(o));
}

}  // namespace kiln::ops
