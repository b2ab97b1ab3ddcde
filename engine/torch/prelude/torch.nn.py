# torch.nn layers, written as PyTorch writes them: forward() methods calling torch and F
# functions, so capture inlines them the way Dynamo does. `Module` and `Parameter` come from
# the C++ side (engine/torch/nn_module.cpp).


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input
