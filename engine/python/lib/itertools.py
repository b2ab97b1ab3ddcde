"""Iterator building blocks (Kiln's itertools, written from the documentation).

Each function returns a lazy iterator (a generator); they consume their inputs only as far as
the caller advances them, as CPython's do.
"""

__all__ = ["accumulate", "batched", "chain", "combinations", "combinations_with_replacement",
           "compress", "count", "cycle", "dropwhile", "filterfalse", "groupby", "islice",
           "pairwise", "permutations", "product", "repeat", "starmap", "takewhile", "tee",
           "zip_longest"]


def _is_number(x):
    return not isinstance(x, (str, list, tuple, dict)) and x is not None


# ---------------------------------------------------------------- infinite iterators

def count(start=0, step=1):
    """count(10) -> 10 11 12 13 ...; count(2.5, 0.5) -> 2.5 3.0 3.5 ..."""
    if not _is_number(start) or not _is_number(step):
        raise TypeError("a number is required")
    n = start
    while True:
        yield n
        n += step


def cycle(iterable):
    """cycle('ABC') -> A B C A B C A ..."""
    saved = []
    for element in iterable:
        yield element
        saved.append(element)
    if not saved:
        return
    while True:
        for element in saved:
            yield element


def repeat(object, times=None):
    """repeat(10, 3) -> 10 10 10; without times, forever."""
    if times is None:
        while True:
            yield object
    else:
        i = 0
        while i < times:
            yield object
            i += 1


# ---------------------------------------------------------------- terminating on the shortest input

def accumulate(iterable, func=None, *, initial=None):
    """accumulate([1,2,3,4,5]) -> 1 3 6 10 15; with func, running func(total, element)."""
    it = iter(iterable)
    total = initial
    if initial is None:
        try:
            total = next(it)
        except StopIteration:
            return
    yield total
    for element in it:
        total = total + element if func is None else func(total, element)
        yield total


def _chain_from_iterable(iterables):
    for it in iterables:
        for element in it:
            yield element


class chain:
    """chain('ABC', 'DEF') -> A B C D E F; chain.from_iterable(['ABC', 'DEF']) likewise."""

    def __init__(self, *iterables):
        self._gen = _chain_from_iterable(iterables)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    @classmethod
    def from_iterable(cls, iterables):
        obj = cls()
        obj._gen = _chain_from_iterable(iterables)
        return obj


def compress(data, selectors):
    """compress('ABCDEF', [1,0,1,0,1,1]) -> A C E F"""
    for d, s in zip(data, selectors):
        if s:
            yield d


def dropwhile(predicate, iterable):
    """dropwhile(lambda x: x<5, [1,4,6,4,1]) -> 6 4 1"""
    it = iter(iterable)
    for x in it:
        if not predicate(x):
            yield x
            break
    for x in it:
        yield x


def takewhile(predicate, iterable):
    """takewhile(lambda x: x<5, [1,4,6,4,1]) -> 1 4"""
    for x in iterable:
        if predicate(x):
            yield x
        else:
            break


def filterfalse(predicate, iterable):
    """filterfalse(lambda x: x%2, range(10)) -> 0 2 4 6 8"""
    if predicate is None:
        for x in iterable:
            if not x:
                yield x
    else:
        for x in iterable:
            if not predicate(x):
                yield x


class _GroupbyState:
    def __init__(self, iterable, key):
        self.it = iter(iterable)
        self.keyfunc = key
        self.exhausted = False
        self.has_current = False
        self.current_value = None
        self.current_key = None
        self.generation = 0  # which group the shared iterator is serving

    def advance(self):
        try:
            value = next(self.it)
        except StopIteration:
            self.exhausted = True
            self.has_current = False
            return False
        self.current_value = value
        self.current_key = value if self.keyfunc is None else self.keyfunc(value)
        self.has_current = True
        return True


def _grouper(state, tgtkey, generation):
    while state.generation == generation and state.has_current and state.current_key == tgtkey:
        value = state.current_value
        yield value
        if state.generation != generation:
            return
        if not state.advance():
            return


def groupby(iterable, key=None):
    """groupby('AAAABBBCCD') -> (A, AAAA) (B, BBB) (C, CC) (D, D): consecutive runs of equal keys.
    Advancing to the next group invalidates the previous group's iterator."""
    state = _GroupbyState(iterable, key)
    if not state.advance():
        return
    while True:
        tgtkey = state.current_key
        state.generation += 1
        generation = state.generation
        yield (tgtkey, _grouper(state, tgtkey, generation))
        # Skip what is left of this group.
        while state.has_current and state.current_key == tgtkey:
            if not state.advance():
                break
        if not state.has_current:
            return


def islice(iterable, *args):
    """islice('ABCDEFG', 2) -> A B; islice('ABCDEFG', 2, None) -> C D E F G;
    islice('ABCDEFG', 0, None, 2) -> A C E G"""
    if len(args) == 0 or len(args) > 3:
        raise TypeError("islice expected at most 4 arguments, got " + str(len(args) + 1)
                        if len(args) > 3 else "islice expected at least 2 arguments, got 1")
    if len(args) == 1:
        start, stop, step = 0, args[0], 1
    else:
        start = args[0]
        stop = args[1]
        step = args[2] if len(args) == 3 else 1
    if start is None:
        start = 0
    if step is None:
        step = 1
    if stop is not None and (not isinstance(stop, int) or stop < 0):
        raise ValueError("Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if not isinstance(start, int) or start < 0:
        raise ValueError("Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if not isinstance(step, int) or step <= 0:
        raise ValueError("Step for islice() must be a positive integer or None.")
    return _islice(iter(iterable), start, stop, step)


def _islice(it, start, stop, step):
    i = 0
    nexti = start
    if stop is not None and start >= stop:
        # still consume up to start, as CPython does
        while i < start:
            try:
                next(it)
            except StopIteration:
                return
            i += 1
        return
    for element in it:
        if i == nexti:
            yield element
            nexti += step
            if stop is not None and nexti >= stop:
                # consume the remaining up to stop
                i += 1
                while i < stop:
                    try:
                        next(it)
                    except StopIteration:
                        return
                    i += 1
                return
        i += 1


def starmap(function, iterable):
    """starmap(pow, [(2,5), (3,2), (10,3)]) -> 32 9 1000"""
    for args in iterable:
        yield function(*args)


class _TeeBuffer:
    def __init__(self, iterable):
        self.it = iter(iterable)
        self.items = []
        self.base = 0          # index in the stream of items[0]
        self.positions = []    # each tee iterator's next index
        self.done = False


def _tee_iter(buf, slot):
    while True:
        pos = buf.positions[slot]
        idx = pos - buf.base
        if idx < len(buf.items):
            value = buf.items[idx]
        else:
            if buf.done:
                return
            try:
                value = next(buf.it)
            except StopIteration:
                buf.done = True
                return
            buf.items.append(value)
        buf.positions[slot] = pos + 1
        # Drop items every iterator has passed.
        low = min(buf.positions)
        if low > buf.base:
            drop = low - buf.base
            buf.items = buf.items[drop:]
            buf.base = low
        yield value


def tee(iterable, n=2):
    """tee(it, n) -> n independent iterators over the same items."""
    if not isinstance(n, int):
        raise TypeError("integer argument expected, got " + type(n).__name__)
    if n < 0:
        raise ValueError("n must be >= 0")
    if n == 0:
        return ()
    buf = _TeeBuffer(iterable)
    buf.positions = [0] * n
    return tuple([_tee_iter(buf, i) for i in range(n)])


def zip_longest(*iterables, fillvalue=None):
    """zip_longest('ABCD', 'xy', fillvalue='-') -> Ax By C- D-"""
    iterators = [iter(it) for it in iterables]
    num_active = len(iterators)
    if not num_active:
        return
    while True:
        values = []
        for i in range(len(iterators)):
            it = iterators[i]
            if it is None:
                values.append(fillvalue)
                continue
            try:
                value = next(it)
            except StopIteration:
                num_active -= 1
                if not num_active:
                    return
                iterators[i] = None
                value = fillvalue
            values.append(value)
        yield tuple(values)


def pairwise(iterable):
    """pairwise('ABCDEFG') -> AB BC CD DE EF FG"""
    it = iter(iterable)
    try:
        a = next(it)
    except StopIteration:
        return
    for b in it:
        yield (a, b)
        a = b


def batched(iterable, n):
    """batched('ABCDEFG', 3) -> ABC DEF G (tuples)"""
    if n < 1:
        raise ValueError("n must be at least one")
    it = iter(iterable)
    while True:
        batch = []
        for _ in range(n):
            try:
                batch.append(next(it))
            except StopIteration:
                break
        if not batch:
            return
        yield tuple(batch)
        if len(batch) < n:
            return


# ---------------------------------------------------------------- combinatoric iterators

def product(*iterables, repeat=1):
    """product('ABCD', 'xy') -> Ax Ay Bx By Cx Cy Dx Dy; product(range(2), repeat=3) -> 000 001 ..."""
    if repeat < 0:
        raise ValueError("repeat argument cannot be negative")
    pools = [tuple(pool) for pool in iterables] * repeat
    for pool in pools:
        if not pool:
            return
    n = len(pools)
    indices = [0] * n
    yield tuple([pool[0] for pool in pools])
    while True:
        i = n - 1
        while i >= 0:
            indices[i] += 1
            if indices[i] < len(pools[i]):
                break
            indices[i] = 0
            i -= 1
        if i < 0:
            return
        yield tuple([pools[j][indices[j]] for j in range(n)])


def permutations(iterable, r=None):
    """permutations('ABCD', 2) -> AB AC AD BA BC BD CA CB CD DA DB DC (tuples, in
    lexicographic order of positions)"""
    pool = tuple(iterable)
    n = len(pool)
    r = n if r is None else r
    if r < 0:
        raise ValueError("r must be non-negative")
    if r > n:
        return
    # Position tuples in lexicographic order: advance the rightmost position that can take a
    # larger unused index, then fill the rest with the smallest unused indices.
    c = list(range(r))
    yield tuple([pool[i] for i in c])
    while True:
        i = r - 1
        advanced = False
        while i >= 0:
            prefix = c[:i]
            v = c[i] + 1
            while v < n and v in prefix:
                v += 1
            if v < n:
                c[i] = v
                rest = [k for k in range(n) if k not in c[:i + 1]]
                c = c[:i + 1] + rest[:r - i - 1]
                advanced = True
                break
            i -= 1
        if not advanced:
            return
        yield tuple([pool[k] for k in c])


def combinations(iterable, r):
    """combinations('ABCD', 2) -> AB AC AD BC BD CD"""
    pool = tuple(iterable)
    n = len(pool)
    if r < 0:
        raise ValueError("r must be non-negative")
    if r > n:
        return
    indices = list(range(r))
    yield tuple([pool[i] for i in indices])
    while True:
        i = r - 1
        while i >= 0 and indices[i] == i + n - r:
            i -= 1
        if i < 0:
            return
        indices[i] += 1
        for j in range(i + 1, r):
            indices[j] = indices[j - 1] + 1
        yield tuple([pool[k] for k in indices])


def combinations_with_replacement(iterable, r):
    """combinations_with_replacement('ABC', 2) -> AA AB AC BB BC CC"""
    pool = tuple(iterable)
    n = len(pool)
    if r < 0:
        raise ValueError("r must be non-negative")
    if not n and r:
        return
    indices = [0] * r
    yield tuple([pool[i] for i in indices])
    while True:
        i = r - 1
        while i >= 0 and indices[i] == n - 1:
            i -= 1
        if i < 0:
            return
        v = indices[i] + 1
        for j in range(i, r):
            indices[j] = v
        yield tuple([pool[k] for k in indices])
