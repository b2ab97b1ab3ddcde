#include "engine/runtime/cuda_graph.h"

#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/kernel_bodies.h"
#include "engine/ops/graph_dispatcher.h"
#include "engine/ops/op_table.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/reinplace.h"
#include "engine/schedule/symbolic_shapes.h"
#include "engine/tensor/current_device.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace kiln::runtime::cuda {

namespace {

namespace cg = codegen::cuda;

struct Module {
  std::string ptx;
  void* module = nullptr;
  double ms = 0;
};

// NVRTC once per translation unit and process: modules by their source. Compiles run outside
// the lock, so units compile side by side (a graph's body groups); a unit two threads compiled at
// once keeps the first module stored.
const Module& loadSource(const std::string& source, const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Module> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(source); it != cache.end()) return it->second;
  }
  std::string why;
  cg::Nvrtc* nvrtc = cg::Nvrtc::instance(&why);
  if (!nvrtc) throw std::runtime_error("Kiln cannot compile CUDA kernels: " + why);
  const auto t0 = std::chrono::steady_clock::now();
  Module m;
  // For the device's real architecture ("sm_90"): NVRTC's ptxas makes the cubin, which the kernel
  // cache keeps beside the PTX, and the driver loads it as it is. Loading PTX made the driver JIT
  // it in every process whose driver cache missed, even when the kernel cache held the PTX: a
  // second run's graphs took 47-86 ms (cos(cos), layer norm) where the cubin takes 3-5
  // (docs/perf.md, issue 15). A first compile costs the same either way. The PTX stays the fallback
  // where NVRTC gave no cubin, and KILN_CUDA_LOAD=ptx asks for the driver's JIT (to compare the two).
  static const bool jitPtx = [] {
    const char* v = std::getenv("KILN_CUDA_LOAD");
    return v && std::string(v) == "ptx";
  }();
  const std::string cc = std::to_string(driver().major()) + std::to_string(driver().minor());
  const cg::Nvrtc::Output out = nvrtc->compile(source, name + ".cu", (jitPtx ? "compute_" : "sm_") + cc, {});
  m.ptx = out.ptx;
  m.module = driver().loadModule(out.cubin.empty() ? out.ptx : out.cubin);
  m.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> lock(mu);
  return cache.emplace(source, std::move(m)).first->second;  // std::map: references stay valid
}

// The bytes a kernel moves when all it does is copy one buffer into another of the same dtype,
// element i to element i over one contiguous range (the compiled y.copy_(x), a clone): such a
// kernel runs as cuMemcpyDtoDAsync, the copy PyTorch's copy_ makes for contiguous tensors, at the
// device's copy ceiling and with no NVRTC compile (30-60 ms cold on the H100 machine). 0 else.
size_t plainCopyBytes(const kir::Kernel& k) {
  if (k.symbolic() || k.buffers.size() != 2 || k.body.size() != 2) return 0;
  const kir::Instr& load = k.body[0];
  const kir::Instr& store = k.body[1];
  if (load.op != kir::Op::Load || store.op != kir::Op::Store || store.operands != std::vector<int>{load.id}) return 0;
  // The input first and the output second, as the launch's pointers come (inputs, then outputs).
  if (load.buffer != 0 || store.buffer != 1 || !(load.index == store.index) || load.index.offset != 0) return 0;
  const ir::DType d = k.buffers[static_cast<size_t>(load.buffer)].dtype;
  if (k.buffers[static_cast<size_t>(store.buffer)].dtype != d || load.dtype != d || store.dtype != d) return 0;
  // Row-major over the loops (the last fastest), each loop once: index i is element i.
  if (load.index.terms.size() > k.loops.size()) return 0;
  int64_t stride = 1;
  for (size_t l = k.loops.size(); l-- > 0;) {
    if (k.loops[l].reduction) return 0;
    const auto t = std::find_if(load.index.terms.begin(), load.index.terms.end(),
                                [&](const kir::IndexTerm& x) { return x.loop == static_cast<int>(l); });
    if (k.loops[l].extent == 1) continue;
    if (t == load.index.terms.end() || t->coeff != stride || !t->coeffSym.empty()) return 0;
    stride *= k.loops[l].extent;
  }
  size_t steppedTerms = 0, steppedLoops = 0;  // one term per loop that steps
  for (const auto& t : load.index.terms)
    steppedTerms += t.loop >= 0 && static_cast<size_t>(t.loop) < k.loops.size() && k.loops[static_cast<size_t>(t.loop)].extent != 1;
  for (const auto& l : k.loops) steppedLoops += l.extent != 1;
  if (steppedTerms != steppedLoops) return 0;
  const int64_t points = k.pointCount();
  for (const auto& b : k.buffers) {
    int64_t n = 1;
    for (int64_t e : b.shape) n *= e;
    if (n != points) return 0;
  }
  return static_cast<size_t>(points) * ir::itemSize(d);
}

// A graph's distinct kernel bodies in contiguous groups, one translation unit each, compiled on
// threads of their own: NVRTC and ptxas work on one unit at a time, and a model's twenty bodies
// in one unit took 0.4-0.6 s on the H100 machine's 16 cores. A group of at least four bodies (the
// prelude is compiled again in each unit); a graph of fewer stays one unit, as before.
std::vector<std::vector<size_t>> compileGroups(size_t bodies) {
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t groups = std::min({threads, (bodies + 3) / 4, size_t{8}});
  std::vector<std::vector<size_t>> out(std::max<size_t>(1, groups));
  for (size_t b = 0; b < bodies; ++b) out[b * out.size() / bodies].push_back(b);
  return out;
}

bool sameLayout(const tensor::Tensor& t, const std::vector<int64_t>& strides) {
  if (t.strides().size() != strides.size()) return false;
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] != strides[d]) return false;
  return true;
}

ops::Val argVal(const ir::Arg& a, const std::map<int, tensor::Tensor>& env) {
  switch (a.kind) {
    case ir::Arg::Kind::Node: return ops::Val::of(env.at(a.node));
    case ir::Arg::Kind::List: {
      std::vector<ops::Val> items;
      for (const auto& x : a.list) items.push_back(argVal(x, env));
      return ops::Val::listOf(std::move(items));
    }
    default: return ops::GraphDispatcher::fromArg(ir::Graph{}, a);
  }
}

tensor::Shape shapeOf(const ir::TensorType& ty) {
  tensor::Shape s;
  for (const auto& d : ty.sizes) s.push_back(d.value);
  return s;
}

void launch(void* fn, const cg::CudaLaunch& l, std::vector<unsigned long long> ptrs, const tensor::Tensor* scratch,
            const tensor::Tensor* counters) {
  if (l.points <= 0) return;
  long long points = l.points;
  std::vector<void*> params;
  for (auto& p : ptrs) params.push_back(&p);
  params.push_back(&points);
  unsigned long long s = 0, c = 0;
  if (l.schedule == cg::CudaSchedule::Split) {
    s = devicePtr(*scratch), c = devicePtr(*counters);
    params.push_back(&s);
    params.push_back(&c);
  }
  driver().launch(fn, l.gridX, l.gridY, l.block, params.data());
}

}  // namespace

unsigned long long devicePtr(const tensor::Tensor& t) {
  if (!t.storage()) return 0;
  return reinterpret_cast<unsigned long long>(static_cast<char*>(t.storage()->devicePtr()) + t.offset() * ir::itemSize(t.dtype()));
}

void* deviceFunction(const std::string& source, const std::string& unitName, const std::string& symbol) {
  return driver().function(loadSource(source, unitName).module, symbol);
}

GpuGraph::GpuGraph(ir::Graph fused, schedule::ScheduledGraph sched) : g_(std::move(fused)), sched_(std::move(sched)) {
  if (sched_.kernels.empty()) return;
  // Dynamic shapes: kernels over size symbols read their values from `ks` on the device, made
  // once per graph (a graph is built per shape; the source, and so the module, is the same for
  // every shape, so NVRTC runs once).
  sizes_ = schedule::symbolValues(g_);
  if (std::any_of(sched_.kernels.begin(), sched_.kernels.end(), [](const kir::Kernel& k) { return k.symbolic(); })) {
    tensor::Tensor host = tensor::Tensor::empty({static_cast<int64_t>(std::max<size_t>(1, sizes_.size()))}, ir::DType::Int64);
    for (size_t i = 0; i < sizes_.size(); ++i) host.storeAt(static_cast<int64_t>(i), static_cast<double>(sizes_[i]));
    ks_ = host.toDevice(tensor::Device::cuda(tensor::currentCudaIndex()));
  }
  source_ = cg::cudaSource(sched_.kernels);
  // NVRTC compiles each distinct kernel body once (codegen/kernel_bodies.h): a model's repeated
  // layers are the same few bodies, and a kernel runs through its body's first kernel's entry.
  const codegen::KernelBodies bodies = codegen::groupByBody(sched_.kernels);
  for (const auto& k : sched_.kernels) copyBytes_.push_back(plainCopyBytes(k));
  std::vector<size_t> compiled;  // the bodies NVRTC compiles (plain copies need none)
  for (size_t b = 0; b < bodies.first.size(); ++b)
    if (!copyBytes_[bodies.first[b]]) compiled.push_back(b);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<size_t>> groups;
  if (!compiled.empty()) groups = compileGroups(compiled.size());
  std::vector<std::string> units;
  for (auto& group : groups) {
    std::vector<kir::Kernel> distinct;
    for (size_t& b : group) distinct.push_back(sched_.kernels[bodies.first[b = compiled[b]]]);
    units.push_back(groups.size() == 1 && distinct.size() == sched_.kernels.size() ? source_ : cg::cudaSource(distinct));
  }
  std::vector<std::future<const Module*>> pending;
  for (size_t u = 1; u < units.size(); ++u)
    pending.push_back(std::async(std::launch::async, [&units, u] { return &loadSource(units[u], "kiln_graph"); }));
  std::vector<const Module*> modules;
  if (!units.empty()) modules.push_back(&loadSource(units[0], "kiln_graph"));
  for (auto& f : pending) modules.push_back(f.get());  // rethrows a unit's NVRTC error
  std::vector<const Module*> moduleOfBody(bodies.first.size());
  for (size_t u = 0; u < groups.size(); ++u) {
    ptx_ += modules[u]->ptx;
    for (size_t b : groups[u]) moduleOfBody[b] = modules[u];
  }
  compileMs_ =
      modules.size() == 1 ? modules[0]->ms : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const int sms = driver().multiprocessors();
  for (size_t i = 0; i < sched_.kernels.size(); ++i) {
    const kir::Kernel& k = sched_.kernels[i];
    const Module* m = moduleOfBody[bodies.bodyOf[i]];
    entries_.push_back(m ? cg::cudaSymbol(sched_.kernels[bodies.first[bodies.bodyOf[i]]]) : "");
    fns_.push_back(m ? driver().function(m->module, entries_.back()) : nullptr);
    launches_.push_back(cg::cudaLaunch(k, sizes_, sms));
    const cg::CudaLaunch& l = launches_.back();
    if (l.schedule == cg::CudaSchedule::Split) {
      scratch_.push_back(tensor::Tensor::empty({static_cast<int64_t>(l.scratchSlots)}, ir::DType::Int64,
                                               tensor::Device::cuda(tensor::currentCudaIndex())));
      tensor::Tensor zeros = tensor::Tensor::zeros({static_cast<int64_t>(l.counters)}, ir::DType::Int32);
      counters_.push_back(zeros.toDevice(tensor::Device::cuda(tensor::currentCudaIndex())));
    } else {
      scratch_.emplace_back(), counters_.emplace_back();
    }
  }
}

GpuGraph::~GpuGraph() = default;

const std::map<int, size_t>& GpuGraph::writeMutationsInPlace(const std::vector<std::pair<int, int>>& mutations) {
  writeInto_ = inPlaceMutations(g_, sched_, mutations);
  return writeInto_;
}

std::vector<tensor::Tensor> GpuGraph::run(const std::vector<tensor::Tensor>& inputs, std::vector<double>* stepMs) const {
  std::map<int, tensor::Tensor> env;
  auto ph = g_.placeholders();
  if (ph.size() != inputs.size())
    throw std::runtime_error("compiled graph expects " + std::to_string(ph.size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < ph.size(); ++i) env[ph[i]->id] = inputs[i];
  // With stepMs: one event before each step and one after the last.
  std::optional<TimingEvents> timed;
  if (stepMs) timed.emplace(driver(), sched_.steps.size() + 1), stepMs->clear();
  size_t stepAt = 0;
  for (const auto& st : sched_.steps) {
    if (timed) driver().recordEvent((*timed)[stepAt++]);
    if (st.kind == schedule::Step::Kind::Extern) {
      const ir::Node& n = *g_.find(st.node);
      std::vector<ops::Val> args;
      for (const auto& a : n.args) args.push_back(argVal(a, env));
      ops::EagerDispatcher eager;
      env[n.id] = eager.call(ops::op(n.target), args).t;
      continue;
    }
    const size_t ki = static_cast<size_t>(st.kernel);
    std::vector<unsigned long long> ptrs;
    for (size_t i = 0; i < st.inputNodes.size(); ++i) {
      const int id = st.inputNodes[i];
      tensor::Tensor t = env.at(id);
      if (!t.isCpu() || t.numel() == 0) {
        if (!sameLayout(t, st.inputStrides.at(i))) t = relayoutOnDevice(t, st.inputStrides[i]), env[id] = t;
      } else if (t.dim() == 0) {
        t = t.toDevice(tensor::Device::cuda(tensor::currentCudaIndex()));  // a CPU scalar beside CUDA tensors
      } else {
        throw tensor::TorchError("RuntimeError", "Expected all tensors to be on the same device, but found at least two devices, cuda:" +
                                                     std::to_string(tensor::currentCudaIndex()) + " and cpu!");
      }
      ptrs.push_back(devicePtr(t));
    }
    for (int id : st.outputNodes) {
      const ir::TensorType& ty = g_.find(id)->types.at(0);
      const tensor::Device dev = tensor::Device::cuda(tensor::currentCudaIndex());
      if (auto w = writeInto_.find(id); w != writeInto_.end() && canWriteInto(inputs, w->second, ty, dev))
        env[id] = inputs[w->second];  // the mutated input's new value, written in place
      else env[id] = tensor::Tensor::empty(shapeOf(ty), ty.dtype, dev);
      ptrs.push_back(devicePtr(env[id]));
    }
    if (sched_.kernels[ki].symbolic()) ptrs.push_back(devicePtr(ks_));  // after the buffers
    for (const auto& [out, in] : st.inPlace) {
      tensor::Shape s = shapeOf(g_.find(out)->types.at(0));
      env[out] = env.at(in).view(s, tensor::Tensor::contiguousStrides(s), env.at(in).offset());
    }
    if (copyBytes_[ki]) driver().copyOnDevice(ptrs[1], ptrs[0], copyBytes_[ki]);  // a plain copy: no kernel
    else launch(fns_[ki], launches_[ki], std::move(ptrs), &scratch_[ki], &counters_[ki]);
  }
  if (timed) {
    void* last = (*timed)[timed->size() - 1];
    driver().recordEvent(last);
    driver().synchronizeEvent(last);
    for (size_t i = 0; i + 1 < timed->size(); ++i) stepMs->push_back(driver().elapsedMs((*timed)[i], (*timed)[i + 1]));
  }
  std::vector<tensor::Tensor> out;
  for (const auto& a : g_.output()->args.at(0).list) out.push_back(env.at(a.node));
  return out;
}

namespace {

// A generated helper kernel ready to launch: its function and launch configuration.
struct HelperKernel {
  void* fn = nullptr;
  cg::CudaLaunch launch;
};

// Eager ops copy and fill on every call (addmm's bias, a relayout, zeros): the kernel for a key
// (dtypes, sizes, strides, value) is built, its source generated and found among the modules
// once; later calls with that key launch the function they found. Making it each time (kernel IR,
// source text, a lookup keyed by that text, cuModuleGetFunction) was host work on every addmm.
const HelperKernel& helperKernel(const std::vector<int64_t>& key, const char* unit, const std::function<kir::Kernel()>& build) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, HelperKernel> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const kir::Kernel k = build();
  const Module& m = loadSource(cg::cudaSource({k}), unit);
  HelperKernel h;
  h.fn = driver().function(m.module, cg::cudaSymbol(k));
  h.launch = cg::cudaLaunch(k);
  return cache.emplace(key, h).first->second;
}

kir::Kernel copyKernel(const tensor::Tensor& dst, const tensor::Tensor& src, const tensor::Shape& bs) {
  // One loop per dim: load src at its (broadcast) strides, store dst at its own; the load
  // converts to dst's dtype.
  kir::Kernel k;
  k.name = "copy";
  k.buffers.resize(2);
  k.buffers[0].name = "src", k.buffers[0].dtype = src.dtype();
  k.buffers[1].name = "dst", k.buffers[1].dtype = dst.dtype(), k.buffers[1].output = true;
  int64_t srcExtent = 1, dstExtent = 1;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    k.loops.push_back({"i" + std::to_string(d), dst.sizes()[static_cast<size_t>(d)], false, ""});
    srcExtent += (dst.sizes()[static_cast<size_t>(d)] - 1) * bs[static_cast<size_t>(d)];
    dstExtent += (dst.sizes()[static_cast<size_t>(d)] - 1) * dst.strides()[static_cast<size_t>(d)];
  }
  k.buffers[0].shape = {srcExtent};
  k.buffers[1].shape = {dstExtent};
  kir::Instr load;
  load.id = 0, load.op = kir::Op::Load, load.buffer = 0, load.dtype = dst.dtype();
  kir::Instr store;
  store.op = kir::Op::Store, store.buffer = 1, store.operands = {0}, store.dtype = dst.dtype();
  for (int64_t d = 0; d < dst.dim(); ++d) {
    load.index.terms.push_back({static_cast<int>(d), bs[static_cast<size_t>(d)], ""});
    store.index.terms.push_back({static_cast<int>(d), dst.strides()[static_cast<size_t>(d)], ""});
  }
  k.body = {load, store};
  return k;
}

}  // namespace

void copyOnDevice(tensor::Tensor& dst, const tensor::Tensor& src) {
  if (dst.numel() == 0) return;
  const tensor::Shape bs = tensor::broadcastStrides(src, dst.sizes());
  // What the kernel's text depends on: the dtypes and, per dim, the size and both strides.
  std::vector<int64_t> key = {0, static_cast<int64_t>(src.dtype()), static_cast<int64_t>(dst.dtype())};
  for (int64_t d = 0; d < dst.dim(); ++d) {
    const auto i = static_cast<size_t>(d);
    key.insert(key.end(), {dst.sizes()[i], bs[i], dst.strides()[i]});
  }
  const HelperKernel& h = helperKernel(key, "kiln_copy", [&] { return copyKernel(dst, src, bs); });
  launch(h.fn, h.launch, {devicePtr(src), devicePtr(dst)}, nullptr, nullptr);
}

kir::Kernel fillKernel(const tensor::Tensor& dst, double value) {
  // One loop per dim storing the constant at dst's strides; the value is part of the text (the
  // module cache key), so each (layout, value) is one kernel, as each copy layout is.
  kir::Kernel k;
  k.name = "fill";
  k.buffers.resize(1);
  k.buffers[0].name = "dst", k.buffers[0].dtype = dst.dtype(), k.buffers[0].output = true;
  int64_t extent = 1;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    k.loops.push_back({"i" + std::to_string(d), dst.sizes()[static_cast<size_t>(d)], false, ""});
    extent += (dst.sizes()[static_cast<size_t>(d)] - 1) * dst.strides()[static_cast<size_t>(d)];
  }
  k.buffers[0].shape = {extent};
  kir::Instr c;
  c.id = 0, c.op = kir::Op::Const, c.constant = value, c.dtype = dst.dtype();
  kir::Instr store;
  store.op = kir::Op::Store, store.buffer = 0, store.operands = {0}, store.dtype = dst.dtype();
  for (int64_t d = 0; d < dst.dim(); ++d) store.index.terms.push_back({static_cast<int>(d), dst.strides()[static_cast<size_t>(d)], ""});
  k.body = {c, store};
  return k;
}

void fillOnDevice(tensor::Tensor& dst, double value) {
  if (dst.numel() == 0) return;
  // The value's bits are part of the key, as the value is part of the kernel's text.
  int64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  std::vector<int64_t> key = {1, static_cast<int64_t>(dst.dtype()), bits};
  for (int64_t d = 0; d < dst.dim(); ++d)
    key.insert(key.end(), {dst.sizes()[static_cast<size_t>(d)], dst.strides()[static_cast<size_t>(d)]});
  const HelperKernel& h = helperKernel(key, "kiln_fill", [&] { return fillKernel(dst, value); });
  launch(h.fn, h.launch, {devicePtr(dst)}, nullptr, nullptr);
}

tensor::Tensor relayoutOnDevice(const tensor::Tensor& t, const std::vector<int64_t>& strides) {
  int64_t extent = 1;
  for (size_t d = 0; d < strides.size(); ++d)
    if (t.sizes()[d] > 0) extent += (t.sizes()[d] - 1) * strides[d];
  tensor::Tensor out = tensor::Tensor::empty({t.numel() == 0 ? 0 : extent}, t.dtype(), t.device()).view(t.sizes(), strides, 0);
  copyOnDevice(out, t);
  return out;
}

}  // namespace kiln::runtime::cuda
