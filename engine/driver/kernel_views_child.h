// A compile's GPU views (kernel_views.h) made in a child process: the kiln executable itself, run
// as `kiln cuda-views` (app/cli). NVRTC compiles one unit at a time per process (two threads
// compiling at once took twice one compile on the GPU machine), so views made by the script's
// process on its background thread held up the next graph's NVRTC compile by 0.45-2 s; a child
// has an NVRTC of its own. The parent sends the kernels as kernel IR text with the view options
// it resolved on the device's thread (arch, SM count, the runtime's launches), so the child needs
// no GPU or driver; the child answers with the KernelViewsEvent as JSON on stdout.
//
// The engine does not know where kiln is: the CLI registers it (setKernelViewsHelper) as
// "/proc/self/exe", spawned as such for every job, so a child is always the running binary, even
// one rebuilt or deleted since (a path read at start-up would then name another binary, or
// "... (deleted)" and ENOENT); the path it points to at start-up names it in messages. Without a
// helper (unit tests, the studio, plugins hosting the engine) or with KILN_CUDA_VIEWS_IN_PROCESS=1
// in the environment (to compare), the views are made in-process. A child's views are timed as
// "cuda views (child)", in-process ones as "cuda views" (kernel_views.h), so a session says which.
//
// A child's lifetime (childKernelViews): it runs in a process group of its own, with only its
// stdin, stdout and stderr open (the parent's other descriptors closed), TMPDIR set to a private
// folder the parent made (its TempCubin, nvdisasm's files) and KILN_VIEWS_PARENT to the parent's
// pid. `kiln cuda-views` asks the kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG) and
// exits at once if its parent is already not KILN_VIEWS_PARENT (it died before the prctl), so a
// kiln killed abruptly leaves no child running. (The signal comes when the spawning thread ends,
// not the process: that is the queue's worker, kernel_views.h, which outlives every child it waits
// for.) A stop sends the group SIGTERM
// (nvdisasm and a helper that traps it end cleanly) and SIGKILL 200 ms later if it has not ended.
// Temporary files are not left to the child's signal handling (NVRTC cannot be interrupted mid-
// compile): the parent removes the private TMPDIR after reaping the child, however it ended. The
// one file it does not cover, a kernel cache entry's "<entry>.tmp<pid>.<n>" being written when the
// child is killed, is left in the cache folder (kernel_cache.h); and a parent killed abruptly leaves its
// child's private TMPDIR (/tmp/kiln-views-XXXXXX) behind, as it leaves its own temporary files.
#pragma once

#include "engine/codegen/cuda/cuda_views.h"
#include "engine/session/events.h"

#include <iosfwd>
#include <stop_token>
#include <string>
#include <vector>

namespace kiln::driver {

// The executable run as `PATH cuda-views` to make views; "" for none (the default); `shownAs`
// names it in messages ("" for `path`). Any thread.
void setKernelViewsHelper(const std::string& path, const std::string& shownAs = "");
// The registered helper, or "" when there is none or KILN_CUDA_VIEWS_IN_PROCESS=1 is set.
std::string kernelViewsHelper();
// The environment variable in which a child gets its parent's pid.
inline constexpr const char* kViewsParentEnv = "KILN_VIEWS_PARENT";

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

// The child's first steps: asks for SIGKILL when its parent dies, and returns false when the parent
// named by KILN_VIEWS_PARENT is already gone (the child is then an orphan and must exit). True
// without KILN_VIEWS_PARENT (run by hand).
bool bindKernelViewsChildToParent();

// The parent's side: runs `helper cuda-views` (no shell; `shownAs` names it in messages, "" for
// `helper`), sends it the request on stdin, reads its stdout and stderr, and returns its views.
// Throws std::runtime_error when it cannot start, exits non-zero, dies of a signal or writes
// something else, the why ending with its stderr's tail. A stop requested on `stop` ends the child
// (SIGTERM, then SIGKILL after 200 ms) and throws. However it returns or throws, the child is
// ended and reaped and its TMPDIR removed.
session::KernelViewsEvent childKernelViews(const std::string& helper, const KernelViewsRequest& request, std::stop_token stop = {},
                                           const std::string& shownAs = "");

// Whether the last views job on this thread ran a child (set by childKernelViews, cleared by the
// call): the queue names the timing "cuda views (child)" then.
bool takeViewsMadeInChild();

// What a queued views job runs: in a child where a helper is registered, else cudaKernelViews().
session::KernelViewsEvent makeKernelViews(const std::string& compileId, const std::vector<kir::Kernel>& kernels,
                                          const codegen::cuda::CudaViewOptions& options, std::stop_token stop = {});

}  // namespace kiln::driver
