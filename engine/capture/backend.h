// What capture hands a captured graph to: a `Backend` (torch.compile(backend="name")), made by
// the factory a `BackendRegistry` holds under that name. Capture knows only this interface; the
// backends themselves live above it (engine/driver registers "inductor", "eager" and
// "aot_eager"; a plugin registers its own the same way).
//
// Usage (a backend of one's own):
//
//   class MyBackend : public capture::Backend {
//    public:
//     capture::CompiledCode compile(const ir::Graph& g, const std::string& compileId,
//                                   session::SessionSink& sink, const capture::CompileRequest&) override {
//       ir::Graph graph = g;  // report any stages after "captured" to `sink` as they are made
//       return {[graph](const std::vector<tensor::Tensor>& in) { return runMyWay(graph, in); }};
//     }
//   };
//   capture::BackendRegistry::global().add("mine", "runs graphs my way",
//       [](const capture::BackendConfig&) { return std::make_shared<MyBackend>(); });
//
// after which `torch.compile(f, backend="mine")` compiles f's graphs with it. An unknown name
// is PyTorch's InvalidBackend error at torch.compile.
#pragma once

#include "engine/ir/graph.h"
#include "engine/passes/pass_manager.h"
#include "engine/session/sink.h"
#include "engine/tensor/tensor.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen {
class KernelCompiler;
}

namespace kiln::capture {

// Runs a compiled graph on real tensors: the graph's inputs in placeholder order in, its
// outputs out.
using GraphRunner = std::function<std::vector<tensor::Tensor>(const std::vector<tensor::Tensor>&)>;

// The compiled backward of a graph whose inputs require grad: from the forward's inputs, the
// tensors its forward saved for backward and the gradient of each forward output (undefined
// where none flowed), the gradient of each forward input (undefined where none). nullopt when it
// cannot serve the call (the caller then differentiates eagerly).
struct BackwardCode {
  std::function<std::optional<std::vector<tensor::Tensor>>(
      const std::vector<tensor::Tensor>& inputs, const std::vector<tensor::Tensor>& saved, const std::vector<tensor::Tensor>& outputGrads)>
      run;
  std::vector<bool> requiresGrad;  // per forward input, as compiled
  // A partitioned backward (passes/partition.h) reads `savedCount` activations of its forward.
  // The forward's runner leaves them in `lastSaved` after every call (its outputs stay the
  // graph's own, so every wrapper around a runner still works); the caller takes them right
  // after the call and keeps them with the autograd node. Empty when the forward did not run
  // through that runner (the backward then says nullopt).
  size_t savedCount = 0;
  std::shared_ptr<std::optional<std::vector<tensor::Tensor>>> lastSaved = std::make_shared<std::optional<std::vector<tensor::Tensor>>>();
};

// What a backend keeps of a dynamic entry's compile so that a call at another shape can run the
// same code (Backend::reuse); opaque to capture.
struct ReusableCode {
  virtual ~ReusableCode() = default;
};

// What capture knows about a graph besides the graph itself.
struct CompileRequest {
  const ir::Graph* shown = nullptr;  // the graph as the user sees it (symbolic sizes); null: the graph
  // One type per placeholder, with the size symbols of a dynamic entry (null: static); a backend
  // may generate code over those symbols and return it as `reusable`.
  const std::vector<ir::TensorType>* dynamicInputs = nullptr;
  bool wantBackward = true;  // a training graph may get a compiled backward
  // torch.compile's mode: "reduce-overhead" asks for CUDA graphs where the graph runs on a GPU.
  std::string mode = "default";
};

// What a compile returns: how to run the graph, and what the entry keeps besides.
struct CompiledCode {
  GraphRunner run;
  std::shared_ptr<ReusableCode> reusable;  // code over size symbols (dynamic entries), or null
  std::shared_ptr<BackwardCode> backward;  // a compiled backward, or null (eager backward)
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Compiles `graph` (the captured, torch-level graph at concrete sizes) and reports each stage
  // to `sink` under `compileId`. Throws std::exception on failure: capture then runs the
  // captured graph eagerly and records the compile as failed with the message.
  virtual CompiledCode compile(const ir::Graph& graph, const std::string& compileId, session::SessionSink& sink,
                               const CompileRequest& request) = 0;
  // A dynamic entry called at a new shape: `graph` is that shape's capture. Returns a runner
  // that serves it with `code` (no new code generated), or null with the reason in `why`.
  virtual GraphRunner reuse(const ir::Graph& graph, const std::vector<ir::TensorType>& dynamicInputs, const ReusableCode& code,
                            std::string* why);
  // Whether compile() reports the "captured" stage itself (Kiln's built-ins do, with the sizes
  // of a dynamic graph worked out). When not, capture reports it before calling compile():
  // every compiled graph has one (`kiln explain` counts graphs by it).
  virtual bool reportsCapturedStage() const { return false; }
};

// What a factory is given to make a backend for one run (`kiln run --disable-pass ...`).
struct BackendConfig {
  passes::PassManagerOptions passes;
  codegen::KernelCompiler* cpu = nullptr;  // the CPU code generator, null when there is none
};

// Backends by name. Kiln's own register from engine/driver (driver::registerBuiltinBackends),
// plugins from their entry point; capture looks names up at torch.compile.
class BackendRegistry {
 public:
  using Factory = std::function<std::shared_ptr<Backend>(const BackendConfig&)>;
  struct Entry {
    std::string name;
    std::string description;  // one line, for `kiln backends`
    Factory make;
    std::string origin = "built-in";  // where it came from (a plugin's path)
  };

  // The registry torch.compile uses.
  static BackendRegistry& global();

  // Adds a backend. Throws std::invalid_argument when `name` is empty or already registered.
  void add(const std::string& name, const std::string& description, Factory make, const std::string& origin = "built-in");
  // Takes a backend out (a plugin that failed half way); false when there is none by that name.
  bool remove(const std::string& name);
  bool contains(const std::string& name) const;
  std::optional<Entry> find(const std::string& name) const;
  std::vector<Entry> entries() const;  // sorted by name
  // A new backend for `name` (std::invalid_argument when there is none).
  std::shared_ptr<Backend> make(const std::string& name, const BackendConfig& config) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace kiln::capture
