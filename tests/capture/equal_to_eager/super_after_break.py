# Zero-argument super() in the code after a graph break (the resume function of a method or a
# class method) still finds the class and the method's first argument.
import torch


class Parent:
    coeff = 4

    @classmethod
    def add(cls, x):
        return x + 1

    def scale(self, x):
        return x * 2


class Child(Parent):
    @classmethod
    def add(cls, x):
        torch._dynamo.graph_break()
        return x + super().add(x) + super().coeff

    def scale(self, x):
        y = x - 1
        torch._dynamo.graph_break()
        return super().scale(y) + 1


@torch.compile
def f(x, obj):
    return x * 2 + obj.add(x) + obj.scale(x)


print(f(torch.arange(3.0), Child()))
print(f(torch.arange(3.0) + 1, Child()))
