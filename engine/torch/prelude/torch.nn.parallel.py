# torch.nn.parallel.DistributedDataParallel on torch.distributed (torch.distributed.py; CPU
# modules on gloo, CUDA modules on nccl, one GPU per process): the
# module is replicated by broadcasting rank 0's parameters and buffers at construction; in
# backward every parameter's post-accumulate-grad hook marks it ready, and a bucket whose
# parameters are all ready is flattened, divided by the world size and all-reduced
# asynchronously while backward goes on computing earlier layers' gradients; buckets are issued
# in order (every rank issues the same sequence), and once the last is issued they are waited
# for and copied back into .grad, as torch/csrc/distributed/c10d/reducer.cpp does.
#
# Buckets: parameters in reverse registration order (the order backward produces their
# gradients), closed when they reach the cap: the first at _DEFAULT_FIRST_BUCKET_BYTES (1 MiB)
# unless bucket_cap_mb is given, later ones at bucket_cap_mb (25 MiB), as PyTorch's buckets are
# after their first-iteration rebuild. While a compiled module runs under DDP.forward, Dynamo's DDPOptimizer reads
# `_active_ddp_module` and `bucket_bytes_cap` to split the captured graph at bucket boundaries.
import torch
import torch.distributed as dist
from torch.nn import Module


class _Bucket:
    def __init__(self):
        self.indices = []
        self.size = 0


def _compute_buckets(params, first_cap, cap):
    buckets = []
    current = _Bucket()
    limit = first_cap
    for index in reversed(range(len(params))):
        p = params[index]
        current.indices.append(index)
        current.size += p.numel() * p.element_size()
        if current.size >= limit:
            buckets.append(current)
            current = _Bucket()
            limit = cap
    if current.indices:
        buckets.append(current)
    return buckets


class DistributedDataParallel(Module):
    _active_ddp_module = None

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        if process_group is not None or device_mesh is not None:
            raise NotImplementedError("DistributedDataParallel(process_group=/device_mesh=) is not supported by Kiln yet")
        if find_unused_parameters:
            raise NotImplementedError("DistributedDataParallel(find_unused_parameters=True) is not supported by Kiln yet")
        if mixed_precision is not None:
            raise NotImplementedError("DistributedDataParallel(mixed_precision=...) is not supported by Kiln yet")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        devices = set()
        for p in module.parameters():
            devices.add(p.device.type)
        if "cpu" in devices and (device_ids or output_device is not None):
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids " +
                             str(device_ids) + ", output_device " + str(output_device) +
                             ", and module parameters {device(type='cpu')}.")
        if "cuda" in devices and dist.get_backend() != "nccl":
            raise NotImplementedError("DistributedDataParallel of a CUDA module runs on the nccl backend in Kiln "
                                      "(its gloo backend takes CPU tensors only): init_process_group(backend='nccl')")
        if isinstance(module, Module):
            self.module = module
        else:
            # Kiln's OptimizedModule (torch.compile(model)) is not an nn.Module: the module it
            # wraps is registered (parameters, state_dict: 'module.' keys, where PyTorch has
            # 'module._orig_mod.') and calls go through the compiled one.
            self.module = module._orig_mod
        self._call_module = [module]  # (in a list: not registered as a submodule)
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        # The first bucket closes at _DEFAULT_FIRST_BUCKET_BYTES unless bucket_cap_mb was given
        # (then every bucket is bucket_cap_mb), as PyTorch's reducer does.
        self.bucket_bytes_cap_default = bucket_cap_mb is None
        if bucket_cap_mb is None:
            bucket_cap_mb = 25
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self._world_size = dist.get_world_size()
        if init_sync:
            self._sync_module_states()
        self._params = params
        first_cap = dist._DEFAULT_FIRST_BUCKET_BYTES if self.bucket_bytes_cap_default else self.bucket_bytes_cap
        self._buckets = _compute_buckets(params, first_cap, self.bucket_bytes_cap)
        self._bucket_of = {}
        for b, bucket in enumerate(self._buckets):
            for index in bucket.indices:
                self._bucket_of[index] = b
        self._expect_backward = False
        self._pending_params = [0] * len(self._buckets)
        self._next_bucket = 0
        self._works = []
        for index, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._make_hook(index))

    def _sync_module_states(self):
        with torch.no_grad():
            for p in self.module.parameters():
                dist._broadcast(p, 0, None, False, "DDP parameters")
            for b in self.module.buffers():
                dist._broadcast(b, 0, None, False, "DDP buffers")

    def _make_hook(self, index):
        def hook(param):
            self._mark_ready(index)
        return hook

    def _prepare_for_backward(self):
        if self._expect_backward and self._next_bucket != 0:
            raise RuntimeError("Expected to have finished reduction in the prior iteration before starting a new one. "
                               "This error indicates that your module has parameters that were not used in producing loss.")
        self._expect_backward = True
        self._next_bucket = 0
        self._works = []
        self._pending_params = [len(b.indices) for b in self._buckets]
        self._ready = [False] * len(self._params)

    def _mark_ready(self, index):
        if not self._expect_backward or self._ready[index]:
            return
        self._ready[index] = True
        b = self._bucket_of[index]
        self._pending_params[b] -= 1
        # Buckets are issued in order, so every rank issues the same sequence of all-reduces.
        while self._next_bucket < len(self._buckets) and self._pending_params[self._next_bucket] == 0:
            self._launch(self._next_bucket)
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finalize()

    def _launch(self, b):
        grads = []
        for index in self._buckets[b].indices:
            grads.append(self._params[index].grad.reshape(-1))
        with torch.no_grad():
            flat = torch.cat(grads) / self._world_size
        # The label names the all-reduce in the run's session (the studio's timeline).
        self._works.append((b, flat, dist._all_reduce(flat, dist.ReduceOp.SUM, None, True, "bucket " + str(b))))

    def _finalize(self):
        with torch.no_grad():
            for b, flat, work in self._works:
                work.wait()
                offset = 0
                for index in self._buckets[b].indices:
                    p = self._params[index]
                    n = p.numel()
                    p.grad.copy_(flat[offset:offset + n].view(p.shape))
                    offset += n
        self._works = []
        self._expect_backward = False
        self._next_bucket = 0

    def no_sync(self):
        return _NoSync(self)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.require_forward_param_sync and self._world_size > 1:
            with torch.no_grad():
                for b in self.module.buffers():
                    dist._broadcast(b, 0, None, False, "DDP buffers")
        if torch.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_for_backward()
        return self._run_ddp_forward(*inputs, **kwargs)

    # Skipped by Dynamo, not recursively, as PyTorch's _inside_ddp_forward is: under
    # torch.compile(DDP(model)) the frame of DDP.forward breaks here ("Attempted to call function
    # marked as skipped") and the wrapped module's forward is compiled as a frame of its own
    # while _active_ddp_module is set, so the DDPOptimizer splits it at bucket boundaries as it
    # does for DDP(torch.compile(model)). (A torch.nn module alone, nn.Sequential, is not
    # compiled then, in PyTorch 2.11 either: 0 graphs.)
    @torch._dynamo._kiln_skipped("DistributedDataParallel._inside_ddp_forward")
    def _run_ddp_forward(self, *inputs, **kwargs):
        DistributedDataParallel._active_ddp_module = self
        try:
            return self._call_module[0](*inputs, **kwargs)
        finally:
            DistributedDataParallel._active_ddp_module = None


class _NoSync:
    def __init__(self, ddp):
        self.ddp = ddp

    def __enter__(self):
        self.old = self.ddp.require_backward_grad_sync
        self.ddp.require_backward_grad_sync = False

    def __exit__(self, *args):
        self.ddp.require_backward_grad_sync = self.old
        return False
