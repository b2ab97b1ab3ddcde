// capture::BackendRegistry: Kiln's built-in backends register the way a plugin does, a backend
// registered by name is what torch.compile(backend="name") compiles with, and an unknown name is
// PyTorch's InvalidBackend at torch.compile.
#include "engine/capture/backend.h"
#include "engine/driver/builtin_backends.h"
#include "engine/runtime/compiled_graph.h"
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

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
