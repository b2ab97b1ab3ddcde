// The plugin loader (plugin_host/loader.h) and the in-tree plugins, loaded into this test
// executable, which exports the engine's symbols as kiln does (ENABLE_EXPORTS).
#include "engine/capture/backend.h"
#include "engine/driver/script_runner.h"
#include "engine/ir/text.h"
#include "engine/passes/pipeline.h"
#include "engine/runtime/compiled_graph.h"
#include "importers/importer.h"
#include "plugin_host/kiln_plugin.h"
#include "plugin_host/loader.h"
#include "tests/support/corpus.h"
#include "tests/support/outs_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kiln {
namespace {

namespace fs = std::filesystem;

const std::string kPlugins = KILN_PLUGIN_DIR;        // build/plugins
const std::string kFixtures = KILN_TEST_PLUGIN_DIR;  // build/tests/plugins

std::string loadError(const std::string& path) {
  try {
    plugin::loadPlugin(path);
  } catch (const plugin::PluginError& e) { return e.what(); }
  return "";
}

TEST(PluginLoader, SiluFusionRegistersItsPassBeforeFuse) {
  const plugin::LoadedPlugin p = plugin::loadPlugin(kPlugins + "/silu_fusion.so");
  EXPECT_EQ(p.name, "silu_fusion");
  EXPECT_EQ(p.path, fs::canonical(kPlugins + "/silu_fusion.so").string());
  ASSERT_EQ(p.registered, std::vector<std::string>{"pass silu_fusion (before fuse)"});
  const auto names = passes::passNames();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[names.size() - 2], "silu_fusion");
  for (const auto& info : passes::pipeline())
    if (info.name == "silu_fusion") { EXPECT_EQ(info.origin, p.path); }
  // Loading the same file again is a no-op.
  EXPECT_EQ(plugin::loadPlugin(kPlugins + "/silu_fusion.so").path, p.path);
  EXPECT_EQ(plugin::loadedPlugins().size(), 1u);
}

TEST(PluginLoader, SiluFusionRuleFiresAndKeepsTheNumbers) {
  plugin::loadPlugin(kPlugins + "/silu_fusion.so");
  const ir::Graph g = ir::parseGraph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[8]\"):\n"
      "        sigmoid: \"f32[8]\" = torch.ops.aten.sigmoid.default(arg0_1)\n"
      "        mul: \"f32[8]\" = torch.ops.aten.mul.Tensor(arg0_1, sigmoid)\n"
      "        sigmoid_1: \"f32[8]\" = torch.ops.aten.sigmoid.default(mul)\n"
      "        mul_1: \"f32[8]\" = torch.ops.aten.mul.Tensor(sigmoid_1, mul)\n"
      "        return (mul_1,)\n");
  passes::PassInfo silu;
  for (const auto& p : passes::pipeline())
    if (p.name == "silu_fusion") { silu = p; }
  ASSERT_TRUE(silu.run);
  passes::PassContext ctx;
  passes::PassResult r = silu.run(g, ctx);
  ASSERT_EQ(r.rules.size(), 2u);
  EXPECT_EQ(r.rules[0].rule, "x * sigmoid(x) -> silu(x)");
  EXPECT_EQ(r.rules[1].rule, "sigmoid(x) * x -> silu(x)");
  const std::string text = ir::printGraph(r.graph);
  EXPECT_EQ(text.find("sigmoid"), std::string::npos) << text;  // consumed
  tensor::Tensor x = tensor::Tensor::empty({8}, ir::DType::Float32);
  for (int64_t i = 0; i < 8; ++i) x.storeAt(i, 0.7 * static_cast<double>(i) - 3.0);
  auto before = runtime::runAtenGraph(g, {x})[0].toDoubles(), after = runtime::runAtenGraph(r.graph, {x})[0].toDoubles();
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(before[i], after[i], 1e-6);
}

TEST(PluginLoader, ReferenceBackendIsRegisteredWithItsOrigin) {
  const plugin::LoadedPlugin p = plugin::loadPlugin(kPlugins + "/kiln_reference.so");
  EXPECT_EQ(p.registered, std::vector<std::string>{"backend kiln_reference"});
  auto e = capture::BackendRegistry::global().find("kiln_reference");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->origin, p.path);
  EXPECT_NE(e->description.find("eager kernels"), std::string::npos);
}

TEST(PluginLoader, AStalePluginIsRefusedByItsVersion) {
  const std::string path = fs::canonical(kFixtures + "/stale_plugin.so").string();
  EXPECT_EQ(loadError(path), "plugin " + path + ": built for Kiln plugin API version " + std::to_string(KILN_PLUGIN_API_VERSION + 998) +
                                 ", this Kiln has version " + std::to_string(KILN_PLUGIN_API_VERSION) +
                                 " (rebuild it against this Kiln's headers)");
  EXPECT_TRUE(plugin::loadedPlugins().empty());
}

TEST(PluginLoader, ALibraryWithoutTheEntryPointIsRefused) {
  const std::string path = fs::canonical(kFixtures + "/not_a_plugin.so").string();
  EXPECT_EQ(loadError(path), "plugin " + path + ": not a Kiln plugin (it exports no kiln_plugin_entry; define one with KILN_PLUGIN)");
  EXPECT_EQ(loadError("/nonexistent/x.so"), "plugin /nonexistent/x.so: no such file");
  // A file that is no shared library at all: dlopen's reason, on one line.
  const std::string notElf = (fs::temp_directory_path() / "kiln_not_elf.so").string();
  std::ofstream(notElf) << "not a library\n";
  const std::string e = loadError(notElf);
  EXPECT_EQ(e.rfind("plugin " + fs::canonical(notElf).string() + ": cannot be loaded: ", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  fs::remove(notElf);
}

TEST(PluginLoader, ARefusedRegistrationUndoesThePlugin) {
  const size_t importersBefore = importers::importers().size();
  const std::string e = loadError(kFixtures + "/conflicting_plugin.so");
  EXPECT_NE(e.find("registering failed: registerPass: a pass named 'cse' exists"), std::string::npos) << e;
  EXPECT_EQ(importers::importers().size(), importersBefore);                         // its importer was taken back
  EXPECT_FALSE(capture::BackendRegistry::global().contains("conflicting_backend"));  // and its backend
  EXPECT_TRUE(plugin::loadedPlugins().empty());
}

TEST(PluginLoader, PluginPathLoadsEveryLibraryOfAFolder) {
  plugin::loadPluginPath(":" + kPlugins + ":");
  std::vector<std::string> names;
  for (const auto& p : plugin::loadedPlugins()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"kiln_reference", "silu_fusion"}));
  EXPECT_THROW(plugin::loadPluginPath("/nonexistent/folder"), plugin::PluginError);
}

TEST(PluginLoader, BuiltinsRegisterThroughTheSameRegistries) {
  plugin::registerBuiltins();
  plugin::registerBuiltins();  // once
  ASSERT_EQ(importers::importers().size(), 1u);
  EXPECT_EQ(importers::importers()[0].name, "torch_trace");
  EXPECT_EQ(importers::importers()[0].origin, "built-in");
  for (const char* b : {"inductor", "eager", "aot_eager"}) {
    auto e = capture::BackendRegistry::global().find(b);
    ASSERT_TRUE(e.has_value()) << b;
    EXPECT_EQ(e->origin, "built-in");
  }
  EXPECT_NE(importers::importerNamed("torch_trace").description, "");
  try {
    importers::importerNamed("nosuch");
    FAIL();
  } catch (const std::invalid_argument& e) { EXPECT_EQ(std::string(e.what()), "no importer named 'nosuch' (importers: torch_trace)"); }
  // What the TORCH_TRACE importer recognises: its fixtures' folders and logs, not a script.
  const std::string fixture = std::string(KILN_SHARED_DIR) + "/fixtures/torch_trace/cpu/gb_explicit_graph_break";
  EXPECT_TRUE(importers::importerFor(fixture).has_value());
  EXPECT_FALSE(importers::importerFor(test::corpusPath("public/seed_exp_log.py")).has_value());
}

// kiln_reference on every public corpus program: what the script computes agrees with what
// real PyTorch computed (the oracle's outs.json, eager numbers). The backend is chosen by wrapping
// torch.compile on the script's first line (a comment in every corpus program), so line numbers
// stay.
class ReferenceBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceBackend, AgreesWithEager) {
  plugin::registerBuiltins();
  plugin::loadPlugin(kPlugins + "/kiln_reference.so");
  std::ifstream in(test::corpusPath("public/" + GetParam() + ".py"));
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  ASSERT_EQ(source.rfind("#", 0), 0u);
  source =
      "import torch; _kiln_compile = torch.compile; torch.compile = lambda *a, **k: _kiln_compile(*a, **{**k, 'backend': "
      "'kiln_reference'})" +
      source.substr(source.find('\n'));
  const fs::path script = fs::temp_directory_path() / ("kiln_reference_" + GetParam() + ".py");
  std::ofstream(script) << source;

  struct Stages : session::SessionSink {
    int passStages = 0, kernels = 0, compiles = 0;
    std::string failed;
    void stage(const session::StageEvent& e) override { passStages += e.stage.rfind("pass:", 0) == 0; }
    void kernel(const session::KernelEvent&) override { ++kernels; }
  } stages;
  std::ostringstream out;
  driver::RunOptions o;
  o.scriptPath = script.string();
  driver::RunResult r = driver::runScript(o, stages, out);
  fs::remove(script);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  // Module.compile() does not go through torch.compile: its graphs keep the default backend.
  if (source.find(".compile()") == std::string::npos) { EXPECT_EQ(stages.kernels, 0) << "kiln_reference generates no code"; }
  nlohmann::json expected = test::loadCorpusJson("oracle/" + GetParam() + ".outs.json");
  std::string diff = test::compareOuts(nlohmann::json::parse(r.outputsJson), expected);
  if (!diff.empty()) {
    // Where Kiln's capture differs from PyTorch's (the conformance issue), no backend can agree
    // with the oracle: then kiln_reference must agree with Kiln's default backend.
    std::ostringstream defaultOut;
    session::NullSink none;
    driver::RunOptions d;
    d.scriptPath = test::corpusPath("public/" + GetParam() + ".py");
    driver::RunResult byDefault = driver::runScript(d, none, defaultOut);
    if (test::compareOuts(nlohmann::json::parse(byDefault.outputsJson), expected) != "")
      diff = test::compareOuts(nlohmann::json::parse(r.outputsJson), nlohmann::json::parse(byDefault.outputsJson));
  }
  EXPECT_EQ(diff, "");
}

INSTANTIATE_TEST_SUITE_P(Plugins, ReferenceBackend, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln
