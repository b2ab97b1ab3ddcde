// Runs `kiln cuda-views` for one compile's views (kernel_views_child.h): no shell, the request in
// an anonymous file as its stdin, its stdout and stderr read through pipes with poll() so that
// neither fills while the other is read; an eventfd wakes the poll when a stop is requested.
#include "engine/driver/kernel_views_child.h"
#include "engine/driver/kernel_views.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kiln::driver {

namespace {

std::mutex helperMu;
std::string helperPath, helperName;
thread_local bool madeInChild = false;

// How long a stopped child has between SIGTERM and SIGKILL.
constexpr int kStopGraceMs = 200;

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

// Reads `out` and `err` until both are closed (the child and everything it started ended). A
// write to `stopFd` (the stop callback's) sends the group SIGTERM, and SIGKILL after the grace;
// a poll that fails for good kills the group, so the wait after it cannot hang.
void readBoth(pid_t pid, int outFd, int errFd, int stopFd, std::string& out, std::string& err) {
  pollfd fds[3] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}, {stopFd, POLLIN, 0}};
  std::string* into[2] = {&out, &err};
  char buf[65536];
  bool killed = false;
  for (int open = 2; open > 0;) {
    const int ready = ::poll(fds, 3, fds[2].fd < 0 && !killed ? kStopGraceMs : -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      ::kill(-pid, SIGKILL);
      return;
    }
    if (ready == 0 && fds[2].fd < 0 && !killed) {  // stopped, and the grace has passed
      ::kill(-pid, SIGKILL);
      killed = true;
      continue;
    }
    if (fds[2].fd >= 0 && (fds[2].revents & POLLIN)) {
      ::kill(-pid, SIGTERM);
      fds[2].fd = -1;  // from now on the poll times out after the grace
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) into[i]->append(buf, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) fds[i].fd = -1, --open;  // closed (poll skips negative fds)
    }
  }
}

// A started child: ended (its group SIGKILLed) and reaped by the destructor unless wait() reaped it,
// so that an exception (bad_alloc while reading) leaves no child running or a zombie.
struct Child {
  pid_t pid = -1;
  explicit Child(pid_t p) : pid(p) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid <= 0) return;
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
  }
  // Reaps it: its wait status, or -1 with errno set (ECHILD where SIGCHLD is ignored: the kernel
  // reaped it already).
  int wait(int* status) {
    int r;
    while ((r = ::waitpid(pid, status, 0)) < 0 && errno == EINTR) {}
    pid = -1;
    return r;
  }
};

// A private folder for the child's temporary files (its TMPDIR), removed with this object.
struct TempFolder {
  std::string path;
  TempFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-views-XXXXXX";
    if (::mkdtemp(templ.data())) path = templ;
  }
  ~TempFolder() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

// This process's environment for the child: TMPDIR and KILN_VIEWS_PARENT replaced.
std::vector<std::string> childEnvironment(const std::string& tmpDir) {
  std::vector<std::string> env;
  const std::string tmpKey = "TMPDIR=", parentKey = std::string(kViewsParentEnv) + "=";
  for (char** e = environ; *e; ++e) {
    const std::string_view kv(*e);
    if (kv.rfind(tmpKey, 0) != 0 && kv.rfind(parentKey, 0) != 0) env.emplace_back(kv);
  }
  env.push_back(tmpKey + tmpDir);
  env.push_back(parentKey + std::to_string(::getpid()));
  return env;
}

}  // namespace

void setKernelViewsHelper(const std::string& path, const std::string& shownAs) {
  std::lock_guard<std::mutex> lock(helperMu);
  helperPath = path;
  helperName = shownAs;
}

bool takeViewsMadeInChild() { return std::exchange(madeInChild, false); }

bool bindKernelViewsChildToParent() {
  const char* parent = std::getenv(kViewsParentEnv);
  // Before the check: a parent that dies after it still kills this child.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  return !parent || !*parent || std::to_string(::getppid()) == parent;
}

std::string kernelViewsHelper() {
  const char* inProcess = std::getenv("KILN_CUDA_VIEWS_IN_PROCESS");
  if (inProcess && std::strcmp(inProcess, "1") == 0) return "";
  std::lock_guard<std::mutex> lock(helperMu);
  return helperPath;
}

session::KernelViewsEvent childKernelViews(const std::string& helper, const KernelViewsRequest& request, std::stop_token stop,
                                           const std::string& shownAs) {
  madeInChild = true;
  const std::string what = "the views process (" + (shownAs.empty() ? helper : shownAs) + " cuda-views)";
  Fd in(requestFile(requestToJson(request)));
  int outPipe[2], errPipe[2];
  if (in.fd < 0 || ::pipe2(outPipe, O_CLOEXEC) != 0) throw std::runtime_error(what + " not started: " + std::strerror(errno));
  Fd outR(outPipe[0]), outW(outPipe[1]);
  if (::pipe2(errPipe, O_CLOEXEC) != 0) throw std::runtime_error(what + " not started: " + std::strerror(errno));
  Fd errR(errPipe[0]), errW(errPipe[1]);
  Fd stopFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (stopFd.fd < 0) throw std::runtime_error(what + " not started: " + std::strerror(errno));
  const TempFolder tmp;  // destroyed after `child` below: removed once the child is reaped
  if (tmp.path.empty()) throw std::runtime_error(what + " not started: no temporary folder: " + std::strerror(errno));
  std::vector<std::string> env = childEnvironment(tmp.path);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.fd, 0);  // dup2 clears close-on-exec on 0, 1 and 2 only
  posix_spawn_file_actions_adddup2(&fa, outW.fd, 1);
  posix_spawn_file_actions_adddup2(&fa, errW.fd, 2);
  // Descriptors another thread opened without O_CLOEXEC (or a library did) stay in this process.
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
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
  std::string arg0 = shownAs.empty() ? helper : shownAs, arg1 = "cuda-views";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, helper.c_str(), &fa, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) throw std::runtime_error(what + " not started: " + std::strerror(spawned));
  Child child(pid);
  in.reset();  // the child's ends: only it holds them now, so its exit closes the pipes
  outW.reset();
  errW.reset();

  std::string out, err;
  {
    // A stop wakes the reads, which end the group; the callback itself signals nothing, so no
    // signal can reach a reused pid once the child is reaped.
    std::stop_callback wake(stop, [fd = stopFd.fd] {
      const uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof one);
    });
    readBoth(pid, outR.fd, errR.fd, stopFd.fd, out, err);
  }
  int status = 0;
  if (child.wait(&status) < 0) throw std::runtime_error(what + " exit status unknown: " + std::strerror(errno));

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
  std::string shownAs;
  {
    std::lock_guard<std::mutex> lock(helperMu);
    shownAs = helperName;
  }
  KernelViewsRequest r;
  r.compileId = compileId;
  r.kernels = kernels;
  r.arch = options.arch;
  r.smCount = options.smCount;
  r.hasLaunches = options.launches != nullptr;
  if (options.launches) r.launches = *options.launches;
  return childKernelViews(helper, r, stop, shownAs);
}

}  // namespace kiln::driver
