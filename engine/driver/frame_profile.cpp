#include "engine/driver/frame_profile.h"

#include "engine/runtime/compiled_graph.h"
#include "engine/runtime/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace kiln::driver {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

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

}  // namespace

FrameProfile profileFrame(const CompiledFrame& f, int repeat) {
  if (!f.called) throw std::runtime_error("graph " + f.compileId + " was compiled but never called");
  repeat = std::max(1, repeat);
  FrameProfile p;
  p.compileId = f.compileId;
  p.eagerMs = medianMs(repeat, [&] { runtime::runTorchGraph(f.captured, f.firstInputs); });
  p.compiledMs = medianMs(repeat, [&] { f.compiled->run(f.firstInputs); });
  const auto& steps = f.compiled->schedule().steps;
  std::vector<std::vector<double>> per(steps.size());
  std::vector<double> ms;
  f.compiled->run(f.firstInputs, &ms);
  for (int i = 0; i < repeat; ++i) {
    f.compiled->run(f.firstInputs, &ms);
    for (size_t s = 0; s < ms.size() && s < per.size(); ++s) per[s].push_back(ms[s]);
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].kind != schedule::Step::Kind::Kernel) continue;
    const kir::Kernel& k = f.compiled->schedule().kernels.at(steps[s].kernel);
    p.kernels.push_back(KernelProfile{k.name, median(per[s]), k.bytes()});
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
