// torch.compile's options and config as torch reads them (capture_hooks.h).
#include "engine/torch/capture_hooks.h"

#include <utility>

namespace kiln::torchapi {

using py::CallArgs;
using py::Value;
using py::VK;

namespace {
std::function<bool(const std::string&)>& backendLookup() {
  static std::function<bool(const std::string&)> lookup;
  return lookup;
}
}  // namespace

bool backendExists(const std::string& name) {
  const auto& lookup = backendLookup();
  return lookup && lookup(name);
}

void setBackendLookup(std::function<bool(const std::string&)> lookup) { backendLookup() = std::move(lookup); }

CompileOptions parseCompileOptions(py::Interpreter& in, const CallArgs& a) {
  CompileOptions o;
  if (in.compiler) o.backend = compilerOf(in)->defaultBackend();
  // Inductor checks them when torch.compile is called (not with --eager, where it is the identity).
  Value mode = a.kwarg("mode"), options = a.kwarg("options");
  if (in.compiler && mode && !py::isNone(mode) && options && !py::isNone(options))
    in.raise("RuntimeError", "Either mode or options can be specified, but both can't be specified at the same time.");
  if (in.compiler && mode && mode->kind == VK::Str) {
    const std::string m = in.str(mode);
    if (m != "default" && m != "reduce-overhead" && m != "max-autotune" && m != "max-autotune-no-cudagraphs")
      in.raise("RuntimeError",
               "Unrecognized mode=" + m + ", should be one of: default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs");
  }
  for (const auto& [k, v] : a.kwargs) {
    if (k == "backend") {
      if (v->kind != VK::Str) in.raise("TypeError", "torch.compile(backend=...) must be a backend name string in Kiln");
      o.backend = py::as<py::StrObj>(v)->v;
      // torch._dynamo.backends.registry.lookup_backend: exc.InvalidBackend(name), the name as repr().
      if (!backendExists(o.backend))
        in.raise("InvalidBackend", "Invalid backend: " + in.repr(v) + ", see `torch._dynamo.list_backends()` for available backends.");
    } else if (k == "fullgraph") {
      o.fullgraph = in.truthy(v);
    } else if (k == "dynamic") {
      if (!py::isNone(v)) o.dynamic = in.truthy(v);
    } else if (k == "mode") {
      if (!py::isNone(v)) o.mode = in.str(v);
    } else if (k != "options" && k != "disable") {
      in.raise("TypeError", "compile() got an unexpected keyword argument '" + k + "'");
    }
  }
  // Inductor's options are checked when torch.compile is called (capture/inductor_options.cpp).
  if (in.compiler && o.backend == "inductor" && options && !py::isNone(options)) compilerOf(in)->checkInductorOptions(in, options);
  return o;
}

Value dynamoConfig(py::Interpreter& in, const std::string& name) {
  auto cfg = in.importModule("torch._dynamo.config");
  auto it = cfg->scope->vars.find(name);
  return it == cfg->scope->vars.end() ? nullptr : it->second;
}

std::string fxBaseName(const std::string& target) { return target.substr(target.rfind('.') + 1); }

}  // namespace kiln::torchapi
