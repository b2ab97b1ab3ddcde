import typing
from typing import (Any, Callable, ClassVar, Dict, Final, FrozenSet, Generic, Iterable, Iterator, List,
                    Literal, Mapping, Optional, Protocol, Sequence, Set, Tuple, Type, TypeVar, Union,
                    cast, overload, TYPE_CHECKING, get_args, get_origin, NamedTuple)

T = TypeVar("T")
K = TypeVar("K", covariant=True)
N = TypeVar("N", int, float)
print(repr(List), repr(List[int]), repr(Dict[str, int]), repr(Tuple[int, ...]), repr(Tuple[()]))
print(repr(Callable[[int, str], float]), repr(Callable[..., int]), repr(Set[int]), repr(Type[int]))
print(repr(Optional[int]), repr(Union[int, str]), repr(Union[int, None, str]), repr(Union[int]), repr(Union[int, int]))
print(repr(Literal["a", 1]), repr(Any), repr(T), repr(K), repr(ClassVar[int]), repr(Final[int]))
print(repr(List[T]), repr(Dict[str, T][int]), repr(Iterator[int]), repr(Sequence[str]), repr(Mapping[str, int]))
print(repr(Iterable), repr(List[None]), repr(Optional[List[int]]), repr(Dict[str, List[Tuple[int, float]]]))
print(get_origin(List[int]) is list, get_args(Dict[str, int]), get_args(Optional[int]), get_origin(Union[int, str]) is Union)
print(get_args(Callable[[int], str]), get_args(int), get_origin(int), get_args(Tuple[int, str]))
print(List[int] == List[int], Optional[int] == Union[int, None], Union[int, str] == Union[str, int], List[int] == List[str])
print(T.__name__, N.__constraints__, TYPE_CHECKING, cast(int, "not checked"), cast("List[int]", 5))
if TYPE_CHECKING:
    print("never")


def first(items: List[T]) -> Optional[T]:
    return items[0] if items else None


def apply(f: Callable[[int], int], x: int = 0) -> int:
    return f(x)


print(first([3, 4]), first([]), apply(lambda v: v + 1, 41))


class Box(Generic[T]):
    def __init__(self, item: T) -> None:
        self.item = item

    def get(self) -> T:
        return self.item


b = Box(5)
print(b.get(), Box[int](7).item, Box[str]("s").get())


class Greeter(Protocol):
    def greet(self) -> str:
        ...


class English:
    def greet(self) -> str:
        return "hello"


def welcome(g: Greeter) -> str:
    return g.greet()


print(welcome(English()))


@overload
def double(x: int) -> int:
    ...


@overload
def double(x: str) -> str:
    ...


def double(x):
    return x * 2


print(double(2), double("ab"))
Vector = List[float]


def scale(s: float, v: Vector) -> Vector:
    return [s * x for x in v]


print(scale(2.0, [1.0, 2.5]), repr(Vector))
UserId = typing.NewType("UserId", int)
print(UserId(5) + 1)
ann: Dict[str, int] = {"a": 1}
print(ann)


class Employee(NamedTuple):
    name: str
    id: int = 3


e = Employee("guido")
print(e, e.name, e.id, e[0], Employee._fields, Employee("x", 4))
