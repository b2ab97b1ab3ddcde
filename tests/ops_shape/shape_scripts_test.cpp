// Torch-level shape, indexing, reduction, softmax/normalization and loss functions run as
// scripts in Kiln's interpreter; the expected output is what PyTorch printed for the same
// script (generated once with real PyTorch, embedded here).
#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln::py {
namespace {

std::string run(const std::string& src) {
  std::ostringstream out;
  Interpreter in(out);
  kiln::torchapi::install(in);
  Module m = parseModule(src, "t.py");
  try {
    in.runModule(m);
  } catch (const PyError& e) { return out.str() + formatTraceback(e, src); }
  return out.str();
}

TEST(ShapeScripts, ViewSharesStorage) {
  const char* src = R"PY(import torch
x = torch.arange(12.0).reshape(3, 4)
v = x.view(4, 3)
v[0, 0] = 100.0
print(x[0, 0].item(), v.is_contiguous(), v.stride())
t = x.t()
print(tuple(t.shape), t.stride(), t.is_contiguous())
t[1, 2] = -5.0
print(x[2, 1].item())
)PY";
  const char* want = R"OUT(100.0 True (3, 1)
(4, 3) (1, 4) False
-5.0
)OUT";
  EXPECT_EQ(run(src), want);
}

// Tensor.repeat / torch.tile: the copy PyTorch makes (never a view, even for repeats of 1),
// leading dims added, zero repeats, too few repeats, and the gradient summed over the copies.
TEST(ShapeScripts, RepeatAndTile) {
  const char* src = R"PY(import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = x.repeat(2, 3)
print(tuple(y.shape), y.is_contiguous())
print(y[3].tolist())
z = torch.tensor([1, 2, 3]).repeat(2, 2)
print(z.tolist(), z.dtype)
c = x.repeat(1, 1)
c[0, 0] = 9.0
print(x[0, 0].item())
print(tuple(x.repeat(2, 1, 1).shape), tuple(torch.tile(x, (2,)).shape), tuple(x.tile(3, 1, 1).shape))
print(tuple(x.repeat(0, 2).shape))
try:
    x.repeat(2)
except RuntimeError as e:
    print(e)
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w.repeat(3) * torch.arange(6.0)).sum().backward()
print(w.grad.tolist())
)PY";
  const char* want = R"OUT((4, 6) True
[3.0, 4.0, 3.0, 4.0, 3.0, 4.0]
[[1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 3]] torch.int64
1.0
(2, 2, 2) (2, 4) (3, 2, 2)
(0, 4)
Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor
[6.0, 9.0]
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, ViewErrors) {
  const char* src = R"PY(import torch
x = torch.arange(12.0).reshape(3, 4).t()
try:
    x.view(12)
except RuntimeError as e:
    print(e)
print(x.reshape(12))
print(x.reshape(2, 6).stride())
try:
    torch.ones(6).view(4, -1)
except RuntimeError as e:
    print(e)
try:
    torch.ones(6).view(-1, -1)
except RuntimeError as e:
    print(e)
)PY";
  const char* want =
      R"OUT(view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
tensor([ 0.,  4.,  8.,  1.,  5.,  9.,  2.,  6., 10.,  3.,  7., 11.])
(6, 1)
shape '[4, -1]' is invalid for input of size 6
only one dimension can be inferred
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, PermuteTranspose) {
  const char* src = R"PY(import torch
x = torch.arange(24).reshape(2, 3, 4)
p = x.permute(2, 0, 1)
print(tuple(p.shape), p.stride(), p[3, 1, 2].item())
print(x.transpose(0, 2).contiguous().view(-1)[:6])
print(tuple(x.transpose(-1, -2).shape), tuple(x.T.shape), tuple(x.mT.shape))
y = x.permute(1, 0, 2).flatten(1)
print(y)
try:
    x.permute(0, 1)
except RuntimeError as e:
    print(e)
try:
    x.permute(0, 1, 1)
except RuntimeError as e:
    print(e)
)PY";
  const char* want = R"OUT((4, 2, 3) (1, 12, 4) 23
tensor([ 0, 12,  4, 16,  8, 20])
(2, 4, 3) (4, 3, 2) (2, 4, 3)
tensor([[ 0,  1,  2,  3, 12, 13, 14, 15],
        [ 4,  5,  6,  7, 16, 17, 18, 19],
        [ 8,  9, 10, 11, 20, 21, 22, 23]])
permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 2
permute(): duplicate dims are not allowed.
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, ExpandSqueeze) {
  const char* src = R"PY(import torch
x = torch.tensor([[1.0], [2.0], [3.0]])
e = x.expand(3, 4)
print(e, e.stride())
print(tuple(x.expand(2, -1, 2).shape))
try:
    x.expand(2, 4)
except RuntimeError as e2:
    print(e2)
print(tuple(x.squeeze().shape), tuple(x.squeeze(1).shape), tuple(x.squeeze(0).shape), tuple(x.unsqueeze(0).shape), tuple(x.unsqueeze(-1).shape))
print(tuple(torch.ones(1, 2, 1, 3).squeeze(0).squeeze(1).shape))
print(tuple(torch.zeros(2, 3).expand_as(torch.zeros(4, 2, 3)).shape))
try:
    x.unsqueeze(3)
except IndexError as e3:
    print(e3)
)PY";
  const char* want = R"OUT(tensor([[1., 1., 1., 1.],
        [2., 2., 2., 2.],
        [3., 3., 3., 3.]]) (1, 0)
(2, 3, 2)
The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 1]
(3,) (3,) (3, 1) (1, 3, 1) (3, 1, 1)
(2, 3)
(4, 2, 3)
Dimension out of range (expected to be in range of [-3, 2], but got 3)
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, Slicing) {
  const char* src = R"PY(import torch
x = torch.arange(20).reshape(4, 5)
print(x[1])
print(x[-1])
print(x[1:3])
print(x[::2, 1::2])
print(x[:, 0])
print(tuple(x[..., None].shape), tuple(x[None].shape), tuple(x[:, None, 2].shape))
print(x[1, -2].item())
print(x[2:100, -100:2])
print(tuple(x[3:1].shape))
try:
    x[5]
except IndexError as e:
    print(e)
try:
    x[0, 0, 0]
except IndexError as e:
    print(e)
try:
    x[:, 7]
except IndexError as e:
    print(e)
)PY";
  const char* want = R"OUT(tensor([5, 6, 7, 8, 9])
tensor([15, 16, 17, 18, 19])
tensor([[ 5,  6,  7,  8,  9],
        [10, 11, 12, 13, 14]])
tensor([[ 1,  3],
        [11, 13]])
tensor([ 0,  5, 10, 15])
(4, 5, 1) (1, 4, 5) (4, 1)
8
tensor([[10, 11],
        [15, 16]])
(0, 5)
index 5 is out of bounds for dimension 0 with size 4
too many indices for tensor of dimension 2
index 7 is out of bounds for dimension 1 with size 5
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, AdvancedIndex) {
  const char* src = R"PY(import torch
x = torch.arange(12.0).reshape(3, 4)
print(x[x > 5])
print(x[torch.tensor([2, 0])])
print(x[:, torch.tensor([1, 3])])
print(x[torch.tensor([0, 2]), torch.tensor([1, 3])])
print(x[[0, 2]])
print(x[torch.tensor([True, False, True])])
print(tuple(x[torch.tensor([[0, 1], [2, 2]])].shape))
m = torch.tensor([True, False, True, False])
print(x[:, m])
try:
    x[torch.tensor([3])]
except IndexError as e:
    print(e)
)PY";
  const char* want = R"OUT(tensor([ 6.,  7.,  8.,  9., 10., 11.])
tensor([[ 8.,  9., 10., 11.],
        [ 0.,  1.,  2.,  3.]])
tensor([[ 1.,  3.],
        [ 5.,  7.],
        [ 9., 11.]])
tensor([ 1., 11.])
tensor([[ 0.,  1.,  2.,  3.],
        [ 8.,  9., 10., 11.]])
tensor([[ 0.,  1.,  2.,  3.],
        [ 8.,  9., 10., 11.]])
(2, 2, 4)
tensor([[ 0.,  2.],
        [ 4.,  6.],
        [ 8., 10.]])
index 3 is out of bounds for dimension 0 with size 3
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, Setitem) {
  const char* src = R"PY(import torch
x = torch.zeros(3, 4)
x[0] = 1.0
x[1, 1:3] = torch.tensor([5.0, 6.0])
x[:, 3] = torch.tensor([7.0, 8.0, 9.0])
x[2][0] = -1.0
print(x)
y = torch.arange(6.0)
y[y > 2] = 0.0
print(y)
y[torch.tensor([0, 1])] = torch.tensor([10.0, 11.0])
print(y)
z = torch.zeros(2, 3, dtype=torch.int64)
z[..., 1] = 4
print(z)
try:
    x[0:2] = torch.ones(3)
except RuntimeError as e:
    print(e)
)PY";
  const char* want = R"OUT(tensor([[ 1.,  1.,  1.,  7.],
        [ 0.,  5.,  6.,  8.],
        [-1.,  0.,  0.,  9.]])
tensor([0., 1., 2., 0., 0., 0.])
tensor([10., 11.,  2.,  0.,  0.,  0.])
tensor([[0, 4, 0],
        [0, 4, 0]])
The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, IterateUnbindChunk) {
  const char* src = R"PY(import torch
x = torch.arange(6).reshape(3, 2)
for r in x:
    print(r)
a, b = x.unbind(1)
print(a, b)
c = torch.arange(10).chunk(3)
print(len(c), c[0], c[-1])
print([tuple(t.shape) for t in torch.arange(10).split(4)])
print([t.tolist() for t in torch.arange(6).split([1, 5])])
print([tuple(t.shape) for t in torch.ones(2, 7).chunk(3, dim=-1)])
q, k, v = torch.arange(12.0).reshape(2, 6).chunk(3, dim=-1)
k[0, 0] = 99.0
print(q, k, v)
)PY";
  const char* want = R"OUT(tensor([0, 1])
tensor([2, 3])
tensor([4, 5])
tensor([0, 2, 4]) tensor([1, 3, 5])
3 tensor([0, 1, 2, 3]) tensor([8, 9])
[(4,), (4,), (2,)]
[[0], [1, 2, 3, 4, 5]]
[(2, 3), (2, 3), (2, 1)]
tensor([[0., 1.],
        [6., 7.]]) tensor([[99.,  3.],
        [ 8.,  9.]]) tensor([[ 4.,  5.],
        [10., 11.]])
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, CatStack) {
  const char* src = R"PY(import torch
a = torch.arange(6).reshape(2, 3)
b = torch.arange(6, 12).reshape(2, 3)
print(torch.cat([a, b]))
print(torch.cat((a, b), dim=1))
print(torch.cat([a, b.float()], -1).dtype)
print(tuple(torch.stack([a, b]).shape), torch.stack([a, b], dim=1))
print(tuple(torch.stack([a, b], -1).shape))
print(torch.cat([a.t(), b.t()], 1))
try:
    torch.cat([a, torch.zeros(3, 3)], 1)
except RuntimeError as e:
    print(e)
try:
    torch.stack([a, torch.zeros(3, 2)])
except RuntimeError as e:
    print(e)
)PY";
  const char* want = R"OUT(tensor([[ 0,  1,  2],
        [ 3,  4,  5],
        [ 6,  7,  8],
        [ 9, 10, 11]])
tensor([[ 0,  1,  2,  6,  7,  8],
        [ 3,  4,  5,  9, 10, 11]])
torch.float32
(2, 2, 3) tensor([[[ 0,  1,  2],
         [ 6,  7,  8]],

        [[ 3,  4,  5],
         [ 9, 10, 11]]])
(2, 3, 2)
tensor([[ 0,  3,  6,  9],
        [ 1,  4,  7, 10],
        [ 2,  5,  8, 11]])
Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.
stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, Reductions) {
  const char* src = R"PY(import torch
x = torch.tensor([[1.0, -2.0, 3.5], [4.0, 0.5, -6.0]])
print(x.sum(), x.sum(0), x.sum(dim=1, keepdim=True), x.sum((0, 1)))
print(x.mean(), x.mean(dim=-1), x.mean(0, keepdim=True))
print(x.max(), x.min(), x.amax(1), x.amin(0))
v, i = x.max(dim=1)
print(v, i)
v, i = torch.min(x, 0, keepdim=True)
print(v, i)
print(x.argmax(), x.argmax(1), x.argmin(dim=0, keepdim=True))
print(x.var(), x.std(1), x.var(0, unbiased=False), x.std(dim=1, keepdim=True, correction=0))
print(torch.var_mean(x, dim=1))
print(x.logsumexp(1), torch.logsumexp(x, dim=0, keepdim=True))
print(x.norm(), x.norm(dim=1), x.norm(p=1), x.norm(1, dim=0))
print(x.prod(), x.prod(1), torch.arange(1, 6).prod())
print((x > 0).any(), (x > 0).all(), (x > 0).any(1), (x > -10).all(dim=0))
print(torch.arange(5).sum(), torch.arange(5).sum().dtype, torch.tensor([True, True, False]).sum())
print(x.sum(dtype=torch.float64))
print(torch.max(x, torch.zeros(2, 3)))
)PY";
  const char* want = R"OUT(tensor(1.) tensor([ 5.0000, -1.5000, -2.5000]) tensor([[ 2.5000],
        [-1.5000]]) tensor(1.)
tensor(0.1667) tensor([ 0.8333, -0.5000]) tensor([[ 2.5000, -0.7500, -1.2500]])
tensor(4.) tensor(-6.) tensor([3.5000, 4.0000]) tensor([ 1., -2., -6.])
tensor([3.5000, 4.0000]) tensor([2, 0])
tensor([[ 1., -2., -6.]]) tensor([[0, 0, 1]])
tensor(3) tensor([2, 0]) tensor([[0, 0, 1]])
tensor(13.8667) tensor([2.7538, 5.0744]) tensor([ 2.2500,  1.5625, 22.5625]) tensor([[2.2485],
        [4.1433]])
(tensor([ 7.5833, 25.7500]), tensor([ 0.8333, -0.5000]))
tensor([3.5827, 4.0298]) tensor([[4.0486, 0.5789, 3.5001]])
tensor(8.3367) tensor([4.1533, 7.2284]) tensor(17.) tensor([5.0000, 2.5000, 9.5000])
tensor(84.) tensor([ -7., -12.]) tensor(120)
tensor(True) tensor(False) tensor([True, True]) tensor([True, True, True])
tensor(10) torch.int64 tensor(2)
tensor(1., dtype=torch.float64)
tensor([[1.0000, 0.0000, 3.5000],
        [4.0000, 0.5000, 0.0000]])
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, ReductionErrors) {
  const char* src = R"PY(import torch
try:
    torch.arange(4).mean()
except RuntimeError as e:
    print(e)
try:
    torch.zeros(0).max()
except RuntimeError as e:
    print(e)
try:
    torch.ones(2, 3).sum(2)
except IndexError as e:
    print(e)
try:
    torch.ones(2, 3).sum((1, 1))
except RuntimeError as e:
    print(e)
)PY";
  const char* want = R"OUT(mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long
max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.
Dimension out of range (expected to be in range of [-2, 1], but got 2)
dim 1 appears multiple times in the list of dims
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, NoncontiguousReduce) {
  const char* src = R"PY(import torch
x = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
print(x.sum(0), x.mean(dim=(1, 2)), x.amax(-1), x.argmax(2))
print(x[:, 1].var(dim=0))
y = torch.arange(10.0)[::3]
print(y.sum(), y.max(), y.cumsum(0) if False else y.norm())
)PY";
  const char* want = R"OUT(tensor([[ 6., 22., 38.],
        [54., 70., 86.]]) tensor([10., 11., 12., 13.]) tensor([[ 8., 20.],
        [ 9., 21.],
        [10., 22.],
        [11., 23.]]) tensor([[2, 2],
        [2, 2],
        [2, 2],
        [2, 2]])
tensor([1.6667, 1.6667, 1.6667])
tensor(18.) tensor(9.) tensor(11.2250)
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, PointwiseNew) {
  const char* src = R"PY(import torch
x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0])
print(x.sign(), torch.log1p(x.abs()), torch.expm1(x))
print(x.clamp(min=0), x.clamp(-1, 1), x.clamp(max=0.25), torch.clamp(x, min=-0.1))
print(torch.arange(5).clamp(1, 3), torch.arange(5).clamp(min=0.5))
print(x ** 2, x.pow(3), torch.arange(4) ** 2, 2 ** torch.arange(4))
print(torch.nn.functional.gelu(x), torch.nn.functional.gelu(x, approximate='tanh'))
print(torch.nn.functional.silu(x))
b = x > 0
print((~b).tolist(), (b & (x < 1)).tolist(), (b | (x < -1)).tolist(), (b ^ (x < 1)).tolist(), torch.logical_not(b).tolist(), torch.logical_and(b, x < 1).tolist())
print(torch.arange(7) // 2, torch.tensor([-7, 7]) // 2, torch.tensor([-7.0, 7.5]) // 2)
print(torch.arange(6) & 3, torch.arange(6) | 8)
print(x.round(), x.trunc(), x.abs().sqrt())
)PY";
  const char* want =
      R"OUT(tensor([-1., -1.,  0.,  1.,  1.]) tensor([1.0986, 0.4055, 0.0000, 0.4055, 1.0986]) tensor([-0.8647, -0.3935,  0.0000,  0.6487,  6.3891])
tensor([0.0000, 0.0000, 0.0000, 0.5000, 2.0000]) tensor([-1.0000, -0.5000,  0.0000,  0.5000,  1.0000]) tensor([-2.0000, -0.5000,  0.0000,  0.2500,  0.2500]) tensor([-0.1000, -0.1000,  0.0000,  0.5000,  2.0000])
tensor([1, 1, 2, 3, 3]) tensor([0.5000, 1.0000, 2.0000, 3.0000, 4.0000])
tensor([4.0000, 0.2500, 0.0000, 0.2500, 4.0000]) tensor([-8.0000, -0.1250,  0.0000,  0.1250,  8.0000]) tensor([0, 1, 4, 9]) tensor([1, 2, 4, 8])
tensor([-0.0455, -0.1543,  0.0000,  0.3457,  1.9545]) tensor([-0.0454, -0.1543,  0.0000,  0.3457,  1.9546])
tensor([-0.2384, -0.1888,  0.0000,  0.3112,  1.7616])
[True, True, True, False, False] [False, False, False, True, False] [True, False, False, True, True] [True, True, True, False, True] [True, True, True, False, False] [False, False, False, True, False]
tensor([0, 0, 1, 1, 2, 2, 3]) tensor([-4,  3]) tensor([-4.,  3.])
tensor([0, 1, 2, 3, 0, 1]) tensor([ 8,  9, 10, 11, 12, 13])
tensor([-2., -0.,  0.,  0.,  2.]) tensor([-2., -0.,  0.,  0.,  2.]) tensor([1.4142, 0.7071, 0.0000, 0.7071, 1.4142])
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, WhereMaskedTril) {
  const char* src = R"PY(import torch
x = torch.arange(9.0).reshape(3, 3)
print(torch.where(x > 4, x, torch.zeros(3, 3)))
print(torch.where(x > 4, x, 0.0), torch.where(x > 4, 1.0, -1.0))
print(torch.where(x > 4))
print(x.masked_fill(x > 4, float("-inf")).tolist())
print(x.masked_fill(torch.tensor([True, False, True]), 0.5))
print(torch.tril(x), torch.triu(x, diagonal=1), x.tril(-1))
print(torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1).tolist())
print(torch.nonzero(x > 5), tuple((x > 6).nonzero().squeeze(-1).shape))
print(torch.arange(6).reshape(2, 3).gather(1, torch.tensor([[2, 0], [1, 1]])))
print(torch.index_select(x, 0, torch.tensor([2, 0])))
)PY";
  const char* want = R"OUT(tensor([[0., 0., 0.],
        [0., 0., 5.],
        [6., 7., 8.]])
tensor([[0., 0., 0.],
        [0., 0., 5.],
        [6., 7., 8.]]) tensor([[-1., -1., -1.],
        [-1., -1.,  1.],
        [ 1.,  1.,  1.]])
(tensor([1, 2, 2, 2]), tensor([2, 0, 1, 2]))
[[0.0, 1.0, 2.0], [3.0, 4.0, -inf], [-inf, -inf, -inf]]
tensor([[0.5000, 1.0000, 0.5000],
        [0.5000, 4.0000, 0.5000],
        [0.5000, 7.0000, 0.5000]])
tensor([[0., 0., 0.],
        [3., 4., 0.],
        [6., 7., 8.]]) tensor([[0., 1., 2.],
        [0., 0., 5.],
        [0., 0., 0.]]) tensor([[0., 0., 0.],
        [3., 0., 0.],
        [6., 7., 0.]])
[[False, True, True], [False, False, True], [False, False, False]]
tensor([[2, 0],
        [2, 1],
        [2, 2]]) (2, 2)
tensor([[2, 0],
        [4, 4]])
tensor([[6., 7., 8.],
        [0., 1., 2.]])
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, SoftmaxNorms) {
  const char* src = R"PY(import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 1.0, 10.0]])
print(F.softmax(x, dim=-1))
print(F.softmax(x, dim=0), x.softmax(1), torch.softmax(x, -1))
print((F.log_softmax(x, dim=-1) * 1e4).round() / 1e4, x.log_softmax(dim=0))
print(F.softmax(torch.tensor([[-float('inf'), 0.0]]), dim=-1))
print(F.layer_norm(x, (4,)))
print(F.layer_norm(x, [4], torch.tensor([1.0, 2.0, 0.5, -1.0]), torch.tensor([0.0, 0.1, 0.2, 0.3]), 1e-3))
print(F.layer_norm(x, x.shape))
y = torch.arange(24.0).reshape(2, 3, 2, 2) * 0.1
rm = torch.tensor([0.5, 1.0, -1.0])
rv = torch.tensor([1.0, 2.0, 0.5])
print(F.batch_norm(y, rm, rv, torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 1.0, -1.0])))
out = F.batch_norm(y, rm, rv, training=True, momentum=0.2)
print(out[0, :, 0, 0], rm, rv)
print(F.dropout(x, 0.5, training=False), F.dropout(x, p=0.0))
)PY";
  const char* want = R"OUT(tensor([[3.2059e-02, 8.7144e-02, 2.3688e-01, 6.4391e-01],
        [1.6699e-05, 4.5392e-05, 1.2339e-04, 9.9981e-01]])
tensor([[0.8808, 0.8808, 0.8808, 0.0025],
        [0.1192, 0.1192, 0.1192, 0.9975]]) tensor([[3.2059e-02, 8.7144e-02, 2.3688e-01, 6.4391e-01],
        [1.6699e-05, 4.5392e-05, 1.2339e-04, 9.9981e-01]]) tensor([[3.2059e-02, 8.7144e-02, 2.3688e-01, 6.4391e-01],
        [1.6699e-05, 4.5392e-05, 1.2339e-04, 9.9981e-01]])
tensor([[-3.4402e+00, -2.4402e+00, -1.4402e+00, -4.4020e-01],
        [-1.1000e+01, -1.0000e+01, -9.0002e+00, -2.0000e-04]]) tensor([[-1.2693e-01, -1.2693e-01, -1.2693e-01, -6.0025e+00],
        [-2.1269e+00, -2.1269e+00, -2.1269e+00, -2.4757e-03]])
tensor([[0., 1.]])
tensor([[-1.3416, -0.4472,  0.4472,  1.3416],
        [-0.7977, -0.5698, -0.3419,  1.7094]])
tensor([[-1.3411, -0.7941,  0.4235, -1.0411],
        [-0.7977, -1.0396,  0.0291, -1.4094]])
tensor([[-0.4685, -0.1562,  0.1562,  0.4685],
        [-1.0932, -0.7809, -0.4685,  2.3426]])
tensor([[[[-0.5000, -0.4000],
          [-0.3000, -0.2000]],

         [[ 0.1515,  0.2929],
          [ 0.4343,  0.5757]],

         [[ 6.6367,  7.0609],
          [ 7.4852,  7.9095]]],


        [[[ 0.7000,  0.8000],
          [ 0.9000,  1.0000]],

         [[ 1.8485,  1.9899],
          [ 2.1314,  2.2728]],

         [[11.7278, 12.1521],
          [12.5763, 13.0006]]]])
tensor([-1.2288, -1.2288, -1.2288]) tensor([ 0.5500,  1.0300, -0.4900]) tensor([0.8851, 1.6851, 0.4851])
tensor([[ 1.,  2.,  3.,  4.],
        [-1.,  0.,  1., 10.]]) tensor([[ 1.,  2.,  3.,  4.],
        [-1.,  0.,  1., 10.]])
)OUT";
  EXPECT_EQ(run(src), want);
}

TEST(ShapeScripts, Losses) {
  const char* src = R"PY(import torch
import torch.nn.functional as F
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1.0, 1.0, 1.0], [0.0, -1.0, 3.0]])
target = torch.tensor([0, 1, 2, 2])
print(F.cross_entropy(logits, target))
print(F.cross_entropy(logits, target, reduction='none'), F.cross_entropy(logits, target, reduction='sum'))
print(F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5])))
print(F.cross_entropy(logits, torch.tensor([0, -100, 2, 1])))
logp = F.log_softmax(logits, dim=-1)
print(F.nll_loss(logp, target), F.nll_loss(logp, target, reduction='none'))
print(F.mse_loss(logits, torch.zeros(4, 3)), F.mse_loss(logits, torch.ones(4, 3), reduction='sum'))
print(F.mse_loss(logits[:, 0], target.float(), reduction='none'))
print(F.cross_entropy(logits, F.softmax(logits * 2, dim=1)))
try:
    F.nll_loss(logp, torch.tensor([0, 1, 5, 0]))
except IndexError as e:
    print(e)
try:
    F.cross_entropy(logits, torch.tensor([0, 1]))
except ValueError as e:
    print(e)
)PY";
  const char* want = R"OUT(tensor(0.4504)
tensor([0.4170, 0.2200, 1.0986, 0.0659]) tensor(1.8016)
tensor(0.3598)
tensor(1.8605)
tensor(0.4504) tensor([0.4170, 0.2200, 1.0986, 0.0659])
tensor(2.0500) tensor(13.8000)
tensor([4.0000, 0.2500, 1.0000, 4.0000])
tensor(0.5064)
Target 5 is out of bounds.
Expected input batch_size (4) to match target batch_size (2).
)OUT";
  EXPECT_EQ(run(src), want);
}

}  // namespace
}  // namespace kiln::py
