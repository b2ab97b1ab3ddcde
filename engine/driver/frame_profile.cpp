#include "engine/driver/frame_profile.h"
#include "engine/driver/stopwatch.h"

#include "engine/ops/op_table.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace kiln::driver {

namespace {

template <class F>
double medianMs(int repeat, F f) {
  f();  // warm-up: first-touch of buffers, lazily built state
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(t));
}

// Per schedule step, the median of its times over `repeat` runs after a warm-up; `run` runs the
// graph once and leaves one time per step.
template <class Run>
std::vector<double> stepMedians(int repeat, size_t steps, Run run) {
  std::vector<std::vector<double>> per(steps);
  std::vector<double> ms;
  run(&ms);
  for (int i = 0; i < repeat; ++i) {
    run(&ms);
    for (size_t s = 0; s < ms.size() && s < per.size(); ++s) per[s].push_back(ms[s]);
  }
  std::vector<double> out;
  for (auto& t : per) out.push_back(median(std::move(t)));
  return out;
}

// The median GPU time of f() over `repeat` calls after a warm-up: CUDA events recorded on the
// stream before and after each call, as torch.cuda.Event timings are (host work the GPU waits
// for counts).
template <class F>
double medianGpuMs(int repeat, F f) {
  auto& d = runtime::cuda::driver();
  f();
  d.synchronize();
  runtime::TimingEvents ev(d, 2);
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    d.recordEvent(ev[0]);
    f();
    d.recordEvent(ev[1]);
    d.synchronizeEvent(ev[1]);
    t.push_back(d.elapsedMs(ev[0], ev[1]));
  }
  return median(std::move(t));
}

// A graph compiled for the GPU: the captured graph with the eager CUDA ops against the compiled
// launches, then each step's GPU time (kernels by name, extern calls as the wrapper names them;
// views, which launch nothing, are not listed).
FrameProfile profileGpuFrame(const CompiledFrame& f, int repeat) {
  FrameProfile p;
  p.compileId = f.compileId;
  p.eagerMs = medianGpuMs(repeat, [&] { runtime::runTorchGraph(f.captured, f.firstInputs); });
  p.compiledMs = medianGpuMs(repeat, [&] { f.gpu->run(f.firstInputs); });
  const auto& steps = f.gpu->schedule().steps;
  const std::vector<double> per = stepMedians(repeat, steps.size(), [&](std::vector<double>* ms) { f.gpu->run(f.firstInputs, ms); });
  for (size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].kind == schedule::Step::Kind::Kernel) {
      const kir::Kernel& k = f.gpu->schedule().kernels.at(static_cast<size_t>(steps[s].kernel));
      p.kernels.push_back(KernelProfile{k.name, per[s], k.bytes()});
    } else if (const ir::Node* n = f.gpu->graph().find(steps[s].node); ops::op(n->target).kind != ops::OpKind::View) {
      // A view step launches nothing: its interval is host time, left out. An extern call is
      // named by its op and its node (a model's sixteen addmm are sixteen rows, not one).
      p.kernels.push_back(KernelProfile{"extern_kernels." + n->target + " (" + n->name + ")", per[s], 0});
    }
  }
  return p;
}

}  // namespace

FrameProfile profileFrame(const CompiledFrame& f, int repeat) {
  if (!f.called) throw std::runtime_error("graph " + f.compileId + " was compiled but never called");
  repeat = std::max(1, repeat);
  if (f.gpu) return profileGpuFrame(f, repeat);
  FrameProfile p;
  p.compileId = f.compileId;
  p.eagerMs = medianMs(repeat, [&] { runtime::runTorchGraph(f.captured, f.firstInputs); });
  p.compiledMs = medianMs(repeat, [&] { f.compiled->run(f.firstInputs); });
  const auto& steps = f.compiled->schedule().steps;
  const std::vector<double> per = stepMedians(repeat, steps.size(), [&](std::vector<double>* ms) { f.compiled->run(f.firstInputs, ms); });
  for (size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].kind != schedule::Step::Kind::Kernel) continue;
    const kir::Kernel& k = f.compiled->schedule().kernels.at(steps[s].kernel);
    p.kernels.push_back(KernelProfile{k.name, per[s], k.bytes()});
  }
  return p;
}

double memcpyGbPerS(size_t bytes, int repeat, bool parallel) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  volatile char sink = 0;
  const int64_t chunks = 64;
  double ms = medianMs(std::max(1, repeat), [&] {
    auto copy = [&](int64_t lo, int64_t hi) {
      size_t from = bytes * static_cast<size_t>(lo) / chunks, to = bytes * static_cast<size_t>(hi) / chunks;
      std::memcpy(b.data() + from, a.data() + from, to - from);
    };
    if (parallel) runtime::ThreadPool::instance().parallelFor(chunks, copy);
    else copy(0, chunks);
    sink = sink + b[bytes / 2];  // the copy is observed, so it cannot be elided
  });
  return ms > 0 ? 2.0 * static_cast<double>(bytes) / (ms * 1e6) : 0.0;
}

}  // namespace kiln::driver
