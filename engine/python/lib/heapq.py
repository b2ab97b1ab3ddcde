"""Heap queue algorithm (Kiln's heapq, written from the documentation).

A heap is a list with heap[k] <= heap[2*k+1] and heap[k] <= heap[2*k+2]; heap[0] is the
smallest item. Only the < operator is used to compare items.
"""

__all__ = ["heappush", "heappop", "heapify", "heapreplace", "merge", "nlargest", "nsmallest",
           "heappushpop"]


def _sift_toward_root(heap, start, pos):
    """Move heap[pos] up while it is smaller than its parent (not past start)."""
    item = heap[pos]
    while pos > start:
        parent_pos = (pos - 1) >> 1
        parent = heap[parent_pos]
        if item < parent:
            heap[pos] = parent
            pos = parent_pos
            continue
        break
    heap[pos] = item


def _sift_toward_leaves(heap, pos):
    """Move the item at pos down to a leaf along the smaller children, then back up."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_toward_root(heap, start, pos)


def heappush(heap, item):
    """Push item onto heap, keeping the heap invariant."""
    heap.append(item)
    _sift_toward_root(heap, 0, len(heap) - 1)


def heappop(heap):
    """Pop and return the smallest item; IndexError if the heap is empty."""
    if not heap:
        raise IndexError("index out of range")
    last = heap.pop()
    if heap:
        smallest = heap[0]
        heap[0] = last
        _sift_toward_leaves(heap, 0)
        return smallest
    return last


def heapreplace(heap, item):
    """Pop the smallest item, then push item (the heap does not change size)."""
    if not heap:
        raise IndexError("index out of range")
    smallest = heap[0]
    heap[0] = item
    _sift_toward_leaves(heap, 0)
    return smallest


def heappushpop(heap, item):
    """Push item, then pop and return the smallest item (faster than the two calls)."""
    if heap and heap[0] < item:
        smallest = heap[0]
        heap[0] = item
        _sift_toward_leaves(heap, 0)
        return smallest
    return item


def heapify(x):
    """Rearrange the list x into a heap, in place, in linear time."""
    n = len(x)
    for i in range(n // 2 - 1, -1, -1):
        _sift_toward_leaves(x, i)


def nlargest(n, iterable, key=None):
    """The n largest items: equivalent to sorted(iterable, key=key, reverse=True)[:n]."""
    if n <= 0:
        return []
    return sorted(iterable, key=key, reverse=True)[:n]


def nsmallest(n, iterable, key=None):
    """The n smallest items: equivalent to sorted(iterable, key=key)[:n]."""
    if n <= 0:
        return []
    return sorted(iterable, key=key)[:n]


def merge(*iterables, key=None, reverse=False):
    """Merge sorted inputs into one sorted iterator (lazily); equal items keep input order."""
    entries = []
    order = 0
    for iterable in iterables:
        it = iter(iterable)
        for value in it:
            k = value if key is None else key(value)
            entries.append((k, order, value, it))
            break
        order += 1
    # A small "heap" kept sorted by (key, order); inputs are few, so a linear scan is fine.
    while entries:
        best = 0
        for i in range(1, len(entries)):
            ki, oi = entries[i][0], entries[i][1]
            kb, ob = entries[best][0], entries[best][1]
            before = (kb < ki) if reverse else (ki < kb)
            after = (ki < kb) if reverse else (kb < ki)
            if before or (not after and oi < ob):
                best = i
        k, o, value, it = entries[best]
        yield value
        advanced = False
        for nxt in it:
            nk = nxt if key is None else key(nxt)
            entries[best] = (nk, o, nxt, it)
            advanced = True
            break
        if not advanced:
            entries.pop(best)
