from collections import deque

d = deque([1, 2, 3])
d.append(4)
d.appendleft(0)
print(d, len(d), d[0], d[-1], list(d))
print(d.pop(), d.popleft(), d)
d.extend([4, 5])
d.extendleft([-1, -2])
print(d)
d.rotate(2)
print(d)
d.rotate(-3)
print(d)
d.rotate(0)
print(d, d.count(2), d.index(3), 3 in d, 99 in d)
d.remove(3)
d.reverse()
print(d)
d.insert(1, "x")
d[0] = "first"
del d[2]
print(d)
b = deque(maxlen=3)
for i in range(5):
    b.append(i)
print(b, b.maxlen)
b.appendleft(-1)
print(b)
b.extend([7, 8])
print(b)
b.extendleft([9])
print(b, list(reversed(b)))
try:
    b.insert(0, 1)
except IndexError as e:
    print("IndexError", e)
e = deque()
print(e, bool(e), len(e), e.maxlen)
for op in (e.pop, e.popleft):
    try:
        op()
    except IndexError as err:
        print("IndexError", err)
try:
    deque([1])[5]
except IndexError as err:
    print("IndexError", err)
z = deque([1, 2], maxlen=0)
z.append(3)
print(z)
c = d.copy()
c.clear()
print(c, d == deque(d), d != c, deque([1, 2]) + deque([3]))
q = deque([1, 2])
q += [3]
print(q, q * 2, deque("abc"))
window = deque(maxlen=3)
sums = []
for x in [1, 2, 3, 4, 5, 6]:
    window.append(x)
    sums.append(sum(window))
print(sums)
try:
    deque([], maxlen=-1)
except ValueError as err:
    print("ValueError", err)
print(deque([1, 2]) < deque([1, 3]))
