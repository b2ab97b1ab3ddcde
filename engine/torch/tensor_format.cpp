// Printing tensors the way PyTorch does (torch/_tensor_str.py): a shared element format
// chosen from the values (integer mode, fixed 4 decimals or scientific), right-aligned
// columns, nested brackets, summarization past 1000 elements, dtype suffix when not default.
#include "engine/torch/tensor_format.h"

#include "engine/torch/device_api.h"

#include <cmath>
#include <cstdio>

namespace kiln::torchapi {

namespace {

struct Formatter {
  bool floating = false, intMode = true, sci = false;
  int width = 1;

  std::string fmt(double v) const {
    char buf[64];
    if (!floating) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      return "nan";
    } else if (std::isinf(v)) {
      return v > 0 ? "inf" : "-inf";
    } else if (sci) {
      std::snprintf(buf, sizeof buf, "%.4e", v);
    } else if (intMode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.4f", v);
    }
    return buf;
  }
};

Formatter makeFormatter(const std::vector<double>& vals, bool floating) {
  Formatter f;
  f.floating = floating;
  if (floating) {
    double mx = 0, mn = INFINITY;
    bool any = false;
    for (double v : vals) {
      if (!std::isfinite(v)) continue;
      if (v != std::ceil(v)) f.intMode = false;
      double a = std::fabs(v);
      if (a == 0) continue;
      any = true;
      mx = std::max(mx, a);
      mn = std::min(mn, a);
    }
    if (!any) return f;  // no nonzero finite value: width 1
    f.sci = mx / mn > 1000.0 || mx > 1e8 || (!f.intMode && mn < 1e-4);
    // The width comes from the nonzero finite values only (nan, inf and 0 are padded to it).
    for (double v : vals)
      if (std::isfinite(v) && v != 0) f.width = std::max(f.width, static_cast<int>(f.fmt(v).size()));
    return f;
  }
  for (double v : vals) f.width = std::max(f.width, static_cast<int>(f.fmt(v).size()));
  return f;
}

void render(const tensor::Tensor& t, std::vector<int64_t>& idx, size_t dim, const Formatter& f, bool summarize, int indent,
            std::string& out) {
  const auto& sizes = t.sizes();
  auto elem = [&](int64_t off) {
    std::string s = f.fmt(t.dtype() == ir::DType::Bool ? t.loadAt(off) : t.loadAt(off));
    if (t.dtype() == ir::DType::Bool) s = t.loadAt(off) != 0 ? "True" : "False";
    return std::string(static_cast<size_t>(std::max(0, f.width - static_cast<int>(s.size()))), ' ') + s;
  };
  int64_t n = sizes[dim];
  std::vector<int64_t> shown;
  bool cut = summarize && n > 6;
  for (int64_t i = 0; i < n; ++i)
    if (!cut || i < 3 || i >= n - 3) shown.push_back(i);
  out += '[';
  if (dim + 1 == sizes.size()) {
    // Wrap long rows at 80 columns like PyTorch's linewidth.
    int lineLen = indent + 1;
    for (size_t k = 0; k < shown.size(); ++k) {
      if (cut && k == 3) {
        out += " ...,";
        lineLen += 5;
      }
      idx[dim] = shown[k];
      int64_t off = 0;
      for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
      std::string e = elem(off);
      if (k > 0) {
        if (lineLen + 2 + static_cast<int>(e.size()) > 80) {
          out += ",\n" + std::string(static_cast<size_t>(indent + 1), ' ');
          lineLen = indent + 1;
        } else {
          out += ", ";
          lineLen += 2;
        }
      }
      out += e;
      lineLen += static_cast<int>(e.size());
    }
  } else {
    for (size_t k = 0; k < shown.size(); ++k) {
      if (k > 0) {
        out += ',';
        out += std::string(sizes.size() - dim - 1, '\n');
        out += std::string(static_cast<size_t>(indent + 1), ' ');
      }
      if (cut && k == 3) {
        out += "...,";
        out += std::string(sizes.size() - dim - 1, '\n');
        out += std::string(static_cast<size_t>(indent + 1), ' ');
      }
      idx[dim] = shown[k];
      render(t, idx, dim + 1, f, summarize, indent + 1, out);
    }
  }
  out += ']';
}

}  // namespace

std::string formatTensor(const tensor::Tensor& tIn, const std::string& prefix, bool requiresGrad) {
  // A CUDA tensor prints its values copied back, and its device: PyTorch names the device
  // wherever it is not the default device's type.
  const tensor::Device device = tIn.device();
  const tensor::Tensor t = device.isCpu() ? tIn : tIn.toDevice(tensor::Device::cpu());
  std::vector<double> vals = t.toDoubles();
  bool floating = ir::isFloating(t.dtype());
  bool summarize = t.numel() > 1000;
  std::vector<double> sample;
  if (summarize) {
    // PyTorch picks the format from the shown elements only; close enough to use the ends.
    for (size_t i = 0; i < vals.size(); ++i)
      if (i < 3 || i + 3 >= vals.size() || i % 97 == 0) sample.push_back(vals[i]);
  }
  Formatter f = makeFormatter(summarize ? sample : vals, floating);
  if (t.dtype() == ir::DType::Bool) {  // the width of str(True) / str(False)
    f.width = 4;
    for (double v : summarize ? sample : vals)
      if (v == 0) f.width = 5;
  }
  std::string body;
  if (t.dim() == 0) {
    body = f.fmt(vals.at(0));
    if (t.dtype() == ir::DType::Bool) body = vals[0] != 0 ? "True" : "False";
  } else if (t.numel() == 0) {
    body = "[]";
  } else {
    std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
    render(t, idx, 0, f, summarize, static_cast<int>(prefix.size()), body);
  }
  std::string out = prefix + body;
  std::string suffix;
  bool defaultDtype = t.dtype() == ir::defaultFloatDType() || t.dtype() == ir::DType::Int64 || t.dtype() == ir::DType::Bool;
  if (t.numel() == 0 && t.dim() != 1) suffix += ", size=" + tensor::shapeStr(t.sizes());
  if (device.type != defaultDevice().type) suffix += ", device='" + device.str() + "'";
  if (!defaultDtype) suffix += ", dtype=" + std::string(ir::torchName(t.dtype()));
  if (requiresGrad) suffix += ", requires_grad=True";
  return out + suffix + ")";
}

}  // namespace kiln::torchapi
