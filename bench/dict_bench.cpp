// The interpreter's dict (engine/python/objects.h): building a dict of N keys and looking every
// key up, through DictObj's API and through a script (d[k] = v, d[k], k in d). Lookup was a
// linear scan (N^2 for N keys); the hash index makes it about N. docs/perf.md keeps the figures.
#include "engine/python/interpreter.h"
#include "engine/python/objects.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

namespace {

using namespace kiln::py;

// range(1) == 0: the index off (every lookup scans, as before it).
void BM_DictIntKeys(benchmark::State& state) {
  const int64_t n = state.range(0);
  DictItems::useIndex = state.range(1) != 0;
  for (auto _ : state) {
    DictObj d;
    for (int64_t i = 0; i < n; ++i) d.set(makeInt(i * 7), makeInt(i));
    int64_t hits = 0;
    for (int64_t i = 0; i < n; ++i) hits += d.get(makeInt(i * 7)) != nullptr;
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_DictIntKeys)->ArgsProduct({{8, 64, 1024, 16384}, {0, 1}});

void BM_DictStrKeys(benchmark::State& state) {
  const int64_t n = state.range(0);
  DictItems::useIndex = state.range(1) != 0;
  std::vector<Value> keys;
  for (int64_t i = 0; i < n; ++i) keys.push_back(makeStr("key_" + std::to_string(i)));
  for (auto _ : state) {
    DictObj d;
    for (int64_t i = 0; i < n; ++i) d.set(keys[static_cast<size_t>(i)], makeInt(i));
    int64_t hits = 0;
    for (int64_t i = 0; i < n; ++i) hits += d.get(keys[static_cast<size_t>(n - 1 - i)]) != nullptr;
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_DictStrKeys)->ArgsProduct({{8, 64, 1024, 16384}, {0, 1}});

// A script's view: the interpreter's own overhead is in it too.
void BM_DictScript(benchmark::State& state) {
  const int64_t n = state.range(0);
  DictItems::useIndex = state.range(1) != 0;
  const std::string src = "d = {}\nfor i in range(" + std::to_string(n) + "):\n    d[i] = str(i)\nhits = 0\nfor i in range(" +
                          std::to_string(n) + "):\n    if i in d and d[i] == str(i):\n        hits += 1\n";
  Module m = parseModule(src, "bench.py");
  for (auto _ : state) {
    std::ostringstream out;
    Interpreter in(out);
    kiln::torchapi::install(in);
    in.runModule(m);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_DictScript)->ArgsProduct({{64, 1024, 8192}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
