# torch.autograd.Function subclasses applied inside compiled functions (captured without a graph
# break, as Dynamo 2.11 does): the gradients must come from the user's backward, which here is
# deliberately not the derivative of forward, so differentiating the forward's ops would show.
import enum

import torch


class HalfCube(torch.autograd.Function):  # save_for_backward, two outputs, a wrong backward
    @staticmethod
    def forward(ctx, x):
        dx = 3 * x**2
        ctx.save_for_backward(x, dx)
        return x**3, dx

    @staticmethod
    def backward(ctx, g, gdx):
        x, dx = ctx.saved_tensors
        return (g * dx + gdx * 6 * x) * 0.5


class Scale(torch.autograd.Function):  # non-tensor args and ctx attributes
    @staticmethod
    def forward(ctx, x, k, tags):
        ctx.k = k
        ctx.n = x.size(0)
        ctx.tags = tags
        return x * k

    @staticmethod
    def backward(ctx, g):
        res = g * (ctx.k + ctx.n)
        for t in ctx.tags:
            res = res + g * t
        return res, None, None


class Mode(enum.Enum):
    SIN = 0
    COS = 1


class Trig(torch.autograd.Function):  # an enum argument kept on ctx
    @staticmethod
    def forward(ctx, x, mode):
        ctx.save_for_backward(x)
        ctx.mode = mode
        return x.sin() if mode is Mode.SIN else x.cos()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return (g * 2 if ctx.mode is Mode.SIN else g * 3), None


class TimesThreeInplace(torch.autograd.Function):  # mark_dirty on a non-leaf
    @staticmethod
    def forward(ctx, x):
        x.mul_(3)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 5


class SinAndDouble(torch.autograd.Function):  # mark_non_differentiable
    @staticmethod
    def forward(ctx, x):
        b = x * 2
        ctx.mark_non_differentiable(b)
        ctx.save_for_backward(x)
        return x.sin(), b

    @staticmethod
    def backward(ctx, ga, gb):
        (x,) = ctx.saved_tensors
        return ga * x.cos() + 1


class TwoCopies(torch.autograd.Function):  # set_materialize_grads(False)
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone() * 2, x.clone() + 1

    @staticmethod
    def backward(ctx, g1, g2):
        total = None
        if g1 is not None:
            total = g1 * 2
        if g2 is not None:
            total = g2 * 7 if total is None else total + g2 * 7
        return total


class HalfGrad(torch.autograd.Function):  # once_differentiable
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return g * 0.5


class LinearFn(torch.autograd.Function):  # setup_context, needs_input_grad, optional bias
    @staticmethod
    def forward(inp, weight, bias):
        out = inp.mm(weight.t())
        if bias is not None:
            out = out + bias
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        inp, weight, bias = inputs
        ctx.save_for_backward(inp, weight, bias)

    @staticmethod
    def backward(ctx, g):
        inp, weight, bias = ctx.saved_tensors
        gi = gw = gb = None
        if ctx.needs_input_grad[0]:
            gi = g.mm(weight) * 2
        if ctx.needs_input_grad[1]:
            gw = g.t().mm(inp)
        if bias is not None and ctx.needs_input_grad[2]:
            gb = g.sum(0)
        return gi, gw, gb


class ScaleBySum(torch.autograd.Function):  # a list of tensors as an argument
    @staticmethod
    def forward(ctx, x, parts):
        ctx.save_for_backward(parts[0], parts[1])
        return x.clone() * (parts[0] + parts[1])

    @staticmethod
    def backward(ctx, g):
        p0, p1 = ctx.saved_tensors
        return g * (p0 - p1), None


def vals(n, seed, scale=1.0):
    return (torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed) * scale).reshape(-1)


def show(*ts):
    for t in ts:
        print("None" if t is None else [round(v, 4) for v in t.detach().flatten().tolist()])


@torch.compile
def cubes(x):
    a, _ = HalfCube.apply(x)
    b, _ = HalfCube.apply(a)
    return b


x = vals(4, 1, 0.9).requires_grad_()
y = cubes(x)
y.sum().backward()
show(y, x.grad)


@torch.compile
def scaled(x, k):
    return Scale.apply(x, k, [1, 2]) + 1


for n, k in ((3, 2.0), (5, 2.0), (3, 4.0)):
    x = vals(n, 2).requires_grad_()
    y = scaled(x, k)
    (y * y).sum().backward()
    show(y, x.grad)


@torch.compile
def trig(x, mode):
    return Trig.apply(x, mode) * 2


for mode in (Mode.SIN, Mode.COS):
    x = vals(6, 3).requires_grad_()
    y = trig(x, mode)
    y.sum().backward()
    show(y, x.grad)

A = vals(9, 4).reshape(3, 3)


@torch.compile
def dirty(w):
    y = A @ w
    TimesThreeInplace.apply(y)
    return (y * y).sum(), y


w = vals(9, 5).reshape(3, 3).requires_grad_()
loss, y = dirty(w)
loss.backward()
show(loss, y, w.grad)
print(y.requires_grad)


@torch.compile
def nondiff(x):
    return SinAndDouble.apply(x)


x = vals(5, 6).requires_grad_()
a, b = nondiff(x)
print(a.requires_grad, b.requires_grad)
(a * b).sum().backward()
show(a, b, x.grad)


@torch.compile
def copies(x):
    return TwoCopies.apply(x)


x = vals(6, 7).requires_grad_()
a, b = copies(x)
(a * a).sum().backward()
show(x.grad)
x = vals(6, 8).requires_grad_()
a, b = copies(x)
(b * 3).sum().backward()
show(x.grad)


@torch.compile
def half(x):
    return HalfGrad.apply(x) * x


x = vals(6, 9).requires_grad_()
half(x).sum().backward()
show(x.grad)


@torch.compile
def linear(inp, weight, bias=None):
    return LinearFn.apply(inp, weight, bias)


inp = vals(12, 10).reshape(3, 4).requires_grad_()
weight = vals(20, 11, 0.5).reshape(5, 4).requires_grad_()
bias = vals(5, 12, 0.1).requires_grad_()
y = linear(inp, weight, bias)
(y * y).sum().backward()
show(y, inp.grad, weight.grad, bias.grad)
inp2 = vals(12, 13).reshape(3, 4)
weight2 = vals(20, 14, 0.5).reshape(5, 4).requires_grad_()
y2 = linear(inp2, weight2)
y2.sum().backward()
show(y2, inp2.grad, weight2.grad)


@torch.compile
def listed(x, parts):
    return ScaleBySum.apply(x, parts)


x = vals(4, 15).requires_grad_()
p0, p1, p2 = (vals(4, s).requires_grad_() for s in (16, 17, 18))
y = listed(x, [p0, p1])
y.sum().backward()
show(y, x.grad, p0.grad)
x.grad = None
y = listed(x, [p1, p2, p0])
y.sum().backward()
show(y, x.grad, p2.grad)

# Under no_grad the forward alone is compiled; the outputs do not require grad.
with torch.no_grad():
    y = cubes(vals(4, 19).requires_grad_())
print(y.requires_grad)
show(y)
