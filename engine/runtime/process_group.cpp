#include "engine/runtime/process_group.h"

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln::runtime::dist {

using tensor::Tensor;
using tensor::TorchError;

namespace {

class QueuedWork : public Work {
 public:
  void wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_; });
    if (error_) std::rethrow_exception(error_);
  }
  bool isCompleted() override {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  double durationMs() override {
    std::lock_guard<std::mutex> lock(mu_);
    return done_ ? ms_ : -1.0;
  }
  void finish(std::exception_ptr e, double ms) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      error_ = std::move(e);
      ms_ = ms;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  double ms_ = 0.0;
  std::exception_ptr error_;
};

template <typename T>
void reduceFn(ReduceOp op, gloo::AllreduceOptions& o) {
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: o.setReduceFunction(static_cast<Fn>(&gloo::sum<T>)); break;
    case ReduceOp::Product: o.setReduceFunction(static_cast<Fn>(&gloo::product<T>)); break;
    case ReduceOp::Min: o.setReduceFunction(static_cast<Fn>(&gloo::min<T>)); break;
    case ReduceOp::Max: o.setReduceFunction(static_cast<Fn>(&gloo::max<T>)); break;
  }
}

// The tensor's elements as one contiguous buffer; `done` copies a temporary back into `t`.
struct Flat {
  Tensor buf;
  Tensor orig;
  explicit Flat(const Tensor& t) : buf(t.isContiguous() ? t : t.contiguous()), orig(t) {}
  void done() {
    if (buf.storage() == orig.storage() && buf.offset() == orig.offset() && orig.isContiguous()) return;
    tensor::Shape cs = buf.strides();
    tensor::forEachIndex<2>(orig.sizes(), {&orig.strides(), &cs},
                            [&](const std::array<int64_t, 2>& o) { orig.storeAt(o[0], buf.loadAt(o[1])); });
  }
};

class GlooGroup : public ProcessGroup {
 public:
  GlooGroup(int rank, int size, std::shared_ptr<gloo::Context> ctx)
      : rank_(rank), size_(size), ctx_(std::move(ctx)), thread_([this] { loop(); }) {}
  ~GlooGroup() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backendName() const override { return "gloo"; }

  std::shared_ptr<Work> allReduce(Tensor t, ReduceOp op) override {
    checkTensor(t, "all_reduce");
    return enqueue([this, t, op](uint32_t tag) {
      Flat f(t);
      gloo::AllreduceOptions o(ctx_);
      o.setTag(tag);
      switch (t.dtype()) {
        case ir::DType::Float32:
          o.setOutput(f.buf.ptr<float>(), size_t(f.buf.numel()));
          reduceFn<float>(op, o);
          break;
        case ir::DType::Float64:
          o.setOutput(f.buf.ptr<double>(), size_t(f.buf.numel()));
          reduceFn<double>(op, o);
          break;
        case ir::DType::Int32:
          o.setOutput(f.buf.ptr<int32_t>(), size_t(f.buf.numel()));
          reduceFn<int32_t>(op, o);
          break;
        case ir::DType::Int64:
          o.setOutput(f.buf.ptr<int64_t>(), size_t(f.buf.numel()));
          reduceFn<int64_t>(op, o);
          break;
        default: break;
      }
      gloo::allreduce(o);
      if (op == ReduceOp::Avg) {
        for (int64_t i = 0; i < f.buf.numel(); ++i) f.buf.storeAt(i, f.buf.loadAt(i) / size_);
      }
      f.done();
    });
  }

  std::shared_ptr<Work> broadcast(Tensor t, int root) override {
    checkTensor(t, "broadcast");
    if (root < 0 || root >= size_) throw TorchError("ValueError", "Invalid rootRank " + std::to_string(root));
    return enqueue([this, t, root](uint32_t tag) {
      Flat f(t);
      gloo::BroadcastOptions o(ctx_);
      o.setTag(tag);
      o.setRoot(root);
      switch (t.dtype()) {
        case ir::DType::Float32: o.setOutput(f.buf.ptr<float>(), size_t(f.buf.numel())); break;
        case ir::DType::Float64: o.setOutput(f.buf.ptr<double>(), size_t(f.buf.numel())); break;
        case ir::DType::Int32: o.setOutput(f.buf.ptr<int32_t>(), size_t(f.buf.numel())); break;
        case ir::DType::Int64: o.setOutput(f.buf.ptr<int64_t>(), size_t(f.buf.numel())); break;
        default: break;
      }
      gloo::broadcast(o);
      f.done();
    });
  }

  std::shared_ptr<Work> barrier() override {
    return enqueue([this](uint32_t tag) {
      gloo::BarrierOptions o(ctx_);
      o.setTag(tag);
      gloo::barrier(o);
    });
  }

 private:
  static void checkTensor(const Tensor& t, const char* what) {
    if (!t.isCpu()) throw TorchError("RuntimeError", std::string("No backend type associated with device type ") + t.device().str());
    switch (t.dtype()) {
      case ir::DType::Float32:
      case ir::DType::Float64:
      case ir::DType::Int32:
      case ir::DType::Int64: return;
      default:
        throw TorchError("NotImplementedError", std::string("Kiln's gloo backend: ") + what + " of a " +
                                                    std::string(ir::torchName(t.dtype())) +
                                                    " tensor (float32, float64, int32 and int64 are supported)");
    }
  }

  std::shared_ptr<Work> enqueue(std::function<void(uint32_t)> op) {
    auto w = std::make_shared<QueuedWork>();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back([w, op = std::move(op), tag = nextTag_++] {
        const auto t0 = std::chrono::steady_clock::now();
        auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
        try {
          op(tag);
          w->finish(nullptr, ms());
        } catch (const TorchError&) { w->finish(std::current_exception(), ms()); } catch (const std::exception& e) {
          // gloo::IoException / EnforceNotMet: a peer went away or the timeout passed.
          w->finish(std::make_exception_ptr(TorchError("RuntimeError", std::string("[gloo] ") + e.what())), ms());
        }
      });
    }
    cv_.notify_all();
    return w;
  }

  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, nothing left
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  int rank_, size_;
  std::shared_ptr<gloo::Context> ctx_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  uint32_t nextTag_ = 1;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

std::shared_ptr<ProcessGroup> createGlooGroup(int rank, int size, const std::string& storeDir, const std::string& prefix,
                                              std::chrono::milliseconds timeout) {
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";  // the launcher starts every rank on this host
    auto dev = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore fileStore(storeDir);
    gloo::rendezvous::PrefixStore store(prefix, fileStore);
    auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
    ctx->setTimeout(timeout);
    ctx->connectFullMesh(store, dev);
    return std::make_shared<GlooGroup>(rank, size, ctx);
  } catch (const TorchError&) { throw; } catch (const std::exception& e) {
    throw TorchError("RuntimeError", std::string("[gloo] rendezvous of rank ") + std::to_string(rank) + " of " + std::to_string(size) +
                                         " failed: " + e.what());
  }
}

}  // namespace kiln::runtime::dist
