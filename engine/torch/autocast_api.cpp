// torch.autocast (also torch.amp.autocast, torch.cpu.amp.autocast) as a context manager and
// decorator, the autocast state functions (torch.is_autocast_enabled, get_autocast_dtype ...)
// and torch.set_default_dtype / get_default_dtype. The casts themselves happen where ops are
// dispatched (engine/ops/autocast.h); Dynamo guards both states (GLOBAL_STATE, capture).
#include "engine/torch/tensor_protocol.h"

#include "engine/ops/autocast.h"
#include "engine/torch/bindings.h"
#include "engine/torch/capture_hooks.h"

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

void defIn(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;
}

ir::DType dtypeValue(py::Interpreter& in, const Value& v, const std::string& what) {
  if (!v || v->kind != VK::DType) in.raise("TypeError", what + " must be torch.dtype, not " + (v ? py::typeName(v) : "NoneType"));
  return py::as<py::DTypeObj>(v)->d;
}

ops::autocast::DeviceState& deviceState(py::Interpreter& in, const Value& device) {
  if (!device || device->kind != VK::Str)
    in.raise("ValueError",
             "Expected `device_type` of type `str`, got: `" + (device ? py::typeName(device) : std::string("NoneType")) + "`");
  std::string d = in.str(device);
  auto* s = ops::autocast::state(d);
  if (!s) in.raise("RuntimeError", "Invalid device string: '" + d + "'");
  return *s;
}

// The autocast state a block sets: device, dtype and whether it is on.
struct Block {
  std::string device;
  ir::DType dtype;
  bool enabled;
};

Block blockOf(py::Interpreter& in, const Value& self) {
  auto* o = py::as<py::InstanceObj>(self);
  return Block{in.str(o->dict->getStr("device")), py::as<py::DTypeObj>(o->dict->getStr("fast_dtype"))->d,
               in.truthy(o->dict->getStr("_enabled"))};
}

// Sets the block's state and returns what it replaced. While capturing, the block is also a
// pair of graph nodes (Dynamo's _enter_autocast / _exit_autocast): `node` gets the enter's id.
ops::autocast::DeviceState enter(py::Interpreter& in, const Block& b, int* node) {
  if (in.tracer) *node = tracerOf(in)->onEnterAutocast(b.device, b.dtype, b.enabled);
  auto* s = ops::autocast::state(b.device);
  ops::autocast::DeviceState prev = *s;
  s->enabled = b.enabled;
  s->dtype = b.dtype;
  return prev;
}

void leave(py::Interpreter& in, const Block& b, const ops::autocast::DeviceState& prev, int node) {
  if (in.tracer && node >= 0) tracerOf(in)->onExitAutocast(node);
  *ops::autocast::state(b.device) = prev;
}

// autocast(device_type, dtype=None, enabled=True, cache_enabled=None); `fixedDevice` for
// torch.cpu.amp.autocast, whose first parameter is `enabled`.
Value autocastClass(py::Interpreter& in, const std::string& qualname, const std::string& fixedDevice,
                    const std::shared_ptr<py::ModuleObj>& module) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = "autocast";
  cls->qualname = qualname;
  cls->module = module;
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
  cls->dict["__init__"] = py::makeBuiltin(qualname + ".__init__", [fixedDevice](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    size_t pos = 1;
    Value device;
    if (fixedDevice.empty()) {
      device = a.args.size() > pos ? a.args[pos++] : a.kwarg("device_type");
    } else {
      device = py::makeStr(fixedDevice);
    }
    auto& st = deviceState(in, device);
    Value enabled, dtype;
    if (fixedDevice.empty()) {
      dtype = a.args.size() > pos ? a.args[pos++] : a.kwarg("dtype");
      enabled = a.args.size() > pos ? a.args[pos++] : a.kwarg("enabled");
    } else {
      enabled = a.args.size() > pos ? a.args[pos++] : a.kwarg("enabled");
      dtype = a.args.size() > pos ? a.args[pos++] : a.kwarg("dtype");
    }
    ir::DType dt = dtype && !py::isNone(dtype) ? dtypeValue(in, dtype, "autocast(): argument 'dtype'") : st.dtype;
    if (fixedDevice == "cpu" && (!dtype || py::isNone(dtype))) dt = ir::DType::BFloat16;
    bool on = !enabled || in.truthy(enabled);
    const std::string dev = in.str(device);
    // Kiln runs on the CPU: CUDA autocast is unavailable, as on a machine without CUDA
    // (PyTorch warns and disables it). CPU autocast supports bfloat16 and float16 only.
    if (dev != "cpu") on = false;
    if (dev == "cpu" && dt != ir::DType::BFloat16 && dt != ir::DType::Float16) on = false;
    self->dict->setStr("device", py::makeStr(dev));
    self->dict->setStr("fast_dtype", std::make_shared<py::DTypeObj>(dt));
    self->dict->setStr("_enabled", py::makeBool(on));
    return py::None();
  });
  cls->dict["__enter__"] = py::makeBuiltin(qualname + ".__enter__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    int node = -1;
    ops::autocast::DeviceState prev = enter(in, blockOf(in, a.args[0]), &node);
    self->dict->setStr("_node", py::makeInt(node));
    self->dict->setStr("_prev_enabled", py::makeBool(prev.enabled));
    self->dict->setStr("_prev_dtype", std::make_shared<py::DTypeObj>(prev.dtype));
    return a.args[0];
  });
  cls->dict["__exit__"] = py::makeBuiltin(qualname + ".__exit__", [](py::Interpreter& in, CallArgs& a) -> Value {
    auto* self = py::as<py::InstanceObj>(a.args.at(0));
    Value pe = self->dict->getStr("_prev_enabled"), pd = self->dict->getStr("_prev_dtype");
    Value node = self->dict->getStr("_node");
    if (pe && pd)
      leave(in, blockOf(in, a.args[0]), {in.truthy(pe), py::as<py::DTypeObj>(pd)->d},
            node && node->kind == VK::Int ? static_cast<int>(py::as<py::IntObj>(node)->small()) : -1);
    return py::False();
  });
  // As a decorator: each call of the function runs inside the block.
  cls->dict["__call__"] = py::makeBuiltin(qualname + ".__call__", [qualname](py::Interpreter& in, CallArgs& a) -> Value {
    if (a.args.size() != 2) in.raise("TypeError", "autocast decorates one function");
    Block b = blockOf(in, a.args[0]);
    Value fn = a.args[1];
    return py::makeBuiltin(qualname + ".<decorated>", [b, fn](py::Interpreter& in, CallArgs& call) -> Value {
      int node = -1;
      ops::autocast::DeviceState prev = enter(in, b, &node);
      struct Restore {
        py::Interpreter& in;
        const Block& b;
        ops::autocast::DeviceState prev;
        int node;
        ~Restore() { leave(in, b, prev, node); }
      } restore{in, b, prev, node};
      return in.call(fn, call);
    });
  });
  in.registerClass(cls);
  return cls;
}

Value deviceArg(const CallArgs& a, size_t i) { return a.args.size() > i ? a.args[i] : a.kwarg("device_type"); }

}  // namespace

void installAutocast(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch, const std::shared_ptr<py::ModuleObj>& amp,
                     const std::shared_ptr<py::ModuleObj>& autocastMode, const std::shared_ptr<py::ModuleObj>& cpuAmp) {
  Value cls = autocastClass(in, "autocast", "", autocastMode);
  torch->scope->vars["autocast"] = cls;
  amp->scope->vars["autocast"] = cls;
  autocastMode->scope->vars["autocast"] = cls;
  cpuAmp->scope->vars["autocast"] = autocastClass(in, "autocast", "cpu", cpuAmp);

  // torch.is_autocast_enabled(device_type=None): without a device, CUDA's (PyTorch's legacy API).
  defIn(torch, "is_autocast_enabled", [](py::Interpreter& in, CallArgs& a) {
    Value d = deviceArg(a, 0);
    return py::makeBool(d ? deviceState(in, d).enabled : ops::autocast::state("cuda")->enabled);
  });
  defIn(torch, "get_autocast_dtype",
        [](py::Interpreter& in, CallArgs& a) -> Value { return std::make_shared<py::DTypeObj>(deviceState(in, deviceArg(a, 0)).dtype); });
  defIn(torch, "set_autocast_enabled", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.size() < 2) in.raise("TypeError", "set_autocast_enabled() takes a device type and a bool");
    deviceState(in, a.args[0]).enabled = in.truthy(a.args[1]);
    return py::None();
  });
  defIn(torch, "set_autocast_dtype", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.size() < 2) in.raise("TypeError", "set_autocast_dtype() takes a device type and a dtype");
    deviceState(in, a.args[0]).dtype = dtypeValue(in, a.args[1], "set_autocast_dtype(): argument 'dtype'");
    return py::None();
  });
  defIn(torch, "is_autocast_cpu_enabled", [](py::Interpreter&, CallArgs&) { return py::makeBool(ops::autocast::state("cpu")->enabled); });
  defIn(torch, "get_autocast_cpu_dtype",
        [](py::Interpreter&, CallArgs&) -> Value { return std::make_shared<py::DTypeObj>(ops::autocast::state("cpu")->dtype); });
  defIn(torch, "get_autocast_gpu_dtype",
        [](py::Interpreter&, CallArgs&) -> Value { return std::make_shared<py::DTypeObj>(ops::autocast::state("cuda")->dtype); });
  defIn(amp, "is_autocast_available", [](py::Interpreter& in, CallArgs& a) { return py::makeBool(in.str(deviceArg(a, 0)) == "cpu"); });

  // torch.set_default_dtype(d): float32 or float64 (16-bit floats too, as PyTorch allows).
  defIn(torch, "set_default_dtype", [](py::Interpreter& in, CallArgs& a) {
    Value d = a.args.empty() ? a.kwarg("d") : a.args[0];
    ir::DType dt = dtypeValue(in, d, "set_default_dtype(): argument 'd' (position 1)");
    if (!ir::isFloating(dt)) in.raise("TypeError", "only floating-point types are supported as the default type");
    ir::setDefaultFloatDType(dt);
    return py::None();
  });
  defIn(torch, "get_default_dtype",
        [](py::Interpreter&, CallArgs&) -> Value { return std::make_shared<py::DTypeObj>(ir::defaultFloatDType()); });
}

}  // namespace kiln::torchapi
