# torch.nn.utils: gradient clipping (torch/nn/utils/clip_grad.py, the per-tensor loop PyTorch
# runs without foreach kernels: the same norms and the same in-place updates).
import torch


def _tensor_list(tensors):
    if isinstance(tensors, torch.Tensor):
        return [tensors]
    return list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = _tensor_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    norms = [torch.norm(g, norm_type) for g in tensors]
    total_norm = torch.norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and torch.logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped. "
            "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(clip_coef_clamped)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    with torch.no_grad():
        total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_value_(parameters, clip_value, foreach=None):
    parameters = _tensor_list(parameters)
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    with torch.no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    return torch.cat([param.view(-1) for param in parameters])
