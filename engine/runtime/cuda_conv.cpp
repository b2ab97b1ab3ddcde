// Convolution on CUDA tensors through cuDNN's legacy convolution API, as PyTorch's
// cudnn_convolution does with torch.backends.cudnn.benchmark = False: tensor, filter and
// convolution descriptors, the algorithm cudnnGetConvolution*Algorithm_v7's heuristics rank first
// (among those whose workspace can be allocated), the workspace from Kiln's caching allocator,
// everything on the runtime's one stream. The forward is cudnnConvolutionForward (bias added
// with cudnnAddTensor); a transposed convolution (autograd's grad input) is
// cudnnConvolutionBackwardData; kiln.convolution_weight_grad (autograd's grad weight on the
// device) is cudnnConvolutionBackwardFilter. 1-D problems are 2-D with a unit height (cuDNN's
// descriptors take 4 dims or more). float32 (TF32 as torch.backends.cudnn.allow_tf32, true by
// default as in PyTorch), float64, float16 and bfloat16 (float accumulation).
//
// libcudnn.so.9 is a shim exporting the whole API (checked with nm -D on cuDNN 9.19): it loads
// libcudnn_cnn / _ops / _graph from its own folder (RUNPATH $ORIGIN), so dlsym on it finds the
// legacy entry points, which cuDNN 9 still ships though its headers mark them CUDNN_DEPRECATED.
// cuDNN's few C types are declared here (values from cudnn_graph_v9.h, cudnn_ops_v9.h and
// cudnn_cnn_v9.h), so no cuDNN header is needed to build.
#include "engine/runtime/cuda_conv.h"

#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/nvidia_libs.h"
#include "engine/tensor/tensor.h"

#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::runtime::cuda {

namespace {

using tensor::Shape;
using tensor::Tensor;
using tensor::TorchError;

using Status = int;    // cudnnStatus_t
using Handle = void*;  // cudnnHandle_t
using Desc = void*;    // cudnnTensorDescriptor_t / cudnnFilterDescriptor_t / cudnnConvolutionDescriptor_t

// cudnnDataType_t
constexpr int kDataFloat = 0, kDataDouble = 1, kDataHalf = 2, kDataBFloat16 = 9;
constexpr int kNchw = 0;                                          // cudnnTensorFormat_t CUDNN_TENSOR_NCHW
constexpr int kCrossCorrelation = 1;                              // cudnnConvolutionMode_t: PyTorch's convolution
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3;  // cudnnMathType_t

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct AlgoPerf {
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

struct Lib {
  size_t (*getVersion)() = nullptr;
  const char* (*errorString)(Status) = nullptr;
  Status (*create)(Handle*) = nullptr;
  Status (*setStream)(Handle, void*) = nullptr;
  Status (*createTensor)(Desc*) = nullptr;
  Status (*setTensorNd)(Desc, int, int, const int*, const int*) = nullptr;
  Status (*destroyTensor)(Desc) = nullptr;
  Status (*createFilter)(Desc*) = nullptr;
  Status (*setFilterNd)(Desc, int, int, int, const int*) = nullptr;
  Status (*destroyFilter)(Desc) = nullptr;
  Status (*createConv)(Desc*) = nullptr;
  Status (*setConvNd)(Desc, int, const int*, const int*, const int*, int, int) = nullptr;
  Status (*destroyConv)(Desc) = nullptr;
  Status (*setGroupCount)(Desc, int) = nullptr;
  Status (*setMathType)(Desc, int) = nullptr;
  Status (*fwdCount)(Handle, int*) = nullptr;
  Status (*fwdAlgos)(Handle, Desc, Desc, Desc, Desc, int, int*, AlgoPerf*) = nullptr;
  Status (*fwdWorkspace)(Handle, Desc, Desc, Desc, Desc, int, size_t*) = nullptr;
  Status (*fwd)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int, void*, size_t, const void*, Desc, void*) = nullptr;
  Status (*dataCount)(Handle, int*) = nullptr;
  Status (*dataAlgos)(Handle, Desc, Desc, Desc, Desc, int, int*, AlgoPerf*) = nullptr;
  Status (*dataWorkspace)(Handle, Desc, Desc, Desc, Desc, int, size_t*) = nullptr;
  Status (*data)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int, void*, size_t, const void*, Desc, void*) = nullptr;
  Status (*filterCount)(Handle, int*) = nullptr;
  Status (*filterAlgos)(Handle, Desc, Desc, Desc, Desc, int, int*, AlgoPerf*) = nullptr;
  Status (*filterWorkspace)(Handle, Desc, Desc, Desc, Desc, int, size_t*) = nullptr;
  Status (*filter)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int, void*, size_t, const void*, Desc, void*) = nullptr;
  Status (*addTensor)(Handle, const void*, Desc, const void*, const void*, Desc, void*) = nullptr;
  std::string failure;  // why it could not be loaded; empty when it was
};

// The library and its entry points: no GPU needed (tests check the symbols on a machine
// without one).
Lib& lib() {
  static std::once_flag once;
  static Lib l;
  std::call_once(once, [] {
    void* so = openNvidiaLibrary({"libcudnn.so.9"}, "cudnn");
    if (!so) {
      l.failure =
          "cuDNN (libcudnn.so.9) was not found in LD_LIBRARY_PATH, the loader's cache, $CUDA_HOME/lib64, /usr/local/cuda/lib64 or a "
          "Python install's nvidia/cudnn/lib (PyTorch's CUDA wheels bring it: pip install nvidia-cudnn-cu12 or -cu13)";
      return;
    }
    std::string missing;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(so, name));
      if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
    };
    sym(l.getVersion, "cudnnGetVersion");
    sym(l.errorString, "cudnnGetErrorString");
    sym(l.create, "cudnnCreate");
    sym(l.setStream, "cudnnSetStream");
    sym(l.createTensor, "cudnnCreateTensorDescriptor");
    sym(l.setTensorNd, "cudnnSetTensorNdDescriptor");
    sym(l.destroyTensor, "cudnnDestroyTensorDescriptor");
    sym(l.createFilter, "cudnnCreateFilterDescriptor");
    sym(l.setFilterNd, "cudnnSetFilterNdDescriptor");
    sym(l.destroyFilter, "cudnnDestroyFilterDescriptor");
    sym(l.createConv, "cudnnCreateConvolutionDescriptor");
    sym(l.setConvNd, "cudnnSetConvolutionNdDescriptor");
    sym(l.destroyConv, "cudnnDestroyConvolutionDescriptor");
    sym(l.setGroupCount, "cudnnSetConvolutionGroupCount");
    sym(l.setMathType, "cudnnSetConvolutionMathType");
    sym(l.fwdCount, "cudnnGetConvolutionForwardAlgorithmMaxCount");
    sym(l.fwdAlgos, "cudnnGetConvolutionForwardAlgorithm_v7");
    sym(l.fwdWorkspace, "cudnnGetConvolutionForwardWorkspaceSize");
    sym(l.fwd, "cudnnConvolutionForward");
    sym(l.dataCount, "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
    sym(l.dataAlgos, "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    sym(l.dataWorkspace, "cudnnGetConvolutionBackwardDataWorkspaceSize");
    sym(l.data, "cudnnConvolutionBackwardData");
    sym(l.filterCount, "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
    sym(l.filterAlgos, "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
    sym(l.filterWorkspace, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    sym(l.filter, "cudnnConvolutionBackwardFilter");
    sym(l.addTensor, "cudnnAddTensor");
    if (!missing.empty()) {
      l.failure = "the cuDNN library found lacks " + missing + " (Kiln needs cuDNN 9's legacy convolution API)";
      return;
    }
    if (l.getVersion() < 90000) l.failure = "the cuDNN library found is version " + std::to_string(l.getVersion()) + "; Kiln needs cuDNN 9";
  });
  return l;
}

std::atomic<bool> gAllowTf32{true};

std::string statusText(Status s) {
  const char* t = lib().errorString ? lib().errorString(s) : nullptr;
  return t ? std::string(t) : "status " + std::to_string(s);
}

void check(Status s, const char* what) {
  if (s != 0) throw TorchError("RuntimeError", std::string("cuDNN error: ") + statusText(s) + " (" + what + ")");
}

// The handle, bound to the runtime's stream on first use.
Handle handle() {
  Lib& l = lib();
  if (!l.failure.empty()) throw TorchError("RuntimeError", "Kiln cannot run convolutions on CUDA: " + l.failure);
  static std::once_flag once;
  static Handle h = nullptr;
  static Status status = 0;
  std::call_once(once, [&] {
    driver().makeCurrent();
    status = l.create(&h);
    if (status == 0) status = l.setStream(h, driver().stream());
  });
  check(status, "cudnnCreate / cudnnSetStream");
  driver().makeCurrent();
  return h;
}

int dataType(ir::DType d) {
  switch (d) {
    case ir::DType::Float32: return kDataFloat;
    case ir::DType::Float64: return kDataDouble;
    case ir::DType::Float16: return kDataHalf;
    case ir::DType::BFloat16: return kDataBFloat16;
    default: return -1;
  }
}

int toInt(int64_t v, const char* what) {
  if (v > INT_MAX || v < INT_MIN)
    throw TorchError("NotImplementedError", std::string("a convolution on CUDA with a ") + what + " of " + std::to_string(v) +
                                                " (past cuDNN's 32-bit sizes) is not supported by Kiln yet");
  return static_cast<int>(v);
}

// Descriptors, destroyed with their owner.
struct TensorDesc {
  Desc d = nullptr;
  // A contiguous NCHW tensor of `sizes` (4 dims).
  TensorDesc(const Shape& sizes, int dt) {
    check(lib().createTensor(&d), "cudnnCreateTensorDescriptor");
    int dims[4], strides[4];
    int64_t stride = 1;
    for (int i = 3; i >= 0; --i) {
      dims[i] = toInt(sizes[static_cast<size_t>(i)], "size");
      strides[i] = toInt(stride, "stride");
      stride *= sizes[static_cast<size_t>(i)];
    }
    check(lib().setTensorNd(d, dt, 4, dims, strides), "cudnnSetTensorNdDescriptor");
  }
  ~TensorDesc() { lib().destroyTensor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

struct FilterDesc {
  Desc d = nullptr;
  FilterDesc(const Shape& sizes, int dt) {
    check(lib().createFilter(&d), "cudnnCreateFilterDescriptor");
    int dims[4];
    for (size_t i = 0; i < 4; ++i) dims[i] = toInt(sizes[i], "weight size");
    check(lib().setFilterNd(d, dt, kNchw, 4, dims), "cudnnSetFilterNdDescriptor");
  }
  ~FilterDesc() { lib().destroyFilter(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};

// A 2-D problem's stride, padding, dilation (1-D ones get 1 / 0 / 1 on the unit height).
struct Geometry {
  int stride[2], padding[2], dilation[2];
  int groups = 1;
};

struct ConvDesc {
  Desc d = nullptr;
  ConvDesc(const Geometry& g, ir::DType dtype) {
    check(lib().createConv(&d), "cudnnCreateConvolutionDescriptor");
    // Half and bfloat16 accumulate in float, as PyTorch's cuDNN convolutions do.
    const int compute = dtype == ir::DType::Float64 ? kDataDouble : kDataFloat;
    check(lib().setConvNd(d, 2, g.padding, g.stride, g.dilation, kCrossCorrelation, compute), "cudnnSetConvolutionNdDescriptor");
    check(lib().setGroupCount(d, g.groups), "cudnnSetConvolutionGroupCount");
    check(lib().setMathType(d, requestedMath(dtype)), "cudnnSetConvolutionMathType");
  }
  ~ConvDesc() { lib().destroyConv(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  // PyTorch's ConvolutionDescriptor::set: tensor cores for half, FMA only for float32 without
  // allow_tf32, cuDNN's default otherwise (which lets float32 use TF32 on Ampere and later).
  static int requestedMath(ir::DType dtype) {
    if (dtype == ir::DType::Float16) return kTensorOpMath;
    if (dtype == ir::DType::Float32 && !gAllowTf32.load()) return kFmaMath;
    return kDefaultMath;
  }
};

enum class Pass { Forward, Data, Filter };

// The algorithms cuDNN's heuristics rank for this problem, best first, that PyTorch would accept
// (status success; no TF32 for float32 when it is off: FMA math only), cached per problem.
std::vector<AlgoPerf> rankedAlgos(Pass pass, Desc a, Desc b, Desc conv, Desc c, ir::DType dtype, const std::string& key) {
  static std::mutex mu;
  static std::map<std::string, std::vector<AlgoPerf>> cache;
  const std::string k = std::to_string(static_cast<int>(pass)) + "|" + key + "|" + std::to_string(ConvDesc::requestedMath(dtype));
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(k); it != cache.end()) return it->second;
  }
  Lib& l = lib();
  Handle h = handle();
  int count = 0;
  check(pass == Pass::Forward ? l.fwdCount(h, &count)
        : pass == Pass::Data  ? l.dataCount(h, &count)
                              : l.filterCount(h, &count),
        "cudnnGetConvolution*AlgorithmMaxCount");
  std::vector<AlgoPerf> perf(static_cast<size_t>(std::max(count, 1)));
  int returned = 0;
  Status s = pass == Pass::Forward ? l.fwdAlgos(h, a, b, conv, c, count, &returned, perf.data())
             : pass == Pass::Data  ? l.dataAlgos(h, a, b, conv, c, count, &returned, perf.data())
                                   : l.filterAlgos(h, a, b, conv, c, count, &returned, perf.data());
  check(s, "cudnnGetConvolution*Algorithm_v7");
  std::vector<AlgoPerf> ok;
  for (int i = 0; i < returned; ++i) {
    const AlgoPerf& p = perf[static_cast<size_t>(i)];
    if (p.status != 0) continue;
    if (dtype == ir::DType::Float32 && !gAllowTf32.load() && p.mathType != kFmaMath) continue;
    ok.push_back(p);
  }
  if (ok.empty())
    throw TorchError("RuntimeError", "cuDNN error: CUDNN_STATUS_NOT_SUPPORTED (no convolution algorithm for this problem: " + key + ")");
  std::lock_guard<std::mutex> lock(mu);
  cache[k] = ok;
  return ok;
}

std::string shapeKey(const Shape& s) {
  std::string r;
  for (auto v : s) r += std::to_string(v) + ",";
  return r;
}

// Runs `pass` with the first ranked algorithm whose workspace the caching allocator can give
// (PyTorch tries the next one when a workspace allocation fails). a/b/c are the descriptors in
// the order of the _v7 query (forward: x, w, y; data: w, dy, dx; filter: x, dy, dw).
void runPass(Pass pass, Desc a, const void* pa, Desc b, const void* pb, ConvDesc& conv, Desc c, void* pc, ir::DType dtype,
             const tensor::Device& dev, const std::string& key) {
  Lib& l = lib();
  Handle h = handle();
  std::string lastError;
  for (const AlgoPerf& p : rankedAlgos(pass, a, b, conv.d, c, dtype, key)) {
    check(l.setMathType(conv.d, p.mathType), "cudnnSetConvolutionMathType");
    size_t bytes = 0;
    Status s = pass == Pass::Forward ? l.fwdWorkspace(h, a, b, conv.d, c, p.algo, &bytes)
               : pass == Pass::Data  ? l.dataWorkspace(h, a, b, conv.d, c, p.algo, &bytes)
                                     : l.filterWorkspace(h, a, b, conv.d, c, p.algo, &bytes);
    if (s != 0) {
      lastError = statusText(s);
      continue;
    }
    Tensor ws;
    try {
      if (bytes) ws = Tensor::empty({static_cast<int64_t>(bytes)}, ir::DType::UInt8, dev);
    } catch (const std::exception& e) {  // out of memory: a smaller workspace may fit
      lastError = e.what();
      continue;
    }
    void* wp = bytes ? reinterpret_cast<void*>(devicePtr(ws)) : nullptr;
    const double one64 = 1, zero64 = 0;
    const float one32 = 1, zero32 = 0;
    const void* alpha = dtype == ir::DType::Float64 ? static_cast<const void*>(&one64) : &one32;
    const void* beta = dtype == ir::DType::Float64 ? static_cast<const void*>(&zero64) : &zero32;
    s = pass == Pass::Forward ? l.fwd(h, alpha, a, pa, b, pb, conv.d, p.algo, wp, bytes, beta, c, pc)
        : pass == Pass::Data  ? l.data(h, alpha, a, pa, b, pb, conv.d, p.algo, wp, bytes, beta, c, pc)
                              : l.filter(h, alpha, a, pa, b, pb, conv.d, p.algo, wp, bytes, beta, c, pc);
    check(s, pass == Pass::Forward ? "cudnnConvolutionForward"
             : pass == Pass::Data  ? "cudnnConvolutionBackwardData"
                                   : "cudnnConvolutionBackwardFilter");
    return;
  }
  throw TorchError("RuntimeError", "cuDNN error: no convolution algorithm could run (" + lastError + ")");
}

Shape sizesOf(const ir::TensorType& t) {
  Shape s;
  for (const auto& d : t.sizes) s.push_back(d.value);
  return s;
}

// A contiguous copy on the device where t is not contiguous already.
Tensor dense(const Tensor& t) { return t.isContiguous() ? t : relayoutOnDevice(t, Tensor::contiguousStrides(t.sizes())); }

// [N, C, L] as [N, C, 1, L]; 4-D shapes as they are.
Shape as4d(const Shape& s) { return s.size() == 4 ? s : Shape{s[0], s[1], 1, s[2]}; }

std::vector<int64_t> intsOr(const std::vector<ops::Val>& a, size_t i, size_t n, int64_t dflt) {
  std::vector<int64_t> v;
  if (a.size() > i && !a[i].isNone()) v = a[i].ints();
  if (v.empty()) return std::vector<int64_t>(n, dflt);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  return v;
}

// Arguments at (stride, padding, dilation) = (i, i+1, i+2) and groups at gi, as a 2-D geometry.
Geometry geometry(const std::vector<ops::Val>& a, size_t i, size_t gi, size_t spatial) {
  auto st = intsOr(a, i, spatial, 1), pd = intsOr(a, i + 1, spatial, 0), dl = intsOr(a, i + 2, spatial, 1);
  Geometry g;
  const size_t off = spatial == 1 ? 1 : 0;
  g.stride[0] = 1, g.padding[0] = 0, g.dilation[0] = 1;
  for (size_t k = 0; k < spatial; ++k) {
    g.stride[k + off] = toInt(st[k], "stride");
    g.padding[k + off] = toInt(pd[k], "padding");
    g.dilation[k + off] = toInt(dl[k], "dilation");
  }
  g.groups = a.size() > gi && !a[gi].isNone() ? toInt(a[gi].i, "groups") : 1;
  return g;
}

std::string geometryKey(const Geometry& g, ir::DType dt) {
  std::string r = std::to_string(static_cast<int>(dt)) + "|";
  for (int k = 0; k < 2; ++k)
    r += std::to_string(g.stride[k]) + "," + std::to_string(g.padding[k]) + "," + std::to_string(g.dilation[k]) + ";";
  return r + std::to_string(g.groups);
}

void* ptr(const Tensor& t) { return reinterpret_cast<void*>(devicePtr(t)); }

// PyTorch's legacy tensor type name in its CUDA convolution's dtype errors.
std::string cudaTypeName(ir::DType d) {
  switch (d) {
    case ir::DType::Float32: return "torch.cuda.FloatTensor";
    case ir::DType::Float64: return "torch.cuda.DoubleTensor";
    case ir::DType::Float16: return "torch.cuda.HalfTensor";
    case ir::DType::BFloat16: return "torch.cuda.BFloat16Tensor";
    default: return std::string(ir::torchName(d));
  }
}

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
std::optional<ops::Val> convolution(const ops::OpDef& op, const std::vector<ops::Val>& a, const tensor::Device& dev) {
  const Tensor& x0 = a.at(0).t;
  const Tensor& w0 = a.at(1).t;
  const ops::Val& biasV = a.at(2);
  const ir::TensorType rt = op.meta(a);  // PyTorch's shape checks first
  if (x0.dtype() != w0.dtype())
    throw TorchError("RuntimeError",
                     "Input type (" + cudaTypeName(x0.dtype()) + ") and weight type (" + cudaTypeName(w0.dtype()) + ") should be the same");
  if (biasV.isTensor() && biasV.t.dtype() != x0.dtype())
    throw TorchError("RuntimeError", "Input type (" + cudaTypeName(x0.dtype()) + ") and bias type (" + cudaTypeName(biasV.t.dtype()) +
                                         ") should be the same");
  const int dt = dataType(x0.dtype());
  if (dt < 0) return std::nullopt;  // integer convolutions: PyTorch's CUDA build has none either
  const bool transposed = a.size() > 6 && a[6].kind == ops::Val::Kind::Bool && a[6].b;
  const size_t spatial = static_cast<size_t>(w0.dim()) - 2;
  Tensor out = Tensor::empty(sizesOf(rt), rt.dtype, dev);
  if (out.numel() == 0) return ops::Val::of(out);
  Tensor x = dense(x0), w = dense(w0);
  const Shape xs = as4d(x.sizes()), ws = as4d(w.sizes()), os = as4d(out.sizes());
  const Geometry g = geometry(a, 3, 8, spatial);
  if (x.numel() == 0 || w.numel() == 0) {
    fillOnDevice(out, 0.0);  // an empty sum (no input channels): zeros, then the bias
  } else {
    TensorDesc xd(xs, dt), od(os, dt);
    FilterDesc wd(ws, dt);
    ConvDesc cd(g, x0.dtype());
    const std::string key = shapeKey(xs) + "|" + shapeKey(ws) + "|" + shapeKey(os) + "|" + geometryKey(g, x0.dtype());
    // A transposed convolution is the data gradient of the forward convolution out -> x.
    if (!transposed) runPass(Pass::Forward, xd.d, ptr(x), wd.d, ptr(w), cd, od.d, ptr(out), x0.dtype(), dev, key);
    else runPass(Pass::Data, wd.d, ptr(w), xd.d, ptr(x), cd, od.d, ptr(out), x0.dtype(), dev, key);
  }
  if (biasV.isTensor()) {
    Tensor b = dense(biasV.t);
    const int64_t c = b.numel();
    TensorDesc bd({1, c, 1, 1}, dt), od(os, dt);
    const double one64 = 1;
    const float one32 = 1;
    const void* one = x0.dtype() == ir::DType::Float64 ? static_cast<const void*>(&one64) : &one32;
    check(lib().addTensor(handle(), one, bd.d, ptr(b), one, od.d, ptr(out)), "cudnnAddTensor");
  }
  return ops::Val::of(out);
}

// kiln.convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation, groups)
std::optional<ops::Val> weightGrad(const ops::OpDef& op, const std::vector<ops::Val>& a, const tensor::Device& dev) {
  const ir::TensorType rt = op.meta(a);
  const Tensor& g0 = a.at(0).t;
  const Tensor& x0 = a.at(1).t;
  const int dt = dataType(x0.dtype());
  if (dt < 0 || g0.dtype() != x0.dtype()) return std::nullopt;
  Tensor dw = Tensor::empty(sizesOf(rt), rt.dtype, dev);
  if (dw.numel() == 0) return ops::Val::of(dw);
  if (g0.numel() == 0 || x0.numel() == 0) {
    fillOnDevice(dw, 0.0);
    return ops::Val::of(dw);
  }
  const size_t spatial = static_cast<size_t>(dw.dim()) - 2;
  Tensor g = dense(g0), x = dense(x0);
  const Shape xs = as4d(x.sizes()), gs = as4d(g.sizes()), ws = as4d(dw.sizes());
  const Geometry geo = geometry(a, 3, 6, spatial);
  TensorDesc xd(xs, dt), gd(gs, dt);
  FilterDesc wd(ws, dt);
  ConvDesc cd(geo, x0.dtype());
  const std::string key = shapeKey(xs) + "|" + shapeKey(ws) + "|" + shapeKey(gs) + "|" + geometryKey(geo, x0.dtype());
  runPass(Pass::Filter, xd.d, ptr(x), gd.d, ptr(g), cd, wd.d, ptr(dw), x0.dtype(), dev, key);
  return ops::Val::of(dw);
}

}  // namespace

std::optional<ops::Val> convOnDevice(const ops::OpDef& op, const std::vector<ops::Val>& args, const tensor::Device& d) {
  if (op.name == "aten.convolution.default") return convolution(op, args, d);
  if (op.name == "kiln.convolution_weight_grad.default") return weightGrad(op, args, d);
  return std::nullopt;
}

void setCudnnAllowTf32(bool allow) { gAllowTf32.store(allow); }
bool cudnnAllowTf32() { return gAllowTf32.load(); }

long cudnnVersion() {
  Lib& l = lib();
  return l.failure.empty() ? static_cast<long>(l.getVersion()) : 0;
}

std::string cudnnUnavailableMessage() { return lib().failure; }

}  // namespace kiln::runtime::cuda
