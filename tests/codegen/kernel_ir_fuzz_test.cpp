// Deterministic garbage for the kernel IR parser: mutated valid texts must parse or throw
// kiln::ParseError, never crash, hang or throw anything else.
#include "engine/kir/kernel_ir.h"
#include "engine/support/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace kiln::kir {
namespace {

constexpr const char* kSeeds[] = {
    R"(kernel kernel_0 pointwise
  nodes 1, 2
  in buf0: f32[64, 32]
  in buf1: f32[32]
  out buf2: f32[32, 64]
  loop i0 in 0..32
  loop i1 in 0..64
  %0 = load buf0[i1*32 + i0]
  %1 = load buf1[i0 + i1*0]
  %2 = add %0, %1
  %3 = const -1.5e-3 : f32
  %4 = max %2, %3
  %5 = gt %4, %3
  %6 = where %5, %4, %3
  store buf2[i0*64 + i1 - 0], %6
end
)",
    R"(kernel kernel_1 reduction
  in buf0: f64[8, 16]
  out buf1: i64[8]
  loop i0 in 0..8
  loop r0 in 0..16 reduce
  %0 = load buf0[i0*16 + r0]
  %1 = cast %0 : i64
  %2 = reduce_sum %1
  %3 = const 3 : i64
  %4 = mod %2, %3
  store buf1[i0], %4 : i64
end
)",
    // Dynamic shapes: size expressions in dims, extents, coefficients and constants.
    R"(kernel kernel_2 reduction
  in buf0: f32[s0, 16*s1]
  out buf1: f32[s0]
  loop i0 in 0..s0
  loop r0 in 0..16*s1 reduce
  %0 = load buf0[i0*16*s1 + r0]
  %1 = reduce_sum %0
  %2 = const 16*s1 : f32
  %3 = div %1, %2
  store buf1[i0], %3
end
)",
};

// xorshift64*: a fixed sequence, so a failure reproduces from the iteration number.
struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  size_t below(size_t n) { return n ? next() % n : 0; }
};

std::string mutate(std::string t, Rng& rng) {
  static const char* kFragments[] = {"%",     "..",
                                     "[",     "]",
                                     ",",     ":",
                                     "-",     "*",
                                     "+",     "\n",
                                     "end",   "%999999999999",
                                     "1e999", "nan",
                                     "inf",   "reduce",
                                     "loop",  "kernel k x\n",
                                     "0",     "-9223372036854775808",
                                     "\x01",  "\xff",
                                     "#",     "\r",
                                     "buf0",  "i0",
                                     "%0",    "load",
                                     "store", "\0",
                                     "s0",    "s99999999",
                                     "*s1",   "4*s0*s0",
                                     "s"};
  int edits = 1 + static_cast<int>(rng.below(4));
  for (int e = 0; e < edits; ++e) {
    size_t pos = rng.below(t.size() + 1);
    switch (rng.below(5)) {
      case 0:  // delete a span
        t.erase(pos, rng.below(8));
        break;
      case 1:  // insert a token-like fragment
        t.insert(pos, std::string(kFragments[rng.below(std::size(kFragments))]));
        break;
      case 2:  // replace one byte by any byte
        if (pos < t.size()) t[pos] = static_cast<char>(rng.below(256));
        break;
      case 3:  // duplicate a span
        t.insert(pos, t.substr(rng.below(t.size()), rng.below(24)));
        break;
      default:  // truncate
        t.resize(pos);
        break;
    }
  }
  return t;
}

TEST(KernelIrFuzz, MutatedTextsOnlyThrowParseError) {
  Rng rng{0x9e3779b97f4a7c15ull};
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = mutate(kSeeds[iter % std::size(kSeeds)], rng);
    try {
      auto ks = parseKernels(text);
      ++parsed;
      // Whatever parses must print canonically and read back to the same kernels.
      std::string printed = print(ks);
      ASSERT_EQ(print(parseKernels(printed)), printed) << "iteration " << iter << "\n" << text;
      for (const auto& k : ks) (void)verify(k);
    } catch (const ParseError& e) {
      ++rejected;
      ASSERT_GE(e.where().line, 1) << "iteration " << iter;
      ASSERT_GE(e.where().col, 1) << "iteration " << iter;
    } catch (const std::exception& e) { FAIL() << "iteration " << iter << " threw " << e.what() << "\n" << text; }
  }
  // Both outcomes must actually be exercised by the mutations.
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 1000);
}

TEST(KernelIrFuzz, PathologicalInputs) {
  const std::string inputs[] = {
      std::string(100000, '['),
      std::string(100000, '%'),
      std::string(50000, '\n') + "x",
      "kernel k p\n" + std::string(100000, '-') + "\nend\n",
      std::string("kernel k p\n  %0 = const 1 : f32\0\nend\n", 36),
      "kernel k p\n  in b: f32[" + std::string(5000, '9') + "]\nend\n",
      "kernel k p\n  %2147483648 = const 1 : f32\nend\n",
  };
  for (const auto& in : inputs) EXPECT_THROW(parseKernels(in), ParseError);
}

}  // namespace
}  // namespace kiln::kir
