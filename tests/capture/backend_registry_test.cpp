// capture::BackendRegistry: Kiln's built-in backends register the way a plugin does, a backend
// registered by name is what torch.compile(backend="name") compiles with, and an unknown name is
// PyTorch's InvalidBackend at torch.compile.
#include "engine/capture/backend.h"
#include "engine/capture/compile_context.h"
#include "engine/driver/builtin_backends.h"
#include "engine/python/parser.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/session/sink.h"
#include "engine/torch/install.h"
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {
namespace {

TEST(BackendRegistry, BuiltinsRegisterOnceEachWithADescription) {
  capture::BackendRegistry r;
  driver::registerBuiltinBackends(r);
  driver::registerBuiltinBackends(r);  // a second call adds nothing (and does not throw)
  std::vector<std::string> names;
  for (const auto& e : r.entries()) {
    names.push_back(e.name);
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(e.origin, "built-in");
    EXPECT_NE(e.make(capture::BackendConfig{}), nullptr) << e.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"aot_eager", "eager", "inductor"}));
}

TEST(BackendRegistry, RefusesAnEmptyOrTakenNameAndMakesOnlyWhatItHas) {
  capture::BackendRegistry r;
  auto none = [](const capture::BackendConfig&) -> std::shared_ptr<capture::Backend> { return nullptr; };
  r.add("mine", "one of mine", none, "/plugins/libmine.so");
  EXPECT_THROW(r.add("mine", "again", none), std::invalid_argument);
  EXPECT_THROW(r.add("", "nameless", none), std::invalid_argument);
  EXPECT_THROW(r.add("nofactory", "none", nullptr), std::invalid_argument);
  EXPECT_THROW(r.make("nosuch", capture::BackendConfig{}), std::invalid_argument);
  ASSERT_TRUE(r.find("mine").has_value());
  EXPECT_EQ(r.find("mine")->origin, "/plugins/libmine.so");
  EXPECT_FALSE(r.contains("nosuch"));
}

// A backend of a test's own: runs the captured graph op by op and counts its compiles.
class CountingBackend : public capture::Backend {
 public:
  explicit CountingBackend(int& compiles) : compiles_(compiles) {}
  capture::CompiledCode compile(const ir::Graph& graph, const std::string&, session::SessionSink&,
                                const capture::CompileRequest&) override {
    ++compiles_;
    ir::Graph g = graph;
    return {[g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); }, nullptr, nullptr};
  }

 private:
  int& compiles_;
};

TEST(BackendRegistry, TorchCompileCompilesWithTheBackendRegisteredUnderItsName) {
  static int compiles = 0;
  capture::BackendRegistry& global = capture::BackendRegistry::global();
  if (!global.contains("test_counting"))
    global.add("test_counting", "counts its compiles",
               [](const capture::BackendConfig&) { return std::make_shared<CountingBackend>(compiles); });
  compiles = 0;
  test::Counted c;
  test::run("backend_registered",
            "import torch\n"
            "def f(x):\n"
            "    return torch.sin(x) * 2 + 1\n"
            "g = torch.compile(f, backend='test_counting')\n"
            "x = torch.arange(4.0)\n"
            "print(g(x))\n"
            "print(g(x + 1))\n",
            c);
  EXPECT_EQ(compiles, 1);  // the second call hits the cache entry
  ASSERT_EQ(c.rep.graphs().size(), 1u);
}

// What a backend was handed for one compile: the graph's and the shown graph's addresses, and
// whether each has symbolic sizes (read during the compile: the shown graph is the capture's).
struct Handed {
  const ir::Graph* graph = nullptr;
  const ir::Graph* shown = nullptr;
  bool graphSymbolic = false, shownSymbolic = false;
};

bool anySymbolic(const ir::Graph& g) {
  for (const auto& n : g.nodes)
    for (const auto& t : n.types)
      for (const auto& d : t.sizes)
        if (d.symbolic()) return true;
  return false;
}

class RecordingBackend : public capture::Backend {
 public:
  explicit RecordingBackend(std::vector<Handed>& handed) : handed_(handed) {}
  capture::CompiledCode compile(const ir::Graph& graph, const std::string&, session::SessionSink&,
                                const capture::CompileRequest& request) override {
    handed_.push_back({&graph, request.shown, anySymbolic(graph), request.shown && anySymbolic(*request.shown)});
    ir::Graph g = graph;
    return {[g](const std::vector<tensor::Tensor>& in) { return runtime::runTorchGraph(g, in); }, nullptr, nullptr};
  }

 private:
  std::vector<Handed>& handed_;
};

// The backend compiles the cache entry's own captured graph (the tracer's, moved into the entry),
// never a copy of it, and the graph shown is that same graph unless it has size symbols the
// compiled one has not (an automatic dynamic recompile): at 200 layers each copy held through the
// compile was some 10 MB of the run's peak (docs/perf.md, "Recording scale").
TEST(BackendRegistry, TheBackendCompilesTheEntrysGraphNotACopy) {
  static std::vector<Handed> handed;
  capture::BackendRegistry& global = capture::BackendRegistry::global();
  if (!global.contains("test_recording"))
    global.add("test_recording", "records the graphs it is handed",
               [](const capture::BackendConfig&) { return std::make_shared<RecordingBackend>(handed); });
  handed.clear();
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/backend_entry_graph.py";
  const std::string script =
      "import torch\n"
      "def f(x):\n"
      "    return torch.sin(x) * 2 + 1\n"
      "g = torch.compile(f, backend='test_recording')\n"
      "print(g(torch.arange(4.0)))\n"
      "print(g(torch.arange(6.0)))\n";
  test::writeFile(path, script);
  session::NullSink sink;
  std::ostringstream out;
  py::Interpreter in(out);
  torchapi::install(in);
  capture::CompileContext compiler(sink, nullptr, path);
  std::vector<const ir::Graph*> entryGraphs;
  compiler.wrapRunner = [&](capture::GraphRunner run, std::shared_ptr<const ir::Graph> captured, const std::string&, const std::string&) {
    entryGraphs.push_back(captured.get());
    return run;
  };
  in.compiler = &compiler;
  in.runModule(py::parseModule(script, path));
  ASSERT_EQ(handed.size(), 2u);  // the second shape recompiles, with a dynamic dim
  ASSERT_EQ(entryGraphs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(handed[i].graph, entryGraphs[i]);  // the entry's graph itself
    EXPECT_FALSE(handed[i].graphSymbolic);       // compiled at the captured shape
  }
  EXPECT_EQ(handed[0].shown, handed[0].graph);  // static: shown as compiled, no copy
  EXPECT_FALSE(handed[0].shownSymbolic);
  EXPECT_NE(handed[1].shown, handed[1].graph);  // shown with the entry's size symbols: its own copy
  EXPECT_TRUE(handed[1].shownSymbolic);
}

TEST(BackendRegistry, AnUnknownNameIsInvalidBackendAtTorchCompile) {
  test::Counted c;
  test::run("backend_unknown",
            "import torch\n"
            "def f(x):\n"
            "    return x + 1\n"
            "try:\n"
            "    torch.compile(f, backend='nosuch')\n"
            "except Exception as e:\n"
            "    print(type(e).__name__, e)\n",
            c, false);
  EXPECT_EQ(c.printed, "InvalidBackend Invalid backend: 'nosuch', see `torch._dynamo.list_backends()` for available backends.\n");
}

}  // namespace
}  // namespace kiln
