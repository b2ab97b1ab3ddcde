#include "engine/driver/backends.h"

#include "engine/codegen/cuda/cuda_views.h"
#include "engine/driver/autotune.h"
#include "engine/driver/kernel_views.h"
#include "engine/driver/kernel_views_child.h"
#include "engine/driver/stopwatch.h"

#include "engine/ir/sym.h"
#include "engine/ir/text.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/index_ops.h"
#include "engine/passes/backward_graph.h"
#include "engine/passes/lower_to_aten.h"
#include "engine/passes/partition.h"
#include "engine/passes/pipeline.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_graph_replay.h"
#include "engine/runtime/functional_outputs.h"
#include "engine/schedule/kernel_builder.h"
#include "engine/schedule/symbolic_shapes.h"
#include "engine/tensor/current_device.h"
#include "engine/tensor/stop.h"
#include "engine/torch/torch_functions.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace kiln::driver {

namespace {

// A stage event for a graph the caller owns and keeps: the graph is lent to the event (moved in
// and back) instead of copied. A copy of a 17,000-node graph and its destruction cost more than
// printing it, once per stage.
void emitOwnedStage(session::SessionSink& sink, const std::string& cid, const std::string& stage, int order, ir::Graph& g, bool changed,
                    std::vector<session::RuleHit> rules, double ms, std::vector<session::RuleApplication> applications = {}) {
  session::StageEvent e;
  e.compileId = cid;
  e.stage = stage;
  e.order = order;
  e.graph = std::move(g);
  struct GiveBack {  // also when the sink throws
    ir::Graph& to;
    ir::Graph& from;
    ~GiveBack() { to = std::move(from); }
  } giveBack{g, e.graph};
  e.text = ir::printGraph(e.graph);
  e.changed = changed;
  e.rules = std::move(rules);
  e.applications = std::move(applications);
  e.ms = ms;
  sink.stage(e);
}

void emitStage(session::SessionSink& sink, const std::string& cid, const std::string& stage, int order, const ir::Graph& g, bool changed,
               std::vector<session::RuleHit> rules, double ms, std::vector<session::RuleApplication> applications = {}) {
  ir::Graph copy = g;
  emitOwnedStage(sink, cid, stage, order, copy, changed, std::move(rules), ms, std::move(applications));
}

// User source lines of the nodes a kernel was built from (through provenance).
std::vector<int> sourceLines(const ir::Graph& g, const std::vector<int>& nodes) {
  std::vector<int> lines;
  for (int id : nodes)
    if (const ir::Node* n = g.find(id); n && n->prov.loc.line > 0 && std::find(lines.begin(), lines.end(), n->prov.loc.line) == lines.end())
      lines.push_back(n->prov.loc.line);
  return lines;
}

// `gpu`: per kernel, what the GPU runs (kernels that ran on CUDA), else null.
void emitKernels(session::SessionSink& sink, const std::string& cid, const ir::Graph& fused, const schedule::ScheduledGraph& sched,
                 const codegen::CompiledModule* module, const std::vector<session::KernelGpuInfo>* gpu = nullptr) {
  for (size_t i = 0; i < sched.kernels.size(); ++i) {
    const kir::Kernel& k = sched.kernels[i];
    session::KernelEvent e;
    e.compileId = cid;
    e.name = k.name;
    e.kind = k.kind;
    e.kernelIr = kir::print(k);
    e.llvmIr = module->kernels[i].llvmIr;
    e.assembly = module->kernels[i].assembly;
    e.source = module->kernels[i].source;
    e.nodeIds = k.sourceNodes;
    e.sourceLines = sourceLines(fused, k.sourceNodes);
    e.compileMs = module->kernels[i].compileMs;
    if (gpu && i < gpu->size()) e.gpu = (*gpu)[i];
    sink.kernel(e);
  }
}

// The fused graph's schedule: over size symbols when the entry is dynamic and every node's sizes
// can be expressed in them (and the kernels' members agree symbolically), else at the captured
// shape with the reason in `note`.
struct Planned {
  ir::Graph fused;
  schedule::ScheduledGraph sched;
  bool symbolic = false;
  std::string note;
};

// A copy of g whose placeholders carry the entry's size symbols and every other node its size
// expressions; "" in `why`, or the reason it could not be done.
ir::Graph symbolic(const ir::Graph& g, const std::vector<ir::TensorType>& dynamicInputs, std::string& why) {
  ir::Graph sg = g;
  size_t i = 0;
  for (auto& n : sg.nodes) {
    if (n.kind != ir::NodeKind::Placeholder || n.types.size() != 1) continue;
    if (i >= dynamicInputs.size() || dynamicInputs[i].sizes.size() != n.types[0].sizes.size()) {
      why = "the placeholders do not match the entry's inputs";
      return sg;
    }
    n.types[0] = dynamicInputs[i++];
  }
  why = schedule::symbolizeShapes(sg);
  return sg;
}

// What a stage of a dynamic graph shows: its symbolic sizes where they can be worked out.
const ir::Graph& shownStage(const ir::Graph& g, const std::vector<ir::TensorType>* dynamicInputs, ir::Graph& storage) {
  if (!dynamicInputs || dynamicInputs->empty()) return g;
  std::string why;
  storage = symbolic(g, *dynamicInputs, why);
  return why.empty() ? storage : g;
}

// The captured graph with the sizes its ATen results have in `symAten` (the captured graph's
// ops have no size rules of their own).
ir::Graph capturedWithSymbols(const ir::Graph& captured, const ir::Graph& symAten, const std::map<int, int>& resultOf) {
  ir::Graph shown = captured;
  std::vector<const ir::Node*> atenInputs = symAten.placeholders();
  size_t i = 0;
  for (auto& n : shown.nodes) {
    if (n.types.size() != 1) continue;
    const ir::Node* a = nullptr;
    if (n.kind == ir::NodeKind::Placeholder) a = i < atenInputs.size() ? atenInputs[i++] : nullptr;
    else if (auto it = resultOf.find(n.id); it != resultOf.end()) a = symAten.find(it->second);
    if (!a || a->types.size() != 1 || a->types[0].sizes.size() != n.types[0].sizes.size()) continue;
    bool same = true;
    for (size_t d = 0; d < n.types[0].sizes.size(); ++d) same = same && a->types[0].sizes[d].value == n.types[0].sizes[d].value;
    if (same) n.types[0].sizes = a->types[0].sizes;
  }
  return shown;
}

// `fused` is taken (moved from by callers that are done with it): the plan keeps it.
Planned planKernels(ir::Graph fused, const std::vector<ir::TensorType>* dynamicInputs) {
  Planned p;
  if (dynamicInputs && !dynamicInputs->empty()) {
    std::string why;
    ir::Graph sg = symbolic(fused, *dynamicInputs, why);
    if (why.empty()) {
      try {
        schedule::symbolValues(sg);  // one value per symbol
        p.sched = schedule::scheduleGraph(sg);
        p.fused = std::move(sg);
        p.symbolic = true;
        return p;
      } catch (const std::exception& e) {  // a symbolic mismatch, or any rule that did not hold
        why = e.what();
      }
    }
    p.note = why;
  }
  p.sched = schedule::scheduleGraph(fused);
  p.fused = std::move(fused);
  return p;
}

std::string dynamicHeader(const Planned& p) {
  if (p.symbolic) {
    std::set<int> used;
    auto note = [&](const std::string& e) {
      for (int s : ir::symbolsOf(e)) used.insert(s);
    };
    for (const auto& k : p.sched.kernels) {
      for (const auto& l : k.loops) note(l.extentSym);
      for (const auto& b : k.buffers)
        for (const auto& e : b.shapeSym) note(e);
      for (const auto& i : k.body) {
        note(i.constSym);
        for (const auto& t : i.index.terms) note(t.coeffSym);
      }
    }
    if (used.empty()) return "# dynamic shapes: no kernel depends on the size symbols\n";
    std::string syms;
    for (int s : used) syms += (syms.empty() ? "" : ", ") + ("s" + std::to_string(s));
    return "# dynamic shapes: the kernels run over " + syms + ", read from the inputs' sizes at every call\n";
  }
  if (!p.note.empty()) return "# dynamic shapes: kernels specialized to this shape (" + p.note + ")\n";
  return "";
}

// What a runner of a functionalized ATen graph must do after the graph ran (AOTAutograd's
// runtime wrapper): copy each mutated input's final value (returned after the captured
// outputs) into the input, in place, and hand back outputs that are views of inputs as those
// views of the real input tensors.
struct Functionalized {
  std::vector<std::pair<int, int>> mutations;  // (input index, graph output index)
  std::vector<passes::OutputAlias> aliases;
  size_t userOutputs = 0;
};

Functionalized functionalizedOf(passes::Lowered& l) {
  return Functionalized{std::move(l.inputMutations), std::move(l.outputAliases), l.userOutputs};
}

capture::GraphRunner withFunctionalization(capture::GraphRunner run, Functionalized f) {
  if (f.mutations.empty() && f.aliases.empty()) return run;
  return [run = std::move(run), f](const std::vector<tensor::Tensor>& in) {
    return runtime::finishFunctionalOutputs(f.mutations, f.userOutputs, f.aliases, in, run(in));
  };
}

std::vector<kir::Kernel> withoutHints(const std::vector<kir::Kernel>& ks) {
  std::vector<kir::Kernel> out;
  for (const auto& k : ks) out.push_back(kir::withoutHints(k));
  return out;
}

// Same code: the canonical text of the kernels without hints (exact constants; a NaN literal
// equals itself there, unlike under operator==).
bool sameKernels(const std::vector<kir::Kernel>& a, const std::vector<kir::Kernel>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (kir::print(kir::withoutHints(a[i])) != kir::print(kir::withoutHints(b[i]))) return false;
  return true;
}

}  // namespace

std::shared_ptr<runtime::cuda::GpuGraph> compileOnGpu(const ir::Graph& fused, const schedule::ScheduledGraph& sched, const std::string& cid,
                                                      session::SessionSink& sink, std::string& wrapper, const char* timing,
                                                      const std::vector<std::pair<int, int>>* mutations = nullptr);

// A training graph's joint forward+backward graph and its partition, made when the forward is
// compiled (the forward must return what the backward reads).
struct JointPartition {
  passes::BackwardGraph joint;
  passes::Partition partition;
};

// The backward of a training graph, built the first time backward reaches it, as AOTAutograd
// compiles backward lazily (inference never pays for it): the partitioned backward when the
// forward was partitioned (it reads the forward's saved tensors), else traced here with the
// forward recomputed (stage "backward:aten"); then the same pipeline and code generation as the
// forward (stages "backward:pass:NAME", "backward:fused"; kernels bw_*), its wrapper appended to
// the forward's.
std::shared_ptr<BackwardCode> lazyBackward(const ir::Graph& aten, size_t userOutputs, const std::string& cid, const BackendOptions& opts,
                                           session::SessionSink& sink, codegen::KernelCompiler* cpu, int order,
                                           const std::string& forwardWrapper, std::shared_ptr<const JointPartition> partitioned,
                                           bool onGpu) {
  auto code = std::make_shared<BackwardCode>();
  for (const ir::Node* p : aten.placeholders()) code->requiresGrad.push_back(!p->types.empty() && p->types[0].requiresGrad);
  const size_t savedCount = partitioned ? partitioned->partition.saved.size() : 0;
  code->savedCount = savedCount;
  auto bg = std::make_shared<passes::BackwardGraph>();
  auto forward = std::make_shared<ir::Graph>(aten);
  auto passOpts = opts.passes;
  const bool autotune = wantsAutotune(opts.mode);
  auto graph = std::make_shared<std::shared_ptr<runtime::CompiledGraph>>();  // on the CPU
  auto gpu = std::make_shared<std::shared_ptr<runtime::cuda::GpuGraph>>();   // or on the GPU
  auto failed = std::make_shared<bool>(false);
  code->run = [=, &sink](const std::vector<tensor::Tensor>& inputs, const std::vector<tensor::Tensor>& saved,
                         const std::vector<tensor::Tensor>& outputGrads) -> std::optional<std::vector<tensor::Tensor>> {
    if (*failed || saved.size() != savedCount) return std::nullopt;
    if (!*graph && !*gpu) {
      std::string wrapper = forwardWrapper;
      try {
        auto t1 = std::chrono::steady_clock::now();
        int ord = order;
        if (partitioned) {
          bg->tangentOf = partitioned->joint.tangentOf;
          bg->gradOf = partitioned->joint.gradOf;
          bg->graph = partitioned->partition.backward;
        } else {
          *bg = passes::buildBackwardGraph(*forward, userOutputs);
        }
        emitStage(sink, cid, "backward:aten", ord++, bg->graph, true, {}, msSince(t1));
        passes::PassContext ctx;
        ir::Graph fused = passes::runPipeline(bg->graph, ctx, passOpts, [&](const passes::PassSnapshot& s) {
          if (s.name != "fuse") emitStage(sink, cid, "backward:pass:" + s.name, ord++, *s.graph, s.changed, s.rules, s.ms, s.applications);
        });
        for (auto& n : fused.nodes)
          if (!n.kernel.empty()) n.kernel = "bw_" + n.kernel;  // distinct from the forward's kernels
        emitStage(sink, cid, "backward:fused", ord++, fused, true, {}, 0.0);
        schedule::ScheduledGraph sched = schedule::scheduleGraph(fused);
        std::string code;
        if (onGpu) {
          // The forward ran on the GPU: so do the gradients, from its saved tensors there.
          *gpu = compileOnGpu(fused, sched, cid, sink, code, nullptr);
        } else {
          std::shared_ptr<codegen::CompiledModule> module;
          if (!sched.kernels.empty()) {
            if (!cpu) throw std::runtime_error("no CPU code generator available");
            module = cpu->compile(sched.kernels, "graph_" + cid + "_backward");
          }
          emitKernels(sink, cid, fused, sched, module.get());
          if (autotune) autotuneProducts(fused, sched, cid, sink, "backward");
          *graph = std::make_shared<runtime::CompiledGraph>(std::move(fused), std::move(sched), module);
          code = (*graph)->wrapperText();
        }
        const std::string from = partitioned ? std::to_string(savedCount) + " saved tensors of " +
                                                   std::to_string(partitioned->partition.savedBytes) + " bytes, " +
                                                   std::to_string(partitioned->partition.recomputed.size()) + " forward nodes recomputed"
                                             : "the forward is recomputed";
        wrapper += "\n# backward (" + std::to_string(bg->tangentOf.size()) + " tangents, " + std::to_string(bg->gradOf.size()) +
                   " gradients; " + from + ")\n" + code;
        sink.timing(session::TimingEvent{cid, "backward", msSince(t1)});
      } catch (const std::exception& e) {
        // Ctrl-C or a time limit while it compiled (max-autotune times products here): the
        // script stops; the compile is tried again if backward is reached again.
        if (tensor::stopRequested()) throw;
        *failed = true;
        wrapper += "\n# backward: differentiated eagerly (" + std::string(e.what()) + ")\n";
      }
      sink.wrapper(session::WrapperEvent{cid, wrapper});
      sink.compileDone(cid);
      if (*failed) return std::nullopt;
    }
    // primals, the saved tensors, then one tangent per differentiable output (zeros where no
    // gradient flowed)
    std::vector<tensor::Tensor> in = inputs;
    in.insert(in.end(), saved.begin(), saved.end());
    auto ph = (*gpu ? (*gpu)->graph() : (*graph)->graph()).placeholders();
    for (size_t t = 0; t < bg->tangentOf.size(); ++t) {
      const size_t j = static_cast<size_t>(bg->tangentOf[t]);
      const ir::TensorType& ty = ph.at(inputs.size() + savedCount + t)->types.at(0);
      if (j < outputGrads.size() && outputGrads[j].defined()) {
        // A root gradient of another dtype (y.backward(g) with g in f16): the eager recompute
        // converts it; the compiled graph reads its buffers as what they were compiled for.
        if (outputGrads[j].dtype() != ty.dtype || static_cast<size_t>(outputGrads[j].dim()) != ty.sizes.size()) return std::nullopt;
        in.push_back(outputGrads[j]);
      } else {
        tensor::Shape s;
        for (const auto& d : ty.sizes) s.push_back(d.value);
        if (*gpu) {
          tensor::Tensor z = tensor::Tensor::empty(s, ty.dtype, tensor::Device::cuda(tensor::currentCudaIndex()));
          runtime::cuda::fillOnDevice(z, 0.0);
          in.push_back(std::move(z));
        } else {
          in.push_back(tensor::Tensor::zeros(s, ty.dtype));
        }
      }
    }
    std::vector<tensor::Tensor> r = *gpu ? (*gpu)->run(in) : (*graph)->run(in);
    std::vector<tensor::Tensor> grads(inputs.size());
    for (size_t k = 0; k < bg->gradOf.size() && k < r.size(); ++k) grads.at(static_cast<size_t>(bg->gradOf[k])) = r[k];
    return grads;
  };
  return code;
}

capture::GraphRunner reuseDynamicCode(const ir::Graph& captured, const std::vector<ir::TensorType>& dynamicInputs, const DynamicCode& code,
                                      const BackendOptions& opts, std::string* why) {
  passes::Lowered lowered = passes::lower(captured);
  ir::Graph aten = std::move(lowered.graph);
  passes::PassContext ctx;
  ir::Graph fused = passes::runPipeline(aten, ctx, opts.passes, [](const passes::PassSnapshot&) {});
  Planned p = planKernels(std::move(fused), &dynamicInputs);
  if (!p.symbolic) {
    if (why) *why = p.note;
    return nullptr;
  }
  if (!sameKernels(p.sched.kernels, code.kernels)) {
    if (why) *why = "the kernels at this shape differ from the dynamic entry's";
    return nullptr;
  }
  if (code.cuda) {
    // The entry's code is CUDA: its module is NVRTC's for the same source, which every shape
    // shares (kernels over size symbols; runtime/cuda_graph.cpp caches modules by source).
    auto gpu = std::make_shared<runtime::cuda::GpuGraph>(std::move(p.fused), std::move(p.sched));
    Functionalized f = functionalizedOf(lowered);
    gpu->writeMutationsInPlace(f.mutations);
    return withFunctionalization([gpu](const std::vector<tensor::Tensor>& in) { return gpu->run(in); }, std::move(f));
  }
  auto graph = std::make_shared<runtime::CompiledGraph>(std::move(p.fused), std::move(p.sched), code.module);
  Functionalized f = functionalizedOf(lowered);
  graph->writeMutationsInPlace(f.mutations);
  return withFunctionalization([graph](const std::vector<tensor::Tensor>& in) { return graph->run(in); }, std::move(f));
}

namespace {

// Reports a GPU graph's kernels (`shown`: their CUDA C++ and PTX as compiled) with their views:
// made after the compile on the run's background thread where one is installed (the rows say
// they are pending until then; kernel_views.h), else here, timed as "cuda views" either way; not
// at all for a sink that keeps none. A failure leaves the notes saying why, never the run.
void reportGpuKernels(session::SessionSink& sink, const std::string& cid, const runtime::cuda::GpuGraph& gpu,
                      codegen::CompiledModule& shown) {
  const std::vector<kir::Kernel>& kernels = gpu.schedule().kernels;
  if (kernels.empty()) return;  // only extern steps
  // The rows before their views: launch and arch known.
  session::KernelViewsEvent reported;
  reported.compileId = cid;
  codegen::cuda::CudaViewOptions options;
  if (sink.wantsKernelViews()) options = codegen::cuda::resolvedViewOptions(options);  // the device's, on its thread
  for (size_t i = 0; i < kernels.size(); ++i) {
    session::KernelGpuInfo g;
    g.arch = options.arch;
    g.launch = gpu.launches()[i].str();
    g.notes = sink.wantsKernelViews() ? BackgroundKernelViews::kPendingNote
                                      : "PTX, SASS and resources not made: nothing in this run records them";
    reported.kernels.push_back({kernels[i].name, shown.kernels[i].source, std::move(g)});
  }
  auto emit = [&](const session::KernelViewsEvent& e) {
    std::vector<session::KernelGpuInfo> views;
    for (size_t i = 0; i < e.kernels.size(); ++i) {
      views.push_back(e.kernels[i].gpu);
      shown.kernels[i].source = e.kernels[i].source;
    }
    emitKernels(sink, cid, gpu.graph(), gpu.schedule(), &shown, &views);
  };
  if (!sink.wantsKernelViews()) return emit(reported);
  BackgroundKernelViews* background = BackgroundKernelViews::current();
  if (background) {
    background->deliverReady();  // earlier compiles' views first, in order
    emit(reported);
    // In a child process where the CLI registered kiln (kernel_views_child.h): this process's
    // NVRTC then stays free for the next graph's compile.
    background->add(sink, reported, [cid, kernels, options, launches = gpu.launches()](std::stop_token stop) mutable {
      options.launches = &launches;
      return makeKernelViews(cid, kernels, options, stop);
    });
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  session::KernelViewsEvent made;
  try {
    options.launches = &gpu.launches();
    made = cudaKernelViews(cid, kernels, options);
  } catch (const std::exception& e) { made = viewsNotMade(reported, e.what()); }
  emit(made);
  sink.timing(session::TimingEvent{cid, "cuda views", msSince(t0)});
}

}  // namespace

// A scheduled graph's kernels compiled as CUDA for the GPU (runtime/cuda_graph.h; throws saying
// why they cannot be), shown with their CUDA C++, PTX, SASS and launch configuration; `wrapper`
// gets the lines of its steps. The forward and a training graph's backward alike.
std::shared_ptr<runtime::cuda::GpuGraph> compileOnGpu(const ir::Graph& fused, const schedule::ScheduledGraph& sched, const std::string& cid,
                                                      session::SessionSink& sink, std::string& wrapper, const char* timing,
                                                      const std::vector<std::pair<int, int>>* mutations) {
  auto t0 = std::chrono::steady_clock::now();
  auto gpu = std::make_shared<runtime::cuda::GpuGraph>(fused, sched);
  const std::map<int, size_t> inPlace = mutations ? gpu->writeMutationsInPlace(*mutations) : std::map<int, size_t>{};
  if (timing) sink.timing(session::TimingEvent{cid, timing, msSince(t0)});
  codegen::CompiledModule shown;
  const std::string& src = gpu->source();
  for (size_t i = 0; i < sched.kernels.size(); ++i) {
    codegen::CompiledKernel ck;
    ck.name = sched.kernels[i].name;
    const size_t at = src.find("// kernel " + ck.name + " (");
    const size_t end = at == std::string::npos ? at : src.find("\n// kernel ", at + 1);
    ck.source = "// launch: " + gpu->launches()[i].str() + "\n" +
                (at == std::string::npos ? "" : src.substr(at, end == std::string::npos ? end : end - at));
    const size_t p = gpu->ptx().find(".entry " + gpu->entry(i) + "(");  // a repeated body: its first kernel's
    // Up to the next entry, or the next unit's header (a graph's body groups are units of their own).
    const size_t pe =
        p == std::string::npos ? p : std::min(gpu->ptx().find(".entry ", p + 1), gpu->ptx().find("// Generated by NVIDIA", p));
    ck.assembly = p == std::string::npos ? "" : gpu->ptx().substr(p, pe == std::string::npos ? pe : pe - p);
    ck.compileMs = gpu->compileMs() / static_cast<double>(sched.kernels.size());
    shown.kernels.push_back(std::move(ck));
  }
  reportGpuKernels(sink, cid, *gpu, shown);
  wrapper += "# device: cuda:0, " + std::to_string(sched.kernels.size()) + " CUDA kernels\ndef call(args):\n";
  for (const auto& st : gpu->schedule().steps) {
    if (st.kind == schedule::Step::Kind::Extern)
      wrapper += "    extern_kernels." + gpu->graph().find(st.node)->target + "(...)  # on cuda:0\n";
    else {
      std::string into;
      for (int id : st.outputNodes)
        if (auto w = inPlace.find(id); w != inPlace.end())
          into += ", " + gpu->graph().find(id)->name + " written into " + gpu->graph().placeholders().at(w->second)->name + " in place";
      const size_t k = static_cast<size_t>(st.kernel);
      if (const size_t bytes = gpu->deviceCopyBytes(k))
        wrapper += "    " + sched.kernels[k].name + ".run(...)  # a plain copy: cuMemcpyDtoDAsync of " + std::to_string(bytes) +
                   " bytes, no kernel compiled" + into + "\n";
      else wrapper += "    " + sched.kernels[k].name + ".run(...)  # " + gpu->launches()[k].str() + into + "\n";
    }
  }
  return gpu;
}

namespace {

// One compile through a built-in pipeline: what its steps share.
struct GraphCompile {
  const ir::Graph& captured;
  const std::string& cid;
  const BackendOptions& opts;
  session::SessionSink& sink;
  codegen::KernelCompiler* cpu;
  const ir::Graph* shown;                            // the captured graph as the user sees it (or null)
  const std::vector<ir::TensorType>* dynamicInputs;  // the entry's size symbols (or null)
  bool dynamic = false;                              // kernels over size symbols may be made
  bool onGpu = false, needsGrad = false;             // some input is on a GPU / requires grad
  int order = 0;                                     // the next stage's position
  ir::Graph aten;
  std::map<int, int> resultOf;  // captured node -> its ATen result
  Functionalized functionalized;
  Planned planned;
  std::shared_ptr<codegen::CompiledModule> module;
  std::shared_ptr<runtime::CompiledGraph> graph;           // its CPU code, or
  std::shared_ptr<runtime::cuda::GpuGraph> gpu;            // its GPU code
  std::shared_ptr<runtime::cuda::CudaGraphReplay> replay;  // mode="reduce-overhead": gpu as a CUDA graph
  std::string wrapper;
  std::shared_ptr<const JointPartition> partitioned;                      // training graphs: what the forward saves
  std::shared_ptr<std::optional<std::vector<tensor::Tensor>>> savedSlot;  // its last call's saved tensors

  GraphCompile(const ir::Graph& captured, const std::string& cid, const BackendOptions& opts, session::SessionSink& sink,
               codegen::KernelCompiler* cpu, const ir::Graph* shown, const std::vector<ir::TensorType>* dynamicInputs)
      : captured(captured), cid(cid), opts(opts), sink(sink), cpu(cpu), shown(shown), dynamicInputs(dynamicInputs) {}
};

// The "captured" stage; a dynamic graph's comes after lowering, with the sizes the ATen graph's
// symbols give it.
void reportCaptured(GraphCompile& c) {
  if (!c.dynamic) emitStage(c.sink, c.cid, "captured", c.order++, c.shown ? *c.shown : c.captured, true, {}, 0.0);
  else ++c.order;
}

capture::GraphRunner runCaptured(const ir::Graph& captured) {
  ir::Graph g = captured;
  return [g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); };
}

// A graph over CUDA tensors gets CUDA kernels. Where it cannot, it runs op by op through the
// eager dispatcher, whose ops run on the GPU (or say they cannot), and says so: never CPU
// kernels reading device memory.
void noteDevices(GraphCompile& c) {
  for (const ir::Node* p : c.captured.placeholders())
    if (!p->types.empty()) c.onGpu = c.onGpu || p->types[0].device != "cpu", c.needsGrad = c.needsGrad || p->types[0].requiresGrad;
}

capture::GraphRunner opByOpOnGpu(const GraphCompile& c, const std::string& why) {
  std::fprintf(stderr, "kiln: compiled graph %s runs op by op on the GPU: %s\n", c.cid.c_str(), why.c_str());
  return runCaptured(c.captured);
}

// Stage "aten": the captured graph lowered to ATen ops, functionalized.
void lowerToAten(GraphCompile& c) {
  auto t0 = std::chrono::steady_clock::now();
  passes::Lowered lowered;
  try {
    lowered = passes::lower(c.captured);
  } catch (...) {
    if (c.dynamic) emitStage(c.sink, c.cid, "captured", 0, c.shown ? *c.shown : c.captured, true, {}, 0.0);
    throw;
  }
  double lowerMs = msSince(t0);
  c.aten = std::move(lowered.graph);
  c.resultOf = std::move(lowered.resultOf);
  c.functionalized = functionalizedOf(lowered);
  ir::Graph storage;
  const ir::Graph& shownAten = shownStage(c.aten, c.dynamicInputs, storage);
  if (c.dynamic)
    emitStage(c.sink, c.cid, "captured", 0,
              &shownAten == &c.aten && c.shown ? *c.shown : capturedWithSymbols(c.captured, shownAten, c.resultOf), true, {}, 0.0);
  emitOwnedStage(c.sink, c.cid, "aten", c.order++, &shownAten == &c.aten ? c.aten : storage, true, {}, lowerMs);
  c.sink.timing(session::TimingEvent{c.cid, "lower", lowerMs});
}

bool isTraining(const GraphCompile& c) {
  bool training = false;
  for (const ir::Node* p : c.captured.placeholders()) training = training || (!p->types.empty() && p->types[0].requiresGrad);
  return training;
}

// Stages "pass:NAME" for each pass of the pipeline, then "fused".
void runPasses(GraphCompile& c, ir::Graph& fused) {
  passes::PassContext ctx;
  auto t0 = std::chrono::steady_clock::now();
  auto onPass = [&](const passes::PassSnapshot& s) {
    const std::string stage = s.name == "fuse" ? "fused" : "pass:" + s.name;
    ir::Graph st;
    const ir::Graph& shown = shownStage(*s.graph, c.dynamicInputs, st);
    if (&shown == s.graph) emitOwnedStage(c.sink, c.cid, stage, c.order++, *s.graph, s.changed, s.rules, s.ms, s.applications);
    else emitOwnedStage(c.sink, c.cid, stage, c.order++, st, s.changed, s.rules, s.ms, s.applications);
  };
  // The ATen graph is read again only by a training graph's backward: otherwise the pipeline
  // takes it rather than a copy.
  if (isTraining(c)) fused = passes::runPipeline(c.aten, ctx, c.opts.passes, onPass);
  else fused = passes::runPipeline(std::move(c.aten), ctx, c.opts.passes, onPass);
  c.sink.timing(session::TimingEvent{c.cid, "passes", msSince(t0)});
}

// Fusion groups lowered to kernel IR (over size symbols where the graph allows it).
void scheduleKernels(GraphCompile& c, ir::Graph fused) {
  auto t0 = std::chrono::steady_clock::now();
  c.planned = planKernels(std::move(fused), c.dynamicInputs);
  c.sink.timing(session::TimingEvent{c.cid, "schedule", msSince(t0)});
}

// The kernels through LLVM into one module; each reported with its IR, assembly and time.
void generateCpuCode(GraphCompile& c) {
  auto t0 = std::chrono::steady_clock::now();
  if (!c.planned.sched.kernels.empty()) {
    if (!c.cpu) throw std::runtime_error("no CPU code generator available");
    c.module = c.cpu->compile(c.planned.sched.kernels, "graph_" + c.cid);
  }
  c.sink.timing(session::TimingEvent{c.cid, "codegen", msSince(t0)});
  emitKernels(c.sink, c.cid, c.planned.fused, c.planned.sched, c.module.get());
}

// A wrapper's header lines (the dynamic-shapes note) go after its first line, CPU and GPU alike.
void afterFirstLine(std::string& wrapper, const std::string& lines) {
  const size_t nl = wrapper.find('\n');
  wrapper.insert(nl == std::string::npos ? wrapper.size() : nl + 1, lines);
}

// The runtime graph and its wrapper text (the memory plan first: kiln explain reads it).
void buildWrapper(GraphCompile& c, std::shared_ptr<DynamicCode>* dynamicCode) {
  if (c.planned.symbolic && dynamicCode) *dynamicCode = std::make_shared<DynamicCode>(withoutHints(c.planned.sched.kernels), c.module);
  const std::string header = dynamicHeader(c.planned);
  c.graph = std::make_shared<runtime::CompiledGraph>(std::move(c.planned.fused), std::move(c.planned.sched), c.module);
  c.graph->writeMutationsInPlace(c.functionalized.mutations);
  c.wrapper = c.graph->wrapperText();
  afterFirstLine(c.wrapper, header);
}

// A torch.autograd.Function in the graph has the user's backward, which only runs eagerly:
// such a graph is differentiated by recomputing it eagerly (the Function's node attaches it).
std::string userBackwards(const GraphCompile& c) {
  std::string userBackward;
  for (const auto& n : c.captured.nodes)
    if (n.target == torchapi::kAutogradFunctionApply)
      if (const ir::Arg* name = n.kwarg("name"); name && name->kind == ir::Arg::Kind::String)
        userBackward += (userBackward.empty() ? "" : ", ") + name->s;
  return userBackward;
}

// Stages "backward:joint" and "backward:partition" (training graphs that get a compiled
// backward; the "backward:" prefix puts them in the studio's layout frame of the backward
// stages, whose node ids they share): the joint forward+backward graph, cut by
// passes/partition.h; the forward then returns the saved tensors after its own outputs. The
// partition stage's graph is the joint graph with the saved and recomputed nodes marked (as rule
// hits, listed in the studio's step report, and as two node groups the graph view draws as
// boxes); its text lists the saved tensors with their bytes, the recomputed nodes and the
// backward graph. Where the joint graph cannot be built (an op without a formula), nothing is
// saved and the backward says why when it is first needed.
void partitionForBackward(GraphCompile& c, std::shared_ptr<BackwardCode>* backwardCode) {
  if (!backwardCode || c.dynamic || !isTraining(c) || !userBackwards(c).empty()) return;
  // KILN_BACKWARD_RECOMPUTE_ALL=1: the backward recomputes the whole forward (what Kiln did
  // before the partition), kept to compare the two (docs/perf.md).
  if (const char* all = std::getenv("KILN_BACKWARD_RECOMPUTE_ALL"); all && std::string(all) == "1") return;
  auto t0 = std::chrono::steady_clock::now();
  auto jp = std::make_shared<JointPartition>();
  try {
    jp->joint = passes::buildBackwardGraph(c.aten, c.captured.output()->args.at(0).list.size());
    jp->partition = passes::partitionJoint(jp->joint, c.aten);
  } catch (const std::exception&) { return; }
  const double ms = msSince(t0);
  emitStage(c.sink, c.cid, "backward:joint", c.order++, jp->joint.graph, true, {}, ms);
  std::vector<session::RuleHit> marks;
  for (const auto& s : jp->partition.saved)
    marks.push_back(session::RuleHit{"saved for backward: " + s.type.str() + ", " + std::to_string(s.bytes) + " bytes", 1, {s.jointNode}});
  if (!jp->partition.recomputed.empty())
    marks.push_back(
        session::RuleHit{"recomputed in the backward", static_cast<int>(jp->partition.recomputed.size()), jp->partition.recomputed});
  if (!jp->partition.checkpointed.empty())
    marks.push_back(
        session::RuleHit{"recomputed (checkpoint)", static_cast<int>(jp->partition.checkpointed.size()), jp->partition.checkpointed});
  session::StageEvent e;
  e.compileId = c.cid;
  e.stage = "backward:partition";
  e.order = c.order++;
  e.text = jp->partition.summary();
  e.graph = jp->joint.graph;
  // The cut drawn: the graph view boxes nodes by kernel, so the saved and the recomputed values
  // each get a box of their own (no kernel of that name exists; the studio shows it as a group).
  for (const auto& sv : jp->partition.saved) e.graph.find(sv.jointNode)->kernel = "saved for backward";
  for (int id : jp->partition.recomputed) e.graph.find(id)->kernel = "recomputed in backward";
  for (int id : jp->partition.checkpointed) e.graph.find(id)->kernel = "recomputed (checkpoint)";
  e.rules = std::move(marks);
  e.ms = ms;
  c.sink.stage(e);
  auto& results = c.aten.find(c.aten.output()->id)->args.at(0).list;
  for (const auto& s : jp->partition.saved) results.push_back(ir::Arg::ref(s.forwardNode));
  c.partitioned = jp;
  c.savedSlot = std::make_shared<std::optional<std::vector<tensor::Tensor>>>();
}

// Training graphs (an input requires grad) get a compiled backward; dynamic ones are
// differentiated eagerly (their backward would need the same size symbols).
void attachBackward(GraphCompile& c, std::shared_ptr<BackwardCode>* backwardCode) {
  const bool training = isTraining(c);
  const std::string userBackward = userBackwards(c);
  if (training && !userBackward.empty())
    c.wrapper += "\n# backward: differentiated eagerly (the graph calls torch.autograd.Function backward: " + userBackward + ")\n";
  else if (training && backwardCode && !c.dynamic) {
    *backwardCode = lazyBackward(c.aten, c.captured.output()->args.at(0).list.size(), c.cid, c.opts, c.sink, c.cpu, c.order, c.wrapper,
                                 c.partitioned, c.gpu != nullptr);
    if (c.savedSlot) (*backwardCode)->lastSaved = c.savedSlot;
  }
}

// The compiled graph's run; a partitioned forward's saved tensors (its last outputs) are left in
// the slot its backward takes them from.
std::function<std::vector<tensor::Tensor>(const std::vector<tensor::Tensor>&)> forwardRun(const GraphCompile& c) {
  std::function<std::vector<tensor::Tensor>(const std::vector<tensor::Tensor>&)> run;
  if (c.replay) run = [replay = c.replay](const std::vector<tensor::Tensor>& in) { return replay->run(in); };
  else if (c.gpu) run = [gpu = c.gpu](const std::vector<tensor::Tensor>& in) { return gpu->run(in); };
  else run = [graph = c.graph](const std::vector<tensor::Tensor>& in) { return graph->run(in); };
  if (!c.savedSlot) return run;
  const size_t k = c.partitioned->partition.saved.size();
  return [run, k, slot = c.savedSlot](const std::vector<tensor::Tensor>& in) {
    std::vector<tensor::Tensor> out = run(in);
    *slot = std::vector<tensor::Tensor>(out.end() - static_cast<std::ptrdiff_t>(k), out.end());
    out.resize(out.size() - k);
    return out;
  };
}

// What runs the compiled graph (recording its first inputs for kiln bench when asked).
capture::GraphRunner compiledRunner(GraphCompile& c) {
  auto run = forwardRun(c);
  if (c.opts.log) {
    auto frame = std::make_shared<CompiledFrame>(CompiledFrame{c.cid, c.captured, c.graph, c.gpu, {}, false});
    c.opts.log->frames.push_back(frame);
    return withFunctionalization(
        [run, frame](const std::vector<tensor::Tensor>& in) {
          if (!frame->called) {
            frame->called = true;
            for (const auto& t : in) frame->firstInputs.push_back(t.clone());
          }
          return run(in);
        },
        std::move(c.functionalized));
  }
  return withFunctionalization(std::move(run), std::move(c.functionalized));
}

// mode="reduce-overhead": the forward replays as one CUDA graph from its third call (the first
// warms up, the second records; runtime/cuda_graph_replay.h). The wrapper says so; a graph that
// cannot be recorded says why on stderr and runs its kernels one by one, as in the default mode.
void useCudaGraph(GraphCompile& c) {
  c.replay = std::make_shared<runtime::cuda::CudaGraphReplay>(c.gpu);
  const size_t kernels = c.planned.sched.kernels.size();
  c.wrapper += "# mode='reduce-overhead': CUDA graph: call 1 warms up, call 2 records the " + std::to_string(kernels) +
               " kernel launches (and extern calls) into one CUDA graph, later calls replay it with one launch; inputs at the "
               "addresses of call 1 are read in place, others copied into static buffers first\n";
  c.replay->onEvent = [cid = c.cid, &sink = c.sink](const std::string& what, double ms) {
    if (what == "record") sink.timing(session::TimingEvent{cid, "cudagraph record", ms});
    else
      std::fprintf(stderr, "kiln: compiled graph %s runs without a CUDA graph (mode='reduce-overhead'): %s\n", cid.c_str(), what.c_str());
  };
}

// A graph over CUDA tensors: its kernels compiled for the GPU, and a training graph's backward
// there too (from the forward's saved tensors); op by op, saying why, where they cannot be.
capture::GraphRunner gpuRunner(GraphCompile& c, std::shared_ptr<DynamicCode>* dynamicCode, std::shared_ptr<BackwardCode>* backwardCode) {
  try {
    c.gpu = compileOnGpu(c.planned.fused, c.planned.sched, c.cid, c.sink, c.wrapper, "codegen", &c.functionalized.mutations);
  } catch (const std::exception& e) { return opByOpOnGpu(c, e.what()); }
  // A dynamic entry's later shapes reuse the kernels (no module: CUDA, see reuseDynamicCode).
  if (c.planned.symbolic && dynamicCode) {
    *dynamicCode = std::make_shared<DynamicCode>(withoutHints(c.planned.sched.kernels), nullptr);
    (*dynamicCode)->cuda = true;
  }
  afterFirstLine(c.wrapper, dynamicHeader(c.planned));
  if (c.opts.mode == "reduce-overhead") useCudaGraph(c);
  attachBackward(c, backwardCode);
  c.sink.wrapper(session::WrapperEvent{c.cid, c.wrapper});
  return compiledRunner(c);
}

// eager: the captured graph op by op.
capture::GraphRunner compileEager(GraphCompile& c, std::shared_ptr<DynamicCode>*, std::shared_ptr<BackwardCode>*) {
  reportCaptured(c);
  return runCaptured(c.captured);
}

// aot_eager: lowered to ATen (functionalized), op by op.
capture::GraphRunner compileAotEager(GraphCompile& c, std::shared_ptr<DynamicCode>*, std::shared_ptr<BackwardCode>*) {
  reportCaptured(c);
  noteDevices(c);
  if (c.onGpu && c.needsGrad) return opByOpOnGpu(c, "an input requires grad (aot_eager differentiates the captured graph op by op there)");
  lowerToAten(c);
  ir::Graph aten = c.aten;
  return withFunctionalization([aten](const std::vector<tensor::Tensor>& in) { return runtime::runAtenGraph(aten, in); },
                               std::move(c.functionalized));
}

// inductor: the whole pipeline, one step per line.
capture::GraphRunner compileInductor(GraphCompile& c, std::shared_ptr<DynamicCode>* dynamicCode,
                                     std::shared_ptr<BackwardCode>* backwardCode) {
  c.dynamic = c.dynamicInputs && !c.dynamicInputs->empty();
  reportCaptured(c);  // "captured" (a dynamic graph's after lowering)
  noteDevices(c);
  lowerToAten(c);                         // "aten"
  partitionForBackward(c, backwardCode);  // "backward:joint", "backward:partition"
  ir::Graph fused;
  runPasses(c, fused);                   // "pass:NAME" ..., "fused"
  scheduleKernels(c, std::move(fused));  // fusion groups -> kernel IR
  if (c.onGpu) return gpuRunner(c, dynamicCode, backwardCode);
  generateCpuCode(c);                                                                                 // kernel IR -> LLVM -> one module
  if (wantsAutotune(c.opts.mode)) autotuneProducts(c.planned.fused, c.planned.sched, c.cid, c.sink);  // "autotune"
  buildWrapper(c, dynamicCode);     // the runtime graph and its wrapper text
  attachBackward(c, backwardCode);  // a compiled backward for training graphs
  c.sink.wrapper(session::WrapperEvent{c.cid, c.wrapper});
  return compiledRunner(c);
}

struct Pipeline {
  const char* name;
  const char* description;
  capture::GraphRunner (*compile)(GraphCompile&, std::shared_ptr<DynamicCode>*, std::shared_ptr<BackwardCode>*);
};

// Kiln's built-in backends (registered by name in builtin_backends.cpp).
const Pipeline kPipelines[] = {
    {"inductor", "lower to ATen, run the pass pipeline, fuse, generate LLVM kernels, run the wrapper (the default)", compileInductor},
    {"eager", "run the captured graph op by op with the eager kernels", compileEager},
    {"aot_eager", "lower to ATen (functionalized) and run the ATen graph op by op", compileAotEager},
};

}  // namespace

std::vector<std::pair<std::string, std::string>> builtinBackendNames() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Pipeline& p : kPipelines) out.emplace_back(p.name, p.description);
  return out;
}

capture::GraphRunner compileGraph(const ir::Graph& captured, const std::string& cid, const BackendOptions& opts, session::SessionSink& sink,
                                  codegen::KernelCompiler* cpu, const ir::Graph* shown, const std::vector<ir::TensorType>* dynamicInputs,
                                  std::shared_ptr<DynamicCode>* dynamicCode, std::shared_ptr<BackwardCode>* backwardCode) {
  for (const Pipeline& p : kPipelines)
    if (opts.backend == p.name) {
      GraphCompile c(captured, cid, opts, sink, cpu, shown, dynamicInputs);
      return p.compile(c, dynamicCode, backwardCode);
    }
  throw std::runtime_error("unknown backend '" + opts.backend + "'");
}

}  // namespace kiln::driver
