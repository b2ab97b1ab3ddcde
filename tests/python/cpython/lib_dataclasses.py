import dataclasses
from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass
from typing import List, ClassVar, Optional


@dataclass
class Point:
    x: int
    y: int = 0


p = Point(1, 2)
print(p, Point(3), Point(y=5, x=4), p == Point(1, 2), p != Point(2, 1), p.x, p.y)
print([f.name for f in fields(Point)], [f.type for f in fields(p)], is_dataclass(p), is_dataclass(Point), is_dataclass(5))
print(asdict(p), astuple(p), replace(p, y=9), p)


@dataclass
class Inventory:
    name: str
    tags: List[str] = field(default_factory=list)
    count: int = field(default=1, repr=False)
    secret: str = field(default="s", compare=False)
    total: int = field(init=False, default=0)
    unit: ClassVar[str] = "each"

    def __post_init__(self):
        self.total = self.count * 10


a = Inventory("apple")
b = Inventory("apple")
a.tags.append("red")
print(a, b, a.tags is b.tags, a.total, Inventory.unit, len(fields(Inventory)))
print(Inventory("x", ["t"], 3, "other") == Inventory("x", ["t"], 3, "diff"))
print(asdict(a))


@dataclass(order=True, frozen=True)
class Version:
    major: int
    minor: int = 0


v1, v2 = Version(1, 2), Version(1, 10)
print(v1 < v2, v1 >= v2, sorted([v2, v1, Version(0)]), max(v1, v2))
print(hash(v1) == hash(Version(1, 2)), {v1: "one"}[Version(1, 2)])
try:
    v1.major = 5
except dataclasses.FrozenInstanceError as e:
    print("FrozenInstanceError", e)
print(replace(v1, minor=7), v1)


@dataclass
class Base:
    a: int
    b: str = "b"


@dataclass
class Derived(Base):
    c: float = 1.5

    def describe(self):
        return "%d-%s-%.1f" % (self.a, self.b, self.c)


d = Derived(1, "x", 2.5)
print(d, d.describe(), [f.name for f in fields(Derived)], Derived(7))


@dataclass
class Nested:
    points: List[Point]
    label: Optional[str] = None


n = Nested([Point(1, 2), Point(3, 4)], "pts")
print(asdict(n), astuple(n))
for bad in [lambda: Point(), lambda: Point(1, 2, 3), lambda: Point(1, z=2), lambda: Point(1, x=2)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
try:
    @dataclass
    class Bad:
        items: list = []
except ValueError as e:
    print("ValueError", e)
try:
    @dataclass
    class Bad2:
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError", e)
try:
    field(default=1, default_factory=list)
except ValueError as e:
    print("ValueError", e)
try:
    replace(a, total=5)
except ValueError as e:
    print("ValueError", e)


@dataclass(eq=False)
class Ident:
    v: int


print(Ident(1) == Ident(1), Point.__eq__ is not None, Point.__hash__)


@dataclass(repr=False)
class NoRepr:
    v: int

    def __repr__(self):
        return "custom"


print(NoRepr(1), Version.__match_args__, Point.__dataclass_params__.frozen)


@dataclass
class WithInitVar:
    x: int
    scale: dataclasses.InitVar[int] = 2

    def __post_init__(self, scale):
        self.x = self.x * scale


print(WithInitVar(3), WithInitVar(3, 10), [f.name for f in fields(WithInitVar)])
