// kiln show --stage ptx|sass and kiln cuda through the built executable: a CPU session's kernels
// shown as the GPU would run them (made from the stored kernel IR, no GPU), with their launch and
// ptxas's figures; SASS when nvdisasm is installed, else exit 1 saying so. Needs NVRTC (skips
// and says so without it).
#include "tests/cli/run_kiln.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace kiln {
namespace {

namespace fs = std::filesystem;

const char* kScript = R"(import torch

@torch.compile
def f(x):
    return torch.relu(x * 2 + 1).sin()

f(torch.ones(64, 64))
)";

class CudaViewsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::path(KILN_BINARY_DIR) / "tests/cli/work/cuda_views" / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
    test::writeFile((dir / "f.py").string(), kScript);
    const test::KilnRun run = test::runKiln({"run", (dir / "f.py").string(), "--db", db()}, dir);
    ASSERT_EQ(run.exitCode, 0) << run.err;
  }
  fs::path dir;
  std::string db() const { return (dir / "s.db").string(); }
};

TEST_F(CudaViewsCli, PtxOfACpuSessionIsMadeFromItsKernelIr) {
  const test::KilnRun ptx = test::runKiln({"show", "1", "--db", db(), "--stage", "ptx"}, dir);
  if (ptx.err.find("NVRTC") != std::string::npos) GTEST_SKIP() << ptx.err;
  ASSERT_EQ(ptx.exitCode, 0) << ptx.err;
  EXPECT_NE(ptx.out.find("(made now from the kernel IR for sm_90)"), std::string::npos) << ptx.out;
  EXPECT_NE(ptx.out.find("// grid 4x1, block 256, thread, 4 per thread"), std::string::npos) << ptx.out;  // 4096 points, 4 per thread
  EXPECT_NE(ptx.out.find(" registers · 0 B shared"), std::string::npos) << ptx.out;
  EXPECT_NE(ptx.out.find(".visible .entry kiln_"), std::string::npos) << ptx.out;
  EXPECT_NE(ptx.out.find("// cuda line "), std::string::npos) << ptx.out;

  const test::KilnRun sass = test::runKiln({"show", "1", "--db", db(), "--stage", "sass"}, dir);
  if (sass.exitCode == 1) {
    EXPECT_NE(sass.err.find("nvdisasm not found"), std::string::npos) << sass.err;
    EXPECT_EQ(sass.err.find("has no stage"), std::string::npos) << sass.err;  // the reason, not a wrong stage name
  } else {
    ASSERT_EQ(sass.exitCode, 0) << sass.err;
    EXPECT_NE(sass.out.find("//## File"), std::string::npos) << sass.out;
  }
}

TEST_F(CudaViewsCli, CudaJsonOfKernelIr) {
  const test::KilnRun kernels = test::runKiln({"show", "1", "--db", db(), "--stage", "kernels"}, dir);
  ASSERT_EQ(kernels.exitCode, 0) << kernels.err;
  test::writeFile((dir / "k.kir").string(), kernels.out);
  const test::KilnRun cuda = test::runKiln({"cuda", (dir / "k.kir").string(), "--json", "--arch", "sm_80"}, dir);
  if (cuda.err.find("NVRTC") != std::string::npos) GTEST_SKIP() << cuda.err;
  ASSERT_EQ(cuda.exitCode, 0) << cuda.err;
  const nlohmann::json j = nlohmann::json::parse(cuda.out);
  EXPECT_EQ(j["arch"], "sm_80");
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_NE(k["source"].get<std::string>().find("__global__ void kiln_"), std::string::npos);
  EXPECT_NE(k["ptx"].get<std::string>().find(".loc"), std::string::npos);
  EXPECT_GT(k["gpu"]["registers"].get<int>(), 0);
  EXPECT_EQ(k["gpu"]["spill_stores"].get<int>(), 0);
  const test::KilnRun bad = test::runKiln({"cuda", (dir / "k.kir").string(), "--arch", "compute_80"}, dir);
  EXPECT_EQ(bad.exitCode, 2) << bad.err;
  EXPECT_NE(bad.err.find("--arch takes a real architecture"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace kiln
