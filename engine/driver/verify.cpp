#include "engine/driver/verify.h"

#include "engine/autograd/grad_mode.h"
#include "engine/passes/pipeline.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/tensor/tensor_iter.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace kiln::driver {

namespace {

// Elementwise tolerances by dtype, as torch.testing.assert_close's defaults loosened for a
// compiler that may reorder floating-point reductions. 16-bit floats get assert_close's own
// defaults: a fused kernel keeps its intermediates in f32 and rounds once at the store where eager
// rounds after every op (as Inductor does), so compiled and eager may differ by a rounding.
std::pair<double, double> tolerance(ir::DType d) {
  switch (d) {
    case ir::DType::Float64: return {1e-7, 1e-7};
    case ir::DType::Float16: return {1e-3, 1e-5};
    case ir::DType::BFloat16: return {1.6e-2, 1e-5};
    case ir::DType::Float32: return {1e-4, 1e-5};
    default: return {0.0, 0.0};
  }
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(7);
  s << v;
  return s.str();
}

std::string indexOf(int64_t flat, const tensor::Shape& sizes) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  return tensor::shapeStr(idx);
}

// Copies of a call's inputs that alias one another as the inputs do: one copy per storage,
// each input a view of its storage's copy at the same offset and strides.
std::vector<tensor::Tensor> copyInputs(const std::vector<tensor::Tensor>& in) {
  std::map<const tensor::Storage*, tensor::Tensor> copies;
  std::vector<tensor::Tensor> out;
  for (const auto& t : in) {
    if (!t.defined()) {
      out.push_back(t);
      continue;
    }
    tensor::Tensor& c = copies[t.storage().get()];
    if (!c.defined()) {
      const int64_t n = static_cast<int64_t>(t.storage()->bytes() / ir::itemSize(t.dtype()));
      c = t.view({n}, {1}, 0).clone();
    }
    out.push_back(c.view(t.sizes(), t.strides(), t.offset()));
  }
  return out;
}

// The reference: the captured graph run op by op with its in-place ops applied for real, on
// copies of the inputs (which then hold the values the inputs should have after the call).
std::vector<tensor::Tensor> runReference(const ir::Graph& captured, std::vector<tensor::Tensor>& inputs) {
  autograd::GradModeGuard off(false);
  return runtime::runTorchGraph(captured, inputs, /*functional=*/false);
}

// Outputs first, then the inputs as the call left them (in-place updates of the program's tensors).
std::optional<OutputDiff> compareCall(const std::vector<tensor::Tensor>& outs, const std::vector<tensor::Tensor>& inputsAfter,
                                      const std::vector<tensor::Tensor>& expected, const std::vector<tensor::Tensor>& expectedInputs) {
  if (auto d = compareOutputs(outs, expected)) return d;
  if (auto d = compareOutputs(inputsAfter, expectedInputs, "input")) {
    d->output = -1;
    d->detail += " after the call (an in-place update)";
    return d;
  }
  return std::nullopt;
}

// One recompile-and-run of the captured graph with other pass options.
struct Trial {
  bool compiled = false;
  bool matches = false;
  std::string error;
  std::map<int, std::string> fusedBy;  // node id -> the fusion rule that joined it
  std::map<int, std::string> nodeName, kernelOf;
  int decisions = 0;
};

// Collects the fuse pass's decisions from the compile's stage events.
class FusionSink : public session::NullSink {
 public:
  explicit FusionSink(Trial& t) : t_(t) {}
  void stage(const session::StageEvent& e) override {
    if (e.stage != "fused") return;
    for (const auto& r : e.rules) {
      if (r.rule.rfind("fused:", 0) != 0 || r.rule.find("constant inlined") != std::string::npos) continue;
      for (int id : r.nodes) t_.fusedBy[id] = r.rule;
      t_.decisions += static_cast<int>(r.nodes.size());
    }
    for (const auto& n : e.graph.nodes) {
      t_.nodeName[n.id] = n.name;
      if (!n.kernel.empty()) t_.kernelOf[n.id] = n.kernel;
    }
  }

 private:
  Trial& t_;
};

Trial runTrial(const ir::Graph& captured, const std::string& cid, const BackendOptions& opts, const passes::PassManagerOptions& po,
               codegen::KernelCompiler* cpu, const std::vector<tensor::Tensor>& pristine, const std::vector<tensor::Tensor>& expected,
               const std::vector<tensor::Tensor>& expectedInputs) {
  Trial t;
  BackendOptions b = opts;
  b.passes = po;
  b.log = nullptr;
  FusionSink sink(t);
  try {
    capture::GraphRunner run = compileGraph(captured, cid, b, sink, cpu);
    autograd::GradModeGuard off(false);
    std::vector<tensor::Tensor> inputs = copyInputs(pristine);
    std::vector<tensor::Tensor> outs = run(inputs);
    t.compiled = true;
    t.matches = !compareCall(outs, inputs, expected, expectedInputs);
  } catch (const std::exception& e) { t.error = e.what(); }
  return t;
}

std::string outcome(const Trial& t) {
  if (!t.compiled) return "does not compile (" + t.error.substr(0, 120) + ")";
  return t.matches ? "matches eager" : "still differs";
}

}  // namespace

std::optional<OutputDiff> compareOutputs(const std::vector<tensor::Tensor>& got, const std::vector<tensor::Tensor>& expected,
                                         const std::string& what) {
  if (got.size() != expected.size())
    return OutputDiff{-1, std::to_string(got.size()) + " " + what + "s compiled vs " + std::to_string(expected.size()) + " eager"};
  for (size_t i = 0; i < got.size(); ++i) {
    const tensor::Tensor& a = got[i];
    const tensor::Tensor& b = expected[i];
    const int out = static_cast<int>(i);
    const std::string name = what + " " + std::to_string(i);
    if (a.defined() != b.defined())
      return OutputDiff{out, name + (a.defined() ? " is a tensor compiled, None eager" : " is None compiled, a tensor eager")};
    if (!a.defined()) continue;
    if (a.dtype() != b.dtype())
      return OutputDiff{out, name + " dtype " + std::string(ir::torchName(a.dtype())) + " compiled vs " +
                                 std::string(ir::torchName(b.dtype())) + " eager"};
    if (a.sizes() != b.sizes())
      return OutputDiff{out, name + " shape " + tensor::shapeStr(a.sizes()) + " compiled vs " + tensor::shapeStr(b.sizes()) + " eager"};
    const auto [rtol, atol] = tolerance(a.dtype());
    const std::vector<double> x = a.toDoubles(), y = b.toDoubles();
    int64_t first = -1, count = 0;
    double maxDiff = 0.0;
    for (size_t k = 0; k < x.size(); ++k) {
      const bool bothNan = std::isnan(x[k]) && std::isnan(y[k]);
      const double d = std::fabs(x[k] - y[k]);
      const bool ok = bothNan || x[k] == y[k] || (!std::isnan(d) && d <= atol + rtol * std::fabs(y[k]));
      if (ok) continue;
      ++count;
      if (first < 0) first = static_cast<int64_t>(k);
      if (std::isnan(d) || d > maxDiff) maxDiff = std::isnan(d) ? INFINITY : d;
    }
    if (first >= 0)
      return OutputDiff{out, name + " " + tensor::shapeStr(a.sizes()) + " at " + indexOf(first, a.sizes()) + ": " +
                                 number(x[static_cast<size_t>(first)]) + " compiled vs " + number(y[static_cast<size_t>(first)]) +
                                 " eager (" + std::to_string(count) + " of " + std::to_string(x.size()) +
                                 " elements differ, max abs diff " + number(maxDiff) + ")"};
  }
  return std::nullopt;
}

std::string bisectMismatch(const ir::Graph& captured, const std::string& cid, const BackendOptions& opts, codegen::KernelCompiler* cpu,
                           const std::vector<tensor::Tensor>& inputs, const std::vector<tensor::Tensor>& expected,
                           const std::vector<tensor::Tensor>& expectedInputs, std::vector<std::string>& log) {
  if (opts.backend != "inductor") return "the " + opts.backend + " backend (it runs no passes and generates no kernels)";
  // Lowering to ATen (decompositions, functionalization) alone: the aot_eager backend runs the
  // lowered graph op by op, before any pass or kernel.
  {
    BackendOptions aot = opts;
    aot.backend = "aot_eager";
    Trial t = runTrial(captured, cid, aot, opts.passes, cpu, inputs, expected, expectedInputs);
    log.push_back("lowered to ATen, run op by op (aot_eager): " + outcome(t));
    if (t.compiled && !t.matches) return "lowering to ATen (functionalization or a decomposition): the aot_eager backend differs too";
  }
  std::vector<std::string> fixers;
  bool fuseFixes = false;
  for (const auto& p : passes::pipeline()) {
    if (opts.passes.disabled.count(p.name)) continue;
    passes::PassManagerOptions po = opts.passes;
    po.disabled.insert(p.name);
    Trial t = runTrial(captured, cid, opts, po, cpu, inputs, expected, expectedInputs);
    log.push_back("without " + p.name + ": " + outcome(t));
    if (t.matches) {
      if (p.name == "fuse") fuseFixes = true;
      else fixers.push_back(p.name);
    }
  }
  if (!fixers.empty()) {
    std::string also;
    for (size_t i = 1; i < fixers.size(); ++i) also += (i > 1 ? ", " : "") + fixers[i];
    return "pass " + fixers.front() + (also.empty() ? "" : " (disabling " + also + " also hides it)");
  }
  if (!fuseFixes) return "kernel code generation or the wrapper: the lowered graph matches eager, and disabling any one pass does not help";

  // Fusion: the smallest number of fusion decisions that reproduces the difference.
  passes::PassManagerOptions po = opts.passes;
  Trial all = runTrial(captured, cid, opts, po, cpu, inputs, expected, expectedInputs);
  po.fusionLimit = 0;
  Trial none = runTrial(captured, cid, opts, po, cpu, inputs, expected, expectedInputs);
  log.push_back("all " + std::to_string(all.decisions) + " fusion decisions: " + outcome(all));
  log.push_back("no fusion decisions: " + outcome(none));
  if (!none.matches || all.matches) return "the fuse pass (not one fusion decision: the difference needs its kernel grouping as a whole)";
  int lo = 0, hi = all.decisions;
  Trial atLo = none, atHi = all;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    po.fusionLimit = mid;
    Trial t = runTrial(captured, cid, opts, po, cpu, inputs, expected, expectedInputs);
    log.push_back(std::to_string(mid) + " fusion decisions: " + outcome(t));
    if (t.matches) lo = mid, atLo = std::move(t);
    else hi = mid, atHi = std::move(t);
  }
  for (const auto& [id, rule] : atHi.fusedBy)
    if (!atLo.fusedBy.count(id)) {
      std::string node = atHi.nodeName.count(id) ? atHi.nodeName[id] : "node " + std::to_string(id);
      std::string kernel = atHi.kernelOf.count(id) ? " into " + atHi.kernelOf[id] : "";
      return "fusion decision " + std::to_string(hi) + " of " + std::to_string(all.decisions) + ": " + node + kernel + " (" + rule + ")";
    }
  return "fusion decision " + std::to_string(hi) + " of " + std::to_string(all.decisions);
}

capture::GraphRunner verifyingRunner(capture::GraphRunner compiled, std::shared_ptr<const ir::Graph> captured, const std::string& cid,
                                     const BackendOptions& opts, codegen::KernelCompiler* cpu, session::SessionSink& sink,
                                     std::shared_ptr<VerifyStats> stats) {
  ++stats->graphs;
  struct State {
    int calls = 0;
    bool matchReported = false, mismatchReported = false;
  };
  auto state = std::make_shared<State>();
  session::SessionSink* out = &sink;
  return [=](const std::vector<tensor::Tensor>& inputs) {
    const std::vector<tensor::Tensor> pristine = copyInputs(inputs);
    std::vector<tensor::Tensor> expectedInputs = copyInputs(inputs), expected;
    try {
      expected = runReference(*captured, expectedInputs);
    } catch (const std::exception&) {
      return compiled(inputs);  // the reference cannot run these inputs: the call is not checked
    }
    std::vector<tensor::Tensor> outs = compiled(inputs);
    ++state->calls;
    ++stats->calls;
    std::optional<OutputDiff> diff = compareCall(outs, inputs, expected, expectedInputs);
    session::VerifyEvent e;
    e.compileId = cid;
    e.call = state->calls;
    if (!diff) {
      if (!state->matchReported) out->verify(e);
      state->matchReported = true;
      return outs;
    }
    ++stats->mismatches;
    if (!state->mismatchReported) {
      state->mismatchReported = true;
      e.matched = false;
      e.output = diff->output;
      e.detail = diff->detail;
      e.culprit = bisectMismatch(*captured, cid, opts, cpu, pristine, expected, expectedInputs, e.bisection);
      out->verify(e);
      stats->reports.push_back("[" + cid + "] call " + std::to_string(e.call) + ": " + e.detail + "; introduced by " + e.culprit);
    }
    // The program goes on with the eager values, its tensors updated as eager updates them.
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined()) continue;
      tensor::Tensor dst = inputs[i];
      const tensor::Tensor& src = expectedInputs[i];
      tensor::Shape ss = src.strides();
      tensor::forEachIndex<2>(dst.sizes(), {&dst.strides(), &ss},
                              [&](const std::array<int64_t, 2>& o) { dst.storeAt(o[0], src.loadAt(o[1])); });
    }
    return expected;
  };
}

}  // namespace kiln::driver
