# torch.optim, written as PyTorch writes it (torch/optim/optimizer.py, sgd.py, adam.py with
# the single-tensor "for-loop" implementations PyTorch uses for CPU tensors): parameters are
# updated in place under no_grad, in PyTorch's order of operations.
import math

import torch


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        if isinstance(params, torch.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor")
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def add_param_group(self, param_group):
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            param_group["params"] = [params]
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if name not in param_group:
                param_group[name] = default
        self.param_groups.append(param_group)

    def _state_for(self, p):
        # Optimizer.state is keyed by the parameter itself (identity), as in PyTorch.
        for key, value in self.state.items():
            if key is p:
                return value
        st = {}
        self.state[p] = st
        return st

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.zero_()

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                lr = group["lr"]
                momentum = group["momentum"]
                dampening = group["dampening"]
                weight_decay = group["weight_decay"]
                nesterov = group["nesterov"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = param.grad if not group["maximize"] else -param.grad
                    if weight_decay != 0:
                        grad = grad.add(param, alpha=weight_decay)
                    if momentum != 0:
                        state = self._state_for(param)
                        buf = state.get("momentum_buffer", None)
                        if buf is None:
                            buf = torch.clone(grad).detach()
                            state["momentum_buffer"] = buf
                        else:
                            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                        if nesterov:
                            grad = grad.add(buf, alpha=momentum)
                        else:
                            grad = buf
                    param.add_(grad, alpha=-lr)
        return loss


def _lerp_(start, end, weight):
    # ATen's lerp: start + weight * (end - start) for weight < 0.5, else end - (end - start) * (1 - weight).
    if weight < 0.5:
        return start.add_((end - start) * weight)
    return start.copy_(end - (end - start) * (1 - weight))


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr = group["lr"]
                eps = group["eps"]
                weight_decay = group["weight_decay"]
                amsgrad = group["amsgrad"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    grad = param.grad if not group["maximize"] else -param.grad
                    state = self._state_for(param)
                    if len(state) == 0:
                        # Compiling, the step is made by the graph (a torch.tensor would be a
                        # constant of it, frozen at 0): Dynamo runs _init_group eagerly instead.
                        state["step"] = torch.zeros(()) if torch.compiler.is_compiling() else torch.tensor(0.0)
                        state["exp_avg"] = torch.zeros_like(param)
                        state["exp_avg_sq"] = torch.zeros_like(param)
                        if amsgrad:
                            state["max_exp_avg_sq"] = torch.zeros_like(param)
                    exp_avg = state["exp_avg"]
                    exp_avg_sq = state["exp_avg_sq"]
                    step_t = state["step"]
                    step_t += 1
                    if weight_decay != 0:
                        if group["decoupled_weight_decay"]:
                            param.mul_(1 - lr * weight_decay)
                        else:
                            grad = grad.add(param, alpha=weight_decay)
                    # Decay the first and second moment running average coefficient.
                    _lerp_(exp_avg, grad, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    if amsgrad:
                        max_exp_avg_sq = state["max_exp_avg_sq"]
                        max_exp_avg_sq.copy_(torch.maximum(max_exp_avg_sq, exp_avg_sq))
                        second = max_exp_avg_sq
                    else:
                        second = exp_avg_sq
                    if torch.compiler.is_compiling():
                        # PyTorch's _get_value under torch.compile: the step stays a tensor and the
                        # bias corrections are tensor ops, so the whole step is one graph (a step
                        # read with item() would break it, and a Python float would recompile it
                        # every step). addcdiv_ with a tensor value is Dynamo's polyfill:
                        # param += (exp_avg / denom) * value.
                        bias_correction1 = 1 - beta1**step_t
                        bias_correction2 = 1 - beta2**step_t
                        step_size = lr / bias_correction1
                        bias_correction2_sqrt = bias_correction2**0.5
                        denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
                        param.add_(torch.div(exp_avg, denom) * -step_size)
                    else:
                        step = step_t.item()
                        bias_correction1 = 1 - beta1**step
                        bias_correction2 = 1 - beta2**step
                        step_size = lr / bias_correction1
                        bias_correction2_sqrt = math.sqrt(bias_correction2)
                        denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
                        param.addcdiv_(exp_avg, denom, value=-step_size)
        return loss


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False,
                 foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
