# torch.cpu.amp.GradScaler: the deprecated alias of torch.amp.GradScaler("cpu"), warning with
# PyTorch 2.11's FutureWarning when made (torch/cpu/amp/grad_scaler.py). torch.cpu.amp.autocast
# is native (engine/torch/autocast_api.cpp).
from torch.amp import _DeprecatedGradScaler


class GradScaler(_DeprecatedGradScaler):
    _device = "cpu"
