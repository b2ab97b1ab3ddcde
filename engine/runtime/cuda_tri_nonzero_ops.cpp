// The ops of cuda_tri_nonzero_ops.h. Nothing is computed on the CPU: the host reads back only
// nonzero's per-block counts (at most kMaxBlocks of them), adds them up into each block's first
// row and allocates the result.
#include "engine/runtime/cuda_tri_nonzero_ops.h"

#include "engine/codegen/cuda/cuda_tri_nonzero_source.h"
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/tensor/tensor.h"

#include <algorithm>
#include <string>

namespace kiln::runtime::cuda {

namespace {

using ops::Val;
using tensor::Tensor;
using tensor::TorchError;

namespace cg = codegen::cuda;

constexpr long long kBlock = 256;
// nonzero's blocks: enough to fill an H100 several times over, few enough that their counts are
// one small copy back.
constexpr long long kMaxBlocks = 1024;

void* kernel(const std::string& symbol) { return deviceFunction(cg::cudaTriNonzeroKernelsSource(), "kiln_tri_nonzero", symbol); }

cg::CudaStrided strided(const Tensor& x, const char* op) {
  if (x.dim() > cg::kCudaMaxDims)
    throw TorchError("RuntimeError", std::string(op) + " on a CUDA tensor takes at most " + std::to_string(cg::kCudaMaxDims) +
                                         " dimensions, got " + std::to_string(x.dim()));
  cg::CudaStrided s;
  s.rank = x.dim();
  for (int64_t d = 0; d < x.dim(); ++d) s.size[d] = x.sizes()[d], s.stride[d] = x.strides()[d];
  return s;
}

// tril / triu(self, diagonal=0).
Val triangle(const ops::OpDef& op, const std::vector<Val>& a, bool lower) {
  op.meta(a);  // the CPU op's checks (at least 2 dims)
  const Tensor& x = a.at(0).t;
  long long k = a.size() > 1 && !a[1].isNone() ? a[1].i : 0;
  long long lo = lower ? 1 : 0;
  Tensor y = Tensor::empty(x.sizes(), x.dtype(), x.device());
  long long total = y.numel();
  if (total == 0) return Val::of(y);
  long long rows = x.sizes()[x.dim() - 2], cols = x.sizes()[x.dim() - 1];
  cg::CudaStrided s = strided(x, lower ? "tril" : "triu");
  unsigned long long px = devicePtr(x), py = devicePtr(y);
  void* params[] = {&px, &py, &s, &total, &rows, &cols, &k, &lo};
  // Grid-stride loop: a grid of at most 2^20 blocks covers any size.
  const auto grid = static_cast<unsigned>(std::min<long long>((total + kBlock - 1) / kBlock, 1LL << 20));
  driver().launch(kernel("kiln_triangle_" + cg::cudaTriangleSuffix(x.dtype())), grid, static_cast<unsigned>(kBlock), params);
  return Val::of(y);
}

// nonzero(self) -> int64 [n, self.dim()].
Val nonzero(const Tensor& x) {
  const int64_t rank = x.dim();
  long long total = x.numel();  // a 0-dim tensor is one element, with no coordinates
  if (total == 0) return Val::of(Tensor::empty({0, rank}, ir::DType::Int64, x.device()));
  cg::CudaStrided s = strided(x, "nonzero");
  const std::string sfx = cg::cudaNonzeroSuffix(x.dtype());
  // Chunks of whole tiles, one per block.
  const long long tiles = (total + kBlock - 1) / kBlock;
  long long chunk = (tiles + kMaxBlocks - 1) / kMaxBlocks * kBlock;
  const long long blocks = (total + chunk - 1) / chunk;
  Tensor counts = Tensor::empty({blocks}, ir::DType::Int64, x.device());
  unsigned long long px = devicePtr(x), pc = devicePtr(counts);
  void* countParams[] = {&px, &s, &total, &chunk, &pc};
  driver().launch(kernel("kiln_nonzero_count_" + sfx), static_cast<unsigned>(blocks), static_cast<unsigned>(kBlock), countParams);
  // The synchronizing read: per-block counts become each block's first row.
  Tensor starts = Tensor::empty({blocks}, ir::DType::Int64);
  auto* st = starts.ptr<int64_t>();
  driver().copyToHost(st, pc, static_cast<size_t>(blocks) * sizeof(int64_t));
  int64_t n = 0;
  for (long long b = 0; b < blocks; ++b) {
    const int64_t c = st[b];
    st[b] = n;
    n += c;
  }
  Tensor out = Tensor::empty({n, rank}, ir::DType::Int64, x.device());
  if (n == 0 || rank == 0) return Val::of(out);
  Tensor startsOnDevice = starts.toDevice(x.device());
  unsigned long long ps = devicePtr(startsOnDevice), po = devicePtr(out);
  void* writeParams[] = {&px, &s, &total, &chunk, &ps, &po};
  driver().launch(kernel("kiln_nonzero_write_" + sfx), static_cast<unsigned>(blocks), static_cast<unsigned>(kBlock), writeParams);
  return Val::of(out);
}

}  // namespace

std::optional<Val> triNonzeroOnDevice(const ops::OpDef& op, const std::vector<Val>& args, const tensor::Device& device) {
  if (device.isCpu() || args.empty() || args[0].kind != Val::Kind::Tensor) return std::nullopt;
  if (op.name == "aten.tril.default") return triangle(op, args, true);
  if (op.name == "aten.triu.default") return triangle(op, args, false);
  if (op.name == "aten.nonzero.default") return nonzero(args[0].t);
  return std::nullopt;
}

}  // namespace kiln::runtime::cuda
