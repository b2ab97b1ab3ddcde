# An exception leaving the compiled frame (Dynamo's "Observed exception") skips the function:
# the call raises the program's own exception, with the side effects made before the raise,
# and later calls run it eagerly; an exception handled inside the frame is traced as usual.
import torch

log = []


@torch.compile
def check(x, limit):
    log.append(limit)
    y = x * 2
    if y.shape[0] > limit:
        raise ValueError("too long: " + str(y.shape[0]))
    return y + 1


@torch.compile
def lookup(x, names, key):
    try:
        pos = names.index(key)
    except ValueError:
        pos = -1
    return x + pos


@torch.compile
def pairs(xs, ys):
    total = 0.0
    for a, b in zip(xs, ys, strict=True):
        total = total + a * b
    return total


x = torch.arange(4.0)
try:
    check(x, 2)
except ValueError as e:
    print("ValueError", e)
print(log)
print(check(x, 8))
print(log)
print(lookup(x, ["a", "b"], "b"))
print(lookup(x, ["a", "b"], "zz"))
print(pairs([1.0, 2.0], [3.0, 4.0]))
try:
    pairs([1.0], [3.0, 4.0])
except ValueError as e:
    print("ValueError", e)
