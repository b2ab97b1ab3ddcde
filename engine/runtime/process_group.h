// Collectives between processes for torch.distributed, on the libraries PyTorch's own backends
// are built on: Gloo (Debian's libgloo) for CPU tensors, a full mesh of TCP pairs on this host,
// and NCCL (libnccl, loaded with dlopen as the other CUDA libraries) for CUDA tensors. Both meet
// through Gloo's FileStore in a folder the launcher (`kiln run --nproc-per-node N`) creates.
// Kiln makes no transport of its own.
//
// Every operation runs on one communication thread per group, in the order it was issued, so
// ranks that issue the same sequence pair up, and a caller may go on computing (DDP's backward)
// while a bucket is reduced: each call returns a Work to wait on.
#pragma once

#include "engine/tensor/tensor.h"

#include <chrono>
#include <memory>
#include <string>

namespace kiln::runtime::dist {

enum class ReduceOp { Sum, Product, Min, Max, Avg };

// One issued collective. wait() blocks until it finished and rethrows its error (a
// TorchError: a peer that went away, a timeout).
class Work {
 public:
  virtual ~Work() = default;
  virtual void wait() = 0;
  virtual bool isCompleted() = 0;
  // How long the collective itself took once completed (gloo: on the communication thread;
  // nccl: between CUDA events around it on the stream), or a negative value while it runs.
  virtual double durationMs() = 0;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backendName() const = 0;
  // In place on `t` (a CPU tensor of float32/float64/int32/int64; any strides).
  virtual std::shared_ptr<Work> allReduce(tensor::Tensor t, ReduceOp op) = 0;
  virtual std::shared_ptr<Work> broadcast(tensor::Tensor t, int root) = 0;
  virtual std::shared_ptr<Work> barrier() = 0;
};

// Joins the group of `size` processes whose rendezvous folder is `storeDir` (all ranks name the
// same folder; keys are prefixed with `prefix`). Blocks until every rank has joined or
// `timeout` passed (then a TorchError).
std::shared_ptr<ProcessGroup> createGlooGroup(int rank, int size, const std::string& storeDir, const std::string& prefix,
                                              std::chrono::milliseconds timeout);

// The 'nccl' group: one NCCL communicator over the ranks' GPUs (one GPU per process), made on the
// first collective, as PyTorch makes it lazily, on the device of that collective's tensor (the
// scripts' torch.cuda.set_device(LOCAL_RANK) comes after init_process_group): rank 0's NCCL
// unique id travels through the FileStore. Collectives are issued on the GPU runtime's stream,
// so they are ordered with the kernels around them without blocking the host. Throws a
// TorchError where libnccl cannot be loaded.
std::shared_ptr<ProcessGroup> createNcclGroup(int rank, int size, const std::string& storeDir, const std::string& prefix,
                                              std::chrono::milliseconds timeout);

// The NCCL library's version as torch.cuda.nccl.version() gives it ((2, 28, 3)), or an error
// message where libnccl is not found.
struct NcclVersion {
  int major = 0, minor = 0, patch = 0;
  std::string error;
};
NcclVersion ncclVersion();

}  // namespace kiln::runtime::dist
