# torch.autograd.Function, written as PyTorch's torch/autograd/function.py behaves: apply()
# runs forward under no_grad with a context object, then hands the outputs to the native
# _attach_function, which makes them results of one "<Name>Backward" node calling backward.
# While capturing, the forward is inlined; with inputs that require grad, _attach_function
# checks that backward traces and records the call as one autograd_function_apply node whose
# backward runs the user's backward (with a ctx rebuilt from the saved values) at run time.
import functools

import torch
from torch.autograd import _attach_function, _function_begin


class FunctionCtx:
    """What forward and backward share: saved tensors and the marks forward made."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, torch.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument " + str(tensors.index(t)) + " is of type " + type(t).__name__)
        self.to_save = tensors

    @property
    def saved_tensors(self):
        if getattr(self, "_freed", False):
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they have "
                "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward."
            )
        return tuple(getattr(self, "to_save", ()))

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(FunctionCtx):
    pass


def _is_setup_context_overridden(cls):
    return cls.setup_context is not Function.setup_context


class Function:
    """Custom autograd: subclass with static forward(ctx, ...) and backward(ctx, *grads)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if kwargs:
            raise TypeError("apply() got unexpected keyword arguments; pass them positionally")
        first_node = _function_begin()
        ctx = BackwardCFunction()
        grad = torch.is_grad_enabled()
        ctx.needs_input_grad = tuple(grad and isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        ctx.materialize_grads = True
        with torch.no_grad():
            if _is_setup_context_overridden(cls):
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        backward = cls.backward if cls.backward is not Function.backward else cls.vjp

        def run_backward(*grads):
            return backward(ctx, *grads)

        return _attach_function(
            cls.__name__ + "Backward",
            run_backward,
            args,
            output,
            getattr(ctx, "dirty_tensors", ()),
            getattr(ctx, "non_differentiable", ()),
            ctx.materialize_grads,
            ctx,
            backward,
            first_node,
        )


def once_differentiable(fn):
    """Runs backward with grad mode off (its result cannot be differentiated again)."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with torch.no_grad():
            return fn(ctx, *args)

    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace
