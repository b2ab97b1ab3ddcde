// kiln bench: times scripts in Kiln (eager and compiled) and, with --torch, under real PyTorch
// CPU eager (tools/torch_eager_bench.py, run with the system python3). Medians of --repeat runs
// after one warm-up, each run in-process from parse to outputs.
#include "app/cli/commands.h"
#include "app/cli/options.h"

#include "engine/driver/script_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
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

double torchMs(const std::string& script, int repeat, int threads) {
  std::string tool = std::string(KILN_SOURCE_DIR) + "/tools/torch_eager_bench.py";
  std::string cmd = "/usr/bin/python3 '" + tool + "' '" + script + "' " + std::to_string(repeat) + " " + std::to_string(threads) + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[256] = {0};
  std::string out;
  while (fgets(buf, sizeof buf, p)) out += buf;
  int rc = pclose(p);
  if (rc != 0 || out.empty()) return -1;
  try { return std::stod(out.substr(out.rfind('\n', out.size() - 2) == std::string::npos ? 0 : out.rfind('\n', out.size() - 2) + 1)); } catch (...) { return -1; }
}

}  // namespace

int cmdBench(const std::vector<std::string>& args) {
  Opts o = parse(args, {"repeat", "threads"}, {"eager", "torch"});
  if (o.help) { std::cout << usage(); return 0; }
  const std::vector<std::string>& paths = o.positional;
  const bool eagerOnly = o.flags.count("eager") > 0, withTorch = o.flags.count("torch") > 0;
  const int repeat = std::max(1, std::atoi(one(o, "repeat", "5").c_str()));
  const int threads = std::max(1, std::atoi(one(o, "threads", "1").c_str()));
  if (paths.empty()) throw UsageError("expected a SCRIPT or a directory of scripts");
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
  std::cout << std::left << std::setw(34) << "script" << std::right << std::setw(14) << "kiln eager ms";
  if (!eagerOnly) std::cout << std::setw(18) << "kiln compiled ms";
  if (withTorch) std::cout << std::setw(16) << "torch eager ms" << std::setw(14) << "kiln/torch";
  std::cout << "\n";
  for (const auto& s : scripts) {
    std::string err;
    std::string name = std::filesystem::path(s).stem().string();
    double eager = medianMs(s, true, repeat, err);
    std::cout << std::left << std::setw(34) << name << std::right << std::fixed << std::setprecision(2);
    if (eager < 0) { std::cout << "  failed: " << err << "\n"; continue; }
    std::cout << std::setw(14) << eager;
    if (!eagerOnly) {
      double compiled = medianMs(s, false, repeat, err);
      if (compiled < 0) std::cout << std::setw(18) << "failed";
      else std::cout << std::setw(18) << compiled;
    }
    if (withTorch) {
      double t = torchMs(s, repeat, threads);
      if (t < 0) std::cout << std::setw(16) << "n/a" << std::setw(14) << "";
      else std::cout << std::setw(16) << t << std::setw(13) << eager / t << "x";
    }
    std::cout << "\n" << std::flush;
  }
  return 0;
}

}  // namespace kiln::cli
