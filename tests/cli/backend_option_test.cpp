// kiln run --backend NAME: the backend of torch.compile calls that name none. With the
// reference backend plugin (plugins/reference_backend) the compile is recorded as its, and its
// stages (no `fused`: it interprets the ATen graph) replace the inductor pipeline's; a call that
// names its backend keeps it; the numbers printed are the same either way. (The unknown name is
// a case of CliBadInput: run_unknown_backend.)
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace kiln {
namespace {

namespace fs = std::filesystem;

const std::string kReference = KILN_PLUGIN_DIR "/kiln_reference.so";

// The part of `kiln show`'s listing that says which backend compiled [c] and its stages.
std::string compileListing(const std::string& show, const std::string& compileId) {
  const size_t at = show.find("[" + compileId + "] backend=");
  if (at == std::string::npos) return "";
  const size_t next = show.find("  [", at + 1);
  return show.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

TEST(CliBackend, SetsTheBackendOfCompilesThatNameNone) {
  const fs::path dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work_backend";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string prog = (dir / "prog.py").string(), db = (dir / "s.db").string();
  test::writeFile(prog,
                  "import torch\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    return torch.relu(x) * 2 + 1\n"
                  "g = torch.compile(lambda x: x - 1, backend='eager')\n"
                  "x = torch.linspace(-3.0, 3.0, 7)\n"
                  "print(f(x))\n"
                  "print(g(x))\n");
  test::KilnRun plain = test::runKiln({"run", prog, "--db", db}, dir);
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  test::KilnRun ref = test::runKiln({"--plugin", kReference, "run", prog, "--backend", "kiln_reference", "--db", db}, dir);
  ASSERT_EQ(ref.exitCode, 0) << ref.err;
  EXPECT_EQ(ref.out.substr(0, ref.out.find("session ")), plain.out.substr(0, plain.out.find("session ")));  // the same numbers

  test::KilnRun show1 = test::runKiln({"show", "1", "--db", db}, dir), show2 = test::runKiln({"show", "2", "--db", db}, dir);
  ASSERT_EQ(show1.exitCode, 0) << show1.err;
  ASSERT_EQ(show2.exitCode, 0) << show2.err;
  const std::string inductor = compileListing(show1.out, "0/0"), reference = compileListing(show2.out, "0/0");
  EXPECT_EQ(inductor.rfind("[0/0] backend=inductor status=ok", 0), 0u) << show1.out;
  EXPECT_NE(inductor.find("stage fused"), std::string::npos) << show1.out;
  EXPECT_EQ(reference.rfind("[0/0] backend=kiln_reference status=ok", 0), 0u) << show2.out;
  EXPECT_EQ(reference.find("stage fused"), std::string::npos) << show2.out;
  EXPECT_NE(reference.find("stage aten"), std::string::npos) << show2.out;
  // torch.compile(..., backend='eager') names its backend: --backend does not change it.
  EXPECT_EQ(compileListing(show2.out, "1/0").rfind("[1/0] backend=eager", 0), 0u) << show2.out;

  // The plugin's backend is a name only once the plugin is loaded.
  test::KilnRun missing = test::runKiln({"run", prog, "--backend", "kiln_reference", "--db", db}, dir);
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("--backend: no backend named 'kiln_reference'"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace kiln
