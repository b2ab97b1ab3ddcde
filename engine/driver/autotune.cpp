#include "engine/driver/autotune.h"

#include "engine/codegen/kernel_cache.h"
#include "engine/driver/stopwatch.h"
#include "engine/ops/blas_core.h"
#include "engine/ops/gemm_algos.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"
#include "engine/runtime/thread_pool.h"
#include "engine/tensor/stop.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <oneapi/dnnl/dnnl.h>

// OpenBLAS's build (version, kernels compiled in); weak, as in ops/blas_core.cpp.
extern "C" char* openblas_get_config(void) __attribute__((weak));

namespace kiln::driver {

namespace {

// A candidate is timed for at least kMinRuns calls and until kBudgetMs have passed, at most
// kMaxRuns: a 64x1024x1024 product (~1 ms) gets about 20 runs, a tiny one kMaxRuns.
constexpr int kMinRuns = 5;
constexpr int kMaxRuns = 50;
constexpr double kBudgetMs = 20.0;

bool isProduct(const ir::Node& n) {
  return n.target == "aten.mm.default" || n.target == "aten.addmm.default" || n.target == "aten.bmm.default";
}

bool concrete(const ir::TensorType& t) {
  for (const auto& d : t.sizes)
    if (d.symbolic()) return false;
  for (const auto& d : t.strides)
    if (d.symbolic()) return false;
  return true;
}

// Only products whose implementations differ: float32, or 16-bit floats (widened to float32).
bool tunable(const ir::Graph& g, const ir::Node& n) {
  if (!isProduct(n) || n.types.size() != 1 || !concrete(n.types[0])) return false;
  const ir::DType d = n.types[0].dtype;
  if (d != ir::DType::Float32 && !ir::isReducedFloat(d)) return false;
  if (!n.types[0].device.empty() && n.types[0].device != "cpu") return false;
  if (n.types[0].numel() == 0) return false;  // nothing to time: gemm returns before choosing
  for (const auto& a : n.args)
    if (a.kind == ir::Arg::Kind::Node) {
      const ir::Node* in = g.find(a.node);
      if (!in || in->types.size() != 1 || !concrete(in->types[0]) || in->types[0].numel() == 0) return false;
    }
  return true;
}

// A tensor of `t`'s sizes and strides over storage of its extent, filled with a fixed pattern of
// small values (no denormals, no draw from the script's generator).
tensor::Tensor operandOf(const ir::TensorType& t) {
  tensor::Shape sizes, strides;
  int64_t extent = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    sizes.push_back(t.sizes[i].value);
    strides.push_back(i < t.strides.size() ? t.strides[i].value : 0);
  }
  if (t.strides.size() != t.sizes.size()) strides = tensor::Tensor::contiguousStrides(sizes);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 0) extent = 0;
    else extent += (sizes[i] - 1) * strides[i];
  tensor::Tensor base = tensor::Tensor::empty({std::max<int64_t>(extent, 1)}, t.dtype);
  for (int64_t i = 0; i < base.numel(); ++i) base.storeAt(i, static_cast<double>((i * 7919) % 2003) / 2003.0 - 0.5);
  return base.view(sizes, strides, 0);
}

// "[64, 1024] @ [1024, 1024] (column-major), float32": the operands as the product reads them.
std::string problemOf(const ir::Graph& g, const ir::Node& n) {
  std::string out;
  const size_t first = n.target == "aten.addmm.default" ? 1 : 0;  // addmm's bias comes first
  for (size_t i = first; i < n.args.size() && i < first + 2; ++i) {
    const ir::Node* in = n.args[i].kind == ir::Arg::Kind::Node ? g.find(n.args[i].node) : nullptr;
    if (!in) continue;
    const ir::TensorType& t = in->types[0];
    std::string dims = "[";
    for (size_t d = 0; d < t.sizes.size(); ++d) dims += (d ? ", " : "") + t.sizes[d].str();
    dims += "]";
    const size_t nd = t.sizes.size();
    if (nd >= 2 && t.strides.size() == nd && t.strides[nd - 2].value == 1 && t.sizes[nd - 1].value > 1) dims += " (column-major)";
    out += (out.empty() ? "" : " @ ") + dims;
  }
  if (first == 1) out += " + bias";
  std::string dtype(ir::torchName(n.types[0].dtype));
  if (dtype.rfind("torch.", 0) == 0) dtype.erase(0, 6);
  return out + ", " + dtype;
}

std::string cpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 1);
  return "unknown cpu";
}

// What decides the timings besides the product: the CPU, the threads each library runs and the
// build of Kiln (its kernels and the libraries it was linked with).
std::string cacheKey(const ir::Graph& g, const ir::Node& n) {
  std::string key = "max-autotune v1|" + n.target + "|" + std::string(ir::torchName(n.types[0].dtype));
  for (const auto& a : n.args) {
    if (a.kind == ir::Arg::Kind::Node) {
      const ir::TensorType& t = g.find(a.node)->types[0];
      key += "|" + t.str() + "/";
      for (const auto& s : t.strides) key += s.str() + ",";
    } else if (a.kind == ir::Arg::Kind::Int) key += "|" + std::to_string(a.i);
    else if (a.kind == ir::Arg::Kind::Float) key += "|" + std::to_string(a.f);
  }
  static const std::string host = [] {
    auto env = [](const char* v) { return std::string(std::getenv(v) ? std::getenv(v) : ""); };
    const dnnl_version_t* dnnl = dnnl_version();
    return "|cpu " + cpuModel() + "|pool " + std::to_string(runtime::ThreadPool::instance().size()) + "|omp " + env("OMP_NUM_THREADS") +
           " " + env("OMP_WAIT_POLICY") + "|openblas " + env("OPENBLAS_NUM_THREADS") + " " + ops::openBlasCore() + " " +
           (openblas_get_config ? openblas_get_config() : "") + "|onednn " + std::to_string(dnnl->major) + "." +
           std::to_string(dnnl->minor) + "." + std::to_string(dnnl->patch) + "|skinny " + env("KILN_SKINNY_GEMM");
  }();
  return key + host + "|" + codegen::KernelCache::buildId();
}

using Candidate = session::AutotuneEvent::Candidate;

std::vector<Candidate> fromCache(const codegen::CachedModule& m) {
  std::vector<Candidate> out;
  for (size_t i = 0; i < m.names.size(); ++i) out.push_back({m.names[i], std::strtod(m.llvmIr[i].c_str(), nullptr), m.assembly[i], false});
  return out;
}

void toCache(const std::string& key, const std::vector<Candidate>& cs) {
  codegen::KernelCache* cache = codegen::KernelCache::instance();
  if (!cache) return;
  codegen::CachedModule m;
  m.key = key;
  for (const auto& c : cs) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.17g", c.ms);
    m.names.push_back(c.algo), m.llvmIr.push_back(ms), m.assembly.push_back(c.note);
  }
  m.object = "max-autotune timings";  // an entry must carry an object; this one has no code
  cache->store(m);
}

// One implementation's median time on the product, or -1 with `note` saying why it did not run.
double timeOne(const ops::OpDef& op, const std::vector<ops::Val>& args, const std::string& algo, std::string& note) {
  ops::GemmAlgoScope pin(algo);
  ops::EagerDispatcher eager;
  ops::noteGemmAlgo("");  // what the warm-up runs, not an earlier product's
  try {
    eager.call(op, args);  // warm-up: packing buffers, oneDNN's JIT, the pool's threads
  } catch (const tensor::Interrupted&) { throw; } catch (const std::exception& e) {
    note = std::string("failed: ") + e.what();
    return -1.0;
  }
  if (ops::lastGemmAlgo() != algo) {
    note = "does not apply to this product (the default rule ran " + ops::lastGemmAlgo() + ")";
    return -1.0;
  }
  std::vector<double> runs;
  const auto start = std::chrono::steady_clock::now();
  while (runs.size() < size_t(kMaxRuns) && (runs.size() < size_t(kMinRuns) || msSince(start) < kBudgetMs)) {
    tensor::checkStop();
    const auto t0 = std::chrono::steady_clock::now();
    eager.call(op, args);
    runs.push_back(msSince(t0));
  }
  return median(std::move(runs));
}

std::string noteFor(const std::vector<Candidate>& cs, size_t chosen) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g ms", cs[chosen].ms);
  std::string out = "max-autotune: " + cs[chosen].algo + " " + buf;
  std::string others;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i == chosen) continue;
    if (cs[i].ms < 0) others += (others.empty() ? "" : ", ") + cs[i].algo + " n/a";
    else {
      std::snprintf(buf, sizeof buf, "%.4g", cs[i].ms);
      others += (others.empty() ? "" : ", ") + cs[i].algo + " " + buf;
    }
  }
  return others.empty() ? out : out + " (" + others + ")";
}

}  // namespace

bool wantsAutotune(const std::string& mode) { return mode == "max-autotune" || mode == "max-autotune-no-cudagraphs"; }

int autotuneProducts(const ir::Graph& fused, schedule::ScheduledGraph& sched, const std::string& compileId, session::SessionSink& sink,
                     const std::string& graph) {
  const auto t0 = std::chrono::steady_clock::now();
  int tuned = 0;
  for (auto& st : sched.steps) {
    if (st.kind != schedule::Step::Kind::Extern) continue;
    const ir::Node* n = fused.find(st.node);
    if (!n || !tunable(fused, *n)) continue;
    session::AutotuneEvent ev;
    ev.compileId = compileId;
    ev.node = graph.empty() ? n->name : n->name + " (" + graph + ")";
    ev.op = n->target;
    ev.problem = problemOf(fused, *n);
    const std::string key = cacheKey(fused, *n);
    codegen::KernelCache* cache = codegen::KernelCache::instance();
    if (auto hit = cache ? cache->load(key) : std::nullopt) {
      ev.candidates = fromCache(*hit);
      ev.cached = true;
    } else {
      try {
        std::vector<ops::Val> args;
        for (const auto& a : n->args)
          args.push_back(a.kind == ir::Arg::Kind::Node ? ops::Val::of(operandOf(fused.find(a.node)->types[0]))
                                                       : ops::GraphDispatcher::fromArg(fused, a));
        const ops::OpDef& op = ops::op(n->target);
        for (const auto& algo : ops::gemmAlgos()) {
          Candidate c{algo.name, -1.0, "", false};
          c.ms = timeOne(op, args, c.algo, c.note);
          ev.candidates.push_back(std::move(c));
        }
        toCache(key, ev.candidates);
      } catch (const tensor::Interrupted&) { throw; } catch (const std::exception& e) {
        // Operands that do not fit the memory limit, a failing timed call: the product keeps the
        // default rule and says why; the compile goes on.
        ev.candidates = {{"", -1.0, std::string("not tuned: ") + e.what(), false}};
      }
    }
    size_t best = ev.candidates.size();
    for (size_t i = 0; i < ev.candidates.size(); ++i)
      if (ev.candidates[i].ms >= 0 && ops::isGemmAlgo(ev.candidates[i].algo) &&
          (best == ev.candidates.size() || ev.candidates[i].ms < ev.candidates[best].ms))
        best = i;
    if (best < ev.candidates.size()) {
      ev.candidates[best].chosen = true;
      st.algo = ev.candidates[best].algo;
      st.algoNote = noteFor(ev.candidates, best) + (ev.cached ? ", cached" : "");
      ++tuned;
    }
    sink.autotune(ev);
  }
  if (tuned) sink.timing(session::TimingEvent{compileId, graph.empty() ? "autotune" : graph + " autotune", msSince(t0)});
  return tuned;
}

}  // namespace kiln::driver
