# torch.utils.checkpoint: activation checkpointing, with PyTorch 2.11's API and messages
# (torch/utils/checkpoint.py). The forward runs the checkpointed function without keeping its
# activations (under no_grad, inside one autograd Function); the backward recomputes it with grad
# enabled, the CPU generator's state restored so random ops draw what they drew, and
# backpropagates through the recomputation. Both variants (use_reentrant=True / False) are that
# Function here: PyTorch's non-reentrant variant hooks saved tensors instead, which Kiln's autograd
# does not have; the gradients are the same, and use_reentrant=False keeps its own rules (keyword
# arguments, no error when no input requires grad). While torch.compile captures, the function is
# traced in place and its nodes marked as one checkpoint region (the native
# _kiln_checkpoint_region, engine/torch/checkpoint_api.cpp), which the compiled backward's
# partitioner recomputes instead of saving (Dynamo's tag_activation_checkpoint).
import contextlib
import functools
import warnings

import torch

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "noop_context_fn"]


class CheckpointError(RuntimeError):
    pass


def detach_variable(inputs):
    if isinstance(inputs, tuple):
        out = []
        for inp in inputs:
            if not isinstance(inp, torch.Tensor):
                out.append(inp)
                continue
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            out.append(x)
        return tuple(out)
    raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: " + type(inputs).__name__)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, torch.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _rng_state():
    state = torch.Generator()
    _kiln_rng_state(state, True)
    return state


def _autocast_state():
    return torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")


def _run_recomputation(ctx, inputs):
    # The recomputation: the forward's CPU random state and autocast state, grad mode on; the
    # surrounding random state is restored afterwards (torch.random.fork_rng).
    outer = _rng_state() if ctx.preserve_rng_state else None
    if ctx.preserve_rng_state:
        _kiln_rng_state(ctx.fwd_cpu_state, False)
    try:
        detached = detach_variable(tuple(inputs))
        enabled, dtype = ctx.autocast
        with torch.enable_grad(), torch.autocast("cpu", dtype=dtype, enabled=enabled):
            outputs = ctx.run_function(*detached, **ctx.kwargs)
    finally:
        if outer is not None:
            _kiln_rng_state(outer, False)
    return detached, outputs


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        return _checkpointed_forward(ctx, run_function, preserve_rng_state, args, {})

    @staticmethod
    def backward(ctx, *args):
        return (None, None) + _checkpointed_backward(ctx, args, True)


class _NonReentrantCheckpoint(torch.autograd.Function):
    # forward(ctx, run_function, preserve_rng_state, kwargs, anchor, *args): `anchor` is an
    # empty tensor that requires grad when the function's result does but no argument does (the
    # parameters it reads), so that the result still reaches this node's backward.
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, kwargs, anchor, *args):
        return _checkpointed_forward(ctx, run_function, preserve_rng_state, args, kwargs)

    @staticmethod
    def backward(ctx, *args):
        return (None, None, None, None) + _checkpointed_backward(ctx, args, False)


def _checkpointed_forward(ctx, run_function, preserve_rng_state, args, kwargs):
    ctx.run_function = run_function
    ctx.preserve_rng_state = preserve_rng_state
    ctx.kwargs = kwargs
    ctx.autocast = _autocast_state()
    if preserve_rng_state:
        ctx.fwd_cpu_state = _rng_state()
    # Non-tensor arguments stay in ctx; the tensors are saved (the checkpoint's inputs, kept
    # for the recomputation: nothing the function computes is).
    ctx.inputs = []
    ctx.tensor_indices = []
    tensor_inputs = []
    for i, arg in enumerate(args):
        if torch.is_tensor(arg):
            tensor_inputs.append(arg)
            ctx.tensor_indices.append(i)
            ctx.inputs.append(None)
        else:
            ctx.inputs.append(arg)
    ctx.save_for_backward(*tensor_inputs)
    with torch.no_grad():
        outputs = run_function(*args, **kwargs)
    return outputs


def _checkpointed_backward(ctx, grads, reentrant):
    inputs = list(ctx.inputs)
    for i, idx in enumerate(ctx.tensor_indices):
        inputs[idx] = ctx.saved_tensors[i]
    detached, outputs = _run_recomputation(ctx, inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    # Backward through the recomputation, only for the outputs that require grad; leaves the
    # function reads (parameters) accumulate their gradients there.
    pairs = []
    for i in range(len(outputs)):
        if torch.is_tensor(outputs[i]) and outputs[i].requires_grad and grads[i] is not None:
            pairs.append((outputs[i], grads[i]))
    if len(pairs) == 0 and reentrant:
        raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
    for k, (out, grad) in enumerate(pairs):
        out.backward(grad, retain_graph=k + 1 < len(pairs))
    return tuple(inp.grad if isinstance(inp, torch.Tensor) else None for inp in detached)


class _CheckpointFunction:
    # checkpoint(use_reentrant=..., ...) without a function: a decorator whose calls checkpoint.
    def __init__(self, function, **checkpoint_kwargs):
        self.function = function
        self.checkpoint_kwargs = dict(checkpoint_kwargs)

    def __call__(self, *args, **kwargs):
        return _checkpoint_impl(self.function, args, kwargs, **self.checkpoint_kwargs)


def _make_checkpoint_wrapper(function, **checkpoint_kwargs):
    return _CheckpointFunction(function, **checkpoint_kwargs)


def checkpoint(function=None, *args, use_reentrant=None, preserve_rng_state=True, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    if function is None and not args:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return functools.partial(_make_checkpoint_wrapper, use_reentrant=use_reentrant,
                                 preserve_rng_state=preserve_rng_state, context_fn=context_fn,
                                 determinism_check=determinism_check, debug=debug, early_stop=early_stop)
    return _checkpoint_impl(function, args, kwargs, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state,
                            context_fn=context_fn, determinism_check=determinism_check, debug=debug,
                            early_stop=early_stop)


def _checkpoint_impl(function, args, kwargs, *, use_reentrant=None, preserve_rng_state=True,
                     context_fn=noop_context_fn, determinism_check="default", debug=False, early_stop=True):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=3,
        )
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    elif context_fn is not noop_context_fn:
        raise NotImplementedError("Kiln's torch.utils.checkpoint does not support context_fn (selective checkpointing) yet")
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got " + str(determinism_check))
    if torch._dynamo.is_compiling():
        # Captured in place, marked as a region the partitioner recomputes.
        return _kiln_checkpoint_region(function, *args, **kwargs)
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    anchor = None
    if torch.is_grad_enabled() and not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        anchor = torch.empty(0, requires_grad=True)
    return _NonReentrantCheckpoint.apply(function, preserve_rng_state, kwargs, anchor, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    # The last segment is not checkpointed: backward needs its activations right away.
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(use_reentrant=use_reentrant, preserve_rng_state=preserve)(run_function(start, end, functions))(input)
    return run_function(end + 1, len(functions) - 1, functions)(input)
