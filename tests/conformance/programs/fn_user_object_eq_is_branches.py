# case: ==, !=, is between fresh user-defined instances, None and a class with a custom __eq__ (incl. the reflected call) decide Python branches at trace time; a string records which branches ran
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_obj_eq
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


class AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


@torch.compile
def f(a, b):
    v = a + b
    trail = ""
    if Marker() == None:  # noqa: E711
        trail += "n"
    if Marker() != None:  # noqa: E711
        v = v.sin()
        trail += "s"
    if Marker() is Marker():
        trail += "i"
    if Marker() == Marker():
        trail += "e"
    if Marker() != Marker():
        v = v + 1
        trail += "d"
    if AlwaysEqual() == Marker():
        v = v * 3
        trail += "a"
    if Marker() == AlwaysEqual():  # object.__eq__ gives NotImplemented -> reflected AlwaysEqual.__eq__
        v = v - 0.5
        trail += "r"
    return v, trail


out = f(det((3, 3), seed=1), det((3, 3), seed=2))
