// kiln bench: times scripts in Kiln (eager and compiled) and, with --torch, under real PyTorch
// CPU eager (tools/torch_eager_bench.py, run with the system python3). Medians of --repeat runs
// after one warm-up, each run in-process from parse to outputs.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "engine/driver/backends.h"
#include "engine/driver/frame_profile.h"
#include "engine/driver/script_runner.h"
#include "engine/ir/text.h"
#include "engine/ops/blas_core.h"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace kiln::cli {

namespace {

double medianMs(const std::string& script, bool eager, int repeat, std::string& error) {
  std::vector<double> times;
  for (int i = 0; i <= repeat; ++i) {
    session::NullSink sink;
    std::ostringstream out;
    driver::RunOptions ro;
    ro.scriptPath = script;
    ro.eager = eager;
    auto t0 = std::chrono::steady_clock::now();
    driver::RunResult r = driver::runScript(ro, sink, out);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r.exitCode != 0) {
      error = r.error.substr(0, r.error.find('\n', r.error.rfind("Error")));
      return -1;
    }
    if (i > 0) times.push_back(ms);  // the first run warms caches
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// One command's stdout: the median ms a tool printed on its last line, or -1.
double lastNumber(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[256] = {0};
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0 || out.empty()) return -1;
  try {
    return std::stod(out.substr(out.rfind('\n', out.size() - 2) == std::string::npos ? 0 : out.rfind('\n', out.size() - 2) + 1));
  } catch (...) { return -1; }
}

const char* numpyName(ir::DType d) {
  switch (d) {
    case ir::DType::Float32: return "float32";
    case ir::DType::Float64: return "float64";
    case ir::DType::Int64: return "int64";
    case ir::DType::Int32: return "int32";
    case ir::DType::Bool: return "bool";
    default: return nullptr;
  }
}

double torchMs(const std::string& script, int repeat, int threads) {
  std::string tool = std::string(KILN_SOURCE_DIR) + "/tools/torch_eager_bench.py";
  return lastNumber("/usr/bin/python3 '" + tool + "' '" + script + "' " + std::to_string(repeat) + " " + std::to_string(threads) +
                    " 2>/dev/null");
}

// The captured graph of a frame under PyTorch eager (tools/torch_frame_bench.py): its readable
// form and the inputs of its first call go to a temporary directory. -1 when it cannot run.
double torchFrameMs(const driver::CompiledFrame& f, int repeat, int threads) {
  namespace fs = std::filesystem;
  static int serial = 0;
  fs::path dir = fs::temp_directory_path() / ("kiln-bench-" + std::to_string(getpid()) + "-" + std::to_string(serial++));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  std::ofstream(dir / "graph.py") << ir::printGraph(f.captured);
  nlohmann::json specs = nlohmann::json::array();
  for (size_t i = 0; i < f.firstInputs.size(); ++i) {
    tensor::Tensor t = f.firstInputs[i].contiguous();
    const char* dtype = numpyName(t.dtype());
    if (!dtype) return -1;
    std::string file = "in" + std::to_string(i) + ".bin";
    std::ofstream(dir / file, std::ios::binary)
        .write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.numel() * static_cast<int64_t>(ir::itemSize(t.dtype()))));
    specs.push_back({{"dtype", dtype}, {"shape", t.sizes()}, {"file", file}});
  }
  std::ofstream(dir / "inputs.json") << specs.dump();
  const std::string tool = std::string(KILN_SOURCE_DIR) + "/tools/torch_frame_bench.py";
  return lastNumber("/usr/bin/python3 '" + tool + "' '" + (dir / "graph.py").string() + "' '" + (dir / "inputs.json").string() + "' " +
                    std::to_string(repeat) + " " + std::to_string(threads) + " 2>/dev/null");
}

// Collects each compile's phase times (the cold compile: nothing is cached across runs).
struct PhaseSink : session::NullSink {
  std::map<std::string, std::map<std::string, double>> ms;  // compile id -> phase -> ms
  void timing(const session::TimingEvent& e) override { ms[e.compileId][e.phase] += e.ms; }
};

struct FrameRow {
  std::string label;
  driver::FrameProfile p;
  std::map<std::string, double> phases;
  double torchMs = -1;  // the captured graph under PyTorch eager (--torch), -1 when not run
};

// Runs the script compiled once (the cold compile), then times every compiled graph it called.
std::vector<FrameRow> benchFrames(const std::string& script, int repeat, std::string& error, bool withTorch, int threads) {
  PhaseSink sink;
  driver::CompiledFrameLog log;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = script;
  ro.frameLog = &log;
  driver::RunResult r = driver::runScript(ro, sink, out);
  if (r.exitCode != 0) error = r.error.substr(0, r.error.find('\n', r.error.rfind("Error")));
  std::vector<FrameRow> rows;
  for (const auto& f : log.frames) {
    if (!f->called) continue;
    FrameRow row{std::filesystem::path(script).stem().string() + " [" + f->compileId + "]", driver::profileFrame(*f, repeat),
                 sink.ms[f->compileId]};
    if (withTorch) row.torchMs = torchFrameMs(*f, repeat, threads);
    rows.push_back(std::move(row));
  }
  return rows;
}

void printFrames(const std::vector<FrameRow>& rows, double memcpyGb, double memcpyAllGb) {
  if (rows.empty()) {
    std::cout << "no compiled graph was called\n";
    return;
  }
  const auto& phases = session::compilePhases();
  const bool torch = std::any_of(rows.begin(), rows.end(), [](const FrameRow& r) { return r.torchMs >= 0; });
  std::cout << std::left << std::setw(44) << "frame" << std::right << std::setw(11) << "eager ms" << std::setw(13) << "compiled ms"
            << std::setw(9) << "speedup";
  if (torch) std::cout << std::setw(11) << "torch ms" << std::setw(15) << "torch/compiled";
  std::cout << "   cold compile ms = capture + lower + passes + schedule + codegen\n";
  double logSum = 0, torchLogSum = 0;
  int n = 0, torchN = 0;
  for (const auto& r : rows) {
    double total = 0;
    for (const auto& ph : phases) total += r.phases.count(ph) ? r.phases.at(ph) : 0.0;
    std::cout << std::left << std::setw(44) << r.label << std::right << std::fixed << std::setprecision(3) << std::setw(11) << r.p.eagerMs
              << std::setw(13) << r.p.compiledMs << std::setprecision(2) << std::setw(8) << r.p.eagerMs / r.p.compiledMs << "x";
    if (torch && r.torchMs >= 0) {
      std::cout << std::setprecision(3) << std::setw(11) << r.torchMs << std::setprecision(2) << std::setw(14) << r.torchMs / r.p.compiledMs
                << "x";
      if (r.p.compiledMs > 0 && r.torchMs > 0) torchLogSum += std::log(r.torchMs / r.p.compiledMs), ++torchN;
    } else if (torch) {
      std::cout << std::setw(11) << "n/a" << std::setw(15) << "";
    }
    std::cout << "   " << std::setprecision(1) << total << " =";
    for (size_t i = 0; i < phases.size(); ++i) std::cout << (i ? " + " : " ") << (r.phases.count(phases[i]) ? r.phases.at(phases[i]) : 0.0);
    std::cout << "\n";
    if (r.p.compiledMs > 0 && r.p.eagerMs > 0) logSum += std::log(r.p.eagerMs / r.p.compiledMs), ++n;
  }
  if (n)
    std::cout << "geometric mean speedup (eager / compiled) over " << n << " frames: " << std::setprecision(2) << std::exp(logSum / n)
              << "x\n";
  if (torchN)
    std::cout << "geometric mean PyTorch eager / Kiln compiled over " << torchN << " frames: " << std::setprecision(2)
              << std::exp(torchLogSum / torchN)
              << "x (PyTorch with --threads threads; n/a: the graph does not run under the installed PyTorch)\n";
  // The kernels that take the longest, with the bandwidth they reach.
  std::vector<std::pair<std::string, driver::KernelProfile>> ks;
  for (const auto& r : rows)
    for (const auto& k : r.p.kernels) ks.push_back({r.label, k});
  std::sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  if (ks.empty()) return;
  std::cout << "\nslowest generated kernels (bandwidth = bytes of their buffers / time, and as a fraction of memcpy over 64 MiB on the\n"
               "same threads: "
            << std::setprecision(1) << memcpyAllGb << " GB/s; one thread: " << memcpyGb << " GB/s)\n";
  for (size_t i = 0; i < ks.size() && i < 10; ++i) {
    const auto& k = ks[i].second;
    std::cout << "  " << std::left << std::setw(44) << ks[i].first << std::setw(52) << k.name << std::right << std::setprecision(3)
              << std::setw(9) << k.ms << " ms " << std::setprecision(2) << std::setw(9) << static_cast<double>(k.bytes) / 1e6 << " MB "
              << std::setprecision(1) << std::setw(7) << k.gbPerS() << " GB/s " << std::setw(5) << std::setprecision(0)
              << 100.0 * k.gbPerS() / memcpyAllGb << "%\n";
  }
}

}  // namespace

int cmdBench(const std::vector<std::string>& args) {
  Opts o = parse(args, {"repeat", "threads"}, {"eager", "torch"});
  if (o.help) {
    std::cout << usage();
    return 0;
  }
  const std::vector<std::string>& paths = o.positional;
  const bool eagerOnly = o.flags.count("eager") > 0, withTorch = o.flags.count("torch") > 0;
  const int repeat = std::max(1, std::atoi(one(o, "repeat", "5").c_str()));
  const int threads = std::max(1, std::atoi(one(o, "threads", "1").c_str()));
  if (paths.empty()) throw UsageError("expected a SCRIPT or a directory of scripts");
  // Compiles are timed cold: the kernel cache (codegen/kernel_cache.h) stays off unless asked for.
  ::setenv("KILN_CACHE", std::getenv("KILN_CACHE") ? std::getenv("KILN_CACHE") : "0", 1);
  std::vector<std::string> scripts;
  for (const auto& p : paths) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.path().extension() == ".py") scripts.push_back(e.path().string());
    } else {
      scripts.push_back(p);
    }
  }
  std::sort(scripts.begin(), scripts.end());
  // Which GEMM kernels the figures come from (ops/blas_core.h: kiln names them where OpenBLAS
  // would fall back to generic ones).
  if (const std::string core = ops::openBlasCore(); !core.empty())
    std::cout << "OpenBLAS kernels: " << core
              << (std::getenv("OPENBLAS_CORETYPE") ? std::string(" (OPENBLAS_CORETYPE=") + std::getenv("OPENBLAS_CORETYPE") + ")" : "")
              << "\n";
  std::cout << std::left << std::setw(34) << "script" << std::right << std::setw(14) << "kiln eager ms";
  if (!eagerOnly) std::cout << std::setw(18) << "kiln compiled ms";
  if (withTorch) std::cout << std::setw(16) << "torch eager ms" << std::setw(14) << "kiln/torch";
  std::cout << "\n";
  int failures = 0;
  std::set<std::string> broken;  // scripts that fail eagerly: no frames to time
  for (const auto& s : scripts) {
    std::string err;
    std::string name = std::filesystem::path(s).stem().string();
    double eager = medianMs(s, true, repeat, err);
    std::cout << std::left << std::setw(34) << name << std::right << std::fixed << std::setprecision(2);
    if (eager < 0) {
      std::cout << "  failed: " << err << "\n";
      broken.insert(s);
      ++failures;
      continue;
    }
    std::cout << std::setw(14) << eager;
    if (!eagerOnly) {
      double compiled = medianMs(s, false, repeat, err);
      if (compiled < 0) std::cout << std::setw(18) << "failed", ++failures;
      else std::cout << std::setw(18) << compiled;
    }
    if (withTorch) {
      double t = torchMs(s, repeat, threads);
      if (t < 0) std::cout << std::setw(16) << "n/a" << std::setw(14) << "";
      else std::cout << std::setw(16) << t << std::setw(13) << eager / t << "x";
    }
    std::cout << "\n" << std::flush;
  }
  auto done = [&] {
    if (failures) std::cerr << "kiln bench: " << failures << " run(s) failed (see above)\n";
    return failures ? 1 : 0;
  };
  if (eagerOnly) return done();
  std::cout << "\nper compiled frame: medians of " << repeat
            << " runs after a warm-up, on the inputs of the graph's first call;\n"
               "eager = the captured graph op by op with Kiln's eager kernels\n";
  std::vector<FrameRow> all;
  for (const auto& s : scripts) {
    if (broken.count(s)) continue;
    std::string err;
    auto rows = benchFrames(s, repeat, err, withTorch, threads);
    // The compiled run's traceback was summed up above; its last line says enough here.
    if (!err.empty()) {
      std::string last = err.substr(0, err.find_last_not_of('\n') + 1);
      last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
      std::cout << std::filesystem::path(s).stem().string() << " stopped early (frames before the error are timed): " << last << "\n";
    }
    for (auto& r : rows) all.push_back(std::move(r));
  }
  printFrames(all, driver::memcpyGbPerS(size_t{64} << 20, 5, false), driver::memcpyGbPerS(size_t{64} << 20, 5, true));
  return done();
}

}  // namespace kiln::cli
