// Runs one script end to end: parse, interpret (compiled regions captured and compiled),
// collect the out* variables, and report everything to a session sink.
#pragma once

#include "engine/passes/pass_manager.h"
#include "engine/session/sink.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>

namespace kiln::driver {

struct CompiledFrameLog;  // backends.h
struct VerifyStats;       // verify.h

struct RunOptions {
  std::string scriptPath;
  bool eager = false;  // torch.compile returns its argument unchanged
  passes::PassManagerOptions passes;
  CompiledFrameLog* frameLog = nullptr;  // kiln bench: every inductor graph and its first inputs
  // kiln run --profile N: after the script, time every compiled graph it called (eager vs
  // compiled, per kernel; median of N runs) and report a ProfileEvent for each. 0: don't.
  int profileRepeat = 0;
  // Progress of the run (kiln run --progress, read by the studio): percent of the script's
  // top-level statements started, and what is happening ("line 12", "compiling [0/1]").
  std::function<void(int percent, const std::string& what)> progress;
  // kiln run --verify: every compiled graph call is checked against the captured graph run
  // eagerly (driver/verify.h); results go to the sink and to RunResult::verify.
  bool verify = false;
  // Limits (kiln run --timeout / --memory-limit): 0 = none / the default (80% of RAM).
  double timeoutSeconds = 0;
  uint64_t memoryLimitBytes = 0;
  // Ctrl-C raises KeyboardInterrupt in the script and SIGTERM stops it, both keeping its output
  // and session (the CLI sets this; tests that run scripts in-process do not).
  bool handleSignals = false;
  // kiln run --default-device cuda: torch.set_default_device(...) before the script's first line
  // ("" leaves the CPU). Without a GPU the first CUDA tensor raises PyTorch's error.
  std::string defaultDevice;
  // kiln run --backend NAME: the backend of torch.compile calls that name none (a registered
  // name; "inductor" is Kiln's own pipeline). Recorded in the session's options.
  std::string backend = "inductor";
};

struct RunResult {
  int exitCode = 0;                     // 0 ok, 1 the script raised or failed to parse, 130 Ctrl-C, 143 SIGTERM, 124 timed out
  std::string error;                    // the formatted traceback / syntax error
  std::string outputsJson;              // {"out": {...}, "out_1": ...} as the corpus oracle writes it
  std::shared_ptr<VerifyStats> verify;  // with RunOptions::verify
};

// `out` receives what the script prints; errors are returned (and reported to the sink),
// not printed.
RunResult runScript(const RunOptions& opts, session::SessionSink& sink, std::ostream& out);

}  // namespace kiln::driver
