"""Utilities for with-statement contexts (Kiln's contextlib, written from the documentation):
contextmanager, ContextDecorator, nullcontext, suppress, closing, ExitStack,
AbstractContextManager.
"""

from functools import wraps

__all__ = ["contextmanager", "closing", "nullcontext", "AbstractContextManager",
           "ContextDecorator", "ExitStack", "suppress", "aclosing", "asynccontextmanager",
           "AsyncExitStack", "AbstractAsyncContextManager", "redirect_stdout", "redirect_stderr",
           "chdir"]


class AbstractContextManager:
    """A context manager whose __enter__ returns self; subclasses define __exit__."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return None


class AbstractAsyncContextManager:
    """Async context managers are not supported by Kiln; the class exists for isinstance()."""


class ContextDecorator:
    """A context manager that also works as a function decorator: the call runs inside it."""

    def _recreate_cm(self):
        return self

    def __call__(self, func):
        @wraps(func)
        def inner(*args, **kwds):
            with self._recreate_cm():
                return func(*args, **kwds)
        return inner


class _GeneratorContextManager(ContextDecorator):
    """The context manager @contextmanager returns: runs the generator to its yield on enter,
    resumes it on exit (throwing the with-block's exception into it at the yield)."""

    def __init__(self, func, args, kwds):
        self.gen = func(*args, **kwds)
        self.func = func
        self.args = args
        self.kwds = kwds
        doc = getattr(func, "__doc__", None)
        if doc is None:
            doc = type(self).__doc__
        self.__doc__ = doc

    def _recreate_cm(self):
        return self.__class__(self.func, self.args, self.kwds)

    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ, value, traceback):
        if typ is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            else:
                raise RuntimeError("generator didn't stop")
        if value is None:
            # A bare exception class: instantiate it, as the with statement would have.
            value = typ()
        try:
            self.gen.throw(value)
        except StopIteration as exc:
            # The generator returned: the exception was handled, unless it was a StopIteration
            # raised in the with block itself.
            return exc is not value
        except RuntimeError as exc:
            if exc is value:
                return False
            # A StopIteration raised in the block and turned into RuntimeError by the generator.
            if isinstance(value, StopIteration) and getattr(exc, "__cause__", None) is value:
                return False
            raise exc
        except BaseException as exc:
            if exc is not value:
                raise exc
            return False
        raise RuntimeError("generator didn't stop after throw()")


def contextmanager(func):
    """@contextmanager on a generator function that yields once: the code before the yield
    runs on enter (its value is bound by `as`), the code after on exit; an exception in the
    with block is raised at the yield."""
    @wraps(func)
    def helper(*args, **kwds):
        return _GeneratorContextManager(func, args, kwds)
    return helper


def asynccontextmanager(func):
    raise NotImplementedError("asynccontextmanager is not supported by Kiln")


class closing(AbstractContextManager):
    """closing(thing): calls thing.close() on exit."""

    def __init__(self, thing):
        self.thing = thing

    def __enter__(self):
        return self.thing

    def __exit__(self, *exc_info):
        self.thing.close()


class aclosing(AbstractAsyncContextManager):
    def __init__(self, thing):
        self.thing = thing


class nullcontext(AbstractContextManager):
    """A context manager that does nothing; `as` binds enter_result."""

    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        pass


class suppress(AbstractContextManager):
    """suppress(*exceptions): silences the listed exception types raised in the with block."""

    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        pass

    def __exit__(self, exctype, excinst, exctb):
        if exctype is None:
            return False
        for e in self._exceptions:
            if issubclass(exctype, e):
                return True
        return False


class _RedirectStream(AbstractContextManager):
    def __init__(self, new_target):
        self._new_target = new_target

    def __enter__(self):
        return self._new_target

    def __exit__(self, exctype, excinst, exctb):
        return False


class redirect_stdout(_RedirectStream):
    """Not supported by Kiln (no sys): entering returns the target and redirects nothing."""


class redirect_stderr(_RedirectStream):
    """Not supported by Kiln (no sys): entering returns the target and redirects nothing."""


class chdir(AbstractContextManager):
    def __init__(self, path):
        raise NotImplementedError("contextlib.chdir is not available: Kiln runs scripts sandboxed")


class ExitStack(AbstractContextManager):
    """A stack of exit callbacks run in reverse order when the stack closes; each sees (and may
    suppress) the exception the ones before it left."""

    def __init__(self):
        self._exit_callbacks = []

    def pop_all(self):
        """Move all callbacks to a new ExitStack and return it."""
        new_stack = type(self)()
        new_stack._exit_callbacks = self._exit_callbacks
        self._exit_callbacks = []
        return new_stack

    def push(self, exit):
        """Register an exit callback: an object with __exit__, or a callable taking
        (exc_type, exc, tb)."""
        exit_method = getattr(type(exit), "__exit__", None)
        if exit_method is None:
            self._exit_callbacks.append((True, exit))
        else:
            self._exit_callbacks.append((True, _bound_exit(exit, exit_method)))
        return exit

    def enter_context(self, cm):
        """Enter cm and push its __exit__; returns what __enter__ returned."""
        cls = type(cm)
        enter = getattr(cls, "__enter__", None)
        exit = getattr(cls, "__exit__", None)
        if enter is None or exit is None:
            raise TypeError("'" + cls.__name__ + "' object does not support the context manager protocol")
        result = enter(cm)
        self._exit_callbacks.append((True, _bound_exit(cm, exit)))
        return result

    def callback(self, callback, /, *args, **kwds):
        """Register callback(*args, **kwds) to run on close (it does not see the exception)."""
        def _exit_wrapper(exc_type, exc, tb):
            callback(*args, **kwds)
        _exit_wrapper.__wrapped__ = callback
        self._exit_callbacks.append((False, _exit_wrapper))
        return callback

    def close(self):
        self.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_details):
        exc_type, exc, tb = exc_details
        received_exc = exc_type is not None
        suppressed_exc = False
        pending_raise = False
        pending = None
        while self._exit_callbacks:
            is_sync, cb = self._exit_callbacks.pop()
            try:
                if pending_raise:
                    args = (type(pending), pending, None)
                elif exc_type is not None:
                    args = (exc_type, exc, tb)
                else:
                    args = (None, None, None)
                if cb(*args):
                    suppressed_exc = True
                    pending_raise = False
                    pending = None
                    exc_type = None
                    exc = None
                    tb = None
            except BaseException as new_exc:
                # The callback raised: its exception replaces the one in flight.
                old = pending if pending_raise else exc
                if old is not None and getattr(new_exc, "__context__", None) is None:
                    try:
                        new_exc.__context__ = old
                    except (AttributeError, TypeError):
                        pass
                pending_raise = True
                pending = new_exc
        if pending_raise:
            raise pending
        return received_exc and suppressed_exc


def _bound_exit(cm, exit_method):
    def _exit(exc_type, exc, tb):
        return exit_method(cm, exc_type, exc, tb)
    return _exit


class AsyncExitStack(ExitStack):
    pass
