#include "engine/driver/builtin_backends.h"

namespace kiln::driver {

namespace {

// A built-in backend: compileGraph with the options it was made with.
class BuiltinBackend : public capture::Backend {
 public:
  BuiltinBackend(BackendOptions opts, codegen::KernelCompiler* cpu) : opts_(std::move(opts)), cpu_(cpu) {}

  capture::CompiledCode compile(const ir::Graph& graph, const std::string& compileId, session::SessionSink& sink,
                                const capture::CompileRequest& request) override {
    capture::CompiledCode out;
    std::shared_ptr<DynamicCode> dynamic;
    BackendOptions opts = opts_;
    opts.mode = request.mode;
    out.run = compileGraph(graph, compileId, opts, sink, cpu_, request.shown, request.dynamicInputs, &dynamic,
                           request.wantBackward ? &out.backward : nullptr);
    out.reusable = std::move(dynamic);
    return out;
  }

  bool reportsCapturedStage() const override { return true; }

  capture::GraphRunner reuse(const ir::Graph& graph, const std::vector<ir::TensorType>& dynamicInputs, const capture::ReusableCode& code,
                             std::string* why) override {
    const auto* dynamic = dynamic_cast<const DynamicCode*>(&code);
    if (!dynamic) return capture::Backend::reuse(graph, dynamicInputs, code, why);
    return reuseDynamicCode(graph, dynamicInputs, *dynamic, opts_, why);
  }

 private:
  BackendOptions opts_;
  codegen::KernelCompiler* cpu_;
};

capture::BackendRegistry::Factory factoryFor(const std::string& name) {
  return [name](const capture::BackendConfig& config) {
    BackendOptions opts;
    opts.backend = name;
    opts.passes = config.passes;
    return makeBuiltinBackend(opts, config.cpu);
  };
}

}  // namespace

std::shared_ptr<capture::Backend> makeBuiltinBackend(const BackendOptions& opts, codegen::KernelCompiler* cpu) {
  return std::make_shared<BuiltinBackend>(opts, cpu);
}

void registerBuiltinBackends(capture::BackendRegistry& registry) {
  for (const auto& [name, description] : builtinBackendNames())
    if (!registry.contains(name)) registry.add(name, description, factoryFor(name));
}

}  // namespace kiln::driver
