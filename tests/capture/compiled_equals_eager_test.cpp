// Every script in equal_to_eager/ prints the same text compiled as eager: the aliasing,
// functionalization and guard cases where a compiler can silently differ from PyTorch.
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace kiln {
namespace {

std::vector<std::string> scripts() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(KILN_SOURCE_DIR) + "/tests/capture/equal_to_eager"))
    if (e.path().extension() == ".py") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

class EqualToEager : public ::testing::TestWithParam<std::string> {};

TEST_P(EqualToEager, CompiledPrintsWhatEagerPrints) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/tests/capture/equal_to_eager/" + GetParam() + ".py";
  const std::string eager = test::runPrinting(path, true);
  EXPECT_FALSE(eager.empty());
  EXPECT_EQ(test::runPrinting(path, false), eager);
}

INSTANTIATE_TEST_SUITE_P(Scripts, EqualToEager, ::testing::ValuesIn(scripts()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace kiln
