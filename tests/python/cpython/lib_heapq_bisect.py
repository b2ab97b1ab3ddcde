import heapq
import bisect

h = []
for x in [5, 1, 8, 3, 9, 2, 7]:
    heapq.heappush(h, x)
print(h[0], len(h), [heapq.heappop(h) for _ in range(len(h))], h)
data = [9, 4, 7, 1, 8, 2, 2, 6]
heapq.heapify(data)
print(data[0], sorted(data) == [1, 2, 2, 4, 6, 7, 8, 9])
print(heapq.heappushpop(data, 0), heapq.heappushpop(data, 5), heapq.heapreplace(data, 10), data[0])
out = []
while data:
    out.append(heapq.heappop(data))
print(out)
tasks = []
heapq.heappush(tasks, (2, "write"))
heapq.heappush(tasks, (1, "plan"))
heapq.heappush(tasks, (3, "test"))
heapq.heappush(tasks, (1, "coffee"))
print([heapq.heappop(tasks) for _ in range(4)])
nums = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
print(heapq.nlargest(3, nums), heapq.nsmallest(4, nums), heapq.nlargest(0, nums), heapq.nsmallest(20, [2, 1]))
words = ["pear", "fig", "banana", "kiwi", "apple"]
print(heapq.nlargest(2, words, key=len), heapq.nsmallest(2, words, key=len))
print(list(heapq.merge([1, 4, 7], [2, 5, 8], [3, 6, 9])), list(heapq.merge([], [1], [])))
print(list(heapq.merge(["a", "ccc"], ["bb"], key=len)), list(heapq.merge([5, 3, 1], [4, 2], reverse=True)))
try:
    heapq.heappop([])
except IndexError as e:
    print("IndexError", e)

a = [1, 2, 4, 4, 8]
print(bisect.bisect_left(a, 4), bisect.bisect_right(a, 4), bisect.bisect(a, 4), bisect.bisect(a, 0), bisect.bisect(a, 99))
print(bisect.bisect_left(a, 4, 3), bisect.bisect_right(a, 4, 0, 3), bisect.bisect_left([], 1))
bisect.insort(a, 5)
bisect.insort_left(a, 4)
bisect.insort_right(a, 0)
print(a)


def grade(score, breakpoints=[60, 70, 80, 90], grades="FDCBA"):
    return grades[bisect.bisect(breakpoints, score)]


print([grade(s) for s in [33, 99, 77, 70, 89, 90, 100]])
recs = [("a", 1), ("b", 3), ("c", 5)]
print(bisect.bisect_left(recs, 3, key=lambda r: r[1]), bisect.bisect_right(recs, 3, key=lambda r: r[1]))
bisect.insort(recs, ("d", 4), key=lambda r: r[1])
print(recs)
try:
    bisect.bisect_left(a, 1, -1)
except ValueError as e:
    print("ValueError", e)
