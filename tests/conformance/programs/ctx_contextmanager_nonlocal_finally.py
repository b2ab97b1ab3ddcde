# case: a contextmanager defined in a nested scope writes a nonlocal in its finally using another nonlocal that the caller changed just before entering; both cell values must be correct after each compiled (fullgraph) call
# category: ctx
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_change_parent_nonlocal_1
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def build():
    z = 1
    k = 2

    def create_ctx():
        @contextlib.contextmanager
        def ctx(x):
            nonlocal k
            try:
                yield x.sin()
            finally:
                k = z * 10

        return ctx

    def run_ctx(ctx, x):
        nonlocal z
        z = z + 3
        with ctx(x) as y:
            return y.cos() + z

    @torch.compile(fullgraph=True)
    def fn(x):
        return run_ctx(create_ctx(), x)

    def read():
        return [z, k]

    return fn, read


fn, read = build()
out = fn(det((4,), seed=1))
out_1 = read()
out_2 = fn(det((4,), seed=2))
out_3 = read()
