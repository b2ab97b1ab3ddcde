"""Names for built-in types and helpers (Kiln's types module, written from the documentation):
SimpleNamespace, FunctionType, MethodType, ModuleType, GeneratorType, MappingProxyType ..."""

__all__ = ["FunctionType", "LambdaType", "CodeType", "MappingProxyType", "SimpleNamespace", "CellType",
           "GeneratorType", "CoroutineType", "AsyncGeneratorType", "MethodType", "BuiltinFunctionType",
           "BuiltinMethodType", "WrapperDescriptorType", "MethodWrapperType", "MethodDescriptorType",
           "ClassMethodDescriptorType", "ModuleType", "TracebackType", "FrameType", "GetSetDescriptorType",
           "MemberDescriptorType", "new_class", "resolve_bases", "prepare_class", "DynamicClassAttribute",
           "coroutine", "GenericAlias", "UnionType", "EllipsisType", "NoneType", "NotImplementedType"]


def _f():
    pass


def _g():
    yield 1


class _C:
    def _m(self):
        return self


FunctionType = type(_f)
LambdaType = type(lambda: None)
GeneratorType = type(_g())
BuiltinFunctionType = type(len)
BuiltinMethodType = type([].append)
NoneType = type(None)
EllipsisType = type(...)
NotImplementedType = type(NotImplemented)


def _probe_method_type():
    """type(bound method), if calling it with (function, instance) makes a bound method."""
    obj = _C()
    mt = type(obj._m)
    try:
        bm = mt(_C._m, obj)
        if bm() is obj:
            return mt
    except Exception:
        pass
    return None


class method:
    """A function bound to an instance: calling it passes the instance first
    (MethodType(function, instance))."""

    def __init__(self, func, instance):
        if not callable(func):
            raise TypeError("first argument must be callable")
        if instance is None:
            raise TypeError("instance must not be None")
        self.__func__ = func
        self.__self__ = instance

    def __call__(self, *args, **kwargs):
        return self.__func__(self.__self__, *args, **kwargs)

    def __eq__(self, other):
        if not isinstance(other, method):
            return NotImplemented
        return self.__func__ is other.__func__ and self.__self__ is other.__self__

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name not in ("__name__", "__qualname__", "__doc__", "__wrapped__"):
            raise AttributeError(name)
        return getattr(self.__func__, name)

    def __repr__(self):
        return "<bound method " + getattr(self.__func__, "__qualname__", "?") + " of " + repr(self.__self__) + ">"


MethodType = _probe_method_type() or method

def _module_type():
    import abc as _any_module
    return type(_any_module)


ModuleType = _module_type()


class SimpleNamespace:
    """An object whose attributes are the keyword arguments it was made with; prints as
    namespace(a=1, b=2) and compares equal to another with the same attributes."""

    def __init__(self, mapping_or_iterable=(), /, **kwargs):
        d = self.__dict__
        if mapping_or_iterable:
            if hasattr(mapping_or_iterable, "keys"):
                for k in mapping_or_iterable.keys():
                    d[k] = mapping_or_iterable[k]
            else:
                for k, v in mapping_or_iterable:
                    d[k] = v
        for k, v in kwargs.items():
            d[k] = v

    def __repr__(self):
        name = "namespace" if type(self) is SimpleNamespace else type(self).__name__
        parts = []
        for k, v in self.__dict__.items():
            parts.append(k + "=" + repr(v))
        return name + "(" + ", ".join(parts) + ")"

    def __eq__(self, other):
        if isinstance(self, SimpleNamespace) and isinstance(other, SimpleNamespace):
            return self.__dict__ == other.__dict__
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        if r is NotImplemented:
            return r
        return not r

    __hash__ = None


class mappingproxy:
    """A read-only view of a mapping."""

    def __init__(self, mapping):
        if not hasattr(mapping, "keys") or not hasattr(mapping, "__getitem__") and not isinstance(mapping, dict):
            raise TypeError("mappingproxy() argument must be a mapping, not " + type(mapping).__name__)
        self._mapping = mapping

    def __getitem__(self, key):
        return self._mapping[key]

    def __contains__(self, key):
        return key in self._mapping

    def __iter__(self):
        return iter(self._mapping)

    def __len__(self):
        return len(self._mapping)

    def get(self, key, default=None):
        return self._mapping.get(key, default)

    def keys(self):
        return self._mapping.keys()

    def values(self):
        return self._mapping.values()

    def items(self):
        return self._mapping.items()

    def copy(self):
        return self._mapping.copy()

    def __eq__(self, other):
        if isinstance(other, mappingproxy):
            other = other._mapping
        return self._mapping == other

    def __repr__(self):
        return "mappingproxy(" + repr(self._mapping) + ")"

    def __setitem__(self, key, value):
        raise TypeError("'mappingproxy' object does not support item assignment")


try:
    MappingProxyType = type(type.__dict__)
    MappingProxyType({})
except Exception:
    MappingProxyType = mappingproxy


def coroutine(func):
    """Mark a generator-based coroutine (returns it unchanged)."""
    return func


class DynamicClassAttribute(property):
    pass


def resolve_bases(bases):
    result = []
    for base in bases:
        entries = getattr(base, "__mro_entries__", None)
        if entries is not None and not (type(base).__name__ == "type"):
            for b in entries(bases):
                result.append(b)
        else:
            result.append(base)
    return tuple(result)


def prepare_class(name, bases=(), kwds=None):
    kwds = {} if kwds is None else dict(kwds)
    meta = kwds.pop("metaclass", None)
    if meta is None:
        meta = type(bases[0]) if bases else type
    prepare = getattr(meta, "__prepare__", None)
    ns = prepare(name, bases, **kwds) if prepare is not None else {}
    return meta, ns, kwds


def new_class(name, bases=(), kwds=None, exec_body=None):
    """Create a class dynamically: new_class('C', (Base,), exec_body=lambda ns: ns.update(...))."""
    resolved = resolve_bases(bases)
    meta, ns, kwds = prepare_class(name, resolved, kwds)
    if exec_body is not None:
        exec_body(ns)
    return meta(name, resolved, ns, **kwds)


class GenericAlias:
    """list[int] and the like: an origin class with arguments."""

    def __init__(self, origin, args):
        self.__origin__ = origin
        self.__args__ = args if isinstance(args, tuple) else (args,)

    def __call__(self, *args, **kwargs):
        return self.__origin__(*args, **kwargs)

    def __repr__(self):
        def r(a):
            if type(a).__name__ == "type":
                return a.__name__
            if a is ...:
                return "..."
            return repr(a)
        return r(self.__origin__) + "[" + ", ".join([r(a) for a in self.__args__]) + "]"

    def __eq__(self, other):
        if not isinstance(other, GenericAlias):
            return NotImplemented
        return self.__origin__ == other.__origin__ and self.__args__ == other.__args__

    def __mro_entries__(self, bases):
        return (self.__origin__,)


class UnionType:
    """int | str: a union of types."""

    def __init__(self, args):
        self.__args__ = tuple(args)

    def __repr__(self):
        return " | ".join([a.__name__ if type(a).__name__ == "type" else repr(a) for a in self.__args__])


CodeType = type(_f.__code__) if hasattr(_f, "__code__") else None
CellType = None
CoroutineType = None
AsyncGeneratorType = None
TracebackType = None
FrameType = None
WrapperDescriptorType = type(object.__init__)
MethodWrapperType = None
MethodDescriptorType = type(str.join)
ClassMethodDescriptorType = None
GetSetDescriptorType = None
MemberDescriptorType = None
