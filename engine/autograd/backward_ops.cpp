// ATen ops that exist for backward formulas (PyTorch has the same ones: slice_backward,
// select_backward, embedding_dense_backward, scatter_add): each allocates the input-shaped
// gradient and writes the incoming gradient into the part the forward read.
#include "engine/autograd/derivative_util.h"
#include "engine/ops/index_ops.h"
#include "engine/ops/shape_util.h"

#include <algorithm>

namespace kiln::autograd::dv {

using tensor::Tensor;
using tensor::TorchError;

namespace {

int64_t wrap(int64_t d, int64_t nd) { return d < 0 ? d + nd : d; }

// The view of a zero tensor of `sizes` that the forward slice/select produced.
Tensor sliceView(Tensor& base, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Shape sizes = base.sizes(), strides = base.strides();
  int64_t n = sizes[size_t(dim)];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  int64_t offset = tensor::viewOffset(base.offset(), start, strides[size_t(dim)]);
  sizes[size_t(dim)] = end == start ? 0 : (end - start - 1) / step + 1;  // no overflow for a step near 2^63
  strides[size_t(dim)] = tensor::sizeMul(strides[size_t(dim)], step);    // a huge step leaves one element
  return base.view(sizes, strides, offset);
}

ops::OpDef backwardOp(const char* name) {
  ops::OpDef d;
  d.name = name;
  d.kind = ops::OpKind::Extern;
  return d;
}

}  // namespace

void registerBackwardOps(std::vector<ops::OpDef>& t) {
  {
    auto d = backwardOp("aten.slice_backward.default");  // (grad, input_sizes, dim, start, end, step)
    d.meta = [](const std::vector<Val>& a) { return ops::contiguousType(a.at(1).ints(), a.at(0).tensorType().dtype); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor out = Tensor::zeros(a.at(1).ints(), a.at(0).t.dtype());
      int64_t nd = out.dim();
      int64_t n = out.sizes()[size_t(wrap(a.at(2).i, nd))];
      Tensor v = sliceView(out, wrap(a.at(2).i, nd), a.at(3).isNone() ? 0 : a[3].i, a.at(4).isNone() ? n : a[4].i, a.at(5).i);
      ops::copyInto(v, a[0].t);
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    auto d = backwardOp("aten.select_backward.default");  // (grad, input_sizes, dim, index)
    d.meta = [](const std::vector<Val>& a) { return ops::contiguousType(a.at(1).ints(), a.at(0).tensorType().dtype); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor out = Tensor::zeros(a.at(1).ints(), a.at(0).t.dtype());
      int64_t dim = wrap(a.at(2).i, out.dim());
      int64_t idx = wrap(a.at(3).i, out.sizes()[size_t(dim)]);
      Tensor v = sliceView(out, dim, idx, idx + 1, 1);
      Shape s = v.sizes(), st = v.strides();
      s.erase(s.begin() + dim);
      st.erase(st.begin() + dim);
      Tensor sel = v.view(s, st, v.offset());
      ops::copyInto(sel, a[0].t);
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    auto d = backwardOp("aten.scatter_add.default");  // (self, dim, index, src): out[index[i][j]][j] += src[i][j]
    d.meta = [](const std::vector<Val>& a) { return ops::plainType(a.at(0)); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor out = a.at(0).t.clone();
      const Tensor& idx = a.at(2).t;
      const Tensor& src = a.at(3).t;
      int64_t nd = out.dim();
      int64_t dim = wrap(a.at(1).i, nd);
      std::vector<int64_t> pos(size_t(idx.dim()), 0);
      for (int64_t lin = 0; lin < idx.numel(); ++lin) {
        int64_t rem = lin, io = 0, so = 0, oo = 0;
        for (int64_t k = idx.dim() - 1; k >= 0; --k) {
          pos[size_t(k)] = rem % idx.sizes()[size_t(k)];
          rem /= idx.sizes()[size_t(k)];
        }
        for (int64_t k = 0; k < idx.dim(); ++k) {
          io += pos[size_t(k)] * idx.strides()[size_t(k)];
          so += pos[size_t(k)] * src.strides()[size_t(k)];
        }
        int64_t target = idx.loadIntAt(io);
        // Negative indices are out of range, as ATen's scatter checks. A 0-dim self has one
        // element: size 1 along its (wrapped) dim 0.
        const int64_t dimSize = nd == 0 ? 1 : out.sizes()[size_t(dim)];
        if (target < 0 || target >= dimSize)
          throw TorchError("RuntimeError", "index " + std::to_string(target) + " is out of bounds for dimension " + std::to_string(dim) +
                                               " with size " + std::to_string(dimSize));
        for (int64_t k = 0; k < idx.dim(); ++k) oo += (k == dim ? target : pos[size_t(k)]) * out.strides()[size_t(k)];
        out.storeAt(oo, out.loadAt(oo) + src.loadAt(so));
      }
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    // (grad [*, D], indices [*], num_weights, padding_idx, scale_grad_by_freq) -> [num_weights, D]
    auto d = backwardOp("aten.embedding_dense_backward.default");
    d.meta = [](const std::vector<Val>& a) {
      auto g = a.at(0).tensorType();
      return ops::contiguousType({a.at(2).i, g.sizes.empty() ? 1 : g.sizes.back().value}, g.dtype);
    };
    d.eager = [](const std::vector<Val>& a) {
      Tensor g = a.at(0).t.contiguous();
      Tensor idx = a.at(1).t.contiguous();
      int64_t numWeights = a.at(2).i, pad = a.size() > 3 && !a[3].isNone() ? a[3].i : -1;
      bool scale = a.size() > 4 && a[4].kind == Val::Kind::Bool && a[4].b;
      int64_t dim = g.sizes().empty() ? 1 : g.sizes().back();
      Tensor out = Tensor::zeros({numWeights, dim}, g.dtype());
      std::vector<int64_t> counts(size_t(numWeights), 0);
      for (int64_t i = 0; i < idx.numel(); ++i) counts[size_t(idx.loadIntAt(i))]++;
      for (int64_t i = 0; i < idx.numel(); ++i) {
        int64_t w = idx.loadIntAt(i);
        if (w == pad) continue;
        double s = scale ? 1.0 / double(counts[size_t(w)]) : 1.0;
        for (int64_t j = 0; j < dim; ++j) out.storeAt(w * dim + j, out.loadAt(w * dim + j) + g.loadAt(i * dim + j) * s);
      }
      return out;
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::autograd::dv

namespace kiln::autograd::dv {

namespace {

// Pooling geometry of a [*, H, W] input and a [*, OH, OW] gradient.
struct Planes {
  int64_t planes, H, W, OH, OW;
};

Planes planesOf(const Tensor& x, const Tensor& g) {
  int64_t nd = x.dim();
  Planes p{1, x.sizes()[size_t(nd - 2)], x.sizes()[size_t(nd - 1)], g.sizes()[size_t(nd - 2)], g.sizes()[size_t(nd - 1)]};
  for (int64_t i = 0; i < nd - 2; ++i) p.planes = tensor::sizeMul(p.planes, x.sizes()[size_t(i)]);
  return p;
}

std::pair<int64_t, int64_t> pairOf(const Val& v, std::pair<int64_t, int64_t> dflt) {
  if (v.isNone()) return dflt;
  auto xs = v.ints();
  if (xs.empty()) return dflt;
  return xs.size() == 1 ? std::pair{xs[0], xs[0]} : std::pair{xs[0], xs[1]};
}

}  // namespace

void registerPoolingBackwardOps(std::vector<ops::OpDef>& t) {
  {
    // (grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    auto d = backwardOp("aten.avg_pool2d_backward.default");
    d.meta = [](const std::vector<Val>& a) { return ops::plainType(a.at(1)); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor g = a.at(0).t.contiguous();
      const Tensor& x = a.at(1).t;
      auto [kh, kw] = pairOf(a.at(2), {1, 1});
      auto [sh, sw] = pairOf(a.size() > 3 ? a[3] : Val::none(), {kh, kw});
      auto [ph, pw] = pairOf(a.size() > 4 ? a[4] : Val::none(), {0, 0});
      bool includePad = a.size() > 6 && a[6].kind == Val::Kind::Bool ? a[6].b : true;
      int64_t divisorOverride = a.size() > 7 && !a[7].isNone() ? a[7].i : 0;
      Planes p = planesOf(x, g);
      Tensor out = Tensor::zeros(x.sizes(), x.dtype());
      if (out.numel() == 0 || g.numel() == 0) return out;  // p.planes may have wrapped (an empty input's dims)
      for (int64_t n = 0; n < p.planes; ++n)
        for (int64_t oh = 0; oh < p.OH; ++oh)
          for (int64_t ow = 0; ow < p.OW; ++ow) {
            int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
            int64_t h1 = std::min(h0 + kh, p.H + ph), w1 = std::min(w0 + kw, p.W + pw);
            int64_t poolSize = (h1 - h0) * (w1 - w0);
            h0 = std::max<int64_t>(h0, 0);
            w0 = std::max<int64_t>(w0, 0);
            h1 = std::min(h1, p.H);
            w1 = std::min(w1, p.W);
            if (h0 >= h1 || w0 >= w1) continue;
            int64_t divisor = divisorOverride ? divisorOverride : includePad ? poolSize : (h1 - h0) * (w1 - w0);
            double v = g.loadAt((n * p.OH + oh) * p.OW + ow) / double(divisor);
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) {
                int64_t o = (n * p.H + h) * p.W + w;
                out.storeAt(o, out.loadAt(o) + v);
              }
          }
      return out;
    };
    t.push_back(std::move(d));
  }
  {
    auto d = backwardOp("aten._adaptive_avg_pool2d_backward.default");  // (grad, self)
    d.meta = [](const std::vector<Val>& a) { return ops::plainType(a.at(1)); };
    d.eager = [](const std::vector<Val>& a) {
      Tensor g = a.at(0).t.contiguous();
      const Tensor& x = a.at(1).t;
      Planes p = planesOf(x, g);
      Tensor out = Tensor::zeros(x.sizes(), x.dtype());
      if (out.numel() == 0 || g.numel() == 0) return out;  // p.planes may have wrapped (an empty input's dims)
      auto start = [](int64_t o, int64_t in, int64_t out) { return (o * in) / out; };
      auto end = [](int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; };
      for (int64_t n = 0; n < p.planes; ++n)
        for (int64_t oh = 0; oh < p.OH; ++oh)
          for (int64_t ow = 0; ow < p.OW; ++ow) {
            int64_t h0 = start(oh, p.H, p.OH), h1 = end(oh, p.H, p.OH), w0 = start(ow, p.W, p.OW), w1 = end(ow, p.W, p.OW);
            double v = g.loadAt((n * p.OH + oh) * p.OW + ow) / double((h1 - h0) * (w1 - w0));
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) {
                int64_t o = (n * p.H + h) * p.W + w;
                out.storeAt(o, out.loadAt(o) + v);
              }
          }
      return out;
    };
    t.push_back(std::move(d));
  }
}

}  // namespace kiln::autograd::dv
