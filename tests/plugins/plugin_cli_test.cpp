// kiln plugins, kiln backends, --plugin and KILN_PLUGIN_PATH through the built kiln executable,
// with the in-tree plugins: what is listed, a stale plugin's one-line refusal, the silu rule in a
// run's stage, option values checked against the registries.
#include "plugin_host/kiln_plugin.h"
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kiln {
namespace {

namespace fs = std::filesystem;

const std::string kSilu = fs::canonical(KILN_PLUGIN_DIR "/silu_fusion.so").string();
const std::string kReference = fs::canonical(KILN_PLUGIN_DIR "/kiln_reference.so").string();
const std::string kStale = fs::canonical(KILN_TEST_PLUGIN_DIR "/stale_plugin.so").string();

struct PluginCli : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("kiln_plugin_cli_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  test::KilnRun kiln(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {{"KILN_PLUGIN_PATH", ""}}) {
    return test::runKiln(args, dir, env);
  }
  std::string script(const std::string& text) {
    const fs::path p = dir / "prog.py";
    std::ofstream(p) << text;
    return p.string();
  }
};

TEST_F(PluginCli, PluginsListsTheBuiltinsAndWhatEachPluginRegistered) {
  test::KilnRun r = kiln({"plugins", "--plugin", kSilu, "--plugin=" + kReference});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out,
            "built-in\n"
            "  passes: decompose, constant_fold, simplify, fold_conv_bn, addmm, cse, dce, fuse\n"
            "  importers: torch_trace\n"
            "  backends: aot_eager, eager, inductor\n"
            "plugin silu_fusion from " +
                kSilu +
                "\n"
                "  an example pass plugin: x * sigmoid(x) -> silu(x), before fuse\n"
                "  pass silu_fusion (before fuse)\n"
                "plugin kiln_reference from " +
                kReference +
                "\n"
                "  a reference backend: Kiln's graph passes, then the ATen graph interpreted with the eager kernels\n"
                "  backend kiln_reference\n");
  r = kiln({"plugins"});
  EXPECT_NE(r.out.find("no plugins loaded"), std::string::npos) << r.out;
}

TEST_F(PluginCli, PluginPathLoadsAFolder) {
  test::KilnRun r = kiln({"plugins"}, {{"KILN_PLUGIN_PATH", fs::path(kSilu).parent_path().string()}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("plugin kiln_reference from " + kReference), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("plugin silu_fusion from " + kSilu), std::string::npos) << r.out;
  r = kiln({"plugins"}, {{"KILN_PLUGIN_PATH", "/nonexistent/plugins"}});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln: KILN_PLUGIN_PATH: '/nonexistent/plugins' does not exist\n");
}

TEST_F(PluginCli, BackendsListsBuiltinsAndPluginsWithDescriptions) {
  test::KilnRun r = kiln({"backends", "--plugin", kReference});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // One column of names, padded to the longest.
  EXPECT_NE(r.out.find("inductor        lower to ATen, run the pass pipeline"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kiln_reference  lower to ATen, run Kiln's graph passes (not fuse)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(plugin " + kReference + ")"), std::string::npos) << r.out;
  // --plugin is global: before the command too.
  test::KilnRun before = kiln({"--plugin", kReference, "backends"});
  ASSERT_EQ(before.exitCode, 0) << before.err;
  EXPECT_EQ(before.out, r.out);
  EXPECT_EQ(kiln({"--plugin", kReference}).exitCode, 2);
}

TEST_F(PluginCli, AStalePluginIsOneLineAndAFailure) {
  test::KilnRun r = kiln({"run", script("print(1)\n"), "--plugin", kStale});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln: plugin " + kStale + ": built for Kiln plugin API version " + std::to_string(KILN_PLUGIN_API_VERSION + 998) +
                       ", this Kiln has version " + std::to_string(KILN_PLUGIN_API_VERSION) +
                       " (rebuild it against this Kiln's headers)\n");
  EXPECT_EQ(r.out, "");
  // A missing path is a usage error (2); a path that is not there names --plugin (1).
  r = kiln({"run", script("print(1)\n"), "--plugin"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--plugin needs a path"), std::string::npos) << r.err;
  r = kiln({"run", script("print(1)\n"), "--plugin", "/nonexistent/p.so"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "kiln: --plugin '/nonexistent/p.so' does not exist\n");
}

TEST_F(PluginCli, SiluFusionRuleIsInTheRunsStage) {
  const std::string prog = script(
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    return x * torch.sigmoid(x) + 1\n"
      "print(f(torch.linspace(-3.0, 3.0, 7)))\n");
  const std::string db = (dir / "s.db").string();
  test::KilnRun eager = kiln({"run", prog, "--eager", "--db", db});
  test::KilnRun r = kiln({"run", prog, "--plugin", kSilu, "--db", db});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("session ")), eager.out.substr(0, eager.out.find("session ")));  // the same numbers
  r = kiln({"show", "2", "--stage", "silu_fusion", "--db", db});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("pass:silu_fusion  rules: x * sigmoid(x) -> silu(x) (x1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch.ops.aten.silu.default(arg0_1)"), std::string::npos) << r.out;
}

TEST_F(PluginCli, OptionsNamingNothingRegisteredListTheNames) {
  test::KilnRun r = kiln({"run", script("print(1)\n"), "--disable-pass", "nosuch"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no pass named 'nosuch' (passes: decompose, constant_fold, simplify, fold_conv_bn, addmm, cse, dce, fuse)"),
            std::string::npos)
      << r.err;
  // A plugin's pass is a valid name once it is loaded.
  r = kiln({"run", script("print(1)\n"), "--disable-pass", "silu_fusion", "--plugin", kSilu, "--db", (dir / "s.db").string()});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  r = kiln({"import", "x.log", "--importer", "nosuch"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--importer: no importer named 'nosuch' (importers: torch_trace)"), std::string::npos) << r.err;
  r = kiln({"run", script("import torch\nf = torch.compile(lambda x: x, backend='nosuch')\n")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("Invalid backend: 'nosuch'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln
