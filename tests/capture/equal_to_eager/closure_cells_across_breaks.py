# Functions defined in a compiled frame and run after its graph breaks: their cells hold the
# frame's values (not the trace's), nonlocal writes on either side of a break are seen on the
# other, and a second call with other inputs gets its own cells (not the first call's).
import torch


def outer_fn(x):
    acc = x + 1
    scale = x * 2

    def middle(y):
        nonlocal acc
        acc = acc + 8
        extra = y - 3

        def leaf(z):
            nonlocal scale, extra
            scale = scale * 0.5
            extra = extra + 32
            torch._dynamo.graph_break()
            return z + acc + scale + extra

        return leaf(y * 4), extra

    r, e = middle(x + 64)
    return r, e, acc, scale


@torch.compile
def run(x):
    return outer_fn(x)


print(run(torch.tensor([1.0, 2.0])))
print(run(torch.tensor([3.0, 5.0])))


@torch.compile
def forward(inp):
    scaled = inp * 2

    def g(y):
        return scaled + y

    print("break")
    return g(torch.ones(1))


print(forward(torch.tensor([1.0, 2.0, 3.0])))
print(forward(torch.tensor([4.0, 5.0, 6.0])))


@torch.compile
def rebound(x, y):
    op = lambda a, b: a + b  # noqa: E731

    def inner():
        torch._dynamo.graph_break()
        return op(x, y)

    res = inner()
    op = lambda a, b: a - b  # noqa: E731
    return res + inner() * 10


print(rebound(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))


def branchy(t):
    x = torch.zeros(3)

    def write():
        x[0] = backup
        x[2] = backup * 2

    if t.sum() > 0:
        backup = 1.5
    else:
        backup = -1.5
    write()
    return x + t


f = torch.compile(branchy)
print(f(torch.tensor([1.0, 2.0, 3.0])))
print(f(torch.tensor([-1.0, -2.0, -3.0])))


def run_nonlocal():
    result = None

    @torch._dynamo.disable
    def opaque(a):
        return a * 3

    def fn(a):
        nonlocal result
        c = a * 2
        d = opaque(a)
        result = a + c + d

    torch.compile(fn)(torch.tensor([1.0, 2.0]))
    return result


print(run_nonlocal())
