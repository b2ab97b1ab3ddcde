from contextlib import contextmanager, nullcontext, suppress, closing, ExitStack, ContextDecorator

log = []


@contextmanager
def tag(name):
    log.append("<" + name + ">")
    try:
        yield name.upper()
    finally:
        log.append("</" + name + ">")


with tag("a") as t:
    log.append(t)
print(log)


@contextmanager
def catching(kind):
    try:
        yield
    except kind as e:
        print("handled", type(e).__name__, e)


with catching(KeyError):
    raise KeyError("k")
print("after handled")
try:
    with catching(KeyError):
        raise ValueError("not mine")
except ValueError as e:
    print("propagated", e)


@contextmanager
def transforming():
    try:
        yield
    except ZeroDivisionError:
        raise ArithmeticError("converted")


try:
    with transforming():
        1 / 0
except ArithmeticError as e:
    print("converted:", e)


@contextmanager
def no_yield():
    if False:
        yield


try:
    with no_yield():
        pass
except RuntimeError as e:
    print("RuntimeError", e)


@contextmanager
def two_yields():
    yield 1
    yield 2


try:
    with two_yields():
        pass
except RuntimeError as e:
    print("RuntimeError", e)

with nullcontext(5) as v:
    print("nullcontext", v)
with nullcontext() as v:
    print("nullcontext", v)
with suppress(KeyError, IndexError):
    [][1]
print("suppressed")
try:
    with suppress(KeyError):
        raise ValueError("v")
except ValueError:
    print("not suppressed")


class Resource:
    def __init__(self, name):
        self.name = name

    def close(self):
        print("closing", self.name)


with closing(Resource("r1")) as r:
    print("using", r.name)

with ExitStack() as stack:
    for n in ["x", "y"]:
        stack.enter_context(tag(n))
    stack.callback(print, "callback ran")
    print("in stack", log[-2:])
print(log[-4:])


class Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        print("Quiet exit", exc[0].__name__ if exc[0] else None)
        return True


with ExitStack() as stack:
    stack.enter_context(Quiet())
    raise RuntimeError("swallowed by Quiet")
print("stack suppressed")
stack = ExitStack()
stack.callback(lambda: print("deferred"))
moved = stack.pop_all()
stack.close()
print("before moved close")
moved.close()


@tag("deco")
def decorated(x):
    log.append("body" + str(x))
    return x * 2


print(decorated(21), log[-3:])


class Tracker(ContextDecorator):
    def __enter__(self):
        print("enter tracker")
        return self

    def __exit__(self, *exc):
        print("exit tracker")
        return False


@Tracker()
def work():
    print("working")


work()
