# A compiled function that returns a closure over its intermediates (defined in a helper it
# calls, with a nonlocal tensor it updates); generator functions called while a compiled frame
# runs are not compiled themselves (their body runs later, outside any capture); a list made
# in the frame and handed to an eager call at a break is the list the code after it reads.
import contextlib

import torch


@torch.compile
def build(y):
    s = torch.sin(y)

    def outer():
        def add_to(z):
            return s * 2 + z

        return add_to

    return outer()


fn = build(torch.tensor([0.5, 1.0]))
print(fn(torch.tensor([1.0, 2.0])), fn.__name__)


def make():
    v1 = torch.tensor([1.0, 2.0])

    def mid():
        v2 = torch.tensor([10.0, 20.0])

        def step():
            nonlocal v1, v2
            v1 = v1 + 1
            v2 = v2 + 2
            return v1 + v2

        return step

    s = mid()
    s()
    return s


step = torch.compile(make)()
print(step(), step())


log = []


@contextlib.contextmanager
def traced(x):
    y = x.tan()
    try:
        log.append(x.sin())
        torch._dynamo.graph_break()
        yield y
    finally:
        log.append(x.cos())


@torch.compile
def with_ctx(x):
    y = x.sin()
    with traced(x) as z:
        y = y + z.neg()
    return y + x.cos()


print(with_ctx(torch.tensor([0.1, 0.2])), len(log))


def produce(x):
    yield x + 1
    torch._dynamo.graph_break()
    yield x * 2


@torch.compile
def collect(x):
    x = x - 4
    return list(produce(x))


print(collect(torch.tensor([1.0, 2.0])))


@torch._dynamo.disable
def fill(sink, x):
    sink.append(x * 3)


@torch.compile
def shared_list(x):
    sink = []
    fill(sink, x + 1)
    return sink[0] + x, len(sink)


print(shared_list(torch.tensor([1.0, 2.0])))
