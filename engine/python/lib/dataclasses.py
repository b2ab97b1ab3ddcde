"""Data classes (Kiln's dataclasses module, written from the documentation and PEP 557).

@dataclass reads the class's annotations (in definition order) and adds __init__, __repr__,
__eq__ and, on request, ordering methods, __hash__ and frozen-ness. The generated methods are
generic functions driven by the class's fields (Kiln's interpreter has no exec()).
"""

import copy as _copy

_builtin_repr = repr

__all__ = ["dataclass", "field", "Field", "FrozenInstanceError", "InitVar", "KW_ONLY", "MISSING",
           "fields", "asdict", "astuple", "make_dataclass", "replace", "is_dataclass"]


class FrozenInstanceError(AttributeError):
    pass


class _HAS_DEFAULT_FACTORY_CLASS:
    def __repr__(self):
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HAS_DEFAULT_FACTORY_CLASS()


class _MISSING_TYPE:
    pass


MISSING = _MISSING_TYPE()


class _KW_ONLY_TYPE:
    pass


KW_ONLY = _KW_ONLY_TYPE()


class _FIELD_BASE:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


_FIELD = _FIELD_BASE("_FIELD")
_FIELD_CLASSVAR = _FIELD_BASE("_FIELD_CLASSVAR")
_FIELD_INITVAR = _FIELD_BASE("_FIELD_INITVAR")

_FIELDS = "__dataclass_fields__"
_PARAMS = "__dataclass_params__"
_POST_INIT_NAME = "__post_init__"


class InitVar:
    """InitVar[T] annotates an init-only pseudo-field: passed to __init__ and on to
    __post_init__, but not stored as a field."""
    __slots__ = ("type",)

    def __init__(self, type):
        self.type = type

    def __repr__(self):
        if _is_class(self.type):
            type_name = self.type.__name__
        else:
            type_name = repr(self.type)
        return "dataclasses.InitVar[" + type_name + "]"

    def __class_getitem__(cls, type):
        return InitVar(type)


def _is_class(x):
    try:
        return isinstance(x, type)
    except TypeError:
        return type(x).__name__ == "type"


class Field:
    """One field of a dataclass (what fields() returns)."""
    __slots__ = ("name", "type", "default", "default_factory", "repr", "hash", "init", "compare",
                 "metadata", "kw_only", "_field_type")

    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = {} if metadata is None else metadata
        self.kw_only = kw_only
        self._field_type = None

    def __repr__(self):
        return ("Field(name=" + repr(self.name) + ",type=" + repr(self.type) + ",default=" + repr(self.default) +
                ",default_factory=" + repr(self.default_factory) + ",init=" + repr(self.init) +
                ",repr=" + repr(self.repr) + ",hash=" + repr(self.hash) + ",compare=" + repr(self.compare) +
                ",metadata=" + repr(self.metadata) + ",kw_only=" + repr(self.kw_only) +
                ",_field_type=" + repr(self._field_type) + ")")

    def __set_name__(self, owner, name):
        func = getattr(type(self.default), "__set_name__", None)
        if func:
            func(self.default, owner, name)


class _DataclassParams:
    __slots__ = ("init", "repr", "eq", "order", "unsafe_hash", "frozen")

    def __init__(self, init, repr, eq, order, unsafe_hash, frozen):
        self.init = init
        self.repr = repr
        self.eq = eq
        self.order = order
        self.unsafe_hash = unsafe_hash
        self.frozen = frozen

    def __repr__(self):
        return ("_DataclassParams(init=" + repr(self.init) + ",repr=" + repr(self.repr) + ",eq=" + repr(self.eq) +
                ",order=" + repr(self.order) + ",unsafe_hash=" + repr(self.unsafe_hash) +
                ",frozen=" + repr(self.frozen) + ")")


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True,
          metadata=None, kw_only=MISSING):
    """Customize one field: a default or a default_factory (called for each instance), and
    whether it takes part in __init__, __repr__, comparisons and hashing."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


def _is_classvar(a_type):
    try:
        import typing
    except ImportError:
        return False
    cv = getattr(typing, "ClassVar", None)
    if cv is None:
        return False
    if a_type is cv:
        return True
    if getattr(a_type, "__origin__", None) is cv:
        return True
    if isinstance(a_type, str):
        s = a_type.strip()
        return s.startswith("ClassVar") or s.startswith("typing.ClassVar")
    return False


def _is_initvar(a_type):
    if a_type is InitVar or isinstance(a_type, InitVar):
        return True
    if isinstance(a_type, str):
        s = a_type.strip()
        return s.startswith("InitVar") or s.startswith("dataclasses.InitVar")
    return False


def _is_kw_only(a_type):
    if a_type is KW_ONLY:
        return True
    if isinstance(a_type, str):
        s = a_type.strip()
        return s == "KW_ONLY" or s == "dataclasses.KW_ONLY"
    return False


def _is_mutable_default(value):
    if isinstance(value, (list, dict, set)):
        return True
    h = getattr(type(value), "__hash__", 0)
    return h is None


def _own_annotations(cls):
    d = getattr(cls, "__dict__", None)
    if d is not None:
        try:
            return d.get("__annotations__", {})
        except AttributeError:
            pass
    ann = getattr(cls, "__annotations__", None)
    if ann is None:
        return {}
    # Inherited from a processed base (no class __dict__ to tell): the base's own annotations.
    if ann is getattr(cls, "__dataclass_annotations__", None):
        return {}
    return ann


def _own_attr(cls, name):
    d = getattr(cls, "__dict__", None)
    if d is not None:
        try:
            return d.get(name, MISSING)
        except AttributeError:
            pass
    return getattr(cls, name, MISSING)


def _get_field(cls, a_name, a_type, default_kw_only):
    default = _own_attr(cls, a_name)
    if isinstance(default, Field):
        f = default
    else:
        f = field(default=default)
    f.name = a_name
    f.type = a_type
    f._field_type = _FIELD
    if _is_classvar(a_type):
        f._field_type = _FIELD_CLASSVAR
    elif _is_initvar(a_type):
        f._field_type = _FIELD_INITVAR
    if f._field_type is _FIELD_CLASSVAR or f._field_type is _FIELD_INITVAR:
        if f.default_factory is not MISSING:
            raise TypeError("field " + f.name + " cannot have a default factory")
    if f._field_type is _FIELD or f._field_type is _FIELD_INITVAR:
        if f.kw_only is MISSING:
            f.kw_only = default_kw_only
    else:
        if f.kw_only is not MISSING:
            raise TypeError("field " + f.name + " is a ClassVar but specifies kw_only")
    if f._field_type is _FIELD and _is_mutable_default(f.default):
        raise ValueError("mutable default " + repr(type(f.default)) + " for field " + f.name +
                         " is not allowed: use default_factory")
    return f


def _base_fields(cls):
    """The fields inherited from dataclass bases, in order (base-most first)."""
    fields = {}
    mro = getattr(cls, "__mro__", None)
    if mro is not None:
        for b in list(mro)[-1:0:-1]:
            base_fields = getattr(b, _FIELDS, None)
            if base_fields is not None:
                for f in base_fields.values():
                    fields[f.name] = f
        return fields
    # No __mro__ (Kiln): the nearest dataclass base's fields already include its bases'.
    base_fields = getattr(cls, _FIELDS, None)
    if base_fields is not None:
        for f in base_fields.values():
            fields[f.name] = f
    return fields


def _plural(names, kind):
    quoted = ["'" + n + "'" for n in names]
    if len(quoted) == 1:
        s = quoted[0]
    elif len(quoted) == 2:
        s = quoted[0] + " and " + quoted[1]
    else:
        s = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    return str(len(names)) + " required " + kind + " argument" + ("s" if len(names) > 1 else "") + ": " + s


def _bind_init_args(qualname, init_fields, args, kwargs):
    """Bind __init__ arguments to fields as Python would for the generated signature; returns
    {name: value} (defaults and factories applied)."""
    positional = [f for f in init_fields if not f.kw_only]
    kw_only = [f for f in init_fields if f.kw_only]
    fname = qualname + "()"
    if len(args) > len(positional):
        n_required = len([f for f in positional if f.default is MISSING and f.default_factory is MISSING])
        if n_required == len(positional):
            takes = str(len(positional) + 1)
        else:
            takes = "from " + str(n_required + 1) + " to " + str(len(positional) + 1)
        plural = "s" if not (n_required == len(positional) and len(positional) == 0) else ""
        raise TypeError(fname + " takes " + takes + " positional argument" + plural + " but " +
                        str(len(args) + 1) + " were given")
    names = [f.name for f in init_fields]
    for key in kwargs:
        if key not in names:
            raise TypeError(fname + " got an unexpected keyword argument '" + key + "'")
    values = {}
    i = 0
    for f in positional:
        if i < len(args):
            if f.name in kwargs:
                raise TypeError(fname + " got multiple values for argument '" + f.name + "'")
            values[f.name] = args[i]
        i += 1
    missing = []
    for f in positional:
        if f.name in values:
            continue
        if f.name in kwargs:
            values[f.name] = kwargs[f.name]
        elif f.default_factory is not MISSING:
            values[f.name] = f.default_factory()
        elif f.default is not MISSING:
            values[f.name] = f.default
        else:
            missing.append(f.name)
    if missing:
        raise TypeError(fname + " missing " + _plural(missing, "positional"))
    missing = []
    for f in kw_only:
        if f.name in kwargs:
            values[f.name] = kwargs[f.name]
        elif f.default_factory is not MISSING:
            values[f.name] = f.default_factory()
        elif f.default is not MISSING:
            values[f.name] = f.default
        else:
            missing.append(f.name)
    if missing:
        raise TypeError(fname + " missing " + _plural(missing, "keyword-only"))
    return values


def _set_attr(self, name, value, raw):
    if raw:
        d = getattr(self, "__dict__", None)
        if d is not None:
            d[name] = value
        else:
            object.__setattr__(self, name, value)
    else:
        setattr(self, name, value)


def _make_init(cls, all_fields, frozen, has_post_init, slots):
    init_fields = [f for f in all_fields if f.init and f._field_type is not _FIELD_CLASSVAR]
    plain_fields = [f for f in all_fields if f._field_type is _FIELD]
    initvar_fields = [f for f in all_fields if f._field_type is _FIELD_INITVAR]
    qualname = cls.__qualname__ + ".__init__"
    # frozen classes (and a frozen base) set attributes without __setattr__
    raw = frozen

    def __init__(self, *args, **kwargs):
        values = _bind_init_args(qualname, init_fields, args, kwargs)
        for f in plain_fields:
            if f.init:
                _set_attr(self, f.name, values[f.name], raw)
            elif f.default_factory is not MISSING:
                _set_attr(self, f.name, f.default_factory(), raw)
            elif slots and f.default is not MISSING:
                _set_attr(self, f.name, f.default, raw)
        if has_post_init:
            initvars = [values[f.name] if f.name in values else f.default for f in initvar_fields]
            self.__post_init__(*initvars)
    __init__.__qualname__ = qualname
    return __init__


def _make_repr(repr_fields):
    names = [f.name for f in repr_fields]

    def __repr__(self):
        parts = []
        for name in names:
            parts.append(name + "=" + repr(getattr(self, name)))
        return self.__class__.__qualname__ + "(" + ", ".join(parts) + ")"
    return __repr__


def _tuple_of(self, names):
    return tuple([getattr(self, n) for n in names])


def _make_eq(compare_fields):
    names = [f.name for f in compare_fields]

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return _tuple_of(self, names) == _tuple_of(other, names)
        return NotImplemented
    return __eq__


def _make_order(op, compare_fields):
    names = [f.name for f in compare_fields]
    if op == "__lt__":
        def f(self, other):
            if other.__class__ is self.__class__:
                return _tuple_of(self, names) < _tuple_of(other, names)
            return NotImplemented
    elif op == "__le__":
        def f(self, other):
            if other.__class__ is self.__class__:
                return _tuple_of(self, names) <= _tuple_of(other, names)
            return NotImplemented
    elif op == "__gt__":
        def f(self, other):
            if other.__class__ is self.__class__:
                return _tuple_of(self, names) > _tuple_of(other, names)
            return NotImplemented
    else:
        def f(self, other):
            if other.__class__ is self.__class__:
                return _tuple_of(self, names) >= _tuple_of(other, names)
            return NotImplemented
    f.__name__ = op
    return f


def _make_hash(hash_fields):
    names = [f.name for f in hash_fields]

    def __hash__(self):
        return hash(_tuple_of(self, names))
    __hash__.__dataclass_generated__ = True
    return __hash__


def _make_frozen(cls, field_names):
    def __setattr__(self, name, value):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError("cannot assign to field " + repr(name))
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in field_names:
            raise FrozenInstanceError("cannot delete field " + repr(name))
        object.__delattr__(self, name)
    return __setattr__, __delattr__


def _defines(cls, name):
    """Whether cls itself (not object) defines name."""
    d = getattr(cls, "__dict__", None)
    if d is not None:
        try:
            return name in d
        except TypeError:
            pass
    # No class __dict__ (Kiln): a method found by inheritance counts as the class's own unless
    # it is one @dataclass generated for a base.
    v = getattr(cls, name, None)
    if v is None or v is getattr(object, name, None):
        return False
    return not getattr(v, "__dataclass_generated__", False)


def _set_new_attribute(cls, name, value):
    if _defines(cls, name):
        return True
    try:
        value.__dataclass_generated__ = True
    except (AttributeError, TypeError):
        pass
    setattr(cls, name, value)
    return False


def _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots):
    fields = _base_fields(cls)
    any_frozen_base = False
    has_dataclass_bases = False
    base_params = getattr(cls, _PARAMS, None)
    if base_params is not None:
        has_dataclass_bases = True
        any_frozen_base = base_params.frozen

    ann = _own_annotations(cls)
    cls_fields = []
    default_kw_only = kw_only
    kw_only_seen = False
    for name in list(ann):
        a_type = ann[name]
        if _is_kw_only(a_type):
            if kw_only_seen:
                raise TypeError(cls.__name__ + ": KW_ONLY may only be used once.")
            kw_only_seen = True
            default_kw_only = True
            continue
        cls_fields.append(_get_field(cls, name, a_type, default_kw_only))

    for f in cls_fields:
        fields[f.name] = f
        # The class attribute keeps a plain default; a Field object is removed.
        if isinstance(_own_attr(cls, f.name), Field):
            if f.default is MISSING:
                try:
                    delattr(cls, f.name)
                except Exception:
                    pass
            else:
                setattr(cls, f.name, f.default)

    if has_dataclass_bases:
        if any_frozen_base and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if not any_frozen_base and frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")

    setattr(cls, _FIELDS, fields)
    setattr(cls, _PARAMS, _DataclassParams(init, repr, eq, order, unsafe_hash, frozen))
    cls.__dataclass_annotations__ = getattr(cls, "__annotations__", None)

    all_fields = list(fields.values())
    std_fields = [f for f in all_fields if f._field_type is _FIELD]

    if init:
        # Non-default positional fields may not follow defaulted ones.
        seen_default = False
        for f in all_fields:
            if f._field_type is _FIELD_CLASSVAR or not f.init or f.kw_only:
                continue
            if f.default is MISSING and f.default_factory is MISSING:
                if seen_default:
                    raise TypeError("non-default argument '" + f.name + "' follows default argument")
            else:
                seen_default = True
        has_post_init = hasattr(cls, _POST_INIT_NAME)
        setattr(cls, "__init__", _make_init(cls, all_fields, frozen, has_post_init, slots))

    if repr:
        _set_new_attribute(cls, "__repr__", _make_repr([f for f in std_fields if f.repr]))

    compare_fields = [f for f in std_fields if f.compare]
    if eq:
        _set_new_attribute(cls, "__eq__", _make_eq(compare_fields))

    if order:
        if not eq:
            raise ValueError("eq must be true if order is true")
        for op in ("__lt__", "__le__", "__gt__", "__ge__"):
            if _set_new_attribute(cls, op, _make_order(op, compare_fields)):
                raise TypeError("Cannot overwrite attribute " + op + " in class " + cls.__name__ +
                                ". Consider using functools.total_ordering")

    if frozen:
        names = tuple([f.name for f in std_fields])
        sa, da = _make_frozen(cls, names)
        if _set_new_attribute(cls, "__setattr__", sa) or _set_new_attribute(cls, "__delattr__", da):
            raise TypeError("Cannot overwrite attribute __setattr__ in class " + cls.__name__)

    # __hash__, per the documented table.
    has_explicit_hash = False
    d = getattr(cls, "__dict__", None)
    if d is not None:
        try:
            class_hash = d.get("__hash__", MISSING)
            has_explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in d))
        except AttributeError:
            has_explicit_hash = _defines(cls, "__hash__") and getattr(cls, "__hash__", None) is not None
    else:
        has_explicit_hash = _defines(cls, "__hash__") and getattr(cls, "__hash__", None) is not None
    hash_fields = [f for f in std_fields if (f.compare if f.hash is None else f.hash)]
    if unsafe_hash:
        if has_explicit_hash:
            raise TypeError("Cannot overwrite attribute __hash__ in class " + cls.__name__)
        cls.__hash__ = _make_hash(hash_fields)
    elif eq and frozen:
        if not has_explicit_hash:
            cls.__hash__ = _make_hash(hash_fields)
    elif eq:
        if not has_explicit_hash:
            cls.__hash__ = None

    if match_args:
        _set_new_attribute(cls, "__match_args__",
                           tuple([f.name for f in std_fields if f.init and not f.kw_only]))

    if slots:
        cls = _add_slots(cls, frozen)
    return cls


def _add_slots(cls, is_frozen):
    d = getattr(cls, "__dict__", None)
    bases = getattr(cls, "__bases__", None)
    if d is None or bases is None:
        return cls  # Kiln: classes cannot be rebuilt with __slots__; keep the class
    cls_dict = dict(d)
    field_names = tuple([f.name for f in fields(cls)])
    cls_dict["__slots__"] = field_names
    for name in field_names:
        cls_dict.pop(name, None)
    cls_dict.pop("__dict__", None)
    cls_dict.pop("__weakref__", None)
    qualname = getattr(cls, "__qualname__", None)
    cls = type(cls)(cls.__name__, bases, cls_dict)
    if qualname is not None:
        cls.__qualname__ = qualname
    return cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    """Class decorator adding __init__, __repr__, __eq__ (and optionally ordering, __hash__,
    frozen-ness) from the class's annotated fields. Usable as @dataclass or @dataclass(...)."""
    def wrap(cls):
        return _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots)
    if cls is None:
        return wrap
    return wrap(cls)


def fields(class_or_instance):
    """The fields of a dataclass (class or instance), as a tuple of Field objects."""
    try:
        fs = getattr(class_or_instance, _FIELDS)
    except AttributeError:
        raise TypeError("must be called with a dataclass type or instance")
    return tuple([f for f in fs.values() if f._field_type is _FIELD])


def _is_dataclass_instance(obj):
    return hasattr(type(obj), _FIELDS)


def is_dataclass(obj):
    """True for a dataclass or an instance of one."""
    cls = obj if _is_class(obj) else type(obj)
    return hasattr(cls, _FIELDS)


def _is_namedtuple(obj):
    return hasattr(obj, "_fields") and hasattr(obj, "_make") and not _is_class(obj)


def _asdict_inner(obj, dict_factory):
    if _is_dataclass_instance(obj):
        result = []
        for f in fields(obj):
            result.append((f.name, _asdict_inner(getattr(obj, f.name), dict_factory)))
        return dict_factory(result)
    if _is_namedtuple(obj):
        return type(obj)(*[_asdict_inner(v, dict_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)([_asdict_inner(v, dict_factory) for v in obj])
    if isinstance(obj, dict):
        items = [(_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory)) for k, v in obj.items()]
        if type(obj) is dict:
            return dict(items)
        return type(obj)(items)
    return _copy.deepcopy(obj)


def asdict(obj, *, dict_factory=dict):
    """A dataclass instance as a dict of its fields, recursing into dataclasses, lists, tuples
    and dicts (other values are deep-copied)."""
    if not _is_dataclass_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _asdict_inner(obj, dict_factory)


def _astuple_inner(obj, tuple_factory):
    if _is_dataclass_instance(obj):
        result = []
        for f in fields(obj):
            result.append(_astuple_inner(getattr(obj, f.name), tuple_factory))
        return tuple_factory(result)
    if _is_namedtuple(obj):
        return type(obj)(*[_astuple_inner(v, tuple_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)([_astuple_inner(v, tuple_factory) for v in obj])
    if isinstance(obj, dict):
        items = [(_astuple_inner(k, tuple_factory), _astuple_inner(v, tuple_factory)) for k, v in obj.items()]
        if type(obj) is dict:
            return dict(items)
        return type(obj)(items)
    return _copy.deepcopy(obj)


def astuple(obj, *, tuple_factory=tuple):
    """A dataclass instance as a tuple of its field values (recursively)."""
    if not _is_dataclass_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    return _astuple_inner(obj, tuple_factory)


def replace(obj, /, **changes):
    """A new instance of obj's class with the given fields changed (built through __init__)."""
    if not _is_dataclass_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    for f in getattr(obj, _FIELDS).values():
        if f._field_type is _FIELD_CLASSVAR:
            continue
        if not f.init:
            if f.name in changes:
                raise ValueError("field " + f.name + " is declared with init=False, it cannot be specified with replace()")
            continue
        if f.name not in changes:
            if f._field_type is _FIELD_INITVAR and f.default is MISSING:
                raise ValueError("InitVar " + repr(f.name) + " must be specified with replace()")
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def make_dataclass(cls_name, fields, *, bases=(), namespace=None, init=True, repr=True, eq=True, order=False,
                   unsafe_hash=False, frozen=False, match_args=True, kw_only=False, slots=False,
                   weakref_slot=False, module=None):
    """Create a dataclass named cls_name with the given fields (name, (name, type) or
    (name, type, Field)). Needs type(name, bases, namespace)."""
    if namespace is None:
        namespace = {}
    annotations = {}
    defaults = {}
    seen = []
    for item in fields:
        if isinstance(item, str):
            name = item
            tp = "typing.Any"
        elif len(item) == 2:
            name, tp = item
        elif len(item) == 3:
            name, tp, spec = item
            defaults[name] = spec
        else:
            raise TypeError("Invalid field: " + _builtin_repr(item))
        if name in seen:
            raise TypeError("Field name duplicated: " + _builtin_repr(name))
        seen.append(name)
        annotations[name] = tp
    ns = dict(namespace)
    ns.update(defaults)
    ns["__annotations__"] = annotations
    cls = type(cls_name, bases, ns)
    if not _is_class(cls) or getattr(cls, "__name__", None) != cls_name:
        raise NotImplementedError("make_dataclass needs type(name, bases, namespace), which Kiln does not support yet")
    return dataclass(cls, init=init, repr=repr, eq=eq, order=order, unsafe_hash=unsafe_hash, frozen=frozen,
                     match_args=match_args, kw_only=kw_only, slots=slots)
