# Self-containing containers print with [...] / {...}; comparing two of them raises
# RecursionError instead of overflowing the stack; identical items compare equal at once.
a = []
a.append(a)
print(a, str(a), repr([a, a]))
d = {}
d["self"] = d
d["list"] = [d]
print(d)
t = ([],)
t[0].append(t)
print(t)
b = []
b.append(b)
try:
    print(a == b)
except RecursionError as e:
    print("RecursionError", e)
print(a == a, [a] == [a])
nan = float("nan")
print([nan] == [nan], nan == nan, {"k": nan} == {"k": nan})
deep = []
cur = deep
for _ in range(100000):
    nxt = []
    cur.append(nxt)
    cur = nxt
try:
    print(len(repr(deep)))
except RecursionError as e:
    print("RecursionError", e)
def f(n):
    return f(n + 1)
try:
    f(0)
except RecursionError as e:
    print("RecursionError", e)
m = -9223372036854775807 - 1
print(m // -1, m % -1, divmod(m, -1))
for r in [range(9223372036854775805, 9223372036854775807), range(-9223372036854775807, -9223372036854775808, -1)]:
    print(list(r))
# Freeing data nested a million deep (lists, dicts, tuples, objects) must not overflow the stack.
deep = []
cur = deep
for _ in range(1000000):
    nxt = []
    cur.append(nxt)
    cur = nxt
deep = cur = nxt = None
d = c = {}
for _ in range(300000):
    n = {}
    c["k"] = n
    c = n
d = c = n = None
t = ()
for _ in range(300000):
    t = (t,)
t = None
class Node:
    def __init__(self, nxt):
        self.nxt = nxt
head = None
for _ in range(300000):
    head = Node(head)
head = None
print("freed")
