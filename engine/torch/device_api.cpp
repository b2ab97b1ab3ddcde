#include "engine/torch/device_api.h"

#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/ops/device_dispatch.h"
#include "engine/ops/op_table.h"
#include "engine/ops/random.h"
#include "engine/runtime/cuda_conv.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/process_group.h"
#include "engine/torch/bindings.h"

#include <functional>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {

tensor::Device gDefault;  // torch.set_default_device
std::shared_ptr<py::ClassObj> gDeviceClass;

// Device types PyTorch's parser knows, in its message's order; Kiln runs cpu and cuda.
const char* const kDeviceTypes[] = {"cpu",  "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",  "ve",
                                    "fpga", "maia", "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "mtia", "privateuseone"};

std::string typeOf(const Value& d) { return py::as<py::StrObj>(py::as<py::InstanceObj>(d)->dict->getStr("type"))->v; }
int64_t indexOf(const Value& d) {
  Value i = py::as<py::InstanceObj>(d)->dict->getStr("index");
  return py::isNone(i) ? -1 : py::as<py::IntObj>(i)->small();
}

Value makeDeviceValue(const std::string& type, int64_t index) {
  auto inst = std::make_shared<py::InstanceObj>(gDeviceClass);
  inst->dict->setStr("type", py::makeStr(type));
  inst->dict->setStr("index", index < 0 ? py::None() : py::makeInt(index));
  return inst;
}

// torch.device(str) / torch.device(type, index) / torch.device(int), as c10::Device parses.
Value newDevice(py::Interpreter& in, const Value& spec, const Value& indexArg) {
  if (spec->kind == VK::Int) {
    if (indexArg && !py::isNone(indexArg)) in.raise("TypeError", "device() received an invalid combination of arguments");
    int64_t i = py::as<py::IntObj>(spec)->small();
    if (i < 0) in.raise("RuntimeError", "Device index must not be negative");
    return makeDeviceValue("cuda", i);
  }
  if (isDevice(spec)) {
    if (indexArg && !py::isNone(indexArg)) in.raise("TypeError", "device() received an invalid combination of arguments");
    return spec;
  }
  if (spec->kind != VK::Str)
    in.raise("TypeError", "device() received an invalid combination of arguments - got (" + py::typeName(spec) + ")");
  const std::string s = py::as<py::StrObj>(spec)->v;
  std::string type = s;
  int64_t index = -1;
  if (auto colon = s.find(':'); colon != std::string::npos) {
    type = s.substr(0, colon);
    std::string digits = s.substr(colon + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || (digits.size() > 1 && digits[0] == '0'))
      in.raise("RuntimeError", "Invalid device string: '" + s + "'");
    index = std::stoll(digits);
  }
  bool known = false;
  for (const char* t : kDeviceTypes) known = known || type == t;
  if (!known) {
    std::string list;
    for (const char* t : kDeviceTypes) list += (list.empty() ? "" : ", ") + std::string(t);
    in.raise("RuntimeError", "Expected one of " + list + " device type at start of device string: " + s);
  }
  if (indexArg && !py::isNone(indexArg)) {
    if (index >= 0) in.raise("RuntimeError", "type (string) must not include an index because index was passed explicitly: " + s);
    if (indexArg->kind != VK::Int) in.raise("TypeError", "device() received an invalid combination of arguments");
    index = py::as<py::IntObj>(indexArg)->small();
    if (index < 0) in.raise("RuntimeError", "Device index must not be negative");
  }
  return makeDeviceValue(type, index);
}

// A TorchError from the runtime (lazyInit, copies) as the Python exception it names.
template <class F>
auto guarded(py::Interpreter& in, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const tensor::TorchError& e) { in.raise(e.type(), e.what()); }
}

void cudaInit(py::Interpreter& in, int index = -1) {
  guarded(in, [&] { runtime::cuda::lazyInit(index); });
}

// CUDA's generator: the one the device kernels' random ops (dropout's bernoulli, rand_like) draw
// from, so torch.manual_seed / torch.cuda.manual_seed seed them.
Generator& cudaGenerator() { return deviceGenerator(); }

void def(const std::shared_ptr<py::ModuleObj>& m, const std::string& name, py::NativeFn fn) {
  m->scope->vars[name] = py::makeBuiltin(m->name + "." + name, std::move(fn));
  py::as<py::BuiltinObj>(m->scope->vars[name])->isMethod = false;
}

std::shared_ptr<py::ModuleObj> module(py::Interpreter& in, const std::string& name) {
  auto m = std::make_shared<py::ModuleObj>(name);
  m->scope->vars["__name__"] = py::makeStr(name);
  in.registerModule(m);
  return m;
}

std::shared_ptr<py::ClassObj> nativeClass(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& m, const std::string& name) {
  auto cls = std::make_shared<py::ClassObj>();
  cls->name = cls->qualname = name;
  cls->mro.push_back(cls);
  if (auto o = in.builtinClass("object")) cls->mro.push_back(o), cls->bases.push_back(o);
  cls->module = m;
  in.registerClass(cls);
  m->scope->vars[name] = cls;
  return cls;
}

// torch.cuda.Event: a CUDA event made on first record() (as PyTorch's, lazily).
struct Event {
  bool timing = false;
  void* ev = nullptr;
  ~Event() {
    if (ev && runtime::cuda::isInitialized()) runtime::cuda::driver().destroyEvent(ev);
  }
};

void installCudaModule(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch) {
  auto cuda = module(in, "torch.cuda");
  torch->scope->vars["cuda"] = cuda;
  def(cuda, "is_available", [](py::Interpreter&, CallArgs&) { return py::makeBool(runtime::cuda::isAvailable()); });
  def(cuda, "device_count", [](py::Interpreter&, CallArgs&) { return py::makeInt(runtime::cuda::deviceCount()); });
  def(cuda, "is_initialized", [](py::Interpreter&, CallArgs&) { return py::makeBool(runtime::cuda::isInitialized()); });
  def(cuda, "init", [](py::Interpreter& in, CallArgs&) { return cudaInit(in), py::None(); });
  def(cuda, "current_device", [](py::Interpreter& in, CallArgs&) { return cudaInit(in), py::makeInt(runtime::cuda::currentDevice()); });
  def(cuda, "set_device", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.empty() && !a.kwarg("device")) in.raise("TypeError", "set_device() missing 1 required positional argument: 'device'");
    tensor::Device d = parseDevice(in, a.args.empty() ? a.kwarg("device") : a.args[0]);
    if (!d.isCuda()) in.raise("ValueError", "Expected a cuda device, but got: " + d.str());
    return cudaInit(in, d.index), py::None();
  });
  auto deviceIndexArg = [](py::Interpreter& in, CallArgs& a) {
    Value v = !a.args.empty() ? a.args[0] : a.kwarg("device");
    int index = -1;  // the current device
    if (v && !py::isNone(v)) index = parseDevice(in, v).index;
    cudaInit(in, index);
  };
  def(cuda, "get_device_name", [deviceIndexArg](py::Interpreter& in, CallArgs& a) {
    deviceIndexArg(in, a);
    return py::makeStr(runtime::cuda::driver().name());
  });
  def(cuda, "get_device_capability", [deviceIndexArg](py::Interpreter& in, CallArgs& a) {
    deviceIndexArg(in, a);
    auto& d = runtime::cuda::driver();
    return py::makeTuple({py::makeInt(d.major()), py::makeInt(d.minor())});
  });
  def(cuda, "synchronize", [deviceIndexArg](py::Interpreter& in, CallArgs& a) {
    deviceIndexArg(in, a);
    guarded(in, [] { runtime::cuda::driver().synchronize(); });
    return py::None();
  });
  // Seeds take effect lazily in PyTorch (queued until CUDA starts): never an error.
  for (const char* name : {"manual_seed", "manual_seed_all"})
    def(cuda, name, [name](py::Interpreter& in, CallArgs& a) {
      if (a.args.empty()) in.raise("TypeError", std::string(name) + "() missing 1 required positional argument: 'seed'");
      Value s = a.args[0];
      if (s->kind != VK::Int && s->kind != VK::Bool) in.raise("TypeError", "manual_seed expected a long, but got " + py::typeName(s));
      cudaGenerator().manualSeed(static_cast<uint64_t>(s->kind == VK::Int ? py::as<py::IntObj>(s)->small() : py::as<py::BoolObj>(s)->v));
      return py::None();
    });
  def(cuda, "initial_seed", [](py::Interpreter& in, CallArgs&) {
    cudaInit(in);
    return py::makeInt(static_cast<int64_t>(cudaGenerator().initialSeed()));
  });
  // Memory figures: 0 before CUDA starts (PyTorch's memory_stats() is empty then).
  using Field = uint64_t runtime::CudaMemoryStats::*;
  for (auto [name, field] : {std::pair<const char*, Field>{"memory_allocated", &runtime::CudaMemoryStats::allocated},
                             {"max_memory_allocated", &runtime::CudaMemoryStats::maxAllocated},
                             {"memory_reserved", &runtime::CudaMemoryStats::reserved},
                             {"max_memory_reserved", &runtime::CudaMemoryStats::maxReserved}}) {
    Field f = field;
    def(cuda, name, [f](py::Interpreter& in, CallArgs& a) {
      if (Value v = !a.args.empty() ? a.args[0] : a.kwarg("device"); v && !py::isNone(v)) parseDevice(in, v);
      if (!runtime::cuda::isInitialized()) return py::makeInt(0);
      return py::makeInt(static_cast<int64_t>(runtime::cuda::allocator().stats().*f));
    });
  }
  def(cuda, "empty_cache", [](py::Interpreter& in, CallArgs&) {
    if (runtime::cuda::isInitialized()) guarded(in, [] { runtime::cuda::allocator().emptyCache(); });
    return py::None();
  });
  for (const char* name : {"reset_peak_memory_stats", "reset_max_memory_allocated"})
    def(cuda, name, [deviceIndexArg](py::Interpreter& in, CallArgs& a) {
      deviceIndexArg(in, a);
      runtime::cuda::allocator().resetPeakStats();
      return py::None();
    });
  def(cuda, "mem_get_info", [deviceIndexArg](py::Interpreter& in, CallArgs& a) {
    deviceIndexArg(in, a);
    size_t freeBytes = 0, total = 0;
    guarded(in, [&] { runtime::cuda::driver().memGetInfo(&freeBytes, &total); });
    return py::makeTuple({py::makeInt(static_cast<int64_t>(freeBytes)), py::makeInt(static_cast<int64_t>(total))});
  });

  // torch.cuda.Event(enable_timing=False, blocking=False, interprocess=False).
  auto ev = nativeClass(in, cuda, "Event");
  auto self = [](py::Interpreter& in, const CallArgs& a) -> Event& {
    if (a.args.empty() || a.args[0]->kind != VK::Instance || !py::as<py::InstanceObj>(a.args[0])->native)
      in.raise("TypeError", "descriptor requires a 'torch._C._CudaEventBase' object");
    return *static_cast<Event*>(py::as<py::InstanceObj>(a.args[0])->native.get());
  };
  ev->dict["__init__"] = py::makeBuiltin("Event.__init__", [](py::Interpreter& in, CallArgs& a) {
    auto e = std::make_shared<Event>();
    Value t = a.args.size() > 1 ? a.args[1] : a.kwarg("enable_timing");
    e->timing = t && in.truthy(t);
    py::as<py::InstanceObj>(a.args.at(0))->native = e;
    return py::None();
  });
  ev->dict["record"] = py::makeBuiltin("Event.record", [self](py::Interpreter& in, CallArgs& a) {
    Event& e = self(in, a);
    cudaInit(in);
    guarded(in, [&] {
      if (!e.ev) e.ev = runtime::cuda::driver().createEvent(e.timing);
      runtime::cuda::driver().recordEvent(e.ev);
    });
    return py::None();
  });
  ev->dict["synchronize"] = py::makeBuiltin("Event.synchronize", [self](py::Interpreter& in, CallArgs& a) {
    Event& e = self(in, a);
    if (e.ev) guarded(in, [&] { runtime::cuda::driver().synchronizeEvent(e.ev); });
    return py::None();
  });
  ev->dict["query"] = py::makeBuiltin("Event.query", [self](py::Interpreter& in, CallArgs& a) {
    Event& e = self(in, a);
    return py::makeBool(!e.ev || guarded(in, [&] { return runtime::cuda::driver().eventDone(e.ev); }));
  });
  ev->dict["elapsed_time"] = py::makeBuiltin("Event.elapsed_time", [self](py::Interpreter& in, CallArgs& a) {
    Event& start = self(in, a);
    CallArgs other;
    other.args = {a.args.size() > 1 ? a.args[1] : a.kwarg("end_event")};
    if (!other.args[0]) in.raise("TypeError", "elapsed_time() missing 1 required positional argument: 'end_event'");
    Event& end = self(in, other);
    if (!start.timing || !end.timing) in.raise("RuntimeError", "Both events must be created with argument 'enable_timing=True'.");
    if (!start.ev || !end.ev) in.raise("RuntimeError", "Both events must be recorded before calculating elapsed time.");
    return py::makeFloat(guarded(in, [&] { return static_cast<double>(runtime::cuda::driver().elapsedMs(start.ev, end.ev)); }));
  });

  // torch.cuda.nccl: the NCCL library torch.distributed's nccl backend loads (process_group.h).
  auto ncclModule = module(in, "torch.cuda.nccl");
  cuda->scope->vars["nccl"] = ncclModule;
  def(ncclModule, "version", [](py::Interpreter& in, CallArgs&) {
    runtime::dist::NcclVersion v = runtime::dist::ncclVersion();
    if (!v.error.empty()) in.raise("RuntimeError", "Kiln cannot load NCCL: " + v.error);
    return py::makeTuple({py::makeInt(v.major), py::makeInt(v.minor), py::makeInt(v.patch)});
  });
  def(ncclModule, "is_available", [](py::Interpreter& in, CallArgs& a) {
    if (a.args.empty()) in.raise("TypeError", "is_available() missing 1 required positional argument: 'tensors'");
    if (!runtime::dist::ncclVersion().error.empty()) return py::False();
    for (const Value& t : in.iterate(a.args[0])) {
      if (t->kind != VK::Tensor || py::as<py::TensorObj>(t)->fake) return py::False();
      auto* x = py::as<py::TensorObj>(t);
      if (!x->t.device().isCuda() || !x->t.isContiguous()) return py::False();
    }
    return py::True();
  });

  // torch.cuda.Stream: the one stream Kiln runs on.
  auto stream = nativeClass(in, cuda, "Stream");
  stream->dict["synchronize"] = py::makeBuiltin("Stream.synchronize", [](py::Interpreter& in, CallArgs&) {
    cudaInit(in);
    guarded(in, [] { runtime::cuda::driver().synchronize(); });
    return py::None();
  });
  for (const char* name : {"current_stream", "default_stream"})
    def(cuda, name, [stream](py::Interpreter& in, CallArgs&) -> Value {
      cudaInit(in);
      return std::make_shared<py::InstanceObj>(stream);
    });
}

}  // namespace

bool isDevice(const Value& v) { return v && v->kind == VK::Instance && gDeviceClass && py::as<py::InstanceObj>(v)->cls == gDeviceClass; }

Value makeDevice(py::Interpreter&, const tensor::Device& d) { return makeDeviceValue(d.isCpu() ? "cpu" : "cuda", d.index); }

tensor::Device parseDevice(py::Interpreter& in, const Value& v) {
  Value d = newDevice(in, v, nullptr);
  const std::string type = typeOf(d);
  const int64_t index = indexOf(d);
  if (type == "cpu") return tensor::Device::cpu();
  if (type == "cuda") return {tensor::DeviceType::CUDA, static_cast<int>(index)};
  in.raise("NotImplementedError", "Kiln runs tensors on the cpu and cuda devices only, not on '" + type + "'");
}

tensor::Device defaultDevice() { return gDefault; }
void setDefaultDevice(const tensor::Device& d) { gDefault = d; }

tensor::Device targetDevice(py::Interpreter& in, const Value& v) {
  tensor::Device d = v && !py::isNone(v) ? parseDevice(in, v) : gDefault;
  if (d.isCuda()) {
    cudaInit(in, d.index);
    if (d.index < 0) d.index = runtime::cuda::currentDevice();
  }
  return d;
}

tensor::Tensor moveTo(py::Interpreter& in, const tensor::Tensor& t, const tensor::Device& d) {
  if (d.isCuda()) cudaInit(in, d.index);
  return guarded(in, [&] { return t.toDevice(d); });
}

void installDeviceApi(py::Interpreter& in, const std::shared_ptr<py::ModuleObj>& torch) {
  auto& T = torch->scope->vars;
  gDefault = tensor::Device::cpu();  // a new interpreter is a new process: the CPU until set
  gDeviceClass = nativeClass(in, torch, "device");
  gDeviceClass->dict["__new__"] = py::makeBuiltin("device.__new__", [](py::Interpreter& in, CallArgs& a) -> Value {
    Value spec = a.args.size() > 1 ? a.args[1] : a.kwarg("type");
    if (!spec) in.raise("TypeError", "device() received an invalid combination of arguments - got ()");
    return newDevice(in, spec, a.args.size() > 2 ? a.args[2] : a.kwarg("index"));
  });
  gDeviceClass->dict["__repr__"] = py::makeBuiltin("device.__repr__", [](py::Interpreter&, CallArgs& a) {
    const int64_t i = indexOf(a.args.at(0));
    return py::makeStr("device(type='" + typeOf(a.args[0]) + "'" + (i >= 0 ? ", index=" + std::to_string(i) : "") + ")");
  });
  gDeviceClass->dict["__str__"] = py::makeBuiltin("device.__str__", [](py::Interpreter&, CallArgs& a) {
    const int64_t i = indexOf(a.args.at(0));
    return py::makeStr(typeOf(a.args[0]) + (i >= 0 ? ":" + std::to_string(i) : ""));
  });
  gDeviceClass->dict["__eq__"] = py::makeBuiltin("device.__eq__", [](py::Interpreter&, CallArgs& a) {
    const Value& x = a.args.at(0);
    const Value& y = a.args.at(1);
    return py::makeBool(isDevice(y) && typeOf(x) == typeOf(y) && indexOf(x) == indexOf(y));
  });
  gDeviceClass->dict["__ne__"] = py::makeBuiltin("device.__ne__", [](py::Interpreter&, CallArgs& a) {
    const Value& x = a.args.at(0);
    const Value& y = a.args.at(1);
    return py::makeBool(!(isDevice(y) && typeOf(x) == typeOf(y) && indexOf(x) == indexOf(y)));
  });
  gDeviceClass->dict["__hash__"] = py::makeBuiltin("device.__hash__", [](py::Interpreter&, CallArgs& a) {
    return py::makeInt(static_cast<int64_t>(std::hash<std::string>{}(typeOf(a.args.at(0))) ^ static_cast<size_t>(indexOf(a.args[0]) + 1)));
  });
  T["device"] = gDeviceClass;

  def(torch, "set_default_device", [](py::Interpreter& in, CallArgs& a) {
    Value v = !a.args.empty() ? a.args[0] : a.kwarg("device");
    gDefault = v && !py::isNone(v) ? parseDevice(in, v) : tensor::Device::cpu();
    return py::None();
  });
  def(torch, "get_default_device", [](py::Interpreter& in, CallArgs&) {
    tensor::Device d = gDefault;
    if (d.isCuda() && d.index < 0) {
      cudaInit(in);
      d.index = runtime::cuda::currentDevice();
    }
    return makeDevice(in, d);
  });

  // torch.version: the CUDA version is NVRTC's (the toolkit Kiln compiles kernels with), None
  // where there is none, as a CPU build of PyTorch says.
  auto version = module(in, "torch.version");
  T["version"] = version;
  version->scope->vars["__version__"] = T.count("__version__") ? T["__version__"] : py::makeStr("2.11.0+kiln");
  std::string why;
  auto* nvrtc = codegen::cuda::Nvrtc::instance(&why);
  version->scope->vars["cuda"] = nvrtc ? py::makeStr(nvrtc->version()) : py::None();
  version->scope->vars["hip"] = py::None();
  version->scope->vars["debug"] = py::False();

  // torch.backends.cudnn / cuda: the flags scripts set. allow_tf32 of each reaches the runtime
  // when assigned (PyTorch's module properties call torch._C._set_cudnn_allow_tf32 /
  // _set_cublas_allow_tf32), read at each convolution / GEMM; every script starts from PyTorch's
  // defaults (cuDNN True, cuBLAS False), as every PyTorch process does. benchmark and
  // deterministic are stored only (Kiln's cuDNN path always takes the heuristics' first fit).
  auto backends = module(in, "torch.backends");
  T["backends"] = backends;
  auto cudnn = module(in, "torch.backends.cudnn");
  backends->scope->vars["cudnn"] = cudnn;
  cudnn->scope->vars["enabled"] = py::True();
  cudnn->scope->vars["benchmark"] = py::False();
  cudnn->scope->vars["deterministic"] = py::False();
  runtime::cuda::setCudnnAllowTf32(true);
  cudnn->scope->vars["allow_tf32"] = py::True();
  cudnn->onSetAttr = [](py::Interpreter& in, const std::string& name, const Value& v) {
    if (name != "allow_tf32") return;
    if (v->kind != VK::Bool) in.raise("RuntimeError", "set_allow_tf32_cuDNN expects a bool, but got " + py::typeName(v));
    runtime::cuda::setCudnnAllowTf32(py::as<py::BoolObj>(v)->v);
  };
  // PyTorch's: True and cudnnGetVersion() (91002 for 9.10.2) where cuDNN loads, else False and
  // None. Loading the library needs no GPU.
  def(cudnn, "is_available", [](py::Interpreter&, CallArgs&) { return py::makeBool(runtime::cuda::cudnnVersion() > 0); });
  def(cudnn, "version", [](py::Interpreter&, CallArgs&) {
    const long v = runtime::cuda::cudnnVersion();
    return v > 0 ? py::makeInt(v) : py::None();
  });
  auto bcuda = module(in, "torch.backends.cuda");
  backends->scope->vars["cuda"] = bcuda;
  auto matmul = module(in, "torch.backends.cuda.matmul");
  bcuda->scope->vars["matmul"] = matmul;
  runtime::cuda::setCublasAllowTf32(false);
  matmul->scope->vars["allow_tf32"] = py::False();
  matmul->onSetAttr = [](py::Interpreter& in, const std::string& name, const Value& v) {
    if (name != "allow_tf32") return;
    if (v->kind != VK::Bool) in.raise("RuntimeError", "set_allow_tf32_cublas expects a bool, but got " + py::typeName(v));
    runtime::cuda::setCublasAllowTf32(py::as<py::BoolObj>(v)->v);
  };
  matmul->scope->vars["allow_fp16_reduced_precision_reduction"] = py::True();
  def(bcuda, "is_built", [](py::Interpreter&, CallArgs&) { return py::True(); });

  installCudaModule(in, torch);
}

Value deviceFactoryCall(py::Interpreter& in, const Value& fn, CallArgs& a, bool like, bool random) {
  Value dev = a.kwarg("device");
  const bool given = dev && !py::isNone(dev);
  // *_like and new_*: the input's device unless device= says another.
  tensor::Device from = tensor::Device::cpu();
  if (like && !a.args.empty() && a.args[0]->kind == VK::Tensor) {
    auto* x = py::as<py::TensorObj>(a.args[0]);
    if (x->fake) {
      if (x->type.device != "cpu") from = ops::parseDeviceString(x->type.device);
    } else {
      from = x->t.device();
    }
  }
  tensor::Device target = given ? targetDevice(in, dev) : like ? from : targetDevice(in, nullptr);
  if (target.isCpu() && from.isCpu()) return in.call(fn, a);  // as before
  CallArgs c = a;
  std::erase_if(c.kwargs, [](const auto& kv) { return kv.first == "device"; });
  if (!from.isCpu()) {
    // Only the input's sizes and dtype matter: a CPU stand-in of its shape.
    auto* x = py::as<py::TensorObj>(a.args[0]);
    if (x->fake) notSupported(in, "Creating a tensor like a " + from.str() + " tensor while capturing");
    c.args[0] = py::makeTensor(tensor::Tensor::empty(x->t.sizes(), x->t.dtype()));
  }
  if (target.isCpu()) return in.call(fn, c);
  if (in.tracer) notSupported(in, "Creating a " + target.str() + " tensor while capturing");
  if (random) std::swap(cudaGenerator(), defaultGenerator());
  Value r;
  try {
    r = in.call(fn, c);
  } catch (...) {
    if (random) std::swap(cudaGenerator(), defaultGenerator());
    throw;
  }
  if (random) std::swap(cudaGenerator(), defaultGenerator());
  if (r->kind != VK::Tensor) return r;
  tensor::Tensor t = py::as<py::TensorObj>(r)->t;
  tensor::Tensor moved = moveTo(in, t.detach(), target);
  if (t.requiresGrad()) moved.setRequiresGrad(true);
  return py::makeTensor(std::move(moved));
}

tensor::Tensor onHost(py::Interpreter& in, const tensor::Tensor& t) {
  if (t.isCpu()) return t;
  return guarded(in, [&] { return t.toDevice(tensor::Device::cpu()); });
}

Value tensorTo(py::Interpreter& in, const Value& self, const std::string& method, CallArgs& a) {
  auto* x = py::as<py::TensorObj>(self);
  const tensor::Device cur = x->fake ? ops::parseDeviceString(x->type.device) : x->t.device();
  Value spec;     // the device asked for, if any
  CallArgs rest;  // what the dtype-converting Tensor.to sees (no device in it)
  rest.span = a.span;
  if (method == "cpu") {
    spec = py::makeStr("cpu");
  } else if (method == "cuda") {
    spec = !a.args.empty() ? a.args[0] : a.kwarg("device");
    if (!spec || py::isNone(spec)) spec = py::makeStr("cuda");
    if (spec->kind == VK::Int) spec = py::makeStr("cuda:" + std::to_string(py::as<py::IntObj>(spec)->small()));
  } else {
    for (size_t i = 0; i < a.args.size(); ++i) {
      const Value& v = a.args[i];
      if (v->kind == VK::Tensor) {  // .to(other): other's device and dtype
        auto* o = py::as<py::TensorObj>(v);
        spec = makeDevice(in, o->fake ? ops::parseDeviceString(o->type.device) : o->t.device());
        rest.args.push_back(std::make_shared<py::DTypeObj>(o->tensorType().dtype));
      } else if (i == 0 && (v->kind == VK::Str || isDevice(v) || v->kind == VK::Int)) {
        spec = v->kind == VK::Int ? py::makeStr("cuda:" + std::to_string(py::as<py::IntObj>(v)->small())) : v;
      } else {
        rest.args.push_back(v);
      }
    }
    for (const auto& [k, v] : a.kwargs) {
      if (k == "device") spec = v;
      else if (k != "non_blocking") rest.kwargs.emplace_back(k, v);
    }
  }
  std::optional<tensor::Device> target;
  if (spec && !py::isNone(spec)) {
    target = parseDevice(in, spec);
    if (target->isCuda() && target->index < 0) {
      cudaInit(in);
      target->index = runtime::cuda::currentDevice();
    }
  }
  auto convert = [&](const Value& v) -> Value {
    if (rest.args.empty() && rest.kwargs.empty()) return v;
    CallArgs c = rest;
    c.args.insert(c.args.begin(), v);
    return callTorch(in, "to", ir::NodeKind::CallMethod, c);
  };
  if (!target || *target == cur) {  // no copy: Tensor.to as before (recorded while capturing)
    // x.to('cpu') on the CPU is x itself (recorded as a call while capturing, as Dynamo does).
    if (method != "to" || (!in.tracer && rest.args.empty() && rest.kwargs.empty())) return self;
    CallArgs c = a;
    c.args.insert(c.args.begin(), self);
    return callTorch(in, "to", ir::NodeKind::CallMethod, c);
  }
  if (x->fake) notSupported(in, "Tensor." + method + "() from " + cur.str() + " to " + target->str() + " while capturing");
  auto move = [&](const Value& v) -> Value {
    if (target->isCuda()) cudaInit(in, target->index);
    ops::EagerDispatcher e;
    try {
      // Through the dispatcher, so autograd records the copy (ToCopyBackward0).
      return fromVal(in, e.call(ops::op(ops::kToDeviceOp), {toVal(in, v), ops::Val::string(target->str())}));
    } catch (const tensor::TorchError& err) { rethrow(in, err); }
  };
  // A dtype change happens on the CPU side (before an upload, after a download).
  if (target->isCuda()) return move(convert(self));
  return convert(move(self));
}

void wrapFactories(const std::shared_ptr<py::ModuleObj>& torch) {
  auto& T = torch->scope->vars;
  struct F {
    const char* name;
    bool like, random;
  };
  static const F kFactories[] = {
      {"zeros", false, false},        {"ones", false, false},         {"empty", false, false},         {"full", false, false},
      {"arange", false, false},       {"linspace", false, false},     {"logspace", false, false},      {"eye", false, false},
      {"tensor", false, false},       {"as_tensor", false, false},    {"scalar_tensor", false, false}, {"empty_strided", false, false},
      {"tril_indices", false, false}, {"triu_indices", false, false}, {"rand", false, true},           {"randn", false, true},
      {"randint", false, true},       {"randperm", false, true},      {"normal", false, true},         {"zeros_like", true, false},
      {"ones_like", true, false},     {"empty_like", true, false},    {"full_like", true, false},      {"rand_like", true, true},
      {"randn_like", true, true},     {"randint_like", true, true}};
  for (const F& f : kFactories) {
    auto it = T.find(f.name);
    if (it == T.end()) continue;
    Value orig = it->second;
    const bool like = f.like, random = f.random;
    it->second = py::makeBuiltin(std::string("torch.") + f.name, [orig, like, random](py::Interpreter& in, CallArgs& a) {
      return deviceFactoryCall(in, orig, a, like, random);
    });
    py::as<py::BuiltinObj>(it->second)->isMethod = false;
  }
  // torch.manual_seed seeds every device's generator, as PyTorch's does.
  if (auto it = T.find("manual_seed"); it != T.end()) {
    Value orig = it->second;
    it->second = py::makeBuiltin("torch.manual_seed", [orig](py::Interpreter& in, CallArgs& a) {
      Value r = in.call(orig, a);
      if (!a.args.empty() && a.args[0]->kind == VK::Int)
        cudaGenerator().manualSeed(static_cast<uint64_t>(py::as<py::IntObj>(a.args[0])->small()));
      return r;
    });
    py::as<py::BuiltinObj>(it->second)->isMethod = false;
  }
}

}  // namespace kiln::torchapi
