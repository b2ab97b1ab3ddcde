// libFuzzer target: the TORCH_TRACE importer (importers/torch_trace/). Any byte string, read as a
// log file, must import (what is valid becomes events, the rest "import problem" artifacts) or be
// refused with std::runtime_error — never crash, hang, trip a sanitizer or throw anything else.
// Every event it reports is checked the way the store would use it: stage graphs print and parse.
#include "engine/ir/text.h"
#include "engine/session/sink.h"
#include "engine/support/error.h"
#include "importers/torch_trace/trace_importer.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

class CheckingSink : public kiln::session::SessionSink {
 public:
  void stage(const kiln::session::StageEvent& e) override {
    if (e.graph.nodes.empty()) return;
    std::string printed = kiln::ir::printGraph(e.graph);
    try {
      (void)kiln::ir::parseGraph(printed, "printed");
    } catch (const kiln::ParseError& err) {
      std::fprintf(stderr, "trace_import_fuzzer: an imported graph prints to text that does not parse: %s\n%s\n", err.what(),
                   printed.c_str());
      std::abort();
    }
  }
};

std::string tempPath() {
  static const std::string path = "/tmp/kiln_trace_fuzz_" + std::to_string(getpid()) + ".log";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tempPath();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::vector<std::unique_ptr<CheckingSink>> sinks;
  auto factory = [&](const std::string&, int64_t) -> kiln::session::SessionSink& {
    sinks.push_back(std::make_unique<CheckingSink>());
    return *sinks.back();
  };
  try {
    (void)kiln::importers::torch_trace::importTorchTrace({path}, factory, {});
  } catch (const std::runtime_error&) {}
  return 0;
}
