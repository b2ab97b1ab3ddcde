# torch.autograd: Function and its helpers (defined in torch.autograd.function, which the
# prelude runs first), and the module-level API Kiln has natively.
from torch.autograd.function import Function, FunctionCtx, InplaceFunction, once_differentiable  # noqa: F401
