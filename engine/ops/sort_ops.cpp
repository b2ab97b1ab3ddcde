// Sorting, selection and scans: argsort (stable), the indices of topk, one_hot, cumsum. Kernels follow ATen's
// CPU ones (SortingKernel.cpp, TopKImpl.h): NaN sorts as the largest value, sort is stable, topk
// runs the same std::partial_sort / nth_element + sort on (value, index) pairs so that ties come
// out in the order PyTorch's CPU kernel gives them. Torch-level sort/topk gather the values with
// these indices (engine/torch/fns_more.cpp): graphs have no multi-output nodes yet.
#include "engine/ops/op_table.h"
#include "engine/ops/shape_util.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kiln::ops {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

namespace {

// Calls f(inOffset, outOffset) for the start of every line along `dim` of x (row-major over the
// other dims); `out` is laid out contiguously with `outSizes`.
template <typename F>
void forEachLine(const Tensor& x, int64_t dim, const Shape& outSizes, F&& f) {
  Shape sizes = x.sizes(), xs = x.strides(), os = Tensor::contiguousStrides(outSizes);
  // An empty x has no line with elements, and its callers' outputs are empty too; the other dims
  // of an empty x may be huge (2^62 lines to walk, with strides that overflow int64).
  if (x.numel() == 0) return;
  if (sizes.empty()) {
    f(int64_t{0}, int64_t{0});
    return;
  }
  sizes[dim] = 1;
  tensor::forEachIndex<2>(sizes, {&xs, &os}, [&](const std::array<int64_t, 2>& o) { f(o[0], o[1]); });
}

bool isNan(double v) { return std::isnan(v); }
bool isNan(int64_t) { return false; }

template <typename T>
T load(const Tensor& x, int64_t off) {
  if constexpr (std::is_same_v<T, double>) return x.loadAt(off);
  else return x.loadIntAt(off);
}

template <typename T>
Tensor argsortImpl(const Tensor& x, int64_t dim, bool descending) {
  Tensor out = Tensor::empty(x.sizes(), ir::DType::Int64);
  if (x.numel() == 0) return out;  // its line buffer is as long as the sorted dim, which may be 2^40 here
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  const int64_t xstride = x.dim() == 0 ? 0 : x.strides()[dim];
  const int64_t ostride = x.dim() == 0 ? 0 : out.strides()[dim];
  std::vector<std::pair<T, int64_t>> line(static_cast<size_t>(n));
  forEachLine(x, dim, x.sizes(), [&](int64_t in, int64_t o) {
    for (int64_t j = 0; j < n; ++j) line[j] = {load<T>(x, in + j * xstride), j};
    if (descending)
      std::stable_sort(line.begin(), line.end(),
                       [](const auto& a, const auto& b) { return (isNan(a.first) && !isNan(b.first)) || a.first > b.first; });
    else
      std::stable_sort(line.begin(), line.end(),
                       [](const auto& a, const auto& b) { return (!isNan(a.first) && isNan(b.first)) || a.first < b.first; });
    for (int64_t j = 0; j < n; ++j) out.storeIntAt(o + j * ostride, line[j].second);
  });
  return out;
}

// ATen's topk_impl_loop on one line: the same algorithms with the same comparators.
template <typename T>
Tensor topkImpl(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  Shape outSizes = x.sizes();
  if (!outSizes.empty()) outSizes[dim] = k;
  Tensor out = Tensor::empty(outSizes, ir::DType::Int64);
  if (k == 0) return out;
  const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
  const int64_t xstride = x.dim() == 0 ? 0 : x.strides()[dim];
  const int64_t ostride = x.dim() == 0 ? 0 : out.strides()[dim];
  using Elem = std::pair<T, int64_t>;
  std::vector<Elem> queue(static_cast<size_t>(n));
  auto greater = [](const Elem& a, const Elem& b) { return (isNan(a.first) && !isNan(b.first)) || a.first > b.first; };
  auto less = [](const Elem& a, const Elem& b) { return (!isNan(a.first) && isNan(b.first)) || a.first < b.first; };
  forEachLine(x, dim, outSizes, [&](int64_t in, int64_t o) {
    for (int64_t j = 0; j < n; ++j) queue[j] = {load<T>(x, in + j * xstride), j};
    const bool usePartialSort = k * 64 <= n;
    if (usePartialSort) {
      if (largest) std::partial_sort(queue.begin(), queue.begin() + k, queue.end(), greater);
      else std::partial_sort(queue.begin(), queue.begin() + k, queue.end(), less);
    } else if (largest) {
      std::nth_element(queue.begin(), queue.begin() + k - 1, queue.end(), greater);
      if (sorted) std::sort(queue.begin(), queue.begin() + k - 1, greater);
    } else {
      std::nth_element(queue.begin(), queue.begin() + k - 1, queue.end(), less);
      if (sorted) std::sort(queue.begin(), queue.begin() + k - 1, less);
    }
    for (int64_t j = 0; j < k; ++j) out.storeIntAt(o + j * ostride, queue[j].second);
  });
  return out;
}

int64_t sortDim(const Val& x, const Val& dim) {
  int64_t nd = static_cast<int64_t>(x.tensorType().sizes.size());
  return wrapDim(dim.isNone() ? -1 : dim.i, nd);
}

// topk(self, k, dim=-1, largest=True, sorted=True): checks as ATen's topk meta function.
void checkTopk(const Val& x, int64_t k, int64_t dim) {
  Shape s = sizesOf(x);
  int64_t size = s.empty() ? 1 : s[dim];
  if (k < 0 || k > size) throw TorchError("RuntimeError", "selected index k out of range");
}

}  // namespace

// cumsum's result dtype: integral and bool inputs accumulate in int64 unless dtype= says otherwise.
ir::DType cumsumType(const std::vector<Val>& a) {
  if (a.size() > 2 && a[2].kind == Val::Kind::DType) return a[2].dtype;
  ir::DType d = a.at(0).tensorType().dtype;
  return ir::isFloating(d) ? d : ir::DType::Int64;
}

void registerSortOps(std::vector<OpDef>& t) {
  {
    // cumsum(self, dim, *, dtype=None): floating sums accumulate in double (ATen's CPU acc_type).
    OpDef d;
    d.name = "aten.cumsum.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      wrapDim(a.at(1).i, static_cast<int64_t>(a.at(0).tensorType().sizes.size()));
      return contiguousType(sizesOf(a[0]), cumsumType(a));
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      const int64_t dim = x.dim() == 0 ? 0 : wrapDim(a.at(1).i, x.dim());
      const ir::DType dt = cumsumType(a);
      Tensor out = Tensor::empty(x.sizes(), dt);
      const int64_t n = x.dim() == 0 ? 1 : x.sizes()[dim];
      const int64_t xs = x.dim() == 0 ? 0 : x.strides()[dim], os = x.dim() == 0 ? 0 : out.strides()[dim];
      const bool floating = ir::isFloating(dt);
      forEachLine(x, dim, x.sizes(), [&](int64_t in, int64_t o) {
        double acc = 0.0;
        int64_t iacc = 0;
        for (int64_t j = 0; j < n; ++j) {
          if (floating) out.storeAt(o + j * os, acc += x.loadAt(in + j * xs));
          else out.storeIntAt(o + j * os, iacc = wrapAdd(iacc, x.loadIntAt(in + j * xs)));
        }
      });
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    // argsort.stable(self, *, stable, dim=-1, descending=False). Always stable: ties keep
    // their order (an unstable sort may order them either way, so this is one valid answer).
    OpDef d;
    d.name = "aten.argsort.stable";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      sortDim(a.at(0), a.size() > 2 ? a[2] : Val::none());
      return contiguousType(sizesOf(a.at(0)), ir::DType::Int64);
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      int64_t dim = sortDim(a[0], a.size() > 2 ? a[2] : Val::none());
      bool descending = a.size() > 3 && a[3].kind == Val::Kind::Bool && a[3].b;
      if (x.dtype() == ir::DType::Float16 || x.dtype() == ir::DType::BFloat16)
        throw TorchError("RuntimeError",
                         "dtype " + std::string(ir::torchName(x.dtype())) + " is not supported by Kiln's eager kernels yet");
      return ir::isFloating(x.dtype()) ? argsortImpl<double>(x, dim, descending) : argsortImpl<int64_t>(x, dim, descending);
    };
    t.push_back(std::move(d));
  }
  {
    // The indices result of aten.topk(self, k, dim=-1, largest=True, sorted=True): Kiln's graphs
    // have no multi-output nodes yet, so topk is these indices plus a gather of the values.
    OpDef d;
    d.name = "kiln.topk_indices.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      int64_t dim = sortDim(a.at(0), a.at(2));
      checkTopk(a[0], a.at(1).i, dim);
      Shape s = sizesOf(a[0]);
      if (!s.empty()) s[dim] = a[1].i;
      return contiguousType(s, ir::DType::Int64);
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      int64_t dim = sortDim(a[0], a.at(2));
      int64_t k = a.at(1).i;
      checkTopk(a[0], k, dim);
      bool largest = a.at(3).kind != Val::Kind::Bool || a[3].b;
      bool sorted = a.at(4).kind != Val::Kind::Bool || a[4].b;
      if (x.dtype() == ir::DType::Bool) throw TorchError("RuntimeError", "topk does not support bool dtypes on CPU");
      return ir::isFloating(x.dtype()) ? topkImpl<double>(x, k, dim, largest, sorted) : topkImpl<int64_t>(x, k, dim, largest, sorted);
    };
    t.push_back(std::move(d));
  }
  {
    // one_hot(self, num_classes=-1), with ATen's CPU checks (so a compiled graph raises as
    // eager does; Inductor's decomposition skips them).
    OpDef d;
    d.name = "aten.one_hot.default";
    d.kind = OpKind::Extern;
    d.meta = [](const std::vector<Val>& a) {
      if (a.at(0).tensorType().dtype != ir::DType::Int64)
        throw TorchError("RuntimeError", "one_hot is only applicable to index tensor of type LongTensor.");
      int64_t n = a.size() > 1 && !a[1].isNone() ? a[1].i : -1;
      Shape s = sizesOf(a[0]);
      if (n == -1)
        throw TorchError("NotImplementedError",
                         "one_hot with num_classes=-1 (a data-dependent output shape) cannot be captured by Kiln yet");
      s.push_back(n);
      return contiguousType(s, ir::DType::Int64);
    };
    d.eager = [](const std::vector<Val>& a) {
      const Tensor& x = a.at(0).t;
      if (x.dtype() != ir::DType::Int64) throw TorchError("RuntimeError", "one_hot is only applicable to index tensor of type LongTensor.");
      int64_t n = a.size() > 1 && !a[1].isNone() ? a[1].i : -1;
      Shape s = x.sizes();
      if (x.numel() == 0) {
        if (n <= 0) throw TorchError("RuntimeError", "Can not infer total number of classes from empty tensor.");
        s.push_back(n);
        return Tensor::zeros(s, ir::DType::Int64);
      }
      std::vector<int64_t> vals;
      tensor::forEachIndex<1>(x.sizes(), {&x.strides()}, [&](const std::array<int64_t, 1>& o) { vals.push_back(x.loadIntAt(o[0])); });
      int64_t lo = *std::min_element(vals.begin(), vals.end()), hi = *std::max_element(vals.begin(), vals.end());
      if (lo < 0) throw TorchError("RuntimeError", "Class values must be non-negative.");
      if (n == -1) n = hi + 1;
      else if (hi >= n) throw TorchError("RuntimeError", "Class values must be smaller than num_classes.");
      s.push_back(n);
      Tensor out = Tensor::zeros(s, ir::DType::Int64);
      int64_t* p = out.ptr<int64_t>();
      for (size_t i = 0; i < vals.size(); ++i) p[static_cast<int64_t>(i) * n + vals[i]] = 1;
      return out;
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::ops
