// f32 convolutions on oneDNN. Primitives are created once per problem (creation takes
// milliseconds: oneDNN picks and JIT-compiles a kernel for the shape) and kept in a cache keyed
// by the whole shape, guarded by a mutex; executing a cached primitive from several threads at
// once is safe because each call brings its own scratchpad (scratchpad_mode::user) and stream.
//
// Layouts: Kiln's tensors are plain (nchw, oihw). The primitives are created with the layouts
// left to oneDNN (format_tag::any): it picks its blocked ones (nChw8c / OIhw8i8o on AVX2, 16 on
// AVX-512) and direct JIT kernels for them, and the arguments are reordered in and out around
// each call. For plain layouts it picks gemm-based kernels (im2col + its sgemm), no faster than
// Kiln's own path: on seed_cnn_simple_model's 64 -> 128 channel 3x3 convolution (AVX2, 1 thread)
// 4.2 ms blocked with reorders vs 6.4 ms plain (docs/perf.md, "CPU convolution on oneDNN").
// KILN_ONEDNN_LAYOUT=plain selects the plain layouts, KILN_ONEDNN=0 turns oneDNN off (every
// convolution then takes the im2col path): both for measuring and for bisecting a difference.
//
// Threads: Debian's libdnnl is built with DNNL_CPU_RUNTIME=OMP, so a primitive runs on
// OpenMP (libgomp) threads: omp_get_max_threads() of the calling thread, which is
// OMP_NUM_THREADS or else the CPUs of the process's affinity mask. Kiln's own pool
// (runtime/thread_pool) sizes itself the same way (OMP_NUM_THREADS, else the affinity mask), and
// OpenBLAS counts the affinity mask unless OPENBLAS_NUM_THREADS says otherwise, so the three
// agree; `taskset -c 0` gives all of them one thread. Kiln has no torch.set_num_threads.
#include "engine/ops/onednn_conv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kiln::ops::onednn {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

enum class Kind : int64_t { Forward, ForwardBias, BackwardData, BackwardWeights };

dnnl::engine& cpuEngine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

bool blockedLayouts() {
  static const bool b = [] {
    const char* v = std::getenv("KILN_ONEDNN_LAYOUT");
    return !(v && std::strcmp(v, "plain") == 0);
  }();
  return b;
}

bool enabled() {
  static const bool on = [] {
    const char* v = std::getenv("KILN_ONEDNN");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

// One argument of a primitive: its plain layout (what Kiln's pointer holds) and the layout the
// primitive wants; where they differ, a reorder runs before (inputs) or after (outputs).
struct Slot {
  int arg;
  bool input;
  memory::desc user, inner;
  std::optional<dnnl::reorder> reorder;
};

struct Entry {
  dnnl::primitive prim;
  memory::desc scratch;
  std::vector<Slot> slots;
};

// 64-byte aligned scratch memory, released at the end of the call.
struct Buffer {
  void* p = nullptr;
  explicit Buffer(size_t bytes) {
    if (bytes) p = ::operator new(bytes, std::align_val_t(64));
  }
  ~Buffer() {
    if (p) ::operator delete(p, std::align_val_t(64));
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

memory::dims dims(std::initializer_list<int64_t> v) { return memory::dims(v); }

struct Descs {
  memory::desc src, wei, dst, bias;
  memory::dims strides, dilates, padL, padR;
};

// The descriptors of a problem; `any` leaves the layouts of src, weights and dst to oneDNN.
Descs descs(const ConvShape& s, bool any) {
  const auto f32 = memory::data_type::f32;
  Descs d;
  const memory::dims wdims = s.G == 1 ? dims({s.O, s.C, s.KH, s.KW}) : dims({s.G, s.O / s.G, s.C / s.G, s.KH, s.KW});
  d.src = memory::desc(dims({s.N, s.C, s.H, s.W}), f32, any ? Tag::any : Tag::nchw);
  d.wei = memory::desc(wdims, f32, any ? Tag::any : s.G == 1 ? Tag::oihw : Tag::goihw);
  d.dst = memory::desc(dims({s.N, s.O, s.OH, s.OW}), f32, any ? Tag::any : Tag::nchw);
  d.bias = memory::desc(dims({s.O}), f32, Tag::x);
  d.strides = dims({s.sh, s.sw});
  d.dilates = dims({s.dh - 1, s.dw - 1});  // oneDNN counts dilation from 0
  d.padL = dims({s.ph, s.pw});
  // PyTorch pads both sides by p and drops what a stride leaves over at the bottom/right;
  // oneDNN wants the right padding that makes its output size exact (it may be below p).
  d.padR = dims({(s.OH - 1) * s.sh + (s.KH - 1) * s.dh + 1 - s.H - s.ph, (s.OW - 1) * s.sw + (s.KW - 1) * s.dw + 1 - s.W - s.pw});
  return d;
}

// The primitive's scratchpad and arguments: (oneDNN argument, is it an input, Kiln's plain
// layout), each with a reorder where the primitive wants another layout.
void adopt(Entry& e, const dnnl::primitive_desc& pd, std::initializer_list<std::tuple<int, bool, memory::desc>> args) {
  auto& eng = cpuEngine();
  e.scratch = pd.scratchpad_desc();
  for (const auto& [arg, input, user] : args) {
    Slot sl{arg, input, user, pd.query_md(dnnl::query::exec_arg_md, arg), std::nullopt};
    if (sl.user != sl.inner)
      sl.reorder = input ? dnnl::reorder(dnnl::reorder::primitive_desc(eng, sl.user, eng, sl.inner))
                         : dnnl::reorder(dnnl::reorder::primitive_desc(eng, sl.inner, eng, sl.user));
    e.slots.push_back(std::move(sl));
  }
}

std::shared_ptr<const Entry> build(Kind kind, const ConvShape& s) {
  auto& eng = cpuEngine();
  const bool any = blockedLayouts();
  const Descs p = descs(s, false), d = descs(s, any);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const auto algo = dnnl::algorithm::convolution_direct;
  auto e = std::make_shared<Entry>();
  if (kind == Kind::Forward) {
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algo, d.src, d.wei, d.dst, d.strides, d.dilates, d.padL,
                                         d.padR);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    e->prim = dnnl::convolution_forward(pd);
    adopt(*e, pd, {{DNNL_ARG_SRC, true, p.src}, {DNNL_ARG_WEIGHTS, true, p.wei}, {DNNL_ARG_DST, false, p.dst}});
  } else if (kind == Kind::ForwardBias) {
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algo, d.src, d.wei, d.bias, d.dst, d.strides, d.dilates,
                                         d.padL, d.padR);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    e->prim = dnnl::convolution_forward(pd);
    adopt(*e, pd,
          {{DNNL_ARG_SRC, true, p.src}, {DNNL_ARG_WEIGHTS, true, p.wei}, {DNNL_ARG_BIAS, true, p.bias}, {DNNL_ARG_DST, false, p.dst}});
  } else {
    // Backward primitives take a forward primitive descriptor as a hint (of its layouts).
    dnnl::convolution_forward::desc fwd(dnnl::prop_kind::forward_training, algo, d.src, d.wei, d.dst, d.strides, d.dilates, d.padL, d.padR);
    dnnl::convolution_forward::primitive_desc hint(fwd, eng);
    if (kind == Kind::BackwardData) {
      dnnl::convolution_backward_data::desc desc(algo, d.src, d.wei, d.dst, d.strides, d.dilates, d.padL, d.padR);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr, eng, hint);
      e->prim = dnnl::convolution_backward_data(pd);
      adopt(*e, pd, {{DNNL_ARG_DIFF_DST, true, p.dst}, {DNNL_ARG_WEIGHTS, true, p.wei}, {DNNL_ARG_DIFF_SRC, false, p.src}});
    } else {
      dnnl::convolution_backward_weights::desc desc(algo, d.src, d.wei, d.dst, d.strides, d.dilates, d.padL, d.padR);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, eng, hint);
      e->prim = dnnl::convolution_backward_weights(pd);
      adopt(*e, pd, {{DNNL_ARG_SRC, true, p.src}, {DNNL_ARG_DIFF_DST, true, p.dst}, {DNNL_ARG_DIFF_WEIGHTS, false, p.wei}});
    }
  }
  return e;
}

// The cached primitive of a problem, or null where oneDNN has none (remembered too, so a shape
// it declines costs one attempt).
std::shared_ptr<const Entry> lookup(Kind kind, const ConvShape& s) {
  using Key = std::array<int64_t, 17>;
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<const Entry>> cache;
  const Key key{static_cast<int64_t>(kind), s.N, s.C, s.H, s.W, s.O, s.KH, s.KW, s.OH, s.OW, s.G, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw};
  std::lock_guard<std::mutex> l(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::shared_ptr<const Entry> e;
  try {
    e = build(kind, s);
  } catch (const dnnl::error&) {
    e = nullptr;  // no implementation for this problem: the caller's own kernel runs it
  }
  cache.emplace(key, e);
  return e;
}

// A small convolution runs on one OpenMP thread. oneDNN's OpenMP team wakes every thread for
// each primitive (futex wake-ups under OMP_WAIT_POLICY=PASSIVE, which kiln sets): on the GPU
// machine's 16 cores model_residual_block's 4- and 8-channel 4x4 convolutions made its compiled
// frame 0.65-0.72 ms, 0.10-0.18 ms with OMP_NUM_THREADS=1 (docs/perf.md). Below kSmallWork
// multiply-adds (about 40 us on one core) a convolution is worth less than the wake-up. The
// setting is the calling thread's omp_set_num_threads, found at run time in the OpenMP runtime
// oneDNN loaded (Kiln itself is not built with OpenMP), around both the primitive's creation
// (oneDNN splits the work for the threads it sees then) and its run; the shape decides, so a
// cached primitive always meets the thread count it was made for.
constexpr double kSmallWork = double(1 << 22);

class OneThreadIfSmall {
 public:
  explicit OneThreadIfSmall(const ConvShape& s) {
    const double work =
        double(s.N) * double(s.O) * double(s.OH) * double(s.OW) * double(s.C / std::max<int64_t>(1, s.G)) * double(s.KH) * double(s.KW);
    if (work >= kSmallWork || !api().set || !api().get) return;
    previous_ = api().get();
    if (previous_ > 1) api().set(1);
  }
  ~OneThreadIfSmall() {
    if (previous_ > 1) api().set(previous_);
  }
  OneThreadIfSmall(const OneThreadIfSmall&) = delete;
  OneThreadIfSmall& operator=(const OneThreadIfSmall&) = delete;

 private:
  struct Api {
    void (*set)(int) = nullptr;
    int (*get)() = nullptr;
  };
  static const Api& api() {
    static const Api a = [] {
      Api r;
      r.set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
      r.get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
      return r;
    }();
    return a;
  }
  int previous_ = 0;
};

// Runs a cached primitive on user pointers (one per slot, in slot order).
bool run(Kind kind, const ConvShape& s, const std::vector<void*>& ptrs) {
  if (!enabled()) return false;
  if (s.N <= 0 || s.C <= 0 || s.O <= 0 || s.H <= 0 || s.W <= 0 || s.OH <= 0 || s.OW <= 0 || s.KH <= 0 || s.KW <= 0) return false;
  OneThreadIfSmall threads(s);
  auto e = lookup(kind, s);
  if (!e) return false;
  auto& eng = cpuEngine();
  dnnl::stream stream(eng);
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::unordered_map<int, memory> args;
  std::vector<std::pair<dnnl::reorder, std::pair<memory, memory>>> after;
  for (size_t i = 0; i < e->slots.size(); ++i) {
    const Slot& sl = e->slots[i];
    memory user(sl.user, eng, ptrs[i]);
    if (!sl.reorder) {
      args.emplace(sl.arg, user);
      continue;
    }
    buffers.push_back(std::make_unique<Buffer>(sl.inner.get_size()));
    memory inner(sl.inner, eng, buffers.back()->p);
    if (sl.input) sl.reorder->execute(stream, user, inner);
    else after.push_back({*sl.reorder, {inner, user}});
    args.emplace(sl.arg, inner);
  }
  Buffer scratch(e->scratch.get_size());
  if (scratch.p) args.emplace(DNNL_ARG_SCRATCHPAD, memory(e->scratch, eng, scratch.p));
  e->prim.execute(stream, args);
  for (auto& [r, io] : after) r.execute(stream, io.first, io.second);
  stream.wait();
  return true;
}

}  // namespace

bool convForward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y) {
  // oneDNN's API takes non-const handles; inputs are only read.
  std::vector<void*> p{const_cast<float*>(x), const_cast<float*>(w)};
  if (bias) p.push_back(const_cast<float*>(bias));
  p.push_back(y);
  return run(bias ? Kind::ForwardBias : Kind::Forward, s, p);
}

bool convBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx) {
  return run(Kind::BackwardData, s, {const_cast<float*>(dy), const_cast<float*>(w), dx});
}

bool convBackwardWeights(const ConvShape& s, const float* x, const float* dy, float* dw) {
  return run(Kind::BackwardWeights, s, {const_cast<float*>(x), const_cast<float*>(dy), dw});
}

}  // namespace kiln::ops::onednn
