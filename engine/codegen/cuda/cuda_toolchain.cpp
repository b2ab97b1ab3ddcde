#include "engine/codegen/cuda/cuda_toolchain.h"

#include "engine/codegen/kernel_cache.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace kiln::codegen::cuda {

namespace {

// dlopen the first library of `names` that loads; "" and the last error in `why` otherwise.
void* openFirst(std::initializer_list<const char*> names, std::string* why) {
  for (const char* n : names)
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
  if (why) {
    const char* e = dlerror();
    *why = e ? e : "not found";
  }
  return nullptr;
}

template <class F>
bool bind(void* lib, const char* name, F& fn, std::string* why) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn && why) *why = std::string("symbol ") + name + " missing";
  return fn != nullptr;
}

}  // namespace

// ---- NVRTC ----------------------------------------------------------------------------------

struct Nvrtc::Fns {
  using Program = void*;
  int (*createProgram)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compileProgram)(Program, int, const char* const*) = nullptr;
  int (*getPtxSize)(Program, size_t*) = nullptr;
  int (*getPtx)(Program, char*) = nullptr;
  int (*getCubinSize)(Program, size_t*) = nullptr;  // optional: NVRTC 11.1 on
  int (*getCubin)(Program, char*) = nullptr;
  int (*getLogSize)(Program, size_t*) = nullptr;
  int (*getLog)(Program, char*) = nullptr;
  int (*destroyProgram)(Program*) = nullptr;
  const char* (*errorString)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
};

Nvrtc* Nvrtc::instance(std::string* why) {
  static std::once_flag once;
  static Nvrtc* nvrtc = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    void* lib = openFirst({"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so"}, &failure);
    if (!lib) {
      failure = "NVRTC (libnvrtc.so) not found: " + failure;
      return;
    }
    static Fns f;
    if (!bind(lib, "nvrtcCreateProgram", f.createProgram, &failure) || !bind(lib, "nvrtcCompileProgram", f.compileProgram, &failure) ||
        !bind(lib, "nvrtcGetPTXSize", f.getPtxSize, &failure) || !bind(lib, "nvrtcGetPTX", f.getPtx, &failure) ||
        !bind(lib, "nvrtcGetProgramLogSize", f.getLogSize, &failure) || !bind(lib, "nvrtcGetProgramLog", f.getLog, &failure) ||
        !bind(lib, "nvrtcDestroyProgram", f.destroyProgram, &failure) || !bind(lib, "nvrtcGetErrorString", f.errorString, &failure) ||
        !bind(lib, "nvrtcVersion", f.version, &failure))
      return;
    f.getCubinSize = reinterpret_cast<decltype(f.getCubinSize)>(dlsym(lib, "nvrtcGetCUBINSize"));
    f.getCubin = reinterpret_cast<decltype(f.getCubin)>(dlsym(lib, "nvrtcGetCUBIN"));
    nvrtc = new Nvrtc;  // lives as long as the process, as the library does
    nvrtc->fns_ = &f;
  });
  if (!nvrtc && why) *why = failure;
  return nvrtc;
}

std::string Nvrtc::version() const {
  int major = 0, minor = 0;
  fns_->version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string Nvrtc::compileToPtx(const std::string& source, const std::string& name, const std::string& arch) const {
  return compile(source, name, arch, {}).ptx;
}

namespace {
constexpr const char* kCubinTag = "nvrtc cubin\n";
}  // namespace

Nvrtc::Output Nvrtc::compile(const std::string& source, const std::string& name, const std::string& arch,
                             const std::vector<std::string>& options) const {
  // The on-disk kernel cache (kernel_cache.h: verified entries, KILN_CACHE=0 turns it off) keeps
  // what NVRTC gave for the same source, file name, architecture, options and NVRTC version: a
  // second run of a script, and every eager op's kernel after its first run, skip NVRTC.
  KernelCache* cache = KernelCache::instance();
  std::string key;
  if (cache) {
    key = "nvrtc " + version() + "\n" + arch + "\n" + name + "\n";
    for (const auto& o : options) key += o + "\n";
    key += source;
    if (std::optional<CachedModule> m = cache->load(key);
        m && m->assembly.size() == 1 && m->llvmIr.size() == 1 && m->object.rfind(kCubinTag, 0) == 0) {
      Output out;
      out.ptx = m->assembly[0];
      out.cubin = m->object.substr(std::strlen(kCubinTag));
      out.log = m->llvmIr[0];
      out.cached = true;
      return out;
    }
  }
  Output out = compileUncached(source, name, arch, options);
  if (cache) {
    CachedModule m;  // the fields as NVRTC's: PTX as the assembly, the log as the IR text, the cubin as the object
    m.key = key;
    m.names = {name};
    m.assembly = {out.ptx};
    m.llvmIr = {out.log};
    m.object = kCubinTag + out.cubin;  // never empty, as an entry's object must be (PTX-only compiles have no cubin)
    cache->store(m);
  }
  return out;
}

Nvrtc::Output Nvrtc::compileUncached(const std::string& source, const std::string& name, const std::string& arch,
                                     const std::vector<std::string>& options) const {
  Fns::Program prog = nullptr;
  if (int r = fns_->createProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr); r != 0)
    throw std::runtime_error(std::string("nvrtcCreateProgram: ") + fns_->errorString(r));
  std::vector<std::string> all = {"--gpu-architecture=" + arch, "-std=c++17"};
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> opts;
  for (const auto& o : all) opts.push_back(o.c_str());
  const int rc = fns_->compileProgram(prog, static_cast<int>(opts.size()), opts.data());
  Output out;
  if (size_t n = 0; fns_->getLogSize(prog, &n) == 0 && n > 1) {
    out.log.resize(n);
    fns_->getLog(prog, out.log.data());
    out.log.resize(n - 1);
  }
  if (rc == 0) {
    size_t n = 0;
    fns_->getPtxSize(prog, &n);
    out.ptx.resize(n);
    fns_->getPtx(prog, out.ptx.data());
    if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
    // A virtual architecture (compute_XY) has no cubin: NVRTC answers with an error, not an empty one.
    if (size_t c = 0; fns_->getCubinSize && fns_->getCubinSize(prog, &c) == 0 && c > 0) {
      out.cubin.resize(c);
      fns_->getCubin(prog, out.cubin.data());
    }
  }
  fns_->destroyProgram(&prog);
  if (rc != 0) throw std::runtime_error("NVRTC could not compile " + name + " (" + fns_->errorString(rc) + "):\n" + out.log);
  return out;
}

// ---- the driver -----------------------------------------------------------------------------

struct CudaDevice::Fns {
  using Result = int;
  using Ptr = unsigned long long;
  Result (*init)(unsigned) = nullptr;
  Result (*deviceGetCount)(int*) = nullptr;
  Result (*deviceGet)(int*, int) = nullptr;
  Result (*deviceGetName)(char*, int, int) = nullptr;
  Result (*deviceGetAttribute)(int*, int, int) = nullptr;
  Result (*primaryCtxRetain)(void**, int) = nullptr;
  Result (*ctxSetCurrent)(void*) = nullptr;
  Result (*moduleLoadData)(void**, const void*) = nullptr;
  Result (*moduleGetFunction)(void**, void*, const char*) = nullptr;
  Result (*moduleUnload)(void*) = nullptr;
  Result (*memAlloc)(Ptr*, size_t) = nullptr;
  Result (*memFree)(Ptr) = nullptr;
  Result (*memcpyHtoD)(Ptr, const void*, size_t) = nullptr;
  Result (*memcpyDtoH)(void*, Ptr, size_t) = nullptr;
  Result (*launchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) = nullptr;
  Result (*ctxSynchronize)() = nullptr;
  Result (*getErrorString)(Result, const char**) = nullptr;

  void check(Result r, const char* what) const {
    if (r == 0) return;
    const char* s = nullptr;
    if (getErrorString) getErrorString(r, &s);
    throw std::runtime_error(std::string(what) + " failed: " + (s ? s : std::to_string(r)));
  }
};

CudaDevice* CudaDevice::instance(std::string* why) {
  static std::once_flag once;
  static CudaDevice* device = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    // The driver comes with the GPU's kernel module: never linked, only looked for.
    void* lib = openFirst({"libcuda.so.1", "libcuda.so"}, &failure);
    if (!lib) {
      failure = "no CUDA driver (libcuda.so.1): " + failure;
      return;
    }
    static Fns f;
    if (!bind(lib, "cuInit", f.init, &failure) || !bind(lib, "cuDeviceGetCount", f.deviceGetCount, &failure) ||
        !bind(lib, "cuDeviceGet", f.deviceGet, &failure) || !bind(lib, "cuDeviceGetName", f.deviceGetName, &failure) ||
        !bind(lib, "cuDeviceGetAttribute", f.deviceGetAttribute, &failure) ||
        !bind(lib, "cuDevicePrimaryCtxRetain", f.primaryCtxRetain, &failure) || !bind(lib, "cuCtxSetCurrent", f.ctxSetCurrent, &failure) ||
        !bind(lib, "cuModuleLoadData", f.moduleLoadData, &failure) || !bind(lib, "cuModuleGetFunction", f.moduleGetFunction, &failure) ||
        !bind(lib, "cuModuleUnload", f.moduleUnload, &failure) || !bind(lib, "cuMemAlloc_v2", f.memAlloc, &failure) ||
        !bind(lib, "cuMemFree_v2", f.memFree, &failure) || !bind(lib, "cuMemcpyHtoD_v2", f.memcpyHtoD, &failure) ||
        !bind(lib, "cuMemcpyDtoH_v2", f.memcpyDtoH, &failure) || !bind(lib, "cuLaunchKernel", f.launchKernel, &failure) ||
        !bind(lib, "cuCtxSynchronize", f.ctxSynchronize, &failure) || !bind(lib, "cuGetErrorString", f.getErrorString, &failure))
      return;
    int count = 0, dev = 0;
    if (f.init(0) != 0 || f.deviceGetCount(&count) != 0 || count == 0) {
      failure = "no CUDA device";
      return;
    }
    auto* d = new CudaDevice;
    d->fns_ = &f;
    try {
      f.check(f.deviceGet(&dev, 0), "cuDeviceGet");
      char name[256] = {};
      f.check(f.deviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
      int major = 0, minor = 0;
      f.check(f.deviceGetAttribute(&major, 75, dev), "cuDeviceGetAttribute");    // compute capability major
      f.check(f.deviceGetAttribute(&minor, 76, dev), "cuDeviceGetAttribute");    // and minor
      f.check(f.deviceGetAttribute(&d->sms_, 16, dev), "cuDeviceGetAttribute");  // multiprocessors
      f.check(f.primaryCtxRetain(&d->context_, dev), "cuDevicePrimaryCtxRetain");
      d->name_ = name;
      d->arch_ = "compute_" + std::to_string(major) + std::to_string(minor);
      device = d;
    } catch (const std::exception& e) {
      failure = e.what();
      delete d;
    }
  });
  if (!device && why) *why = failure;
  return device;
}

void CudaDevice::run(const std::string& ptx, const std::string& symbol, std::vector<HostBuffer>& buffers, const CudaLaunch& launch) const {
  const Fns& f = *fns_;
  f.check(f.ctxSetCurrent(context_), "cuCtxSetCurrent");
  void* module = nullptr;
  f.check(f.moduleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  std::vector<Fns::Ptr> device(buffers.size(), 0);
  device.reserve(buffers.size() + 2);  // args point into it: the split's two more must not move it
  auto release = [&] {
    for (Fns::Ptr p : device)
      if (p) f.memFree(p);
    f.moduleUnload(module);
  };
  try {
    void* fn = nullptr;
    f.check(f.moduleGetFunction(&fn, module, symbol.c_str()), "cuModuleGetFunction");
    for (size_t i = 0; i < buffers.size(); ++i) {
      f.check(f.memAlloc(&device[i], std::max<size_t>(buffers[i].bytes, 1)), "cuMemAlloc");
      if (buffers[i].bytes) f.check(f.memcpyHtoD(device[i], buffers[i].data, buffers[i].bytes), "cuMemcpyHtoD");
    }
    long long n = launch.points;
    std::vector<void*> args;
    for (auto& p : device) args.push_back(&p);
    args.push_back(&n);
    Fns::Ptr scratch = 0, counters = 0;
    if (launch.schedule == CudaSchedule::Split) {
      // Zeroed from the host: the counters must start at 0 (the kernel resets them after use).
      std::vector<unsigned char> zeros(std::max(launch.scratchSlots * 8, launch.counters * 4) + 8, 0);
      f.check(f.memAlloc(&scratch, launch.scratchSlots * 8 + 8), "cuMemAlloc");
      device.push_back(scratch);
      f.check(f.memAlloc(&counters, launch.counters * 4 + 4), "cuMemAlloc");
      device.push_back(counters);
      f.check(f.memcpyHtoD(counters, zeros.data(), launch.counters * 4 + 4), "cuMemcpyHtoD");
      args.push_back(&device[device.size() - 2]);
      args.push_back(&device[device.size() - 1]);
    }
    if (launch.points > 0)
      f.check(f.launchKernel(fn, launch.gridX, launch.gridY, 1, launch.block, 1, 1, 0, nullptr, args.data(), nullptr), "cuLaunchKernel");
    f.check(f.ctxSynchronize(), "cuCtxSynchronize");
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].output && buffers[i].bytes) f.check(f.memcpyDtoH(buffers[i].data, device[i], buffers[i].bytes), "cuMemcpyDtoH");
  } catch (...) {
    release();
    throw;
  }
  release();
}

}  // namespace kiln::codegen::cuda
