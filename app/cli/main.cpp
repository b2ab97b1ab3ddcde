// kiln: the command line. Wiring only: parses arguments, opens the store, calls the engine.
// The commands and their options are listed in usage() (app/cli/commands.cpp).
#include "app/cli/commands.h"
#include "engine/driver/kernel_views_child.h"
#include "engine/ops/blas_core.h"
#include "engine/tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

// Settings the libraries read while they load, before main (a setenv from the executable's
// preinit array is undone when libc initializes its environment), so kiln sets them and executes
// itself again; a value the user set is kept, and a failed exec goes on without them.
// - oneDNN's convolutions (Debian's build, on OpenMP) leave their worker threads spinning after
//   each call, while Kiln's own thread pool runs the next kernel on the same cores. On 16 cores
//   the seed CNN's compiled frame took 68.7 ms with libgomp's default policy and 2.9 ms with
//   OMP_WAIT_POLICY=PASSIVE (docs/perf.md).
// - OpenBLAS falls back to generic SSE3 kernels on CPUs it does not know (ops/blas_core.h: 61
//   against 7.0 ms for a 512x1024x1024 product on the GPU machine's Xeon): OPENBLAS_CORETYPE
//   then names the kernels the CPU can run.
void libraryEnvironment(char** argv) {
  bool changed = false;
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    changed = true;
  }
  if (!std::getenv("OPENBLAS_CORETYPE"))
    if (const std::string core = kiln::ops::betterBlasCoreHere(); !core.empty()) {
      setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
      changed = true;
    }
  if (changed) execv("/proc/self/exe", argv);
}

// A GPU compile's PTX/SASS views are made by this executable run as `kiln cuda-views`, so that
// their NVRTC compile never holds up the script's (engine/driver/kernel_views_child.h). Each job
// spawns /proc/self/exe, this very binary even if the file was replaced or deleted since; the path
// read now only names it in error notes.
void registerViewsHelper() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  path.resize(n > 0 ? static_cast<size_t>(n) : 0);
  kiln::driver::setKernelViewsHelper("/proc/self/exe", path);
}

}  // namespace

int main(int argc, char** argv) {
  // The views child first: no plugins (one printing as it loads would corrupt its JSON answer,
  // and loading them costs start-up), no re-exec for OpenMP (its parent set the policy already).
  if (argc >= 2 && std::strcmp(argv[1], "cuda-views") == 0) {
    try {
      return kiln::cli::cmdCudaViews(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const kiln::cli::UsageError& e) {
      std::cerr << "kiln cuda-views: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "kiln: " << e.what() << "\n";
      return 1;
    }
  }
  libraryEnvironment(argv);
  kiln::tensor::keepLargeAllocations();
  registerViewsHelper();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kiln::cli::usage();
    return args.empty() ? 2 : 0;
  }
  // --plugin PATH is global: it may come before the command (kiln --plugin P run ...) or after it.
  try {
    kiln::cli::loadPlugins(args);
  } catch (const kiln::cli::UsageError& e) {
    std::cerr << "kiln: " << e.what() << "\n(see kiln --help)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "kiln: " << e.what() << "\n";
    return 1;
  }
  if (args.empty()) {
    std::cout << kiln::cli::usage();
    return 2;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "run") return kiln::cli::cmdRun(args);
    if (cmd == "bench") return kiln::cli::cmdBench(args);
    if (cmd == "diff") return kiln::cli::cmdDiff(args);
    if (cmd == "explain") return kiln::cli::cmdExplain(args);
    if (cmd == "sessions") return kiln::cli::cmdSessions(args);
    if (cmd == "show") return kiln::cli::cmdShow(args);
    if (cmd == "search") return kiln::cli::cmdSearch(args);
    if (cmd == "rename") return kiln::cli::cmdRename(args);
    if (cmd == "rm") return kiln::cli::cmdRm(args);
    if (cmd == "store") return kiln::cli::cmdStore(args);
    if (cmd == "import") return kiln::cli::cmdImport(args);
    if (cmd == "report") return kiln::cli::cmdReport(args);
    if (cmd == "plugins") return kiln::cli::cmdPlugins(args);
    if (cmd == "backends") return kiln::cli::cmdBackends(args);
    if (cmd == "cuda") return kiln::cli::cmdCuda(args);
  } catch (const kiln::cli::UsageError& e) {
    std::cerr << "kiln " << cmd << ": " << e.what() << "\n(see kiln " << cmd << " --help)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "kiln: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "kiln: unknown command '" << cmd << "'\n\n" << kiln::cli::usage();
  return 2;
}
