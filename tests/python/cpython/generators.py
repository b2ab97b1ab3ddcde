def count(n):
    i = 0
    while i < n:
        yield i
        i += 1
    return "done"

print(list(count(4)))
g = count(2)
print(next(g), next(g))
try:
    next(g)
except StopIteration as e:
    print("stop", e)
def echo():
    x = yield 1
    while True:
        x = yield x * 2
e = echo()
print(next(e), e.send(5), e.send(7))
def fin():
    try:
        yield 1
        yield 2
    finally:
        print("finally ran")
f = fin()
print(next(f))
f.close()
print(sum(x * x for x in range(5)))
def inner():
    r = yield 1
    yield 2
    return 10
def outer():
    v = yield from inner()
    yield v
print(list(outer()))
def nat():
    i = 0
    while True:
        yield i
        i += 1
for a, b in zip(nat(), "abc"):
    print(a, b)
lst = [1, 2]
for x in lst:
    if x < 4:
        lst.append(x + 2)
print(lst)
r = range(3)
print(list(r), list(r), len(r))
it = iter([1, 2, 3])
print(next(it), list(it))
gen = (i for i in range(3))
print(type(gen).__name__, list(gen), list(gen))
def thrower():
    try:
        yield 1
    except ValueError as e:
        yield "caught " + str(e)
t = thrower(); next(t)
print(t.throw(ValueError("boom")))
