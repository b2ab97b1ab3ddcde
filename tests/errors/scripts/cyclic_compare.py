a = []
a.append(a)
b = []
b.append(b)
print(a)
print(a == b)
