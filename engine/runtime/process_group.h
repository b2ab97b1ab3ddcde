// Collectives between processes for torch.distributed, on Gloo (Debian's libgloo, the library
// PyTorch's own 'gloo' backend is built on): a full mesh of TCP pairs on this host, rendezvous
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

}  // namespace kiln::runtime::dist
