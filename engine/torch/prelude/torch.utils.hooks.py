# torch.utils.hooks: RemovableHandle, what Module.register_forward_hook and friends return
# (as torch/utils/hooks.py writes it, with plain references where PyTorch keeps weak ones).


class RemovableHandle:
    """A handle which provides the capability to remove a hook."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (extra_dict,)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(extra_dict)

    def remove(self):
        if self.id in self.hooks_dict_ref:
            del self.hooks_dict_ref[self.id]
        for extra_dict in self.extra_dict_ref:
            if self.id in extra_dict:
                del extra_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
