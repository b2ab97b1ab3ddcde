# case: global object with an object attribute (truthiness), a tensor, an int, a tuple of ints and a tuple holding an object; replacing the int tuple attribute between calls fails its guard and the result uses the new tuple values
# category: guard
# from: test/dynamo/test_guard_manager.py::TagSafetyChecks::test_immutable_tag_safe
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Marker:
    pass


class Settings:
    def __init__(self):
        self.a = Marker()
        self.b = det((4,), seed=1)
        self.c = 3
        self.d = (3, 4)
        self.e = (3, Marker())


cfg = Settings()


@torch.compile
def f(x):
    if cfg.a:
        x = torch.sin(x)
    x = x * cfg.b + cfg.c + cfg.d[0] + cfg.d[1] + cfg.e[0]
    if cfg.e[1]:
        x = torch.sin(x)
    return x


x = det((4,), seed=2)
out = f(x)
out_1 = f(x)  # cache hit
cfg.d = (5, 6)
out_2 = f(x)  # tuple attribute replaced: recompile
cfg.e = (1, None)
out_3 = f(x)  # second sin skipped (None is falsy), e[0] changed
