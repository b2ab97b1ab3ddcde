# torch.cuda.amp: the deprecated aliases of torch.amp's autocast("cuda") and GradScaler("cuda"),
# each warning with PyTorch 2.11's FutureWarning when made (torch/cuda/amp/*.py). Without CUDA,
# the GradScaler then warns and disables itself, and the autocast block is off.
import warnings

import torch
from torch.amp import _DeprecatedGradScaler


class autocast(torch.amp.autocast):
    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_DeprecatedGradScaler):
    _device = "cuda"
