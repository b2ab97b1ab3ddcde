// The GPU views of a compile's kernels (PTX with line info, SASS, ptxas's figures:
// codegen/cuda/cuda_views.h), made off the compile's critical path. Making them is a second NVRTC
// compile of the graph's unit to a cubin plus nvdisasm as a subprocess: 0.4-0.7 s per graph on the
// GPU machine, ten times the rest of a small graph's cold compile. So a GPU compile reports its
// kernels at once (launch known, PTX and SASS "pending" in their notes) and queues the views
// here; one background thread makes them, and the thread that owns the session sink reports
// each batch when it is ready (session::KernelViewsEvent, which updates the kernel rows, and a
// "cuda views" timing for the compile, "cuda views (child)" where a child made them). runScript installs one per run, reports ready batches
// with the printed output (the watchdog's quarter-second flush, on the script's thread) and
// waits for the rest before the session ends, so a recorded session holds them as before.
//
// Sinks are never called from the background thread: they are not thread-safe (SQLite writer,
// TeeSink, explain reports), and the events of one sink stay in one thread's order. What the job
// uses may run beside the script's thread: NVRTC is thread-safe, the kernel cache writes entries
// through temporary files, and the device's arch and SM count are read before the job is queued
// (codegen::cuda::resolvedViewOptions). NVRTC is not concurrent, though: one process's compiles
// run one at a time (two threads compiling at once took twice one compile on the GPU machine),
// so views made on the background thread would hold up the next graph's compile until their
// NVRTC compile ends (docs/perf.md). The GPU backend's job therefore makes them in a child
// process, `kiln cuda-views` (kernel_views_child.h: makeKernelViews), where the CLI registered
// itself as the helper; without one (tests, the studio, plugins) they are made on the thread.
// Stopping the queue (finish() past its limit, the destructor) kills a child still running.
#pragma once

#include "engine/codegen/cuda/cuda_views.h"
#include "engine/session/sink.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace kiln::driver {

// The views of a GPU graph's kernels as the session records them (what each KernelEvent's `gpu`
// and `source` become): PTX with line info, the cubin's SASS (nvdisasm) and ptxas's figures, for
// `options`' architecture and launches (resolvedViewOptions()'s, on another thread). One more
// NVRTC compile of the graph's unit; throws where NVRTC cannot make it.
session::KernelViewsEvent cudaKernelViews(const std::string& compileId, const std::vector<kir::Kernel>& kernels,
                                          const codegen::cuda::CudaViewOptions& options);

// `reported` (the kernels as their compile reported them) with every kernel's notes saying why its
// views were not made: "PTX, SASS and resources not made: <why>".
session::KernelViewsEvent viewsNotMade(session::KernelViewsEvent reported, const std::string& why);

class BackgroundKernelViews {
 public:
  // Makes the views of one compile's kernels (runs on the background thread; may throw). A stop is
  // requested when the queue no longer wants the batch (finish() gave up on it, the destructor):
  // a job that runs a child kills it then (childKernelViews).
  using Job = std::function<session::KernelViewsEvent(std::stop_token)>;

  BackgroundKernelViews() = default;
  // Drops the batches not started and stops the one being made; waits for its job to return
  // (a child is ended: SIGTERM, SIGKILL 200 ms later; NVRTC in this process cannot be stopped midway).
  ~BackgroundKernelViews();
  BackgroundKernelViews(const BackgroundKernelViews&) = delete;
  BackgroundKernelViews& operator=(const BackgroundKernelViews&) = delete;

  // Queues `job` for `sink`, which must outlive finish(). `reported`: the kernels as the compile
  // reported them (launch, arch, source), what a batch that fails or is not made in time is
  // reported with, its notes saying why.
  void add(session::SessionSink& sink, session::KernelViewsEvent reported, Job job);
  // A job that cannot be stopped (one made in this process).
  void add(session::SessionSink& sink, session::KernelViewsEvent reported, std::function<session::KernelViewsEvent()> job) {
    add(sink, std::move(reported), Job([j = std::move(job)](std::stop_token) { return j(); }));
  }
  // Whether some batch is made and not yet reported (any thread: the watchdog asks).
  bool ready() const { return ready_.load(std::memory_order_acquire) > 0; }
  // Reports every batch made so far, in the order they were queued; on the sinks' thread.
  void deliverReady();
  // Waits until every batch is made or `limit` has passed, and reports them all: those not made
  // by then with a note saying so (the rows then read as made without views), their jobs asked to
  // stop. Returns how many were not made in time.
  int finish(std::chrono::milliseconds limit);

  // The queue this thread's compiles use; null: they make their views during the compile.
  static BackgroundKernelViews* current();
  // Installs `views` as this thread's queue for its lifetime (runScript, tests).
  class Scope {
   public:
    explicit Scope(BackgroundKernelViews& views);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BackgroundKernelViews* previous_;
  };

  static constexpr const char* kPendingNote = "PTX, SASS and resources pending: made after the compile, on a background thread";

 private:
  struct Batch {
    session::SessionSink* sink = nullptr;
    session::KernelViewsEvent reported;
    Job job;
    std::stop_source stop;
    bool done = false;
    session::KernelViewsEvent made;
    std::string error;  // what the job threw
    double ms = 0.0;
    bool inChild = false;  // the job ran a child (takeViewsMadeInChild)
  };
  void work();
  // `b` as reported with every kernel's notes saying why its views were not made.
  static void report(Batch& b);

  mutable std::mutex mu_;
  std::condition_variable wake_, doneCv_;
  std::deque<std::shared_ptr<Batch>> batches_;  // queued order; made ones first (one worker, FIFO)
  size_t next_ = 0;                             // the first batch the worker has not taken
  bool stop_ = false;
  std::atomic<int> ready_{0};
  std::thread worker_;  // started with the first batch
};

}  // namespace kiln::driver
