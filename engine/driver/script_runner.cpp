#include "engine/driver/script_runner.h"

#include "engine/driver/kernel_views.h"
#include "engine/passes/pipeline.h"

#include "engine/autograd/grad_mode.h"

#include "engine/ops/random.h"

#include "engine/capture/compile_context.h"
#include "engine/capture/tracer.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/driver/backends.h"
#include "engine/driver/builtin_backends.h"
#include "engine/driver/frame_profile.h"
#include "engine/driver/verify.h"
#include "engine/ops/device_dispatch.h"
#include "engine/python/bigint.h"
#include "engine/python/parser.h"
#include "engine/session/tee_sink.h"
#include "engine/support/error.h"
#include "engine/torch/collective_log.h"
#include "engine/torch/device_api.h"
#include "engine/torch/install.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <streambuf>
#include <thread>

namespace kiln::driver {

namespace {

// Copies what the script prints to the caller's stream and into the session, in chunks.
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::ostream& out, session::SessionSink& sink) : out_(out), sink_(sink) {}
  ~TeeBuf() override { flushToSink(); }
  void flushToSink() {
    if (!pending_.empty()) sink_.output(pending_);
    pending_.clear();
    hasPending_ = false;
  }
  // Read by the watchdog thread: whether output waits to reach the session.
  bool hasPending() const { return hasPending_.load(std::memory_order_relaxed); }

 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;
    char ch = static_cast<char>(c);
    return xsputn(&ch, 1) == 1 ? c : EOF;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.write(s, n);
    // A line reaches the terminal (or pipe) when it is printed and the session within a
    // quarter second, so a run that is killed, or dies, keeps what it printed.
    if (std::memchr(s, '\n', static_cast<size_t>(n))) out_.flush();
    pending_.append(s, static_cast<size_t>(n));
    hasPending_ = true;
    auto now = std::chrono::steady_clock::now();
    if (pending_.size() > (64 << 10) || now - lastSink_ > std::chrono::milliseconds(250)) {
      flushToSink();
      lastSink_ = now;
    }
    return n;
  }
  int sync() override {
    out_.flush();
    return 0;
  }

 private:
  std::ostream& out_;
  session::SessionSink& sink_;
  std::string pending_;
  std::chrono::steady_clock::time_point lastSink_ = std::chrono::steady_clock::now();
  std::atomic<bool> hasPending_{false};
};

// A timer beside the script: every quarter second it asks the interpreter to pass printed
// output, and the GPU views made since (kernel_views.h), on to the session (so a run killed
// while it computes keeps what it printed), raises
// MemoryError where the process's heap grew past the memory limit since the script started
// (a million small Python objects pass every single-allocation check), and at the --timeout
// deadline it requests the Timeout interrupt. All are taken on the script's thread
// (py::Interpreter::checkInterrupt), which owns the session sink.
class Watchdog {
 public:
  Watchdog(double timeoutSeconds, std::function<bool()> outputPending) : pending_(std::move(outputPending)) {
    const uint64_t heapAtStart = tensor::heapInUse();
    thread_ = std::thread([this, timeoutSeconds, heapAtStart] {
      auto deadline = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeoutSeconds));
      std::unique_lock<std::mutex> lock(m_);
      while (!done_) {
        if (timeoutSeconds > 0 && std::chrono::steady_clock::now() >= deadline) {
          py::requestInterrupt(py::Interrupt::Timeout);
          return;
        }
        const uint64_t heap = tensor::heapInUse();
        const py::Interrupt now = py::pendingInterrupt();
        if (heap > heapAtStart && heap - heapAtStart > tensor::memoryLimit() &&
            (now == py::Interrupt::None || now == py::Interrupt::FlushOutput))
          py::requestInterrupt(py::Interrupt::OutOfMemory);
        else if (pending_()) py::requestFlushOutput();
        auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
        cv_.wait_until(lock, timeoutSeconds > 0 ? std::min(next, deadline) : next, [this] { return done_; });
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::function<bool()> pending_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

nlohmann::json number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

// The most elements of one out* tensor recorded with the session (the corpus' largest is 4,096).
constexpr int64_t kMaxOutputElements = int64_t(1) << 20;

// One out* value in the oracle's form (its _collect_outs): tensors, Python scalars and strings
// are entries; lists and tuples are split into NAME.0, NAME.1 ... (two levels down); None and
// other objects are left out, as the oracle leaves them out of NAME.outs.json.
void addOutput(py::Interpreter& in, nlohmann::ordered_json& j, const std::string& key, const py::Value& v, int depth) {
  switch (v->kind) {
    case py::VK::Tensor: {
      if (py::as<py::TensorObj>(v)->fake) {
        j[key] = "<fake tensor escaped capture>";
        return;
      }
      const tensor::Tensor& dev = py::as<py::TensorObj>(v)->t;
      std::string dt(ir::torchName(dev.dtype()));
      // numpy has no bfloat16: the oracle writes such a tensor converted to float32 (exactly).
      if (dev.dtype() == ir::DType::BFloat16) dt = "torch.float32";
      nlohmann::json e;
      e["dtype"] = dt.substr(6);
      // The oracle writes 0-d tensors as shape [1] (numpy's atleast_1d) and Python scalars as [].
      e["shape"] = dev.dim() == 0 ? std::vector<int64_t>{1} : dev.sizes();
      // A big tensor's elements are not written out: as JSON text a (1024, 1024, 1024) `out`
      // (seed 004_02) is ~20 GB, past SQLite's 1 GB value limit, and formatting it took longer
      // than the script. The entry says so; a comparison against the oracle's values then fails
      // plainly instead of comparing a prefix.
      if (dev.numel() > kMaxOutputElements) {
        e["elided"] =
            "the " + std::to_string(dev.numel()) + " elements are not recorded (more than " + std::to_string(kMaxOutputElements) + ")";
        j[key] = e;
        return;
      }
      const tensor::Tensor t = dev.isCpu() ? dev : dev.toDevice(tensor::Device::cpu());  // a CUDA result's elements
      nlohmann::json data = nlohmann::json::array();
      for (double x : t.toDoubles()) {
        if (t.dtype() == ir::DType::Bool) data.push_back(x != 0);
        else if (!ir::isFloating(t.dtype())) data.push_back(static_cast<int64_t>(x));
        else data.push_back(number(x));
      }
      e["data"] = data;
      j[key] = e;
      return;
    }
    case py::VK::Float:
      j[key] = {{"dtype", "float64"}, {"shape", nlohmann::json::array()}, {"data", {number(py::as<py::FloatObj>(v)->v)}}};
      return;
    case py::VK::Int:
      // A Python int beyond int64 is written as its decimal digits (JSON readers stop at 64 bits).
      if (py::as<py::IntObj>(v)->big) j[key] = {{"dtype", "int"}, {"shape", nlohmann::json::array()}, {"data", {py::intToString(v)}}};
      else j[key] = {{"dtype", "int64"}, {"shape", nlohmann::json::array()}, {"data", {py::as<py::IntObj>(v)->small()}}};
      return;
    case py::VK::Bool: j[key] = {{"dtype", "bool"}, {"shape", nlohmann::json::array()}, {"data", {py::as<py::BoolObj>(v)->v}}}; return;
    case py::VK::Str: j[key] = py::as<py::StrObj>(v)->v; return;
    case py::VK::List:
    case py::VK::Tuple:
      if (depth < 3) {
        std::vector<py::Value> items = in.iterate(v);
        for (size_t i = 0; i < items.size(); ++i) addOutput(in, j, key + "." + std::to_string(i), items[i], depth + 1);
      }
      return;
    default: return;
  }
}

std::string collectOutputs(py::Interpreter& in) {
  static const std::regex kOut("^out(_([0-9]+))?$");
  std::vector<std::pair<int, std::string>> names;
  for (const auto& [k, v] : in.mainModule()->scope->vars) {
    std::smatch m;
    if (std::regex_match(k, m, kOut)) names.emplace_back(m[2].matched ? std::stoi(m[2]) : -1, k);
  }
  std::sort(names.begin(), names.end());
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [i, k] : names) addOutput(in, j, k, in.mainModule()->scope->vars.at(k), 0);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

namespace {

// Passes every event on and reports each compile as progress (kiln run --progress).
class ProgressSink : public session::TeeSink {
 public:
  ProgressSink(session::SessionSink& inner, const std::function<void(int, const std::string&)>& report, const int& percent)
      : TeeSink({&inner}), report_(report), percent_(percent) {}
  void compile(const session::CompileEvent& e) override {
    TeeSink::compile(e);
    report_(percent_, "compiling [" + e.compileId + "]");
  }

 private:
  const std::function<void(int, const std::string&)>& report_;
  const int& percent_;
};

// Every compiled graph the script called, timed on its first inputs. A graph that fails to
// run again (it should not) is left out rather than failing a run that succeeded.
void profileFrames(const CompiledFrameLog& log, int repeat, session::SessionSink& sink) {
  for (const auto& f : log.frames) {
    if (!f->called) continue;
    try {
      FrameProfile p = profileFrame(*f, repeat);
      session::ProfileEvent e;
      e.compileId = p.compileId;
      e.eagerMs = p.eagerMs;
      e.compiledMs = p.compiledMs;
      e.repeat = repeat;
      for (const auto& k : p.kernels) e.kernels.push_back({k.name, k.ms, k.bytes});
      sink.profile(e);
    } catch (const std::exception&) {}
  }
}

}  // namespace

RunResult runScript(const RunOptions& opts, session::SessionSink& sink, std::ostream& out) {
  // Options naming passes are checked before anything runs: a misspelt --disable-pass would
  // otherwise disable nothing, and the compile would fail over to eager with the reason hidden.
  passes::checkPassNames(opts.passes.disabled);
  registerBuiltinBackends();  // torch.compile(backend=...) looks names up in the registry
  RunResult res;
  // Each script starts as a fresh Python process does: the default generator at PyTorch's
  // default seed (runs in one process, like tests or kiln bench, used to continue its stream).
  torchapi::defaultGenerator() = torchapi::Generator{};
  // ... and with grad mode on (a script that left it off must not change the next one).
  autograd::setGradEnabled(true);
  struct RestoreGrad {
    ~RestoreGrad() { autograd::setGradEnabled(true); }
  } restoreGrad;
  auto t0 = std::chrono::steady_clock::now();
  // The script's text, or why it cannot be read. A directory opens as a stream that reads
  // nothing, and /dev/zero reads forever: both are refused, not run as an empty script.
  constexpr size_t kMaxScript = size_t{64} << 20;
  std::string source, unreadable;
  std::error_code ec;
  errno = 0;
  if (std::filesystem::is_directory(opts.scriptPath, ec)) {
    unreadable = "Is a directory";
  } else if (std::ifstream f(opts.scriptPath, std::ios::binary); !f) {
    unreadable = errno ? std::strerror(errno) : "No such file or directory";
  } else {
    char buf[1 << 16];
    while (source.size() <= kMaxScript && f.read(buf, sizeof buf).gcount() > 0) source.append(buf, static_cast<size_t>(f.gcount()));
    if (source.size() > kMaxScript) {
      unreadable = "larger than 64 MiB, not a script";
      source.clear();
    } else if (f.bad()) {
      unreadable = "read error";
    }
  }
  session::SessionStart start;
  start.scriptPath = opts.scriptPath;
  start.scriptText = source;
  nlohmann::json o = {{"eager", opts.eager}, {"backend", opts.backend}};
  if (!opts.passes.disabled.empty()) o["disabled_passes"] = opts.passes.disabled;
  if (opts.passes.stopAfter >= 0) o["stop_after"] = opts.passes.stopAfter;
  start.optionsJson = o.dump();
  start.engineVersion = KILN_VERSION;
  start.startedAtMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  sink.sessionStart(start);
  // torch.distributed's collectives go to this run's session (times on the run's clock).
  torchapi::CollectiveRecording collectives(sink, t0);

  auto finish = [&](const std::string& status, const std::string& stopReason = "") {
    session::SessionEnd e;
    e.status = status;
    e.stopReason = stopReason;
    e.error = res.error;
    e.outputsJson = res.outputsJson;
    e.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    sink.sessionEnd(e);
  };
  if (!unreadable.empty()) {
    res.exitCode = 1;
    res.error = "kiln: can't open file '" + opts.scriptPath + "': " + unreadable + "\n";
    finish("error");
    return res;
  }
  // What the traceback shows as the file name: the path as given (like `python path`).
  const std::string& file = opts.scriptPath;
  py::Module m;
  try {
    m = py::parseModule(source, file);
  } catch (const ParseError& e) {
    std::string msg = e.what();
    res.error = py::formatSyntaxError(msg, file, e.where().line, e.where().col, source);
    res.exitCode = 1;
    finish("error");
    return res;
  }
  // GPU compiles' PTX/SASS views, made on a background thread (kernel_views.h) and reported on
  // this one: with the printed output while the script runs, the rest before the session ends.
  BackgroundKernelViews views;
  BackgroundKernelViews::Scope viewsScope(views);
  std::unique_ptr<codegen::KernelCompiler> cpu;
  std::unique_ptr<capture::CompileContext> compiler;
  int percent = 0;
  std::unique_ptr<ProgressSink> progressSink;
  if (opts.progress) progressSink = std::make_unique<ProgressSink>(sink, opts.progress, percent);
  session::SessionSink& compileSink = progressSink ? *progressSink : sink;
  CompiledFrameLog ownLog;  // --profile without a caller's log
  CompiledFrameLog* frameLog = opts.frameLog ? opts.frameLog : opts.profileRepeat > 0 ? &ownLog : nullptr;
  TeeBuf tee(out, sink);
  std::ostream scriptOut(&tee);
  py::clearInterrupt();
  if (opts.memoryLimitBytes) tensor::setMemoryLimit(opts.memoryLimitBytes);
  bool outOfMemory = false;
  {
    std::optional<py::SignalScope> signals;
    if (opts.handleSignals) signals.emplace();
    py::Interpreter in(scriptOut);
    torchapi::install(in);
    if (!opts.defaultDevice.empty()) torchapi::setDefaultDevice(ops::parseDeviceString(opts.defaultDevice));
    in.timeoutSeconds = opts.timeoutSeconds;
    in.onFlushOutput = [&] {
      tee.flushToSink();
      views.deliverReady();
    };
    Watchdog watchdog(opts.timeoutSeconds, [&] { return tee.hasPending() || views.ready(); });
    if (!opts.eager) {
      cpu = codegen::makeLlvmCpuCompiler();
      compiler = std::make_unique<capture::CompileContext>(compileSink, cpu.get(), file);
      compiler->passOptions = opts.passes;
      compiler->backendByDefault = opts.backend;
      if (frameLog) compiler->useBackend("inductor", makeBuiltinBackend(BackendOptions{"inductor", opts.passes, frameLog}, cpu.get()));
      if (opts.verify) {
        auto stats = res.verify = std::make_shared<VerifyStats>();
        compiler->wrapRunner = [&compileSink, cpu = cpu.get(), passes = opts.passes, frameLog, stats](
                                   capture::GraphRunner run, std::shared_ptr<const ir::Graph> captured, const std::string& cid,
                                   const std::string& backend) {
          return verifyingRunner(std::move(run), std::move(captured), cid, BackendOptions{backend, passes, frameLog}, cpu, compileSink,
                                 stats);
        };
      }
      in.compiler = compiler.get();
    }
    if (opts.progress)
      in.onModuleStatement = [&](size_t done, size_t total, int line) {
        percent = static_cast<int>(done * 100 / std::max<size_t>(total, 1));
        opts.progress(percent, "line " + std::to_string(line));
      };
    try {
      in.runModule(m);
      res.outputsJson = collectOutputs(in);
    } catch (const py::PyError& e) {
      if (e.type() == "SystemExit" && py::lastInterrupt() == py::Interrupt::None && e.exception() &&
          e.exception()->kind == py::VK::Instance) {
        // raise SystemExit(code) / exit(): Python's exit status, no traceback. None is 0, an
        // int is the status (as the shell sees it: & 0xff), anything else is printed, 1.
        py::Value args = py::as<py::InstanceObj>(e.exception())->dict->getStr("args");
        auto items = args ? in.iterate(args) : std::vector<py::Value>{};
        py::Value code = items.empty() ? py::None() : items[0];
        if (py::isNone(code)) res.exitCode = 0;
        else if (code->kind == py::VK::Int) res.exitCode = static_cast<int>(py::as<py::IntObj>(code)->small() & 0xff);
        else if (code->kind == py::VK::Bool) res.exitCode = py::as<py::BoolObj>(code)->v ? 1 : 0;
        else res.error = in.str(code) + "\n", res.exitCode = 1;
        if (res.exitCode == 0) res.outputsJson = collectOutputs(in);
      } else {
        res.error = py::formatTraceback(e, in.sources());
        res.exitCode = 1;
        outOfMemory = e.type() == "MemoryError" || res.error.find("DefaultCPUAllocator: not enough memory") != std::string::npos;
      }
    } catch (const std::bad_alloc&) {
      res.error = "MemoryError: Kiln ran out of memory outside the script's own code (kiln run --memory-limit)\n";
      res.exitCode = 1;
      outOfMemory = true;
    } catch (const capture::Unsupported& u) {
      res.error = "torch._dynamo.exc.Unsupported: " + u.title + "\n  Explanation: " + u.explanation + "\n";
      res.exitCode = 1;
    } catch (const tensor::Interrupted& e) {
      // Native code stopped outside any Python call (collecting the outputs): still a stop.
      res.error = std::string(py::lastInterrupt() == py::Interrupt::Timeout ? "TimeoutError: " : "KeyboardInterrupt: ") + e.what() + "\n";
      res.exitCode = 1;
    } catch (const tensor::TorchError& e) {
      // A torch error raised by native code outside any Python call (no frame to point at): it
      // is still PyTorch's exception, not a fault of Kiln's, so it reads as one.
      res.error = e.type() + ": " + e.what() + "\n  (raised outside a Python frame of the script: no traceback)\n";
      res.exitCode = 1;
    } catch (const std::exception& e) {
      res.error = std::string("kiln: internal error: ") + e.what() + "\n";
      res.exitCode = 1;
    }
    scriptOut.flush();
    tee.flushToSink();
  }
  // The script is over: what runs next (profiling the compiled graphs) is not stopped by its
  // time limit or Ctrl-C. py::lastInterrupt still says how the script ended.
  tensor::setStopRequested(false);
  if (opts.profileRepeat > 0 && frameLog) {
    if (opts.progress) opts.progress(100, "timing the compiled graphs");
    profileFrames(*frameLog, opts.profileRepeat, sink);
  }
  // How the run ended, for the session list and the studio; exit codes as a shell reports
  // them (130 after Ctrl-C, 124 after a time limit, as timeout(1)).
  std::string stopReason;
  if (res.exitCode != 0) {
    switch (py::lastInterrupt()) {
      case py::Interrupt::KeyboardInterrupt:
        stopReason = "interrupted";
        res.exitCode = 130;
        break;
      case py::Interrupt::Terminate:
        stopReason = "interrupted";
        res.exitCode = 143;
        break;
      case py::Interrupt::Timeout:
        stopReason = "timed out";
        res.exitCode = 124;
        break;
      case py::Interrupt::OutOfMemory:
      case py::Interrupt::None:
      case py::Interrupt::FlushOutput:
        if (outOfMemory) stopReason = "out of memory";
        break;
    }
  }
  py::clearInterrupt();
  // The session ends with every GPU view, as when they were made during the compile; a run that
  // was stopped (Ctrl-C, a time limit) does not wait for them, nor does one past two minutes of
  // waiting: their rows then say they were not made.
  views.finish(stopReason == "interrupted" || stopReason == "timed out" ? std::chrono::seconds(0) : std::chrono::seconds(120));
  collectives.finish();  // what the script never waited for, before the session ends
  finish(res.exitCode == 0 ? "ok" : "error", stopReason);
  return res;
}

}  // namespace kiln::driver
