# torch.distributed: the default process group, its collectives and the env:// rendezvous,
# as torch/distributed/distributed_c10d.py and rendezvous.py word them. The collectives run on
# Gloo through the native `_kiln_*` functions (engine/torch/distributed_api.cpp); processes are
# started by `kiln run --nproc-per-node N`, which sets torchrun's variables and the folder Gloo's
# FileStore meets in (KILN_DIST_STORE). Backends: 'gloo' (CPU tensors) and 'nccl' (CUDA tensors,
# one GPU per process; PyTorch's error without GPUs); 'mpi' and 'ucc' raise NotImplementedError.
import os
import torch

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def is_available():
    return True


class _RedOpType:
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return "<RedOpType." + self.name + ": " + str(self.value) + ">"


class ReduceOp:
    SUM = _RedOpType("SUM", 0)
    AVG = _RedOpType("AVG", 1)
    PRODUCT = _RedOpType("PRODUCT", 2)
    MIN = _RedOpType("MIN", 3)
    MAX = _RedOpType("MAX", 4)
    BAND = _RedOpType("BAND", 5)
    BOR = _RedOpType("BOR", 6)
    BXOR = _RedOpType("BXOR", 7)
    PREMUL_SUM = _RedOpType("PREMUL_SUM", 8)


class Backend:
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"


class Work:
    """A collective issued with async_op=True (it runs on the group's communication thread)."""

    def __init__(self, handle):
        self._wait = handle[0]
        self._done = handle[1]

    def wait(self, timeout=None):
        return self._wait()

    def is_completed(self):
        return self._done()

    def is_success(self):
        return self._done()


class _World:
    backend = None


def _rendezvous_error(msg):
    return ValueError("Error initializing torch.distributed using env:// rendezvous: " + msg)


def _env_or_raise(name):
    value = os.environ.get(name, None)
    if value is None:
        raise _rendezvous_error("environment variable " + name + " expected, but not set")
    return value


def _timeout_seconds(timeout):
    if timeout is None:
        return 1800.0
    if hasattr(timeout, "total_seconds"):
        return float(timeout.total_seconds())
    return float(timeout)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if _kiln_is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        raise NotImplementedError("torch.distributed.init_process_group(store=...) is not supported by Kiln yet")
    if init_method is None:
        init_method = "env://"
    if init_method != "env://":
        raise NotImplementedError("torch.distributed.init_process_group(init_method=" + repr(init_method) +
                                  ") is not supported by Kiln yet (env:// is)")
    name = "gloo" if backend is None else str(backend).lower()
    if name not in ("gloo", "nccl", "mpi", "ucc", "cpu:gloo,cuda:nccl"):
        raise ValueError("Invalid backend: '" + str(backend) + "'")
    # env:// rendezvous: rank, world size, master address and port, in PyTorch's order.
    if rank == -1:
        rank = int(_env_or_raise("RANK"))
    if world_size == -1:
        world_size = int(_env_or_raise("WORLD_SIZE"))
    master_addr = _env_or_raise("MASTER_ADDR")
    master_port = int(_env_or_raise("MASTER_PORT"))
    if name == "nccl" and not torch.cuda.is_available():
        raise ValueError("ProcessGroupNCCL is only supported with GPUs, no GPUs found!")
    if name in ("mpi", "ucc"):
        raise NotImplementedError("torch.distributed's " + name + " backend is not built in Kiln; use backend='gloo' "
                                  "(CPU tensors) or 'nccl' (CUDA tensors)")
    if name == "cpu:gloo,cuda:nccl":
        raise NotImplementedError("torch.distributed with one backend per device type is not supported by Kiln yet; "
                                  "use backend='gloo' (CPU tensors) or 'nccl' (CUDA tensors)")
    store_dir = os.environ.get("KILN_DIST_STORE", None)
    if store_dir is None:
        raise RuntimeError("Kiln's rendezvous meets in the folder `kiln run --nproc-per-node N` creates "
                           "(KILN_DIST_STORE is not set): start the script with kiln run --nproc-per-node N")
    _kiln_init(rank, world_size, store_dir, master_addr + ":" + str(master_port) + "/default_pg",
               _timeout_seconds(timeout), name)
    _World.backend = name


def destroy_process_group(group=None):
    _kiln_destroy()
    _World.backend = None


def is_initialized():
    return _kiln_is_initialized()


def _check_group(group):
    if group is not None:
        raise NotImplementedError("torch.distributed: process groups other than the default one are not supported by Kiln yet")


def get_rank(group=None):
    _check_group(group)
    return _kiln_rank()


def get_world_size(group=None):
    _check_group(group)
    return _kiln_world_size()


def get_backend(group=None):
    _check_group(group)
    return _kiln_backend()


def _issue(handle, async_op):
    work = Work(handle)
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    return _all_reduce(tensor, op, group, async_op, None)


# Kiln's own entry points with a label: it names the collective in the run's session (DDP passes
# "bucket 0" ...); PyTorch's signatures above stay as they are.
def _all_reduce(tensor, op, group, async_op, label):
    _check_group(group)
    return _issue(_kiln_all_reduce(tensor, op.name, label), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    if src is None:
        src = 0 if group_src is None else group_src
    return _broadcast(tensor, src, group, async_op, None)


def _broadcast(tensor, src, group, async_op, label):
    _check_group(group)
    return _issue(_kiln_broadcast(tensor, src, label), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    _check_group(group)
    return _issue(_kiln_barrier(), async_op)
