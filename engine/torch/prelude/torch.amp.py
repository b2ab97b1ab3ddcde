# torch.amp.GradScaler (torch/amp/grad_scaler.py, PyTorch 2.11's behaviour and messages): dynamic
# loss scaling for mixed-precision training. scale() multiplies the loss by the scale, step()
# unscales the optimizer's gradients (checking them for inf/NaN) and skips optimizer.step() when
# any is not finite, update() backs the scale off after a skipped step and grows it after
# growth_interval clean ones. The scale and the growth tracker are 0-dim tensors as in PyTorch
# (float32, int32). torch.autocast itself is native (engine/torch/autocast_api.cpp); the
# deprecated torch.cuda.amp / torch.cpu.amp aliases are torch.cuda.amp.py / torch.cpu.amp.py.
import warnings
from collections import defaultdict

import torch

_READY = 0
_UNSCALED = 1
_STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": _READY, "found_inf_per_device": {}}


def _non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    # torch._amp_foreach_non_finite_check_and_unscale_: every gradient is multiplied by inv_scale;
    # found_inf becomes 1.0 when any element of any of them is inf or NaN.
    for g in grads:
        if not bool(torch.isfinite(g).all()):
            found_inf.fill_(1.0)
        g.mul_(inv_scale)


def _update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    # torch._amp_update_scale_ (ATen's CPU kernel).
    if float(found_inf) != 0.0:
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
        return
    successful = int(growth_tracker) + 1
    if successful == growth_interval:
        new_scale = float(scale) * growth_factor
        if new_scale != float("inf"):
            scale.fill_(new_scale)
        growth_tracker.fill_(0)
    else:
        growth_tracker.fill_(successful)


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            if enabled and not torch.cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
                self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, "Attempted " + funcname + " but _scale is None.  " + fix
        assert self._growth_tracker is not None, "Attempted " + funcname + " but _growth_tracker is None.  " + fix
        return (self._scale, self._growth_tracker)

    def _lazy_init_scale_growth_tracker(self, dev):
        assert self._growth_tracker is None, "_growth_tracker initialized before _scale"
        self._scale = torch.full((), self._init_scale, dtype=torch.float32, device=dev)
        self._growth_tracker = torch.full((), self._init_growth_tracker, dtype=torch.int32, device=dev)

    def scale(self, outputs):
        if not self._enabled:
            return outputs
        if isinstance(outputs, torch.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(val):
            if isinstance(val, torch.Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(device=val.device)
            if isinstance(val, (list, tuple)):
                return type(val)(apply_scale(v) for v in val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        # One found_inf per device (Kiln keeps the scaler's gradients on one device).
        grads = []
        with torch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    assert isinstance(param, torch.Tensor)
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == torch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grads.append(param.grad)
            if grads:
                _non_finite_check_and_unscale_(grads, found_inf, inv_scale)
        return {str(found_inf.device): found_inf} if grads else {}

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        elif optimizer_state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # The reciprocal in float64, as PyTorch computes it.
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=self._scale.device)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = _UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        retval = None
        found_inf = any(v.item() for v in optimizer_state["found_inf_per_device"].values())
        if not found_inf:
            retval = optimizer.step(*args, **kwargs)
        return retval, found_inf

    def step(self, optimizer, *args, return_found_inf=False, **kwargs):
        if not self._enabled:
            retval = optimizer.step(*args, **kwargs)
            if not return_found_inf:
                return retval
            return retval, False
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] == _READY:
            self.unscale_(optimizer)
        assert len(optimizer_state["found_inf_per_device"]) > 0, "No inf checks were recorded for this optimizer."
        retval, found_inf = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = _STEPPED
        if return_found_inf:
            return retval, found_inf
        return retval

    def update(self, new_scale=None):
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if not isinstance(new_scale, torch.Tensor):
                self._scale.fill_(new_scale)
            else:
                reason = "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with requires_grad=False."
                assert new_scale.device.type == self._device, reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found_inf_combined = found_infs[0]
            for i in range(1, len(found_infs)):
                found_inf_combined = found_inf_combined + found_infs[i]
            _update_scale_(_scale, _growth_tracker, found_inf_combined, self._growth_factor, self._backoff_factor,
                           self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if self._enabled:
            return {
                "scale": self.get_scale(),
                "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker(),
            }
        return {}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])




class _DeprecatedGradScaler(GradScaler):
    # torch.cuda.amp.GradScaler / torch.cpu.amp.GradScaler: GradScaler(_device) after PyTorch's
    # FutureWarning (subclasses set _device).
    _device = "cuda"

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        d = type(self)._device
        warnings.warn("`torch." + d + ".amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('" + d
                      + "', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__(d, init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
