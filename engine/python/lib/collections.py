"""Container datatypes (Kiln's collections module, written from the documentation):
namedtuple, OrderedDict, defaultdict, Counter, deque, ChainMap, UserDict, UserList.

Where Kiln's interpreter cannot subclass the builtin dict (an instance of the subclass would be
a plain dict), defaultdict and Counter derive from _DictLike, a Python mapping with dict's
methods; where it cannot subclass tuple with a __new__, a namedtuple class is a plain class that
behaves like a tuple. Both probes below pick the real builtin base as soon as the interpreter can.
"""

import collections.abc as _collections_abc
from operator import itemgetter as _itemgetter

__all__ = ["ChainMap", "Counter", "OrderedDict", "UserDict", "UserList", "defaultdict", "deque",
           "namedtuple"]

_sentinel = object()


def _probe_dict_subclass():
    try:
        class _D(dict):
            def __missing__(self, key):
                return 7

            def _probe(self):
                return self["x"]
        d = _D(a=1)
        return type(d) is _D and isinstance(d, dict) and d["a"] == 1 and d._probe() == 7
    except Exception:
        return False


def _probe_tuple_subclass():
    try:
        class _T(tuple):
            def __new__(cls, a):
                return tuple.__new__(cls, (a, a + 1))

            def _probe(self):
                return self[1]
        t = _T(5)
        return type(t) is _T and isinstance(t, tuple) and t._probe() == 6 and len(t) == 2
    except Exception:
        return False


_DICT_SUBCLASSES = _probe_dict_subclass()
_TUPLE_SUBCLASSES = _probe_tuple_subclass()


def _delitem(mapping, key):
    """del mapping[key] (user mappings through __delitem__: Kiln's del statement does not
    dispatch to it yet)."""
    if isinstance(mapping, dict):
        del mapping[key]
    else:
        mapping.__delitem__(key)


def _items_repr(mapping):
    return "{" + ", ".join([repr(k) + ": " + repr(v) for k, v in mapping.items()]) + "}"


class _DictLike:
    """A mapping with the builtin dict's interface (and its __missing__ hook), for interpreters
    whose dict cannot be subclassed."""

    def __init__(self, other=(), **kwargs):
        self._data = {}
        self.update(other, **kwargs)

    def __getitem__(self, key):
        data = self._data
        if key in data:
            return data[key]
        missing = getattr(self, "__missing__", None)
        if missing is not None:
            return missing(key)
        raise KeyError(key)

    def __setitem__(self, key, value):
        self._data[key] = value

    def __delitem__(self, key):
        if key not in self._data:
            raise KeyError(key)
        del self._data[key]

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __reversed__(self):
        return reversed(list(self._data))

    def __len__(self):
        return len(self._data)

    def __bool__(self):
        return len(self._data) > 0

    def __eq__(self, other):
        if isinstance(other, _DictLike):
            other = other._data
        if not isinstance(other, dict):
            return NotImplemented
        return self._data == other

    def __ne__(self, other):
        r = self.__eq__(other)
        if r is NotImplemented:
            return r
        return not r

    def __repr__(self):
        return repr(self._data)

    def keys(self):
        return self._data.keys()

    def values(self):
        return self._data.values()

    def items(self):
        return self._data.items()

    def get(self, key, default=None):
        if key in self._data:
            return self._data[key]
        return default

    def pop(self, key, default=_sentinel):
        if key in self._data:
            value = self._data[key]
            del self._data[key]
            return value
        if default is _sentinel:
            raise KeyError(key)
        return default

    def popitem(self):
        if not self._data:
            raise KeyError("popitem(): dictionary is empty")
        key = list(self._data)[-1]
        value = self._data[key]
        del self._data[key]
        return key, value

    def setdefault(self, key, default=None):
        if key in self._data:
            return self._data[key]
        self[key] = default
        return default

    def update(self, other=(), **kwargs):
        if isinstance(other, dict) or isinstance(other, _DictLike):
            for key in list(other.keys()):
                self[key] = other[key]
        elif hasattr(other, "keys"):
            for key in other.keys():
                self[key] = other[key]
        else:
            for pair in other:
                key, value = pair
                self[key] = value
        for key, value in kwargs.items():
            self[key] = value

    def clear(self):
        self._data = {}

    def copy(self):
        return self.__class__(self)

    def __copy__(self):
        return self.copy()

    @classmethod
    def fromkeys(cls, iterable, value=None):
        d = cls()
        for key in iterable:
            d[key] = value
        return d

    def __or__(self, other):
        if not isinstance(other, (dict, _DictLike)):
            return NotImplemented
        new = self.copy()
        new.update(other)
        return new

    def __ior__(self, other):
        self.update(other)
        return self

    __hash__ = None


_DictBase = dict if _DICT_SUBCLASSES else _DictLike


# ---------------------------------------------------------------- namedtuple

_KEYWORDS = ["False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
             "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
             "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
             "raise", "return", "try", "while", "with", "yield"]


def _isidentifier(s):
    if not s:
        return False
    first = True
    for c in s:
        ok = c == "_" or ("a" <= c and c <= "z") or ("A" <= c and c <= "Z") or c > "\x7f"
        if not first:
            ok = ok or ("0" <= c and c <= "9")
        if not ok:
            return False
        first = False
    return True


def _plural_args(names):
    quoted = ["'" + n + "'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return quoted[0] + " and " + quoted[1]
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _nt_bind(cls, args, kwargs):
    """Bind the arguments of a namedtuple constructor to its fields, with Python's messages."""
    fields = cls._fields
    defaults = cls._field_defaults
    name = cls.__name__ + ".__new__()"
    n = len(fields)
    if len(args) > n:
        lo = n - len(defaults)
        if lo == n:
            takes = str(n + 1)
        else:
            takes = "from " + str(lo + 1) + " to " + str(n + 1)
        raise TypeError(name + " takes " + takes + " positional argument" + ("" if n == 0 and lo == n else "s") +
                        " but " + str(len(args) + 1) + " were given")
    for key in kwargs:
        if key not in fields:
            raise TypeError(name + " got an unexpected keyword argument '" + key + "'")
        if fields.index(key) < len(args):
            raise TypeError(name + " got multiple values for argument '" + key + "'")
    values = list(args)
    missing = []
    for i in range(len(args), n):
        f = fields[i]
        if f in kwargs:
            values.append(kwargs[f])
        elif f in defaults:
            values.append(defaults[f])
        else:
            missing.append(f)
            values.append(None)
    if missing:
        raise TypeError(name + " missing " + str(len(missing)) + " required positional argument" +
                        ("s" if len(missing) > 1 else "") + ": " + _plural_args(missing))
    return tuple(values)


class _NamedTupleMethods:
    """The methods every namedtuple class has, whatever it stores its values in."""
    __slots__ = ()

    def __repr__(self):
        parts = []
        i = 0
        for name in self._fields:
            parts.append(name + "=" + repr(self[i]))
            i += 1
        return self.__class__.__name__ + "(" + ", ".join(parts) + ")"

    def _asdict(self):
        d = {}
        i = 0
        for name in self._fields:
            d[name] = self[i]
            i += 1
        return d

    def _replace(self, **kwds):
        values = []
        i = 0
        for name in self._fields:
            if name in kwds:
                values.append(kwds.pop(name))
            else:
                values.append(self[i])
            i += 1
        if kwds:
            raise ValueError("Got unexpected field names: " + repr(list(kwds)))
        return self._make(values)

    @classmethod
    def _make(cls, iterable):
        values = tuple(iterable)
        if len(values) != len(cls._fields):
            raise TypeError("Expected " + str(len(cls._fields)) + " arguments, got " + str(len(values)))
        return cls._from_values(values)

    def __getnewargs__(self):
        return tuple(self)


if _TUPLE_SUBCLASSES:
    class _NamedTupleBase(_NamedTupleMethods, tuple):
        __slots__ = ()

        def __new__(cls, *args, **kwargs):
            return tuple.__new__(cls, _nt_bind(cls, args, kwargs))

        @classmethod
        def _from_values(cls, values):
            return tuple.__new__(cls, values)

        def __copy__(self):
            return self

        def __deepcopy__(self, memo):
            import copy
            return self._make([copy.deepcopy(v, memo) for v in self])

    def _field_property(index, name):
        def get(self):
            return tuple.__getitem__(self, index)
        get.__name__ = name
        return property(get, doc="Alias for field number " + str(index))
else:
    class _NamedTupleBase(_NamedTupleMethods):
        """A namedtuple for interpreters that cannot subclass tuple: it holds a tuple and
        answers the tuple protocol itself."""
        __slots__ = ("_tuple",)

        def __init__(self, *args, **kwargs):
            self._tuple = _nt_bind(type(self), args, kwargs)

        @classmethod
        def _from_values(cls, values):
            return cls(*values)

        def __getitem__(self, index):
            return self._tuple[index]

        def __len__(self):
            return len(self._tuple)

        def __iter__(self):
            return iter(self._tuple)

        def __reversed__(self):
            return reversed(self._tuple)

        def __contains__(self, value):
            return value in self._tuple

        def __eq__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple == other

        def __ne__(self, other):
            return not self.__eq__(other)

        def __lt__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple < other

        def __le__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple <= other

        def __gt__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple > other

        def __ge__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple >= other

        def __hash__(self):
            return hash(self._tuple)

        def __add__(self, other):
            if isinstance(other, _NamedTupleBase):
                other = other._tuple
            return self._tuple + other

        def __radd__(self, other):
            return other + self._tuple

        def __mul__(self, n):
            return self._tuple * n


        def __bool__(self):
            return len(self._tuple) > 0

        def count(self, value):
            return self._tuple.count(value)

        def index(self, value, *args):
            return self._tuple.index(value, *args)

        def __copy__(self):
            return self

        def __deepcopy__(self, memo):
            import copy
            return self._make([copy.deepcopy(v, memo) for v in self._tuple])

    _NamedTupleBase.__rmul__ = _NamedTupleBase.__mul__

    def _field_property(index, name):
        def get(self):
            return self._tuple[index]
        return property(get)


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    """Return a new tuple subclass named typename whose fields are reachable by name
    (p.x) as well as by index (p[0])."""
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    field_names = [str(name) for name in field_names]
    typename = str(typename)
    if rename:
        seen = []
        index = 0
        for name in list(field_names):
            if (not _isidentifier(name) or name in _KEYWORDS or name.startswith("_") or name in seen):
                field_names[index] = "_" + str(index)
            seen.append(name)
            index += 1
    for name in [typename] + field_names:
        if not _isidentifier(name):
            raise ValueError("Type names and field names must be valid identifiers: " + repr(name))
        if name in _KEYWORDS:
            raise ValueError("Type names and field names cannot be a keyword: " + repr(name))
    seen = []
    for name in field_names:
        if name.startswith("_") and not rename:
            raise ValueError("Field names cannot start with an underscore: " + repr(name))
        if name in seen:
            raise ValueError("Encountered duplicate field name: " + repr(name))
        seen.append(name)
    field_defaults = {}
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > len(field_names):
            raise TypeError("Got more default values than field names")
        first = len(field_names) - len(defaults)
        for i in range(len(defaults)):
            field_defaults[field_names[first + i]] = defaults[i]

    class _NamedTuple(_NamedTupleBase):
        __slots__ = ()

    cls = _NamedTuple
    cls.__name__ = typename
    cls.__qualname__ = typename
    cls.__doc__ = typename + "(" + ", ".join(field_names) + ")"
    cls._fields = tuple(field_names)
    cls._field_defaults = field_defaults
    cls.__match_args__ = tuple(field_names)
    index = 0
    for name in field_names:
        setattr(cls, name, _field_property(index, name))
        index += 1
    try:
        cls.__module__ = module if module is not None else "__main__"
    except (AttributeError, TypeError):
        pass
    return cls


# ---------------------------------------------------------------- OrderedDict

class OrderedDict(dict):
    """A dict that remembers insertion order and can reorder it (move_to_end, popitem(last))."""

    def move_to_end(self, key, last=True):
        if key not in self:
            raise KeyError(key)
        value = dict.pop(self, key)
        if last:
            dict.__setitem__(self, key, value)
            return
        rest = list(self.items())
        dict.clear(self)
        dict.__setitem__(self, key, value)
        for k, v in rest:
            dict.__setitem__(self, k, v)

    def popitem(self, last=True):
        if not self:
            raise KeyError("dictionary is empty")
        keys = list(self)
        key = keys[-1] if last else keys[0]
        value = dict.pop(self, key)
        return key, value

    def __repr__(self):
        if not self:
            return self.__class__.__name__ + "()"
        return self.__class__.__name__ + "(" + repr(list(self.items())) + ")"

    def __eq__(self, other):
        if isinstance(other, OrderedDict):
            if len(self) != len(other):
                return False
            for a, b in zip(self.items(), other.items()):
                if a != b:
                    return False
            return True
        return dict.__eq__(self, other)

    def __ne__(self, other):
        r = self.__eq__(other)
        if r is NotImplemented:
            return r
        return not r

    def copy(self):
        return self.__class__(self)

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = self.__class__(self)
        new.update(other)
        return new

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        new = self.__class__(other)
        new.update(self)
        return new

    __hash__ = None


# ---------------------------------------------------------------- defaultdict

class defaultdict(_DictBase):
    """A dict that calls default_factory() to supply a missing key's value (and stores it)."""

    def __init__(self, default_factory=None, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError("first argument must be callable or None")
        self.default_factory = default_factory
        _DictBase.__init__(self, *args, **kwargs)

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def __repr__(self):
        return self.__class__.__name__ + "(" + repr(self.default_factory) + ", " + _items_repr(self) + ")"

    def copy(self):
        return self.__class__(self.default_factory, self)


    def __or__(self, other):
        if not isinstance(other, (dict, _DictLike)):
            return NotImplemented
        new = self.__class__(self.default_factory, self)
        new.update(other)
        return new


# ---------------------------------------------------------------- Counter

defaultdict.__copy__ = defaultdict.copy

class Counter(_DictBase):
    """A dict that counts hashable things: Counter('abca')['a'] == 2; missing keys count 0."""

    def __init__(self, iterable=None, /, **kwds):
        _DictBase.__init__(self)
        self.update(iterable, **kwds)

    def __missing__(self, key):
        return 0

    def total(self):
        return sum(self.values())

    def most_common(self, n=None):
        ordered = sorted(self.items(), key=_itemgetter(1), reverse=True)
        if n is None:
            return ordered
        if n < 0:
            n = 0
        return ordered[:n]

    def elements(self):
        for elem, count in list(self.items()):
            i = 0
            while i < count:
                yield elem
                i += 1

    @classmethod
    def fromkeys(cls, iterable, v=None):
        raise NotImplementedError("Counter.fromkeys() is undefined.  Use Counter(iterable) instead.")

    def update(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, (dict, _DictLike)) or hasattr(iterable, "keys"):
                if self:
                    for elem in list(iterable.keys()):
                        self[elem] = iterable[elem] + self.get(elem, 0)
                else:
                    for elem in list(iterable.keys()):
                        self[elem] = iterable[elem]
            else:
                for elem in iterable:
                    self[elem] = self.get(elem, 0) + 1
        if kwds:
            self.update(kwds)

    def subtract(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, (dict, _DictLike)) or hasattr(iterable, "keys"):
                for elem in list(iterable.keys()):
                    self[elem] = self.get(elem, 0) - iterable[elem]
            else:
                for elem in iterable:
                    self[elem] = self.get(elem, 0) - 1
        if kwds:
            self.subtract(kwds)

    def copy(self):
        return self.__class__(self)

    def __delitem__(self, elem):
        if elem in self:
            _DictBase.__delitem__(self, elem)

    def __repr__(self):
        if not self:
            return self.__class__.__name__ + "()"
        return self.__class__.__name__ + "({" + ", ".join([repr(k) + ": " + repr(v) for k, v in self.most_common()]) + "})"

    # Multiset comparisons (missing elements count zero).
    def __eq__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        for c in (self, other):
            for e in c:
                if self[e] != other[e]:
                    return False
        return True

    def __ne__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return not self == other

    def __le__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        for c in (self, other):
            for e in c:
                if not self[e] <= other[e]:
                    return False
        return True

    def __lt__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return self <= other and self != other

    def __ge__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        for c in (self, other):
            for e in c:
                if not self[e] >= other[e]:
                    return False
        return True

    def __gt__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        return self >= other and self != other

    # Multiset arithmetic: results keep only positive counts.
    def __add__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            newcount = count + other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __sub__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            newcount = count - other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count < 0:
                result[elem] = 0 - count
        return result

    def __or__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = other_count if count < other_count else count
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __and__(self, other):
        if not isinstance(other, Counter):
            return NotImplemented
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = count if count < other_count else other_count
            if newcount > 0:
                result[elem] = newcount
        return result

    def __pos__(self):
        result = Counter()
        for elem, count in self.items():
            if count > 0:
                result[elem] = count
        return result

    def __neg__(self):
        result = Counter()
        for elem, count in self.items():
            if count < 0:
                result[elem] = 0 - count
        return result

    def _keep_positive(self):
        for elem in [e for e, c in self.items() if not c > 0]:
            self.__delitem__(elem)
        return self

    def __iadd__(self, other):
        for elem, count in other.items():
            self[elem] += count
        return self._keep_positive()

    def __isub__(self, other):
        for elem, count in other.items():
            self[elem] -= count
        return self._keep_positive()

    def __ior__(self, other):
        for elem, other_count in other.items():
            count = self[elem]
            if other_count > count:
                self[elem] = other_count
        return self._keep_positive()

    def __iand__(self, other):
        for elem, count in list(self.items()):
            other_count = other[elem]
            if other_count < count:
                self[elem] = other_count
        return self._keep_positive()


# ---------------------------------------------------------------- deque

class deque:
    """A double-ended queue: appends and pops at both ends; with maxlen, a bounded buffer that
    discards items from the opposite end."""

    def __init__(self, iterable=(), maxlen=None):
        if maxlen is not None:
            if not isinstance(maxlen, int):
                raise TypeError("an integer is required")
            if maxlen < 0:
                raise ValueError("maxlen must be non-negative")
        self._maxlen = maxlen
        self._items = []
        for x in iterable:
            self.append(x)

    @property
    def maxlen(self):
        return self._maxlen

    def append(self, x):
        if self._maxlen is not None:
            if self._maxlen == 0:
                return
            if len(self._items) >= self._maxlen:
                self._items.pop(0)
        self._items.append(x)

    def appendleft(self, x):
        if self._maxlen is not None:
            if self._maxlen == 0:
                return
            if len(self._items) >= self._maxlen:
                self._items.pop()
        self._items.insert(0, x)

    def pop(self):
        if not self._items:
            raise IndexError("pop from an empty deque")
        return self._items.pop()

    def popleft(self):
        if not self._items:
            raise IndexError("pop from an empty deque")
        return self._items.pop(0)

    def extend(self, iterable):
        if iterable is self:
            iterable = list(self._items)
        for x in iterable:
            self.append(x)

    def extendleft(self, iterable):
        if iterable is self:
            iterable = list(self._items)
        for x in iterable:
            self.appendleft(x)

    def clear(self):
        self._items = []

    def copy(self):
        return deque(self._items, self._maxlen)


    def count(self, x):
        n = 0
        for v in self._items:
            if v is x or v == x:
                n += 1
        return n

    def index(self, x, start=0, stop=None):
        n = len(self._items)
        if start < 0:
            start = max(n + start, 0)
        if stop is None:
            stop = n
        elif stop < 0:
            stop = n + stop
        i = start
        while i < stop and i < n:
            v = self._items[i]
            if v is x or v == x:
                return i
            i += 1
        raise ValueError(repr(x) + " is not in deque")

    def insert(self, i, x):
        if self._maxlen is not None and len(self._items) >= self._maxlen:
            raise IndexError("deque already at its maximum size")
        self._items.insert(i, x)

    def remove(self, value):
        i = 0
        for v in self._items:
            if v is value or v == value:
                self._items.pop(i)
                return
            i += 1
        raise ValueError(repr(value) + " is not in deque")

    def reverse(self):
        self._items.reverse()

    def rotate(self, n=1):
        length = len(self._items)
        if length <= 1:
            return
        n = n % length
        if n:
            self._items = self._items[length - n:] + self._items[:length - n]

    def _index(self, i):
        if not isinstance(i, int):
            raise TypeError("sequence index must be integer, not '" + type(i).__name__ + "'")
        n = len(self._items)
        if i < 0:
            i += n
        if i < 0 or i >= n:
            raise IndexError("deque index out of range")
        return i

    def __getitem__(self, i):
        return self._items[self._index(i)]

    def __setitem__(self, i, value):
        self._items[self._index(i)] = value

    def __delitem__(self, i):
        self._items.pop(self._index(i))

    def __len__(self):
        return len(self._items)

    def __bool__(self):
        return len(self._items) > 0

    def __iter__(self):
        return iter(self._items)

    def __reversed__(self):
        return reversed(self._items)

    def __contains__(self, x):
        for v in self._items:
            if v is x or v == x:
                return True
        return False

    def __eq__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items == other._items

    def __ne__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items != other._items

    def __lt__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items < other._items

    def __le__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items <= other._items

    def __gt__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items > other._items

    def __ge__(self, other):
        if not isinstance(other, deque):
            return NotImplemented
        return self._items >= other._items

    def __add__(self, other):
        if not isinstance(other, deque):
            raise TypeError('can only concatenate deque (not "' + type(other).__name__ + '") to deque')
        new = deque(self._items, self._maxlen)
        new.extend(other._items)
        return new

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __mul__(self, n):
        new = deque((), self._maxlen)
        for _ in range(n):
            new.extend(self._items)
        return new


    def __imul__(self, n):
        items = list(self._items)
        self._items = []
        for _ in range(n):
            self.extend(items)
        return self

    def __repr__(self):
        if self._maxlen is None:
            return "deque(" + repr(self._items) + ")"
        return "deque(" + repr(self._items) + ", maxlen=" + str(self._maxlen) + ")"

    __hash__ = None


# ---------------------------------------------------------------- ChainMap

deque.__copy__ = deque.copy
deque.__rmul__ = deque.__mul__

class ChainMap(_collections_abc.MutableMapping):
    """Several mappings searched in order as one; writes and deletions go to the first."""

    def __init__(self, *maps):
        self.maps = list(maps) or [{}]

    def __missing__(self, key):
        raise KeyError(key)

    def __getitem__(self, key):
        for mapping in self.maps:
            try:
                return mapping[key]
            except KeyError:
                pass
        return self.__missing__(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def _keys(self):
        d = {}
        for mapping in reversed(self.maps):
            for k in mapping:
                d[k] = None
        return d

    def __len__(self):
        return len(self._keys())

    def __iter__(self):
        return iter(list(self._keys()))

    def __contains__(self, key):
        for m in self.maps:
            if key in m:
                return True
        return False

    def __bool__(self):
        for m in self.maps:
            if m:
                return True
        return False

    def __repr__(self):
        return self.__class__.__name__ + "(" + ", ".join([repr(m) for m in self.maps]) + ")"

    @classmethod
    def fromkeys(cls, iterable, *args):
        d = {}
        value = args[0] if args else None
        for k in iterable:
            d[k] = value
        return cls(d)

    def copy(self):
        return self.__class__(self.maps[0].copy(), *self.maps[1:])


    def new_child(self, m=None, **kwargs):
        if m is None:
            m = kwargs
        elif kwargs:
            m.update(kwargs)
        return self.__class__(m, *self.maps)

    @property
    def parents(self):
        return self.__class__(*self.maps[1:])

    def __setitem__(self, key, value):
        self.maps[0][key] = value

    def __delitem__(self, key):
        try:
            _delitem(self.maps[0], key)
        except KeyError:
            raise KeyError("Key not found in the first mapping: " + repr(key))

    def popitem(self):
        try:
            return self.maps[0].popitem()
        except KeyError:
            raise KeyError("No keys found in the first mapping.")

    def pop(self, key, *args):
        try:
            return self.maps[0].pop(key, *args)
        except KeyError:
            raise KeyError("Key not found in the first mapping: " + repr(key))

    def clear(self):
        for k in list(self.maps[0]):
            _delitem(self.maps[0], k)

    def __or__(self, other):
        m = self.copy()
        m.maps[0].update(other)
        return m

    def __ior__(self, other):
        self.maps[0].update(other)
        return self


# ---------------------------------------------------------------- UserDict / UserList

ChainMap.__copy__ = ChainMap.copy

class UserDict(_collections_abc.MutableMapping):
    """A mapping whose contents live in the dict self.data (for subclassing)."""

    def __init__(self, dict=None, /, **kwargs):
        self.data = {}
        if dict is not None:
            self.update(dict)
        if kwargs:
            self.update(kwargs)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, key):
        if key in self.data:
            return self.data[key]
        missing = getattr(self.__class__, "__missing__", None)
        if missing is not None:
            return missing(self, key)
        raise KeyError(key)

    def __setitem__(self, key, item):
        self.data[key] = item

    def __delitem__(self, key):
        del self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __contains__(self, key):
        return key in self.data

    def get(self, key, default=None):
        if key in self:
            return self[key]
        return default

    def __repr__(self):
        return repr(self.data)

    def copy(self):
        new = self.__class__()
        new.data = dict(self.data)
        return new

    @classmethod
    def fromkeys(cls, iterable, value=None):
        d = cls()
        for key in iterable:
            d[key] = value
        return d


class UserList(_collections_abc.MutableSequence):
    """A sequence whose contents live in the list self.data (for subclassing)."""

    def __init__(self, initlist=None):
        self.data = []
        if initlist is not None:
            if isinstance(initlist, UserList):
                self.data = list(initlist.data)
            else:
                self.data = list(initlist)

    def __repr__(self):
        return repr(self.data)

    def _unwrap(self, other):
        return other.data if isinstance(other, UserList) else other

    def __lt__(self, other):
        return self.data < self._unwrap(other)

    def __le__(self, other):
        return self.data <= self._unwrap(other)

    def __eq__(self, other):
        return self.data == self._unwrap(other)

    def __gt__(self, other):
        return self.data > self._unwrap(other)

    def __ge__(self, other):
        return self.data >= self._unwrap(other)

    def __contains__(self, item):
        return item in self.data

    def __len__(self):
        return len(self.data)

    def __iter__(self):
        return iter(self.data)

    def __getitem__(self, i):
        if isinstance(i, int):
            return self.data[i]
        return self.__class__(self.data[i])

    def __setitem__(self, i, item):
        self.data[i] = item

    def __delitem__(self, i):
        del self.data[i]

    def __add__(self, other):
        if isinstance(other, UserList):
            return self.__class__(self.data + other.data)
        return self.__class__(self.data + list(other))

    def __mul__(self, n):
        return self.__class__(self.data * n)


    def append(self, item):
        self.data.append(item)

    def insert(self, i, item):
        self.data.insert(i, item)

    def pop(self, i=-1):
        return self.data.pop(i)

    def remove(self, item):
        self.data.remove(item)

    def clear(self):
        self.data.clear()

    def copy(self):
        return self.__class__(self)

    def count(self, item):
        return self.data.count(item)

    def index(self, item, *args):
        return self.data.index(item, *args)

    def reverse(self):
        self.data.reverse()

    def sort(self, /, *args, **kwds):
        self.data = sorted(self.data, *args, **kwds)

    def extend(self, other):
        if isinstance(other, UserList):
            self.data.extend(other.data)
        else:
            self.data.extend(other)

UserList.__rmul__ = UserList.__mul__