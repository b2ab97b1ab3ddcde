// A compile's GPU views (kernel_views.h) made in a child process: the kiln executable itself, run
// as `kiln cuda-views` (app/cli). NVRTC compiles one unit at a time per process (two threads
// compiling at once took twice one compile on the GPU machine), so views made by the script's
// process on its background thread held up the next graph's NVRTC compile by 0.45-2 s; a child
// has an NVRTC of its own. The parent sends the kernels as kernel IR text with the view options
// it resolved on the device's thread (arch, SM count, the runtime's launches), so the child needs
// no GPU or driver; the child answers with the KernelViewsEvent as JSON on stdout.
//
// The engine does not know where kiln is: the CLI registers it (setKernelViewsHelper, from
// /proc/self/exe). Without a helper (unit tests, the studio, plugins hosting the engine) or with
// KILN_CUDA_VIEWS_IN_PROCESS=1 in the environment (to compare), the views are made in-process.
#pragma once

#include "engine/codegen/cuda/cuda_views.h"
#include "engine/session/events.h"

#include <iosfwd>
#include <stop_token>
#include <string>
#include <vector>

namespace kiln::driver {

// The executable run as `PATH cuda-views` to make views; "" for none (the default). Any thread.
void setKernelViewsHelper(const std::string& path);
// The registered helper, or "" when there is none or KILN_CUDA_VIEWS_IN_PROCESS=1 is set.
std::string kernelViewsHelper();

// What the child needs to make one compile's views.
struct KernelViewsRequest {
  std::string compileId;
  std::vector<kir::Kernel> kernels;
  std::string arch;  // resolved: "sm_90"
  int smCount = 0;
  bool hasLaunches = false;  // the runtime's launches are known (GPU sessions)
  std::vector<codegen::cuda::CudaLaunch> launches;
  codegen::cuda::CudaViewOptions options() const;  // points into `launches`
};

// The wire: one JSON object each way (kernel_views_wire.cpp). The readers throw std::runtime_error
// saying what is wrong with text that is not what the writers write.
std::string requestToJson(const KernelViewsRequest& r);
KernelViewsRequest requestFromJson(const std::string& text);
std::string viewsEventToJson(const session::KernelViewsEvent& e);
session::KernelViewsEvent viewsEventFromJson(const std::string& text);

// The child's side (`kiln cuda-views`): reads a request from `in`, writes the views to `out`.
// Throws (the CLI prints it to stderr and exits 1) where the request or NVRTC fails.
void serveKernelViews(std::istream& in, std::ostream& out);

// The parent's side: runs `helper cuda-views` (no shell), sends it the request on stdin, reads its
// stdout and stderr, and returns its views. Throws std::runtime_error when it cannot start, exits
// non-zero, dies of a signal or writes something else, the why ending with its stderr's tail. A
// stop requested on `stop` kills the child (SIGKILL) and throws.
session::KernelViewsEvent childKernelViews(const std::string& helper, const KernelViewsRequest& request, std::stop_token stop = {});

// What a queued views job runs: in a child where a helper is registered, else cudaKernelViews().
session::KernelViewsEvent makeKernelViews(const std::string& compileId, const std::vector<kir::Kernel>& kernels,
                                          const codegen::cuda::CudaViewOptions& options, std::stop_token stop = {});

}  // namespace kiln::driver
