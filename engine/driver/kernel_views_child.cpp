// Runs `kiln cuda-views` for one compile's views (kernel_views_child.h): no shell, the request in
// an anonymous file as its stdin, its stdout and stderr read through pipes with poll() so that
// neither fills while the other is read.
#include "engine/driver/kernel_views_child.h"
#include "engine/driver/kernel_views.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kiln::driver {

namespace {

std::mutex helperMu;
std::string helperPath;

// A file descriptor closed with this object.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// The end of the child's stderr, on one line (it becomes a kernel's note): kiln prints its error
// last ("kiln: <why>"), a crash's message is at the end too.
std::string stderrTail(const std::string& err) {
  std::string t = err.size() > 600 ? "..." + err.substr(err.size() - 600) : err;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  std::string line;
  for (char c : t) line += c == '\n' ? std::string(" | ") : std::string(1, c);
  return line;
}

// The request as an anonymous in-memory file at offset 0, for the child's stdin: unlike a pipe it
// needs no writer beside the readers, and a child that dies early cannot raise SIGPIPE here.
int requestFile(const std::string& body) {
  const int fd = memfd_create("kiln-views-request", MFD_CLOEXEC);
  if (fd < 0) return -1;
  for (size_t done = 0; done < body.size();) {
    const ssize_t n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

// Reads `out` and `err` until both are closed (the child and everything it started ended).
void readBoth(int outFd, int errFd, std::string& out, std::string& err) {
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  std::string* into[2] = {&out, &err};
  char buf[65536];
  for (int open = 2; open > 0;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) into[i]->append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) fds[i].fd = -1, --open;  // closed (poll skips negative fds)
    }
  }
}

}  // namespace

void setKernelViewsHelper(const std::string& path) {
  std::lock_guard<std::mutex> lock(helperMu);
  helperPath = path;
}

std::string kernelViewsHelper() {
  const char* inProcess = std::getenv("KILN_CUDA_VIEWS_IN_PROCESS");
  if (inProcess && std::strcmp(inProcess, "1") == 0) return "";
  std::lock_guard<std::mutex> lock(helperMu);
  return helperPath;
}

session::KernelViewsEvent childKernelViews(const std::string& helper, const KernelViewsRequest& request, std::stop_token stop) {
  const std::string what = "the views process (" + helper + " cuda-views)";
  Fd in(requestFile(requestToJson(request)));
  int outPipe[2], errPipe[2];
  if (in.fd < 0 || ::pipe2(outPipe, O_CLOEXEC) != 0) throw std::runtime_error(what + " not started: " + std::strerror(errno));
  Fd outR(outPipe[0]), outW(outPipe[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0) throw std::runtime_error(what + " not started: " + std::strerror(errno));
  Fd errR(errPipe[0]), errW(errPipe[1]);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.fd, 0);  // dup2 clears close-on-exec on 0, 1 and 2 only
  posix_spawn_file_actions_adddup2(&fa, outW.fd, 1);
  posix_spawn_file_actions_adddup2(&fa, errW.fd, 2);
  // A process group of its own, so that stopping it also ends the nvdisasm it may be running, and
  // a Ctrl-C at the terminal reaches only the script (which then stops the views itself).
  // No signal blocked: it would inherit the background thread's mask.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  std::string arg0 = helper, arg1 = "cuda-views";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, helper.c_str(), &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) throw std::runtime_error(what + " not started: " + std::strerror(spawned));
  in.reset();  // the child's ends: only it holds them now, so its exit closes the pipes
  outW.reset();
  errW.reset();

  std::string out, err;
  {
    // Stopping kills the group; the pipes then close and the reads end.
    std::stop_callback kill(stop, [pid] { ::kill(-pid, SIGKILL); });
    readBoth(outR.fd, errR.fd, out, err);
    // Waits without reaping: while `kill` may still run, `pid` must not be a reused one.
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {}
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}

  const std::string why = err.empty() ? "" : "; its stderr: " + stderrTail(err);
  if (stop.stop_requested()) throw std::runtime_error(what + " was stopped");
  if (WIFSIGNALED(status))
    throw std::runtime_error(what + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")" +
                             why);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(what + " exited with status " + std::to_string(WEXITSTATUS(status)) + why);
  session::KernelViewsEvent e;
  try {
    e = viewsEventFromJson(out);
  } catch (const std::exception& x) { throw std::runtime_error(what + " wrote " + x.what() + why); }
  if (e.compileId != request.compileId || e.kernels.size() != request.kernels.size())
    throw std::runtime_error(what + " answered for compile " + e.compileId + " with " + std::to_string(e.kernels.size()) +
                             " kernels, not " + request.compileId + " with " + std::to_string(request.kernels.size()) + why);
  return e;
}

session::KernelViewsEvent makeKernelViews(const std::string& compileId, const std::vector<kir::Kernel>& kernels,
                                          const codegen::cuda::CudaViewOptions& options, std::stop_token stop) {
  const std::string helper = kernelViewsHelper();
  if (helper.empty()) return cudaKernelViews(compileId, kernels, options);
  KernelViewsRequest r;
  r.compileId = compileId;
  r.kernels = kernels;
  r.arch = options.arch;
  r.smCount = options.smCount;
  r.hasLaunches = options.launches != nullptr;
  if (options.launches) r.launches = *options.launches;
  return childKernelViews(helper, r, stop);
}

}  // namespace kiln::driver
