// libFuzzer target: the interpreter. Each input is run as a Python script by py::parseModule and
// py::Interpreter — eagerly (no compiler: torch.compile is the identity, as with `kiln run
// --eager`) and with the limits `kiln run` has: a memory limit (tensor::setMemoryLimit, 256 MiB)
// and a time limit (a watchdog requests py::Interrupt::Timeout after one second, as
// `--timeout 1` does). The script may fail with a Python exception (py::PyError), a runtime
// error (tensor::TorchError) or a syntax error (kiln::ParseError); anything else is a finding: a
// crash, a sanitizer report, another C++ exception (the CLI would print "internal error"), a
// hang past libFuzzer's -timeout or memory past its -rss_limit_mb.
//
// Each input runs on a thread of its own with a 512 MiB stack (virtual; touched pages only): the
// interpreter allows 1,000 nested Python calls, and a sanitizer build's frames are several times
// larger than a release build's. A fresh thread also starts with fresh thread-local state (grad
// mode, inference mode); the default generator is reset as `kiln run` resets it.
#include "engine/ops/random.h"
#include "engine/python/interpreter.h"
#include "engine/python/interrupt.h"
#include "engine/python/parser.h"
#include "engine/support/error.h"
#include "engine/tensor/tensor.h"
#include "engine/torch/install.h"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>

namespace {

using namespace kiln;

constexpr double kSeconds = 1.0;
constexpr uint64_t kMemoryLimit = uint64_t{256} << 20;
constexpr size_t kStackBytes = size_t{512} << 20;

// What the script prints is counted and dropped (a script printing in a loop for a second must
// not grow the fuzzer's memory).
class NullBuf : public std::streambuf {
 protected:
  int overflow(int c) override { return c == traits_type::eof() ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// One thread for the whole run; armed for each input, it requests the Timeout interrupt when
// the input's second is up.
class Watchdog {
 public:
  Watchdog() : thread_([this] { loop(); }) { thread_.detach(); }
  void arm(double seconds) {
    std::lock_guard<std::mutex> lock(m_);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    armed_ = true;
    cv_.notify_all();
  }
  // After this returns the watchdog cannot fire for the input it was armed for.
  void disarm() {
    std::lock_guard<std::mutex> lock(m_);
    armed_ = false;
    cv_.notify_all();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return armed_; });
      if (cv_.wait_until(lock, deadline_, [this] { return !armed_; })) continue;
      py::requestInterrupt(py::Interrupt::Timeout);
      armed_ = false;
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  bool armed_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

Watchdog* watchdog = nullptr;

struct Job {
  const uint8_t* data;
  size_t size;
};

void runScript(const Job& job) {
  std::string_view src(reinterpret_cast<const char*>(job.data), job.size);
  py::Module m;
  try {
    m = py::parseModule(src, "fuzz.py");
  } catch (const ParseError&) { return; }
  torchapi::defaultGenerator() = torchapi::Generator{};
  py::clearInterrupt();
  watchdog->arm(kSeconds);
  {
    NullBuf buf;
    std::ostream out(&buf);
    py::Interpreter in(out);
    kiln::torchapi::install(in);
    in.timeoutSeconds = kSeconds;
    try {
      in.runModule(m);
    } catch (const py::PyError&) {
    } catch (const tensor::TorchError&) {
    } catch (const ParseError&) {}
  }
  watchdog->disarm();
  py::clearInterrupt();
}

void* threadMain(void* arg) {
  runScript(*static_cast<const Job*>(arg));
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tensor::setMemoryLimit(kMemoryLimit);
  watchdog = new Watchdog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Job job{data, size};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t t;
  if (int rc = pthread_create(&t, &attr, threadMain, &job); rc != 0) {
    std::fprintf(stderr, "interpreter_fuzzer: pthread_create failed (%d)\n", rc);
    std::abort();
  }
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  return 0;
}
