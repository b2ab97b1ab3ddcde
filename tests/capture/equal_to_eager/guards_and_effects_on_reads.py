# Values a compiled frame reads in ways that need a guard or a replayed effect: a float cell of
# the compiled function's closure read by a function defined inside it, a class attribute read
# through super(), a function's default tensor (not whichever global aliases it), tensors
# compared by identity in a set, an iterator passed in, an exception raised after the frame
# changed an object, and a call at a break inside torch.inference_mode().
import torch


def build():
    scale = 0.5
    acc = torch.ones(2)

    def direct():
        def inner():
            nonlocal scale, acc
            scale += 1
            acc = acc + 10
            return acc * scale

        return inner()

    return direct


f = torch.compile(build())
print(f(), f(), f())


class A:
    a = 4


class B(A):
    def add(self, x):
        return x + super().a


obj = B()
g = torch.compile(obj.add)
x = torch.tensor([1.0, 2.0])
print(g(x))
A.a = 5
print(g(x))


def bump(t=torch.zeros(2)):
    t.add_(1)
    return t


@torch.compile
def call():
    return bump()


y = call()
alias = y
print(call())
bump.__defaults__ = (torch.ones(3),)
print(call(), alias)


@torch.compile(fullgraph=True)
def member(p, q):
    p.add_(1)
    bag = set([q])
    return p in bag, p.sum()


p = torch.zeros(3)
print(member(p, torch.ones(3)), member(p, p))


@torch.compile
def take(x, it):
    a = next(it)
    b = next(it)
    return x * a + b


it = iter((1, 2, 3, 4, 5, 6))
print(take(x, it), take(x, it), next(it))


class Picky:
    def __init__(self):
        self.calls = 0

    def run(self, x):
        self.calls += 1
        if x.dim() != 1:
            raise ValueError("expects a vector")
        return x * 2


picky = Picky()
h = torch.compile(lambda t: picky.run(t) + 1)
print(h(x))
try:
    h(torch.ones(2, 2))
except ValueError as e:
    print("ValueError", e)
print(picky.calls)


@torch.compile
def infer(x):
    with torch.inference_mode():
        inside = torch.is_inference_mode_enabled()
    return x + 1, inside


print(infer(x))
