// kiln run --nproc-per-node N SCRIPT: torchrun's single-node launch. Scripts cannot start
// processes (the sandbox), so the launcher does: N copies of this executable, each running
// `kiln run SCRIPT` with the other options as given and torchrun's environment (RANK,
// LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT), plus
// KILN_DIST_STORE: a fresh folder where torch.distributed's Gloo FileStore rendezvous meets.
// As torchrun, when one rank fails the others are stopped, and the exit code is the first
// failure's (0 when all succeed). Each rank records its own session, named 'SCRIPT rank R'.
#include "app/cli/commands.h"

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace kiln::cli {

std::string rankSessionName(const std::string& scriptPath) {
  const char* store = std::getenv("KILN_DIST_STORE");
  const char* rank = std::getenv("RANK");
  if (!store || !rank) return "";
  return std::filesystem::path(scriptPath).filename().string() + " rank " + rank;
}

int launchRanks(const std::vector<std::string>& args, int nproc) {
  // The ranks' arguments: run's, less --nproc-per-node.
  std::vector<std::string> childArgs{"kiln", "run"};
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--nproc-per-node") {
      ++i;
      continue;
    }
    if (args[i].rfind("--nproc-per-node=", 0) == 0) continue;
    childArgs.push_back(args[i]);
  }
  char dirTemplate[] = "/tmp/kiln-dist-XXXXXX";
  if (!mkdtemp(dirTemplate)) {
    std::cerr << "kiln run: could not create the rendezvous folder: " << std::strerror(errno) << "\n";
    return 1;
  }
  const std::string storeDir = dirTemplate;
  const char* port = std::getenv("MASTER_PORT");
  const std::string masterPort = port ? port : "29500";
  std::cout.flush();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < nproc; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      std::cerr << "kiln run: fork failed: " << std::strerror(errno) << "\n";
      for (pid_t p : pids) kill(p, SIGTERM);
      break;
    }
    if (pid == 0) {
      const std::string r = std::to_string(rank), n = std::to_string(nproc);
      setenv("RANK", r.c_str(), 1);
      setenv("LOCAL_RANK", r.c_str(), 1);
      setenv("GROUP_RANK", "0", 1);
      setenv("WORLD_SIZE", n.c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", n.c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", masterPort.c_str(), 1);
      setenv("KILN_DIST_STORE", storeDir.c_str(), 1);
      // The ranks share one store, and a compile holds its write lock until it is done: a rank
      // waits for another's compile (up to 30 min) rather than stop recording after 10 s.
      setenv("KILN_STORE_BUSY_TIMEOUT_MS", "1800000", 0);
      std::vector<char*> argv;
      for (auto& a : childArgs) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv("/proc/self/exe", argv.data());
      std::cerr << "kiln run: could not start rank " << rank << ": " << std::strerror(errno) << "\n";
      _exit(127);
    }
    pids.push_back(pid);
  }
  int exitCode = static_cast<int>(pids.size()) == nproc ? 0 : 1;
  size_t left = pids.size();
  while (left > 0) {
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto it = std::find(pids.begin(), pids.end(), done);
    if (it == pids.end()) continue;
    --left;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && exitCode == 0) {
      exitCode = code;
      std::cerr << "kiln run: rank " << (it - pids.begin()) << " exited with " << code << "; stopping the others\n";
      for (pid_t p : pids)
        if (p > 0 && p != done) kill(p, SIGTERM);  // -1 marks a rank already reaped
    }
    *it = -1;
  }
  std::error_code ec;
  std::filesystem::remove_all(storeDir, ec);
  return exitCode;
}

}  // namespace kiln::cli
