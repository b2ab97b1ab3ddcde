// torch.distributed's 'nccl' backend on libnccl (dlopen; the toolkit's or a Python install's
// nvidia/nccl wheel, found as cuBLAS is: nvidia_libs.h). The few NCCL types used are declared
// here with the values of NCCL's stable C ABI (nccl.h: ncclDataType_t, ncclRedOp_t, a 128-byte
// ncclUniqueId), so building Kiln needs no NCCL headers.
#include "engine/runtime/cuda_graph.h"
#include "engine/runtime/cuda_runtime.h"
#include "engine/runtime/nvidia_libs.h"
#include "engine/runtime/process_group.h"

#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace kiln::runtime::dist {

using tensor::Tensor;
using tensor::TorchError;

namespace {

using NcclResult = int;
using NcclComm = void*;
struct NcclUniqueId {
  char internal[128];
};
// ncclDataType_t and ncclRedOp_t (nccl.h).
enum NcclType : int { kInt8 = 0, kUint8 = 1, kInt32 = 2, kInt64 = 4, kFloat16 = 6, kFloat32 = 7, kFloat64 = 8, kBfloat16 = 9 };
enum NcclOp : int { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4 };

struct Nccl {
  NcclResult (*getVersion)(int*) = nullptr;
  NcclResult (*getUniqueId)(NcclUniqueId*) = nullptr;
  NcclResult (*commInitRank)(NcclComm*, int, NcclUniqueId, int) = nullptr;
  NcclResult (*commDestroy)(NcclComm) = nullptr;
  NcclResult (*commGetAsyncError)(NcclComm, NcclResult*) = nullptr;
  NcclResult (*allReduce)(const void*, void*, size_t, int, int, NcclComm, void*) = nullptr;
  NcclResult (*broadcast)(const void*, void*, size_t, int, int, NcclComm, void*) = nullptr;
  const char* (*errorString)(NcclResult) = nullptr;
  const char* (*lastError)(NcclComm) = nullptr;  // NCCL 2.13+; may be missing
  int version = 0;
  std::string failure;
  bool ok() const { return failure.empty(); }

  // PyTorch's wording of a failed NCCL call: "NCCL error in: <where>, <NCCL's words>".
  void check(NcclResult r, const char* what, NcclComm comm = nullptr) const {
    if (r == 0) return;
    std::string msg = std::string("NCCL error in Kiln's ") + what + ": " + (errorString ? errorString(r) : std::to_string(r));
    if (lastError && comm) {
      const char* last = lastError(comm);
      if (last && *last) msg += "\nLast error:\n" + std::string(last);
    }
    throw TorchError("RuntimeError", msg);
  }
};

const Nccl& nccl() {
  static Nccl n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = openNvidiaLibrary({"libnccl.so.2", "libnccl.so"}, "nccl");
    if (!lib) {
      n.failure =
          "NCCL (libnccl.so.2) was not found in LD_LIBRARY_PATH, $CUDA_HOME/lib64, /usr/local/cuda/lib64 or a Python "
          "install's nvidia/nccl/lib";
      return;
    }
    auto sym = [lib](const char* name, auto& fn) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    bool ok = sym("ncclGetVersion", n.getVersion) && sym("ncclGetUniqueId", n.getUniqueId) && sym("ncclCommInitRank", n.commInitRank) &&
              sym("ncclCommDestroy", n.commDestroy) && sym("ncclCommGetAsyncError", n.commGetAsyncError) &&
              sym("ncclAllReduce", n.allReduce) && sym("ncclBroadcast", n.broadcast) && sym("ncclGetErrorString", n.errorString);
    sym("ncclGetLastError", n.lastError);
    if (!ok) {
      n.failure = "libnccl lacks an entry point Kiln uses (ncclCommInitRank, ncclAllReduce ...)";
      return;
    }
    if (n.getVersion(&n.version) != 0) n.failure = "ncclGetVersion failed";
    // ncclAvg, which ReduceOp.AVG needs, came with NCCL 2.10 (version code 21000).
    else if (n.version < 21000) n.failure = "NCCL " + std::to_string(n.version) + " is older than 2.10, which Kiln needs";
  });
  return n;
}

const Nccl& ncclOrThrow() {
  const Nccl& n = nccl();
  if (!n.ok()) throw TorchError("RuntimeError", "Kiln cannot use torch.distributed's nccl backend: " + n.failure);
  return n;
}

int ncclType(ir::DType d) {
  switch (d) {
    case ir::DType::Float32: return kFloat32;
    case ir::DType::Float64: return kFloat64;
    case ir::DType::Float16: return kFloat16;
    case ir::DType::BFloat16: return kBfloat16;
    case ir::DType::Int32: return kInt32;
    case ir::DType::Int64: return kInt64;
    case ir::DType::Int8: return kInt8;
    case ir::DType::UInt8:
    case ir::DType::Bool: return kUint8;
    case ir::DType::Int16: break;
  }
  throw TorchError("TypeError", std::string("Unsupported dtype ") + std::string(ir::torchName(d)) + " for NCCL");
}

int ncclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return kSum;
    case ReduceOp::Product: return kProd;
    case ReduceOp::Min: return kMin;
    case ReduceOp::Max: return kMax;
    case ReduceOp::Avg: return kAvg;
  }
  return kSum;
}

void* devicePointer(const Tensor& t) { return reinterpret_cast<void*>(cuda::devicePtr(t)); }

// A collective issued on the stream: done when the event recorded after it has passed. wait()
// does not block the host (the work is ordered before everything issued later on the same
// stream, as PyTorch's Work.wait() orders the current stream after NCCL's); it reports an
// asynchronous NCCL error.
class StreamWork : public Work {
 public:
  // `start` is a timing event recorded on the stream before the collective; the end event is
  // recorded now, after it.
  StreamWork(const Nccl& n, NcclComm comm, void* start) : n_(n), comm_(comm), start_(start) {
    ev_ = cuda::driver().createEvent(true);
    cuda::driver().recordEvent(ev_);
  }
  ~StreamWork() override {
    cuda::driver().destroyEvent(ev_);
    cuda::driver().destroyEvent(start_);
  }
  double durationMs() override { return isCompleted() ? double(cuda::driver().elapsedMs(start_, ev_)) : -1.0; }
  void wait() override {
    NcclResult async = 0;
    n_.check(n_.commGetAsyncError(comm_, &async), "ncclCommGetAsyncError", comm_);
    n_.check(async, "a collective (asynchronous error)", comm_);
  }
  bool isCompleted() override { return cuda::driver().eventDone(ev_); }

 private:
  const Nccl& n_;
  NcclComm comm_;
  void* start_ = nullptr;
  void* ev_ = nullptr;
};

// A timing event recorded on the stream now: the start of the collective issued next.
void* startEvent() {
  void* ev = cuda::driver().createEvent(true);
  cuda::driver().recordEvent(ev);
  return ev;
}

class NcclGroup : public ProcessGroup {
 public:
  NcclGroup(int rank, int size, std::string storeDir, std::string prefix, std::chrono::milliseconds timeout)
      : n_(ncclOrThrow()), rank_(rank), size_(size), storeDir_(std::move(storeDir)), prefix_(std::move(prefix)), timeout_(timeout) {}
  ~NcclGroup() override {
    if (!comm_) return;
    try {
      cuda::driver().synchronize();
    } catch (const std::exception&) {}
    n_.commDestroy(comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backendName() const override { return "nccl"; }

  std::shared_ptr<Work> allReduce(Tensor t, ReduceOp op) override {
    checkTensor(t);
    NcclComm c = comm(t.device().index);
    void* start = startEvent();
    n_.check(
        n_.allReduce(devicePointer(t), devicePointer(t), size_t(t.numel()), ncclType(t.dtype()), ncclOp(op), c, cuda::driver().stream()),
        "ncclAllReduce", c);
    return std::make_shared<StreamWork>(n_, c, start);
  }

  std::shared_ptr<Work> broadcast(Tensor t, int root) override {
    checkTensor(t);
    if (root < 0 || root >= size_) throw TorchError("ValueError", "Invalid rootRank " + std::to_string(root));
    NcclComm c = comm(t.device().index);
    void* start = startEvent();
    n_.check(n_.broadcast(devicePointer(t), devicePointer(t), size_t(t.numel()), ncclType(t.dtype()), root, c, cuda::driver().stream()),
             "ncclBroadcast", c);
    return std::make_shared<StreamWork>(n_, c, start);
  }

  // As ProcessGroupNCCL's barrier: an all-reduce of one element on this process's GPU, then the
  // host waits for the stream.
  std::shared_ptr<Work> barrier() override {
    cuda::lazyInit();
    Tensor one = Tensor::zeros({1}, ir::DType::Float32).toDevice(tensor::Device::cuda(cuda::currentDevice()));
    auto w = allReduce(one, ReduceOp::Sum);
    cuda::driver().synchronize();
    w->wait();
    return w;
  }

 private:
  void checkTensor(const Tensor& t) const {
    if (!t.device().isCuda()) throw TorchError("RuntimeError", "No backend type associated with device type " + t.device().str());
    if (!t.isContiguous()) throw TorchError("ValueError", "Tensors must be contiguous");
    (void)ncclType(t.dtype());
  }

  // The communicator, made on the first collective (on `device`, the process's GPU).
  NcclComm comm(int device) {
    cuda::lazyInit(device);        // the process's one GPU: another index is an error there
    cuda::driver().makeCurrent();  // NCCL takes the current context's device
    if (comm_) return comm_;
    NcclUniqueId id{};
    try {
      gloo::rendezvous::FileStore files(storeDir_);
      gloo::rendezvous::PrefixStore store(prefix_, files);
      const std::string key = "nccl_unique_id";
      if (rank_ == 0) {
        n_.check(n_.getUniqueId(&id), "ncclGetUniqueId");
        store.set(key, std::vector<char>(id.internal, id.internal + sizeof id.internal));
      } else {
        store.wait({key}, timeout_);
        std::vector<char> bytes = store.get(key);
        if (bytes.size() != sizeof id.internal)
          throw TorchError("RuntimeError", "the NCCL unique id in the rendezvous store has a wrong size");
        std::memcpy(id.internal, bytes.data(), bytes.size());
      }
    } catch (const TorchError&) { throw; } catch (const std::exception& e) {
      throw TorchError("RuntimeError", std::string("[nccl] rendezvous of rank ") + std::to_string(rank_) + " of " + std::to_string(size_) +
                                           " failed: " + e.what());
    }
    NcclComm c = nullptr;
    n_.check(n_.commInitRank(&c, size_, id, rank_), "ncclCommInitRank");
    comm_ = c;
    return comm_;
  }

  const Nccl& n_;
  int rank_, size_;
  std::string storeDir_, prefix_;
  std::chrono::milliseconds timeout_;
  NcclComm comm_ = nullptr;
};

}  // namespace

std::shared_ptr<ProcessGroup> createNcclGroup(int rank, int size, const std::string& storeDir, const std::string& prefix,
                                              std::chrono::milliseconds timeout) {
  return std::make_shared<NcclGroup>(rank, size, storeDir, prefix, timeout);
}

NcclVersion ncclVersion() {
  const Nccl& n = nccl();
  NcclVersion v;
  if (!n.ok()) {
    v.error = n.failure;
    return v;
  }
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
  v.major = n.version / 10000, v.minor = n.version / 100 % 100, v.patch = n.version % 100;
  return v;
}

}  // namespace kiln::runtime::dist
