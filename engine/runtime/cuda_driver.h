// The CUDA driver API as the GPU runtime uses it: one device's primary context per process (the
// device is bound on first use: cuda:0 unless torch.cuda.set_device or the first CUDA tensor named
// another, as one process per GPU under torchrun / `kiln run --nproc-per-node`), one stream,
// device memory, copies, events, modules and launches. libcuda is found with dlopen (never linked, as in
// engine/codegen/cuda): without it, or without a device, `get()` says which, in the words
// PyTorch's CUDA build uses on such a machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

class CudaDriver {
 public:
  enum class State { Ok, NoDriver, NoDevice, Failed };
  // The driver bound to this process's device (binding cuda:0 if none is bound yet), or nullptr;
  // `state()` then says why.
  static CudaDriver* get();
  // Binds device `index` when none is bound yet and returns the bound driver, which drives
  // another index where one was bound before (see `index()`); nullptr where CUDA is unavailable or
  // binding failed (`state()` says why).
  static CudaDriver* bind(int index);
  // The bound device's index, or -1 before one is bound.
  static int boundIndex();
  // Ok where a driver and a device are there (nothing is bound by asking: torch.cuda.is_available()
  // creates no context).
  static State state();
  // PyTorch's RuntimeError message for a CUDA request on this machine ("Found no NVIDIA
  // driver ...", "No CUDA GPUs are available"); empty when a device is there.
  static std::string unavailableMessage();
  // Devices the driver sees (0 without a driver or device), as torch.cuda.device_count().
  static int deviceCount();

  int index() const { return index_; }
  std::string name() const { return name_; }
  int major() const { return major_; }
  int minor() const { return minor_; }
  size_t totalMemory() const { return totalMemory_; }

  void makeCurrent() const;      // the primary context, on the calling thread
  uint64_t alloc(size_t bytes);  // cuMemAlloc; 0 where the device is out of memory
  void free(uint64_t ptr);
  void copyToDevice(uint64_t dst, const void* src, size_t bytes);  // on the stream, pageable source
  void copyToHost(void* dst, uint64_t src, size_t bytes);          // on the stream, then waits for it
  void copyOnDevice(uint64_t dst, uint64_t src, size_t bytes);
  void synchronize();  // waits for the stream
  void memGetInfo(size_t* freeBytes, size_t* totalBytes);

  void* createEvent(bool timing);
  void destroyEvent(void* ev);
  void recordEvent(void* ev);
  void synchronizeEvent(void* ev);
  bool eventDone(void* ev);
  float elapsedMs(void* start, void* end);

  void* loadModule(const std::string& image);  // cuModuleLoadData: PTX text or a cubin (ELF)
  void* function(void* module, const std::string& symbol);
  void launch(void* fn, unsigned grid, unsigned block, void** args);  // on the stream
  void launch(void* fn, unsigned gridX, unsigned gridY, unsigned block, void** args);
  int multiprocessors() const { return sms_; }

  // CUDA graphs (cuda_graph_replay.h): the stream's work between beginCapture and endCapture is
  // recorded, not run (relaxed mode: allocations may happen meanwhile), instantiated once and
  // replayed with one launch. `canCapture()` is false on a driver without these entry points.
  bool canCapture() const;
  void beginCapture();
  void* endCapture();              // the captured graph (a CUgraph); throws where the capture was invalidated
  void abandonCapture();           // ends a capture after a failure inside it, dropping what it recorded
  void* instantiate(void* graph);  // a CUgraphExec
  size_t graphNodes(void* graph);
  void launchGraph(void* exec);  // on the stream
  void destroyGraph(void* graph, void* exec);
  void* stream() const { return stream_; }  // the one stream (a CUstream), for cuBLAS

 private:
  friend class CudaDriverLoader;
  CudaDriver() = default;
  struct Fns;
  const Fns* f_ = nullptr;
  void* context_ = nullptr;
  void* stream_ = nullptr;
  std::string name_;
  int index_ = 0;
  int major_ = 0, minor_ = 0;
  int sms_ = 1;
  size_t totalMemory_ = 0;
};

// `n` timing events, owned for a scope (a profiled run, a timed call) and destroyed with it.
class TimingEvents {
 public:
  TimingEvents(CudaDriver& d, size_t n);
  ~TimingEvents();
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;
  void* operator[](size_t i) const { return events_.at(i); }
  size_t size() const { return events_.size(); }

 private:
  CudaDriver& d_;
  std::vector<void*> events_;
};

}  // namespace kiln::runtime
