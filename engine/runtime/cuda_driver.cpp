#include "engine/runtime/cuda_driver.h"

#include "engine/tensor/tensor.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <stdexcept>

namespace kiln::runtime {

namespace {
constexpr int kErrorOutOfMemory = 2;
constexpr int kErrorInsufficientDriver = 35;
constexpr int kErrorNoDevice = 100;
constexpr int kErrorNotReady = 600;

template <class F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}
}  // namespace

struct CudaDriver::Fns {
  using R = int;
  using Ptr = unsigned long long;
  R (*init)(unsigned) = nullptr;
  R (*deviceGetCount)(int*) = nullptr;
  R (*deviceGet)(int*, int) = nullptr;
  R (*deviceGetName)(char*, int, int) = nullptr;
  R (*deviceGetAttribute)(int*, int, int) = nullptr;
  R (*deviceTotalMem)(size_t*, int) = nullptr;
  R (*primaryCtxRetain)(void**, int) = nullptr;
  R (*ctxSetCurrent)(void*) = nullptr;
  R (*streamCreate)(void**, unsigned) = nullptr;
  R (*streamSynchronize)(void*) = nullptr;
  R (*memAlloc)(Ptr*, size_t) = nullptr;
  R (*memFree)(Ptr) = nullptr;
  R (*memGetInfo)(size_t*, size_t*) = nullptr;
  R (*memcpyHtoDAsync)(Ptr, const void*, size_t, void*) = nullptr;
  R (*memcpyDtoHAsync)(void*, Ptr, size_t, void*) = nullptr;
  R (*memcpyDtoDAsync)(Ptr, Ptr, size_t, void*) = nullptr;
  R (*eventCreate)(void**, unsigned) = nullptr;
  R (*eventDestroy)(void*) = nullptr;
  R (*eventRecord)(void*, void*) = nullptr;
  R (*eventSynchronize)(void*) = nullptr;
  R (*eventQuery)(void*) = nullptr;
  R (*eventElapsedTime)(float*, void*, void*) = nullptr;
  R (*moduleLoadData)(void**, const void*) = nullptr;
  R (*moduleGetFunction)(void**, void*, const char*) = nullptr;
  R (*launchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) = nullptr;
  R (*getErrorString)(R, const char**) = nullptr;
  // CUDA graphs; optional (null on a driver without them: canCapture() is false)
  R (*streamBeginCapture)(void*, int) = nullptr;
  R (*streamEndCapture)(void*, void**) = nullptr;
  R (*graphInstantiate)(void**, void*, unsigned long long) = nullptr;
  R (*graphLaunch)(void*, void*) = nullptr;
  R (*graphGetNodes)(void*, void**, size_t*) = nullptr;
  R (*graphExecDestroy)(void*) = nullptr;
  R (*graphDestroy)(void*) = nullptr;

  // A failed driver call is PyTorch's "CUDA error: <the driver's words>" RuntimeError.
  void check(R r, const char* what) const {
    if (r == 0) return;
    const char* s = nullptr;
    if (getErrorString) getErrorString(r, &s);
    throw tensor::TorchError("RuntimeError", std::string("CUDA error: ") + (s ? s : std::to_string(r)) + " (" + what + ")");
  }
};

namespace {
// What loading libcuda found (once per process), and the device bound on first use.
struct Loaded {
  CudaDriver::State state = CudaDriver::State::NoDriver;
  const void* fns = nullptr;  // the bound entry points (CudaDriver::Fns)
  int count = 0;
  std::string failure;
  std::mutex bindMu;
  std::atomic<CudaDriver*> driver{nullptr};  // the bound device's
};
}  // namespace

class CudaDriverLoader {
 public:
  static Loaded& loaded();
  static CudaDriver* bindDevice(Loaded& l, int index);
};
static Loaded& loaded() { return CudaDriverLoader::loaded(); }

CudaDriver* CudaDriver::get() {
  Loaded& l = loaded();
  if (CudaDriver* d = l.driver.load()) return d;
  return bind(0);
}
CudaDriver* CudaDriver::bind(int index) { return CudaDriverLoader::bindDevice(loaded(), index); }
int CudaDriver::boundIndex() {
  Loaded& l = loaded();
  std::lock_guard<std::mutex> lock(l.bindMu);
  CudaDriver* d = l.driver.load();
  return d ? d->index_ : -1;
}
CudaDriver::State CudaDriver::state() { return loaded().state; }
int CudaDriver::deviceCount() { return loaded().count; }

std::string CudaDriver::unavailableMessage() {
  switch (state()) {
    case State::Ok: return "";
    case State::NoDriver:
      return "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from "
             "http://www.nvidia.com/Download/index.aspx";
    case State::NoDevice: return "No CUDA GPUs are available";
    case State::Failed: return "CUDA error: " + loaded().failure;
  }
  return "";
}

Loaded& CudaDriverLoader::loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;  // NoDriver
    static CudaDriver::Fns f;
    bool ok = bind(lib, "cuInit", f.init) && bind(lib, "cuDeviceGetCount", f.deviceGetCount) && bind(lib, "cuDeviceGet", f.deviceGet) &&
              bind(lib, "cuDeviceGetName", f.deviceGetName) && bind(lib, "cuDeviceGetAttribute", f.deviceGetAttribute) &&
              bind(lib, "cuDeviceTotalMem_v2", f.deviceTotalMem) && bind(lib, "cuDevicePrimaryCtxRetain", f.primaryCtxRetain) &&
              bind(lib, "cuCtxSetCurrent", f.ctxSetCurrent) && bind(lib, "cuStreamCreate", f.streamCreate) &&
              bind(lib, "cuStreamSynchronize", f.streamSynchronize) && bind(lib, "cuMemAlloc_v2", f.memAlloc) &&
              bind(lib, "cuMemFree_v2", f.memFree) && bind(lib, "cuMemGetInfo_v2", f.memGetInfo) &&
              bind(lib, "cuMemcpyHtoDAsync_v2", f.memcpyHtoDAsync) && bind(lib, "cuMemcpyDtoHAsync_v2", f.memcpyDtoHAsync) &&
              bind(lib, "cuMemcpyDtoDAsync_v2", f.memcpyDtoDAsync) && bind(lib, "cuEventCreate", f.eventCreate) &&
              bind(lib, "cuEventDestroy_v2", f.eventDestroy) && bind(lib, "cuEventRecord", f.eventRecord) &&
              bind(lib, "cuEventSynchronize", f.eventSynchronize) && bind(lib, "cuEventQuery", f.eventQuery) &&
              (bind(lib, "cuEventElapsedTime_v2", f.eventElapsedTime) || bind(lib, "cuEventElapsedTime", f.eventElapsedTime)) &&
              bind(lib, "cuModuleLoadData", f.moduleLoadData) && bind(lib, "cuModuleGetFunction", f.moduleGetFunction) &&
              bind(lib, "cuLaunchKernel", f.launchKernel) && bind(lib, "cuGetErrorString", f.getErrorString);
    if (!(bind(lib, "cuStreamBeginCapture_v2", f.streamBeginCapture) && bind(lib, "cuStreamEndCapture", f.streamEndCapture) &&
          bind(lib, "cuGraphInstantiateWithFlags", f.graphInstantiate) && bind(lib, "cuGraphLaunch", f.graphLaunch) &&
          bind(lib, "cuGraphGetNodes", f.graphGetNodes) && bind(lib, "cuGraphExecDestroy", f.graphExecDestroy) &&
          bind(lib, "cuGraphDestroy", f.graphDestroy)))
      f.streamBeginCapture = nullptr;  // an old driver: compiled graphs run without CUDA graphs
    if (!ok) {
      l.state = CudaDriver::State::Failed;
      l.failure = "the CUDA driver (libcuda.so.1) lacks an entry point Kiln uses";
      return;
    }
    int rc = f.init(0);
    if (rc == kErrorNoDevice || (rc == 0 && (f.deviceGetCount(&l.count) != 0 || l.count == 0))) {
      l.count = 0;
      l.state = CudaDriver::State::NoDevice;
      return;
    }
    if (rc == kErrorInsufficientDriver) return;  // NoDriver, as PyTorch reads it
    if (rc != 0) {
      const char* s = nullptr;
      f.getErrorString(rc, &s);
      l.state = CudaDriver::State::Failed;
      l.failure = std::string(s ? s : std::to_string(rc)) + " (cuInit)";
      l.count = 0;
      return;
    }
    l.fns = &f;
    l.state = CudaDriver::State::Ok;
  });
  return l;
}

CudaDriver* CudaDriverLoader::bindDevice(Loaded& l, int index) {
  std::lock_guard<std::mutex> lock(l.bindMu);
  if (l.driver || l.state != CudaDriver::State::Ok) return l.driver;
  if (index < 0 || index >= l.count) return nullptr;  // the caller words the invalid ordinal
  const CudaDriver::Fns& f = *static_cast<const CudaDriver::Fns*>(l.fns);
  auto* d = new CudaDriver;  // lives as long as the process, as the library does
  d->f_ = &f;
  d->index_ = index;
  try {
    int dev = 0;
    f.check(f.deviceGet(&dev, index), "cuDeviceGet");
    char name[256] = {};
    f.check(f.deviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    f.check(f.deviceGetAttribute(&d->major_, 75, dev), "cuDeviceGetAttribute");  // compute capability major
    f.check(f.deviceGetAttribute(&d->minor_, 76, dev), "cuDeviceGetAttribute");  // and minor
    f.check(f.deviceGetAttribute(&d->sms_, 16, dev), "cuDeviceGetAttribute");    // multiprocessors
    f.check(f.deviceTotalMem(&d->totalMemory_, dev), "cuDeviceTotalMem");
    f.check(f.primaryCtxRetain(&d->context_, dev), "cuDevicePrimaryCtxRetain");
    f.check(f.ctxSetCurrent(d->context_), "cuCtxSetCurrent");
    f.check(f.streamCreate(&d->stream_, 0), "cuStreamCreate");
    d->name_ = name;
    l.driver = d;
  } catch (const std::exception& e) {
    l.state = CudaDriver::State::Failed;
    l.failure = e.what();
    l.count = 0;
    delete d;
  }
  return l.driver;
}

void CudaDriver::makeCurrent() const { f_->check(f_->ctxSetCurrent(context_), "cuCtxSetCurrent"); }

uint64_t CudaDriver::alloc(size_t bytes) {
  makeCurrent();
  Fns::Ptr p = 0;
  int rc = f_->memAlloc(&p, bytes);
  if (rc == kErrorOutOfMemory) return 0;
  f_->check(rc, "cuMemAlloc");
  return p;
}

void CudaDriver::free(uint64_t ptr) { f_->check(f_->memFree(ptr), "cuMemFree"); }

void CudaDriver::copyToDevice(uint64_t dst, const void* src, size_t bytes) {
  makeCurrent();
  f_->check(f_->memcpyHtoDAsync(dst, src, bytes, stream_), "cuMemcpyHtoDAsync");
}

void CudaDriver::copyToHost(void* dst, uint64_t src, size_t bytes) {
  makeCurrent();
  f_->check(f_->memcpyDtoHAsync(dst, src, bytes, stream_), "cuMemcpyDtoHAsync");
  synchronize();
}

void CudaDriver::copyOnDevice(uint64_t dst, uint64_t src, size_t bytes) {
  makeCurrent();
  f_->check(f_->memcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync");
}

void CudaDriver::synchronize() { f_->check(f_->streamSynchronize(stream_), "cuStreamSynchronize"); }

void CudaDriver::memGetInfo(size_t* freeBytes, size_t* totalBytes) {
  makeCurrent();
  f_->check(f_->memGetInfo(freeBytes, totalBytes), "cuMemGetInfo");
}

void* CudaDriver::createEvent(bool timing) {
  makeCurrent();
  void* ev = nullptr;
  f_->check(f_->eventCreate(&ev, timing ? 0u : 2u), "cuEventCreate");  // 2: CU_EVENT_DISABLE_TIMING
  return ev;
}
void CudaDriver::destroyEvent(void* ev) { f_->eventDestroy(ev); }
void CudaDriver::recordEvent(void* ev) { f_->check(f_->eventRecord(ev, stream_), "cuEventRecord"); }
void CudaDriver::synchronizeEvent(void* ev) { f_->check(f_->eventSynchronize(ev), "cuEventSynchronize"); }
bool CudaDriver::eventDone(void* ev) {
  int rc = f_->eventQuery(ev);
  if (rc == kErrorNotReady) return false;
  f_->check(rc, "cuEventQuery");
  return true;
}
TimingEvents::TimingEvents(CudaDriver& d, size_t n) : d_(d) {
  try {
    for (size_t i = 0; i < n; ++i) events_.push_back(d_.createEvent(true));
  } catch (...) {
    for (void* e : events_) d_.destroyEvent(e);
    throw;
  }
}

TimingEvents::~TimingEvents() {
  for (void* e : events_) d_.destroyEvent(e);
}

float CudaDriver::elapsedMs(void* start, void* end) {
  float ms = 0;
  f_->check(f_->eventElapsedTime(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

void* CudaDriver::loadModule(const std::string& image) {
  makeCurrent();
  void* m = nullptr;
  f_->check(f_->moduleLoadData(&m, image.c_str()), "cuModuleLoadData");
  return m;
}

void* CudaDriver::function(void* module, const std::string& symbol) {
  void* fn = nullptr;
  f_->check(f_->moduleGetFunction(&fn, module, symbol.c_str()), "cuModuleGetFunction");
  return fn;
}

void CudaDriver::launch(void* fn, unsigned grid, unsigned block, void** args) { launch(fn, grid, 1, block, args); }

void CudaDriver::launch(void* fn, unsigned gridX, unsigned gridY, unsigned block, void** args) {
  makeCurrent();
  f_->check(f_->launchKernel(fn, gridX, gridY, 1, block, 1, 1, 0, stream_, args, nullptr), "cuLaunchKernel");
}

bool CudaDriver::canCapture() const { return f_->streamBeginCapture != nullptr; }

void CudaDriver::beginCapture() {
  makeCurrent();
  constexpr int kCaptureModeRelaxed = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED: cuMemAlloc stays allowed
  f_->check(f_->streamBeginCapture(stream_, kCaptureModeRelaxed), "cuStreamBeginCapture");
}

void* CudaDriver::endCapture() {
  void* graph = nullptr;
  f_->check(f_->streamEndCapture(stream_, &graph), "cuStreamEndCapture");
  return graph;
}

void CudaDriver::abandonCapture() {
  void* graph = nullptr;
  if (f_->streamEndCapture(stream_, &graph) == 0 && graph) f_->graphDestroy(graph);
}

void* CudaDriver::instantiate(void* graph) {
  void* exec = nullptr;
  f_->check(f_->graphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  return exec;
}

size_t CudaDriver::graphNodes(void* graph) {
  size_t n = 0;
  f_->check(f_->graphGetNodes(graph, nullptr, &n), "cuGraphGetNodes");
  return n;
}

void CudaDriver::launchGraph(void* exec) {
  makeCurrent();
  f_->check(f_->graphLaunch(exec, stream_), "cuGraphLaunch");
}

void CudaDriver::destroyGraph(void* graph, void* exec) {
  if (exec) f_->graphExecDestroy(exec);
  if (graph) f_->graphDestroy(graph);
}

}  // namespace kiln::runtime
