"""Type hints (Kiln's typing module, written from the documentation).

The objects here exist to be written in annotations and subscripted: List[int], Optional[str],
Callable[[int], float], Dict[str, T] ... They print like CPython's, expose __origin__/__args__
(get_origin, get_args) and compare equal when alike. They are not checked at run time;
isinstance() against them is not supported.
"""

import collections
import collections.abc as _abc

__all__ = ["Annotated", "Any", "Callable", "ClassVar", "Concatenate", "Final", "ForwardRef", "Generic",
           "Literal", "Optional", "ParamSpec", "Protocol", "Tuple", "Type", "TypeVar", "TypeVarTuple",
           "Union", "AbstractSet", "ByteString", "Container", "ContextManager", "Hashable", "ItemsView",
           "Iterable", "Iterator", "KeysView", "Mapping", "MappingView", "MutableMapping",
           "MutableSequence", "MutableSet", "Sequence", "Sized", "ValuesView", "Awaitable",
           "AsyncIterator", "AsyncIterable", "Coroutine", "Collection", "AsyncGenerator",
           "AsyncContextManager", "Reversible", "SupportsAbs", "SupportsBytes", "SupportsComplex",
           "SupportsFloat", "SupportsIndex", "SupportsInt", "SupportsRound", "ChainMap", "Counter",
           "Deque", "Dict", "DefaultDict", "List", "OrderedDict", "Set", "FrozenSet", "NamedTuple",
           "TypedDict", "Generator", "BinaryIO", "IO", "Match", "Pattern", "TextIO", "AnyStr",
           "assert_type", "assert_never", "cast", "clear_overloads", "dataclass_transform", "final",
           "get_args", "get_origin", "get_overloads", "get_type_hints", "is_typeddict", "LiteralString",
           "Never", "NewType", "no_type_check", "no_type_check_decorator", "NoReturn", "NotRequired",
           "overload", "ParamSpecArgs", "ParamSpecKwargs", "Required", "reveal_type",
           "runtime_checkable", "Self", "Text", "TYPE_CHECKING", "TypeAlias", "TypeGuard", "Unpack"]

TYPE_CHECKING = False

_NoneType = type(None)


def _is_class(x):
    try:
        return isinstance(x, type)
    except TypeError:
        return type(x).__name__ == "type"


def _is_ellipsis(x):
    return x is ... or type(x).__name__ == "ellipsis"


def _type_repr(obj):
    """How an argument prints inside a subscription: int, __main__.Foo, ~T, ..."""
    if _is_ellipsis(obj):
        return "..."
    if obj is None or obj is _NoneType:
        return "NoneType"
    if _is_class(obj):
        module = getattr(obj, "__module__", "builtins")
        qualname = getattr(obj, "__qualname__", obj.__name__)
        if module == "builtins" or module is None:
            return qualname
        return module + "." + qualname
    if type(obj).__name__ == "function":
        return obj.__name__
    if isinstance(obj, list):
        return "[" + ", ".join([_type_repr(a) for a in obj]) + "]"
    return repr(obj)


def _type_convert(arg):
    if arg is None:
        return _NoneType
    if isinstance(arg, str):
        return ForwardRef(arg)
    return arg


def _as_tuple(params):
    if isinstance(params, tuple):
        return params
    return (params,)


def _eq_args(a, b):
    if len(a) != len(b):
        return False
    for i in range(len(a)):
        if not (a[i] is b[i] or a[i] == b[i]):
            return False
    return True


class ForwardRef:
    """An annotation written as a string ("Node"), not evaluated."""

    def __init__(self, arg, is_argument=True, module=None, *, is_class=False):
        if not isinstance(arg, str):
            raise TypeError("Forward reference must be a string -- got " + repr(arg))
        self.__forward_arg__ = arg
        self.__forward_evaluated__ = False
        self.__forward_value__ = None
        self.__forward_module__ = module

    def __eq__(self, other):
        if not isinstance(other, ForwardRef):
            return NotImplemented
        return self.__forward_arg__ == other.__forward_arg__

    def __hash__(self):
        return hash(self.__forward_arg__)

    def __repr__(self):
        return "ForwardRef(" + repr(self.__forward_arg__) + ")"


class TypeVar:
    """A type variable: T = TypeVar('T'); prints as ~T (+T covariant, -T contravariant)."""

    def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
        if covariant and contravariant:
            raise ValueError("Bivariant types are not supported.")
        if len(constraints) == 1:
            raise TypeError("A single constraint is not allowed")
        self.__name__ = name
        self.__constraints__ = tuple([_type_convert(c) for c in constraints])
        self.__bound__ = _type_convert(bound) if bound is not None else None
        self.__covariant__ = bool(covariant)
        self.__contravariant__ = bool(contravariant)

    def __repr__(self):
        if self.__covariant__:
            prefix = "+"
        elif self.__contravariant__:
            prefix = "-"
        else:
            prefix = "~"
        return prefix + self.__name__

    def __or__(self, right):
        return Union[self, right]

    def __ror__(self, left):
        return Union[left, self]


class ParamSpecArgs:
    def __init__(self, origin):
        self.__origin__ = origin

    def __repr__(self):
        return self.__origin__.__name__ + ".args"


class ParamSpecKwargs:
    def __init__(self, origin):
        self.__origin__ = origin

    def __repr__(self):
        return self.__origin__.__name__ + ".kwargs"


class ParamSpec:
    """A parameter specification variable: P = ParamSpec('P'); P.args, P.kwargs."""

    def __init__(self, name, *, bound=None, covariant=False, contravariant=False):
        self.__name__ = name
        self.__bound__ = bound
        self.__covariant__ = covariant
        self.__contravariant__ = contravariant
        self.args = ParamSpecArgs(self)
        self.kwargs = ParamSpecKwargs(self)

    def __repr__(self):
        return "~" + self.__name__


class TypeVarTuple:
    def __init__(self, name):
        self.__name__ = name

    def __repr__(self):
        return self.__name__

    def __iter__(self):
        yield Unpack[self]


def _collect_parameters(args):
    params = []
    for a in args:
        if isinstance(a, (TypeVar, ParamSpec, TypeVarTuple)):
            if a not in params:
                params.append(a)
        else:
            for p in getattr(a, "__parameters__", ()):
                if p not in params:
                    params.append(p)
    return tuple(params)


def _subst(arg, mapping):
    if isinstance(arg, (TypeVar, ParamSpec)):
        for k, v in mapping:
            if k is arg:
                return v
        return arg
    if isinstance(arg, _GenericAlias) and arg.__parameters__:
        return arg._copy_with(tuple([_subst(a, mapping) for a in arg.__args__]))
    if isinstance(arg, list):
        return [_subst(a, mapping) for a in arg]
    return arg


class _BaseGenericAlias:
    def __call__(self, *args, **kwargs):
        if not getattr(self, "_inst", True):
            raise TypeError("Type " + self._name + " cannot be instantiated; use " +
                            self.__origin__.__name__ + "() instead")
        result = self.__origin__(*args, **kwargs)
        try:
            result.__orig_class__ = self
        except (AttributeError, TypeError):
            pass
        return result

    def __mro_entries__(self, bases):
        return (self.__origin__,)


class _GenericAlias(_BaseGenericAlias):
    """A subscripted generic: List[int], Dict[str, T], Box[int] ..."""

    def __init__(self, origin, args, name=None, inst=True):
        self.__origin__ = origin
        self.__args__ = args
        self.__parameters__ = _collect_parameters(args)
        self._name = name
        self._inst = inst

    def _copy_with(self, args):
        return _GenericAlias(self.__origin__, args, self._name, self._inst)

    def __getitem__(self, params):
        params = _as_tuple(params)
        if not self.__parameters__:
            raise TypeError(repr(self) + " is not a generic class")
        if len(params) != len(self.__parameters__):
            raise TypeError("Too " + ("many" if len(params) > len(self.__parameters__) else "few") +
                            " arguments for " + repr(self))
        mapping = [(self.__parameters__[i], _type_convert(params[i])) for i in range(len(params))]
        return self._copy_with(tuple([_subst(a, mapping) for a in self.__args__]))

    def __eq__(self, other):
        if not isinstance(other, _GenericAlias):
            return NotImplemented
        return self.__origin__ == other.__origin__ and _eq_args(self.__args__, other.__args__)

    def __hash__(self):
        return hash((self.__origin__, self.__args__))

    def __repr__(self):
        if self._name:
            name = "typing." + self._name
        else:
            name = _type_repr(self.__origin__)
        if self.__args__ == ():
            return name + "[()]"
        return name + "[" + ", ".join([_type_repr(a) for a in self.__args__]) + "]"

    def __or__(self, right):
        return Union[self, right]

    def __ror__(self, left):
        return Union[left, self]


class _CallableGenericAlias(_GenericAlias):
    """Callable[[int, str], float]: __args__ is (int, str, float)."""

    def _copy_with(self, args):
        return _CallableGenericAlias(self.__origin__, args, self._name, self._inst)

    def __repr__(self):
        args = self.__args__
        if len(args) == 2 and _is_ellipsis(args[0]):
            return "typing.Callable[..., " + _type_repr(args[1]) + "]"
        return ("typing.Callable[[" + ", ".join([_type_repr(a) for a in args[:-1]]) + "], " +
                _type_repr(args[-1]) + "]")


class _UnionGenericAlias(_GenericAlias):
    def _copy_with(self, args):
        return Union[args]

    def __eq__(self, other):
        if not isinstance(other, _UnionGenericAlias):
            return NotImplemented
        if len(self.__args__) != len(other.__args__):
            return False
        for a in self.__args__:
            if a not in other.__args__:
                return False
        return True

    def __hash__(self):
        return hash(len(self.__args__))

    def __repr__(self):
        args = self.__args__
        if len(args) == 2:
            if args[0] is _NoneType:
                return "typing.Optional[" + _type_repr(args[1]) + "]"
            if args[1] is _NoneType:
                return "typing.Optional[" + _type_repr(args[0]) + "]"
        return "typing.Union[" + ", ".join([_type_repr(a) for a in args]) + "]"


class _LiteralGenericAlias(_GenericAlias):
    def __eq__(self, other):
        if not isinstance(other, _LiteralGenericAlias):
            return NotImplemented
        return _eq_args(self.__args__, other.__args__)

    def __hash__(self):
        return hash(self.__args__)

    def __repr__(self):
        return "typing.Literal[" + ", ".join([repr(a) for a in self.__args__]) + "]"


class _AnnotatedAlias(_GenericAlias):
    def __init__(self, origin, metadata):
        _GenericAlias.__init__(self, origin, (origin,), "Annotated")
        self.__metadata__ = metadata

    def __repr__(self):
        return ("typing.Annotated[" + _type_repr(self.__origin__) + ", " +
                ", ".join([repr(m) for m in self.__metadata__]) + "]")

    def __eq__(self, other):
        if not isinstance(other, _AnnotatedAlias):
            return NotImplemented
        return self.__origin__ == other.__origin__ and _eq_args(self.__metadata__, other.__metadata__)

    def __hash__(self):
        return hash(self.__origin__)


class _SpecialGenericAlias(_BaseGenericAlias):
    """An unsubscripted alias of a builtin or collections.abc class: typing.List, typing.Dict ..."""

    def __init__(self, origin, nparams, name, inst=True, defaults=None):
        self.__origin__ = origin
        self._nparams = nparams
        self._name = name
        self._inst = inst
        self.__args__ = ()
        self.__parameters__ = ()

    def __getitem__(self, params):
        params = _as_tuple(params)
        if self._nparams >= 0 and len(params) != self._nparams:
            raise TypeError("Too " + ("many" if len(params) > self._nparams else "few") +
                            " arguments for typing." + self._name + "; actual " + str(len(params)) +
                            ", expected " + str(self._nparams))
        return _GenericAlias(self.__origin__, tuple([_type_convert(p) for p in params]), self._name, self._inst)

    def __repr__(self):
        return "typing." + self._name

    def __eq__(self, other):
        if not isinstance(other, _SpecialGenericAlias):
            return NotImplemented
        return self.__origin__ == other.__origin__ and self._name == other._name

    def __hash__(self):
        return hash(self._name)

    def __or__(self, right):
        return Union[self, right]

    def __ror__(self, left):
        return Union[left, self]


class _TupleType(_SpecialGenericAlias):
    def __getitem__(self, params):
        if params == ():
            return _GenericAlias(tuple, (), "Tuple")
        params = _as_tuple(params)
        if len(params) >= 2 and _is_ellipsis(params[-1]):
            return _GenericAlias(tuple, tuple([_type_convert(p) for p in params[:-1]]) + (...,), "Tuple")
        return _GenericAlias(tuple, tuple([_type_convert(p) for p in params]), "Tuple")


class _CallableType(_SpecialGenericAlias):
    def __getitem__(self, params):
        if not isinstance(params, tuple) or len(params) != 2:
            raise TypeError("Callable must be used as Callable[[arg, ...], result].")
        args, result = params
        if _is_ellipsis(args):
            flat = (..., _type_convert(result))
        elif isinstance(args, list):
            flat = tuple([_type_convert(a) for a in args]) + (_type_convert(result),)
        else:
            flat = (args, _type_convert(result))
        return _CallableGenericAlias(self.__origin__, flat, "Callable")


class _SpecialForm:
    """Any, Union, Optional, ClassVar, Final, Literal ...: printed as typing.NAME; those that take
    parameters build an alias when subscripted."""

    def __init__(self, name, getitem=None, doc=None):
        self._name = name
        self._getitem = getitem
        self.__doc__ = doc

    def __repr__(self):
        return "typing." + self._name

    def __getitem__(self, parameters):
        if self._getitem is None:
            raise TypeError(repr(self) + " is not subscriptable")
        return self._getitem(self, parameters)

    def __call__(self, *args, **kwds):
        raise TypeError("Cannot instantiate " + repr(self))

    def __or__(self, other):
        return Union[self, other]

    def __ror__(self, other):
        return Union[other, self]

    def __reduce__(self):
        return self._name


def _union_getitem(self, parameters):
    if parameters == ():
        raise TypeError("Cannot take a Union of no types.")
    params = []
    for p in _as_tuple(parameters):
        p = _type_convert(p)
        if isinstance(p, _UnionGenericAlias):
            for q in p.__args__:
                params.append(q)
        else:
            params.append(p)
    unique = []
    for p in params:
        found = False
        for q in unique:
            if p is q or p == q:
                found = True
                break
        if not found:
            unique.append(p)
    if len(unique) == 1:
        return unique[0]
    return _UnionGenericAlias(self, tuple(unique), "Union")


def _optional_getitem(self, parameters):
    arg = _type_convert(parameters)
    return Union[arg, _NoneType]


def _single_getitem(self, parameters):
    item = _type_convert(parameters)
    return _GenericAlias(self, (item,), self._name)


def _literal_getitem(self, parameters):
    return _LiteralGenericAlias(self, _as_tuple(parameters), "Literal")


def _annotated_getitem(self, params):
    if not isinstance(params, tuple) or len(params) < 2:
        raise TypeError("Annotated[...] should be used with at least two arguments (a type and an annotation).")
    origin = _type_convert(params[0])
    metadata = tuple(params[1:])
    if isinstance(origin, _AnnotatedAlias):
        metadata = origin.__metadata__ + metadata
        origin = origin.__origin__
    return _AnnotatedAlias(origin, metadata)


def _concatenate_getitem(self, parameters):
    return _GenericAlias(self, _as_tuple(parameters), "Concatenate")


Any = _SpecialForm("Any", doc="Special type indicating an unconstrained type.")
NoReturn = _SpecialForm("NoReturn")
Never = _SpecialForm("Never")
Self = _SpecialForm("Self")
LiteralString = _SpecialForm("LiteralString")
TypeAlias = _SpecialForm("TypeAlias")
ClassVar = _SpecialForm("ClassVar", _single_getitem)
Final = _SpecialForm("Final", _single_getitem)
Union = _SpecialForm("Union", _union_getitem)
Optional = _SpecialForm("Optional", _optional_getitem)
Literal = _SpecialForm("Literal", _literal_getitem)
TypeGuard = _SpecialForm("TypeGuard", _single_getitem)
Required = _SpecialForm("Required", _single_getitem)
NotRequired = _SpecialForm("NotRequired", _single_getitem)
Unpack = _SpecialForm("Unpack", _single_getitem)
Concatenate = _SpecialForm("Concatenate", _concatenate_getitem)
Annotated = _SpecialForm("Annotated", _annotated_getitem)

# Aliases of builtin and collections.abc classes.
Hashable = _SpecialGenericAlias(_abc.Hashable, 0, "Hashable")
Awaitable = _SpecialGenericAlias(_abc.Awaitable, 1, "Awaitable")
Coroutine = _SpecialGenericAlias(_abc.Coroutine, 3, "Coroutine")
AsyncIterable = _SpecialGenericAlias(_abc.AsyncIterable, 1, "AsyncIterable")
AsyncIterator = _SpecialGenericAlias(_abc.AsyncIterator, 1, "AsyncIterator")
Iterable = _SpecialGenericAlias(_abc.Iterable, 1, "Iterable")
Iterator = _SpecialGenericAlias(_abc.Iterator, 1, "Iterator")
Reversible = _SpecialGenericAlias(_abc.Reversible, 1, "Reversible")
Sized = _SpecialGenericAlias(_abc.Sized, 0, "Sized")
Container = _SpecialGenericAlias(_abc.Container, 1, "Container")
Collection = _SpecialGenericAlias(_abc.Collection, 1, "Collection")
Callable = _CallableType(_abc.Callable, 2, "Callable")
AbstractSet = _SpecialGenericAlias(_abc.Set, 1, "AbstractSet")
MutableSet = _SpecialGenericAlias(_abc.MutableSet, 1, "MutableSet")
Mapping = _SpecialGenericAlias(_abc.Mapping, 2, "Mapping")
MutableMapping = _SpecialGenericAlias(_abc.MutableMapping, 2, "MutableMapping")
Sequence = _SpecialGenericAlias(_abc.Sequence, 1, "Sequence")
MutableSequence = _SpecialGenericAlias(_abc.MutableSequence, 1, "MutableSequence")
ByteString = _SpecialGenericAlias(_abc.ByteString, 0, "ByteString")
Tuple = _TupleType(tuple, -1, "Tuple", inst=False)
List = _SpecialGenericAlias(list, 1, "List", inst=False)
Deque = _SpecialGenericAlias(collections.deque, 1, "Deque")
Set = _SpecialGenericAlias(set, 1, "Set", inst=False)
try:
    FrozenSet = _SpecialGenericAlias(frozenset, 1, "FrozenSet", inst=False)
except NameError:
    FrozenSet = _SpecialGenericAlias(set, 1, "FrozenSet", inst=False)
MappingView = _SpecialGenericAlias(_abc.MappingView, 1, "MappingView")
KeysView = _SpecialGenericAlias(_abc.KeysView, 1, "KeysView")
ItemsView = _SpecialGenericAlias(_abc.ItemsView, 2, "ItemsView")
ValuesView = _SpecialGenericAlias(_abc.ValuesView, 1, "ValuesView")
Dict = _SpecialGenericAlias(dict, 2, "Dict", inst=False)
DefaultDict = _SpecialGenericAlias(collections.defaultdict, 2, "DefaultDict")
OrderedDict = _SpecialGenericAlias(collections.OrderedDict, 2, "OrderedDict")
Counter = _SpecialGenericAlias(collections.Counter, 1, "Counter")
ChainMap = _SpecialGenericAlias(collections.ChainMap, 2, "ChainMap")
Generator = _SpecialGenericAlias(_abc.Generator, 3, "Generator")
AsyncGenerator = _SpecialGenericAlias(_abc.AsyncGenerator, 2, "AsyncGenerator")
Type = _SpecialGenericAlias(type, 1, "Type", inst=False)


class _ContextManagerABC:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return None


ContextManager = _SpecialGenericAlias(_ContextManagerABC, 1, "ContextManager")
AsyncContextManager = _SpecialGenericAlias(_ContextManagerABC, 1, "AsyncContextManager")
Text = str
def _anystr():
    try:
        return TypeVar("AnyStr", bytes, str)
    except NameError:
        return TypeVar("AnyStr", str, str)


AnyStr = _anystr()


class Generic:
    """Base class of generic classes: class Box(Generic[T]); Box[int] is an alias whose calls
    make Box instances."""
    __slots__ = ()

    def __class_getitem__(cls, params):
        params = tuple([_type_convert(p) for p in _as_tuple(params)])
        return _GenericAlias(cls, params)

    def __init_subclass__(cls, *args, **kwargs):
        tvars = []
        for base in getattr(cls, "__orig_bases__", ()):
            for p in getattr(base, "__parameters__", ()):
                if p not in tvars:
                    tvars.append(p)
        cls.__parameters__ = tuple(tvars)


class Protocol(Generic):
    """Base class of protocol classes (structural types); runtime checks are not supported."""
    __slots__ = ()
    _is_protocol = True


def runtime_checkable(cls):
    cls._is_runtime_protocol = True
    return cls


class SupportsInt(Protocol):
    __slots__ = ()


class SupportsFloat(Protocol):
    __slots__ = ()


class SupportsComplex(Protocol):
    __slots__ = ()


class SupportsBytes(Protocol):
    __slots__ = ()


class SupportsIndex(Protocol):
    __slots__ = ()


class SupportsAbs(Protocol):
    __slots__ = ()


class SupportsRound(Protocol):
    __slots__ = ()


class IO(Generic):
    __slots__ = ()


class TextIO(IO):
    __slots__ = ()


class BinaryIO(IO):
    __slots__ = ()


class Pattern(Generic):
    pass


class Match(Generic):
    pass


def cast(typ, val):
    """Tell a type checker that val has type typ; returns val unchanged."""
    return val


def assert_type(val, typ, /):
    return val


def assert_never(arg, /):
    raise AssertionError("Expected code to be unreachable, but got: " + repr(arg))


def reveal_type(obj, /):
    return obj


_overload_registry = {}


def _overload_dummy(*args, **kwds):
    raise NotImplementedError(
        "You should not call an overloaded function. A series of @overload-decorated functions "
        "outside a stub module should always be followed by an implementation that is not @overload-ed.")


def overload(func):
    """Decorator for the signatures of an overloaded function; the undecorated definition that
    follows is the implementation."""
    key = getattr(func, "__qualname__", getattr(func, "__name__", ""))
    _overload_registry.setdefault(key, []).append(func)
    return _overload_dummy


def get_overloads(func):
    key = getattr(func, "__qualname__", getattr(func, "__name__", ""))
    return list(_overload_registry.get(key, []))


def clear_overloads():
    for k in list(_overload_registry):
        del _overload_registry[k]


def final(f):
    """Decorator marking a method or class final (no effect at run time)."""
    try:
        f.__final__ = True
    except (AttributeError, TypeError):
        pass
    return f


def no_type_check(arg):
    return arg


def no_type_check_decorator(decorator):
    return decorator


def dataclass_transform(*, eq_default=True, order_default=False, kw_only_default=False,
                        field_specifiers=(), **kwargs):
    def decorator(cls_or_fn):
        return cls_or_fn
    return decorator


class NewType:
    """NewType('UserId', int): a callable that returns its argument (a distinct type for checkers)."""

    def __init__(self, name, tp):
        self.__qualname__ = name
        self.__name__ = name
        self.__supertype__ = tp
        self.__module__ = "__main__"

    def __call__(self, x):
        return x

    def __repr__(self):
        return self.__module__ + "." + self.__qualname__


def get_origin(tp):
    """The unsubscripted form: get_origin(List[int]) is list; get_origin(Union[int, str]) is Union."""
    if isinstance(tp, _AnnotatedAlias):
        return Annotated
    if isinstance(tp, (_BaseGenericAlias, _GenericAlias)):
        if isinstance(tp, _SpecialGenericAlias):
            return tp.__origin__
        return tp.__origin__
    if tp is Generic:
        return Generic
    return None


def get_args(tp):
    """The subscription's arguments: get_args(Dict[str, int]) == (str, int);
    get_args(Callable[[int], str]) == ([int], str)."""
    if isinstance(tp, _AnnotatedAlias):
        return (tp.__origin__,) + tp.__metadata__
    if isinstance(tp, _GenericAlias) and not isinstance(tp, _SpecialGenericAlias):
        res = tp.__args__
        if isinstance(tp, _CallableGenericAlias) and not (len(res) == 2 and _is_ellipsis(res[0])):
            res = (list(res[:-1]), res[-1])
        return res
    return ()


def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
    """The annotations of a function, class (with its bases') or module, as a dict; string
    annotations are returned as ForwardRef-free strings (not evaluated)."""
    hints = {}
    mro = getattr(obj, "__mro__", None)
    if mro is not None:
        for base in reversed(list(mro)):
            d = getattr(base, "__dict__", {})
            ann = d.get("__annotations__", {}) if hasattr(d, "get") else {}
            for k in ann:
                v = ann[k]
                hints[k] = _NoneType if v is None else v
        return hints
    ann = getattr(obj, "__annotations__", None)
    if ann is None:
        return {}
    for k in ann:
        v = ann[k]
        hints[k] = _NoneType if v is None else v
    return hints


def is_typeddict(tp):
    return getattr(tp, "__total__", None) is not None and isinstance(getattr(tp, "__annotations__", None), dict)


# ---------------------------------------------------------------- NamedTuple and TypedDict

_NamedTupleBase = collections._NamedTupleBase


class NamedTuple(_NamedTupleBase):
    """class Point(NamedTuple): x: int; y: int = 0 -- a namedtuple whose fields (and defaults)
    come from the class's annotations."""
    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        ann = getattr(cls, "__annotations__", {})
        fields = list(ann)
        defaults = {}
        seen_default = False
        for name in fields:
            if name.startswith("_"):
                raise AttributeError("Cannot overwrite NamedTuple attribute " + name)
            v = getattr(cls, name, _missing)
            if v is not _missing and not isinstance(v, property):
                defaults[name] = v
                seen_default = True
            elif seen_default:
                raise TypeError("Non-default namedtuple field " + name + " cannot follow default field" +
                                ("s " if len(defaults) > 1 else " ") + ", ".join(list(defaults)))
        nt = collections.namedtuple(cls.__name__, fields)
        cls._fields = nt._fields
        cls._field_defaults = defaults
        cls.__annotations__ = dict(ann)
        cls.__match_args__ = nt._fields
        index = 0
        for name in fields:
            setattr(cls, name, collections._field_property(index, name))
            index += 1


class _Missing:
    pass


_missing = _Missing()


def _namedtuple_new(cls, *args, **kwargs):
    if cls is NamedTuple:
        # The functional form: NamedTuple('Point', [('x', int), ('y', int)])
        if len(args) < 1:
            raise TypeError("NamedTuple() missing required argument 'typename'")
        typename = args[0]
        fields = args[1] if len(args) > 1 else list(kwargs.items())
        nt = collections.namedtuple(typename, [f[0] for f in fields])
        nt.__annotations__ = dict(fields)
        return nt
    return _NamedTupleBase.__new__(cls, *args, **kwargs)


if collections._TUPLE_SUBCLASSES:
    NamedTuple.__new__ = staticmethod(_namedtuple_new)


def _frozenset(items=()):
    try:
        return frozenset(items)
    except NameError:
        return tuple(items)


class TypedDict(dict):
    """class Movie(TypedDict): name: str -- at run time a Movie(...) is a plain dict."""

    def __init_subclass__(cls, total=True, **kwargs):
        cls.__total__ = total
        ann = getattr(cls, "__annotations__", {})
        cls.__required_keys__ = _frozenset(ann) if total else _frozenset()
        cls.__optional_keys__ = _frozenset() if total else _frozenset(ann)
