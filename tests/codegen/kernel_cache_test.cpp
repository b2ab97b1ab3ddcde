// The on-disk kernel cache: entries round-trip, a damaged or foreign entry is a miss, and a
// module compiled once is loaded the second time (same machine code behaviour, same texts).
#include "engine/codegen/kernel_cache.h"
#include "tests/codegen/jit_test_util.h"

#include <cmath>
#include <filesystem>
#include <fstream>

namespace kiln::codegen {
namespace {

std::string tempDir(const std::string& name) {
  std::string d = std::string(KILN_BINARY_DIR) + "/tests/codegen/" + name;
  std::filesystem::remove_all(d);
  return d;
}

TEST(KernelCache, EntriesRoundTripAndDamageIsAMiss) {
  KernelCache cache(tempDir("cache_roundtrip"));
  CachedModule m{"key one", {"k0", "k1"}, {"ir0", ""}, {"asm0", "asm1"}, std::string("\x7f" "ELF\0\1binary", 12)};
  EXPECT_FALSE(cache.load("key one"));
  cache.store(m);
  auto back = cache.load("key one");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->names, m.names);
  EXPECT_EQ(back->llvmIr, m.llvmIr);
  EXPECT_EQ(back->assembly, m.assembly);
  EXPECT_EQ(back->object, m.object);
  EXPECT_FALSE(cache.load("key two"));
  // Damage: truncated, garbage, and an entry whose stored key is another's (a hash collision).
  const auto files = std::vector<std::filesystem::path>(std::filesystem::directory_iterator(cache.dir()), {});
  ASSERT_EQ(files.size(), 1u);
  const std::string path = files[0].string();
  std::string bytes;
  {
    std::ifstream f(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{5}, size_t{0}}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(cut));
    EXPECT_FALSE(cache.load("key one")) << cut;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "kiln-kernel-cache 1\n99999999999999999999\nx";
  EXPECT_FALSE(cache.load("key one"));
  // An entry at key one's file name holding another key (what a hash collision looks like).
  KernelCache other(tempDir("cache_other"));
  CachedModule foreign = m;
  foreign.key = "another key";
  other.store(foreign);
  const auto otherFile = std::filesystem::directory_iterator(other.dir())->path();
  std::filesystem::copy_file(otherFile, path, std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load("key one"));
}

TEST(KernelCache, SecondCompileLoadsTheFirstOnesCode) {
  KernelCache cache(tempDir("cache_jit"));
  struct Restore {
    KernelCache* before;
    ~Restore() { KernelCache::use(before); }
  } restore{KernelCache::use(&cache)};
  const char* text = R"(kernel cached_twice pointwise
  in x: f32[64]
  out y: f32[64]
  loop i0 in 0..64
  %0 = load x[i0]
  %1 = exp %0
  %2 = const 3.0 : f32
  %3 = mul %1, %2
  store y[i0], %3
end
)";
  auto compile = [&] { return makeLlvmCpuCompiler()->compile(kir::parseKernels(text), "cached"); };
  std::shared_ptr<CompiledModule> first = compile();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(cache.dir()), {}), 1);
  std::shared_ptr<CompiledModule> second = compile();
  ASSERT_EQ(second->kernels.size(), 1u);
  EXPECT_EQ(second->kernels[0].llvmIr, first->kernels[0].llvmIr);
  EXPECT_EQ(second->kernels[0].assembly, first->kernels[0].assembly);
  std::vector<float> x = testing::ramp(64, -2, 2), y1(64), y2(64);
  std::vector<void*> b1 = {x.data(), y1.data()}, b2 = {x.data(), y2.data()};
  first->kernels[0].fn(b1.data(), 0, 64);
  second->kernels[0].fn(b2.data(), 0, 64);
  EXPECT_EQ(y1, y2);
  EXPECT_FLOAT_EQ(y2[7], std::exp(x[7]) * 3.0f);
}

}  // namespace
}  // namespace kiln::codegen
