# Does loading NVRTC's cubin skip the CUDA driver's JIT? On the GPU machine, with the driver cache at a fresh
# folder: CUDA_CACHE_PATH=$(mktemp -d) python3 tools/gpu_bench/jit_probe.py /usr/local/cuda/lib64/libnvrtc.so
# Times context creation, NVRTC to a cubin (sm_90) and to PTX (compute_90), and cuModuleLoadData of each, and
# counts the driver-cache entries each step leaves (docs/perf.md, "The cubin in the kernel cache").
import ctypes, glob, os, sys, time
cuda = ctypes.CDLL('libcuda.so.1')
nv = None
for p in sys.argv[1:]:
    try:
        nv = ctypes.CDLL(p); break
    except OSError:
        pass
def ms(t0): return '%.1f' % ((time.perf_counter() - t0) * 1000)
cache = os.environ['CUDA_CACHE_PATH']
def entries(): return len([f for f in glob.glob(cache + '/**/*', recursive=True) if os.path.isfile(f) and not f.endswith('index')])
t0 = time.perf_counter(); assert cuda.cuInit(0) == 0
dev = ctypes.c_int(); cuda.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0; cuda.cuCtxSetCurrent(ctx)
print('init+ctx', ms(t0))
src = b'''extern "C" __global__ void k(const float* x, float* y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = cosf(cosf(x[i])) + VARIANT;
}'''
def compile(arch, variant):
    prog = ctypes.c_void_p()
    s = src.replace(b'VARIANT', variant)
    assert nv.nvrtcCreateProgram(ctypes.byref(prog), s, b'k.cu', 0, None, None) == 0
    opts = (ctypes.c_char_p * 2)(b'--gpu-architecture=' + arch, b'-std=c++17')
    t0 = time.perf_counter(); rc = nv.nvrtcCompileProgram(prog, 2, opts); t = ms(t0)
    assert rc == 0, rc
    size = ctypes.c_size_t()
    if arch.startswith(b'sm'):
        nv.nvrtcGetCUBINSize(prog, ctypes.byref(size)); buf = ctypes.create_string_buffer(size.value); nv.nvrtcGetCUBIN(prog, buf)
    else:
        nv.nvrtcGetPTXSize(prog, ctypes.byref(size)); buf = ctypes.create_string_buffer(size.value); nv.nvrtcGetPTX(prog, buf)
    return buf, t
for arch, variant in ((b'sm_90', b'1.0f'), (b'compute_90', b'2.0f'), (b'sm_90', b'3.0f'), (b'compute_90', b'4.0f')):
    buf, t = compile(arch, variant)
    before = entries()
    mod = ctypes.c_void_p(); t0 = time.perf_counter(); rc = cuda.cuModuleLoadData(ctypes.byref(mod), buf); tl = ms(t0)
    print(arch.decode(), 'nvrtc', t, 'ms, load', tl, 'ms, rc', rc, ', driver cache entries', before, '->', entries())
