#include "engine/driver/kernel_views.h"
#include "engine/driver/kernel_views_child.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace kiln::driver {

namespace {
thread_local BackgroundKernelViews* currentViews = nullptr;
}  // namespace

session::KernelViewsEvent cudaKernelViews(const std::string& compileId, const std::vector<kir::Kernel>& kernels,
                                          const codegen::cuda::CudaViewOptions& options) {
  const codegen::cuda::CudaViews v = codegen::cuda::cudaViews(kernels, options);
  session::KernelViewsEvent e;
  e.compileId = compileId;
  // Each kernel's source becomes the unit's lines its PTX and SASS point at.
  for (size_t i = 0; i < kernels.size() && i < v.kernels.size(); ++i)
    e.kernels.push_back({kernels[i].name, v.kernels[i].source, codegen::cuda::gpuInfo(v, i)});
  return e;
}

BackgroundKernelViews* BackgroundKernelViews::current() { return currentViews; }

BackgroundKernelViews::Scope::Scope(BackgroundKernelViews& views) : previous_(currentViews) { currentViews = &views; }

BackgroundKernelViews::Scope::~Scope() { currentViews = previous_; }

BackgroundKernelViews::~BackgroundKernelViews() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    for (const auto& b : batches_) b->stop.request_stop();  // kills a child making its views
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BackgroundKernelViews::add(session::SessionSink& sink, session::KernelViewsEvent reported, Job job) {
  auto b = std::make_shared<Batch>();
  b->sink = &sink;
  b->reported = std::move(reported);
  b->job = std::move(job);
  {
    std::lock_guard<std::mutex> lock(mu_);
    batches_.push_back(std::move(b));
    // One thread, started on first use: a run with no GPU graph starts none. More would only
    // compete with the script for the CPU; NVRTC compiles one unit on one thread anyway.
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  }
  wake_.notify_one();
}

void BackgroundKernelViews::work() {
  for (;;) {
    std::shared_ptr<Batch> b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stop_ || next_ < batches_.size(); });
      if (stop_) return;
      b = batches_[next_++];
    }
    const auto t0 = std::chrono::steady_clock::now();
    session::KernelViewsEvent made;
    std::string error;
    takeViewsMadeInChild();
    try {
      made = b->job(b->stop.get_token());
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "an unnamed error";
    } catch (...) { error = "an unknown exception"; }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const bool inChild = takeViewsMadeInChild();
    {
      std::lock_guard<std::mutex> lock(mu_);
      b->made = std::move(made);
      b->error = std::move(error);
      b->ms = ms;
      b->inChild = inChild;
      b->done = true;
      // finish() gave up on it (and reported it as not made) when it is no longer queued.
      if (!batches_.empty() && std::find(batches_.begin(), batches_.end(), b) != batches_.end())
        ready_.fetch_add(1, std::memory_order_release);
    }
    doneCv_.notify_all();
  }
}

session::KernelViewsEvent viewsNotMade(session::KernelViewsEvent reported, const std::string& why) {
  for (auto& k : reported.kernels) k.gpu.notes = "PTX, SASS and resources not made: " + why;
  return reported;
}

void BackgroundKernelViews::report(Batch& b) {
  if (!b.error.empty()) b.sink->kernelViews(viewsNotMade(b.reported, b.error));
  else b.sink->kernelViews(b.made);
  // Its own phase, after the compile's: the time the views took on the background thread, off
  // the compile's critical path (so not one of session::compilePhases(), which sum to a cold
  // compile). Named apart where a child made them, so a session (and the GPU test) tells which.
  b.sink->timing(session::TimingEvent{b.reported.compileId, b.inChild ? "cuda views (child)" : "cuda views", b.ms});
}

void BackgroundKernelViews::deliverReady() {
  std::vector<std::shared_ptr<Batch>> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!batches_.empty() && batches_.front()->done) {
      out.push_back(std::move(batches_.front()));
      batches_.pop_front();
      --next_;
      ready_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  for (const auto& b : out) report(*b);
}

int BackgroundKernelViews::finish(std::chrono::milliseconds limit) {
  std::deque<std::shared_ptr<Batch>> all;
  {
    std::unique_lock<std::mutex> lock(mu_);
    doneCv_.wait_for(lock, limit, [this] { return std::all_of(batches_.begin(), batches_.end(), [](const auto& b) { return b->done; }); });
    all.swap(batches_);
    next_ = 0;
    ready_.store(0, std::memory_order_release);
  }
  int late = 0;
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", static_cast<double>(limit.count()) / 1000.0);
  for (const auto& b : all) {
    if (b->done) {
      report(*b);
      continue;
    }
    ++late;
    b->stop.request_stop();
    b->sink->kernelViews(viewsNotMade(b->reported, std::string("not ready when the session ended (it waits ") + waited +
                                                       " s for them); kiln show --stage ptx|sass makes them on demand"));
  }
  return late;
}

}  // namespace kiln::driver
