// PyTorch-compatible random numbers: the CPU generator (mt19937 seeded like
// torch.manual_seed) and the fill kernels of uniform_, normal_, random_(from, to) and
// bernoulli_, transforming the generator's bits exactly as ATen's CPU kernels do, so that
// torch.manual_seed(s) followed by torch.rand / randn / nn.Linear(...) gives PyTorch's values.
#pragma once

#include "engine/ops/op_table.h"
#include "engine/tensor/tensor.h"

#include <cstdint>
#include <optional>
#include <random>

namespace kiln::torchapi {

class Generator {
 public:
  Generator() { manualSeed(kDefaultSeed); }
  void manualSeed(uint64_t seed);
  uint64_t initialSeed() const { return seed_; }
  uint32_t random() { return static_cast<uint32_t>(engine_()); }
  // Two draws, the first in the high half (at::detail::make64BitsFrom32Bits).
  uint64_t random64() {
    uint64_t hi = random(), lo = random();
    return (hi << 32) | lo;
  }
  // Box-Muller yields two normals; the serial path keeps the second for the next draw.
  std::optional<double> nextDoubleNormal;

  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // c10::detail::default_rng_seed_val

 private:
  std::mt19937 engine_;  // at::mt19937 is the standard MT19937 (32-bit seed)
  uint64_t seed_ = kDefaultSeed;
};

Generator& defaultGenerator();
// The generator of draws made for CUDA tensors inside ops (dropout's rand_like on a CUDA tensor,
// engine/runtime/cuda_index_ops.cpp): the CPU algorithm, its own state, as PyTorch keeps one
// generator per device. torch.manual_seed / torch.cuda.manual_seed must seed it too (the torch
// layer's CUDA generator, engine/torch/device_api.cpp, is to be this one).
Generator& deviceGenerator();

// In-place fills of `t` (through its strides, row-major element order).
void uniformFill(tensor::Tensor& t, double from, double to, Generator& g);
void normalFill(tensor::Tensor& t, double mean, double std, Generator& g);
void randomFromToFill(tensor::Tensor& t, int64_t from, int64_t to, Generator& g);
// Tensor.random_() without bounds: ATen's uniform_int over the dtype's range (int64: a 64-bit
// draw modulo 2^63; floats: [0, 2^digits]; bool: the draw's low bit). DataLoader's shuffle
// seeds its permutation from one such int64 draw.
void randomFullFill(tensor::Tensor& t, Generator& g);
void randpermFill(tensor::Tensor& t, int64_t n, Generator& g);  // ATen randperm_cpu, t: [n] contiguous
void bernoulliFill(tensor::Tensor& t, double p, Generator& g);

}  // namespace kiln::torchapi

namespace kiln::ops {
// aten.bernoulli.p(self, p): a tensor like self of Bernoulli(p) draws from the default
// generator (dropout masks).
void registerRandomOps(std::vector<OpDef>& table);
}  // namespace kiln::ops
