// The tril / triu / nonzero script of tests/runtime/cuda_tri_nonzero_test.cpp (label gpu), shared
// with cuda_tri_nonzero_nvrtc_test.cpp, which runs it with the CPU as the device under test
// (test::onDevice with "cpu") so a script error shows up without a GPU.
#pragma once

namespace kiln::test {

// Each case: f on CPU tensors and on copies on 'DEV'; every result must be on 'DEV' with the
// CPU's dtype, sizes and values exactly (NaNs where the CPU has them). tril / triu: diagonals
// -2..2, batched, wide and tall, every dtype, transposed / sliced / expanded inputs, NaNs in
// both halves, empty inputs; then compiled on 'DEV' (an extern step between generated kernels).
// nonzero: empty result, all nonzero, 0-dim, 1-D to 3-D, bool / float / integer / half inputs,
// -0.0 and NaN, strided inputs, one large enough for many blocks of many tiles, the as_tuple and
// method forms, where(cond), and the corpus's nonzero-then-index under torch.compile.
inline const char* const kTriNonzeroChecks = R"(import torch
dev = 'DEV'
torch.manual_seed(0)
def diff(a, b):
    if a.device.type != dev or a.shape != b.shape or a.dtype != b.dtype:
        return 'got ' + str(a.device) + ' ' + str(a.dtype) + ' ' + str(tuple(a.shape)) + ', want ' + str(b.dtype) + ' ' + str(tuple(b.shape))
    a = a.cpu()
    if a.is_floating_point():
        na, nb = torch.isnan(a), torch.isnan(b)
        if not torch.equal(na, nb):
            return 'NaNs differ'
        a, b = a.masked_fill(na, 0.0), b.masked_fill(nb, 0.0)
    return '' if torch.equal(a, b) else 'values differ'
def check(name, f, *xs):
    want, got = f(*xs), f(*[x.to(dev) for x in xs])
    if not isinstance(want, (tuple, list)):
        want, got = (want,), (got,)
    why = '' if len(want) == len(got) else 'results differ in number'
    for i in range(len(want)):
        why = why or diff(got[i], want[i])
    print(name, 'ok' if not why else why)
x = torch.randn(2, 3, 5, 6)
for k in range(-2, 3):
    check('tril_%d' % k, lambda a, k=k: torch.tril(a, k), x)
    check('triu_%d' % k, lambda a, k=k: a.triu(diagonal=k), x)
check('tril_default', torch.tril, x)
check('triu_wide', lambda a: torch.triu(a, -1), torch.randn(3, 7))
check('tril_tall', lambda a: torch.tril(a, 2), torch.randn(7, 3))
check('tril_far_diagonals', lambda a: (torch.tril(a, -9), torch.triu(a, 9), torch.tril(a, 9)), torch.randn(4, 5))
check('tril_transposed', lambda a: torch.tril(a.transpose(-1, -2), 1), x)
check('triu_sliced', lambda a: a[:, 1:, ::2].triu(-1), x)
check('tril_batch_permuted', lambda a: a.permute(1, 0, 2, 3).tril(), x)
check('tril_expanded', lambda a: a.expand(3, 4, 4).tril(-1), torch.randn(4, 4))
check('tril_empty', lambda a: (a.tril(), a.transpose(0, 2).triu()), torch.randn(0, 4, 4))
nans = torch.randn(4, 4)
nans[0, 3] = float('nan')
nans[3, 0] = float('nan')
check('tril_nan', lambda a: (a.tril(), a.triu()), nans)
for dt in [torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool]:
    check('triu_' + str(dt)[6:], lambda a: (a.triu(1), a.tril(-1)), (x * 3).abs().to(dt))
check('tril_ones_mask', lambda a: torch.tril(torch.ones(8, 8, device=a.device)), x)
mm = torch.compile(lambda a, b: torch.triu(a @ b, 1) * 2.0 + 1.0)
# Small integers as floats: the matmul is exact on both devices (cuBLAS and the CPU's BLAS round
# differently otherwise, and the check is exact).
check('triu_compiled', lambda a, b: mm(a, b), torch.randint(-3, 4, (5, 4)).float(), torch.randint(-3, 4, (4, 6)).float())
y = torch.randn(3, 4, 5)
y[y.abs() < 0.7] = 0.0
check('nonzero_empty_result', torch.nonzero, torch.zeros(3, 4))
check('nonzero_all', torch.nonzero, torch.ones(2, 3))
check('nonzero_0d', lambda a: (torch.nonzero(a), torch.nonzero(a * 0)), torch.tensor(3.0))
check('nonzero_empty_input', torch.nonzero, torch.zeros(0, 3))
check('nonzero_1d_bool', torch.nonzero, torch.randn(1000) > 0.5)
check('nonzero_3d_float', torch.nonzero, y)
check('nonzero_3d_bool', lambda a: torch.nonzero(a > 0), y)
check('nonzero_signed_zero_nan', torch.nonzero, torch.tensor([0.0, -0.0, float('nan'), 1.0, float('-inf'), -0.0]))
for dt in [torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]:
    check('nonzero_' + str(dt)[6:], torch.nonzero, (y * 3).to(dt))
check('nonzero_half_negative_zero', torch.nonzero, torch.tensor([-0.0, 0.0, 2.0], dtype=torch.float16))
check('nonzero_transposed', lambda a: a.transpose(0, 2).nonzero(), y)
check('nonzero_sliced', lambda a: a[:, ::2, 1:].nonzero(), y)
check('nonzero_expanded', lambda a: a.expand(2, 3, 4, 5).nonzero(), y)
check('nonzero_many_blocks', torch.nonzero, torch.rand(3, 1000, 701) > 0.9)
check('nonzero_as_tuple', lambda a: torch.nonzero(a, as_tuple=True), y)
check('nonzero_method', lambda a: a.nonzero(), y)
check('where_cond', lambda a: torch.where(a > 0), y)
gb = torch.compile(lambda a: a[torch.nonzero(a > 0.25).squeeze(-1)] * 2.0)
check('nonzero_index_compiled', gb, torch.randn(64))
)";

inline const char* const kTriNonzeroChecksExpected =
    "tril_-2 ok\ntriu_-2 ok\ntril_-1 ok\ntriu_-1 ok\ntril_0 ok\ntriu_0 ok\ntril_1 ok\ntriu_1 ok\ntril_2 ok\ntriu_2 ok\n"
    "tril_default ok\ntriu_wide ok\ntril_tall ok\ntril_far_diagonals ok\ntril_transposed ok\ntriu_sliced ok\n"
    "tril_batch_permuted ok\ntril_expanded ok\ntril_empty ok\ntril_nan ok\n"
    "triu_float64 ok\ntriu_float16 ok\ntriu_bfloat16 ok\ntriu_int64 ok\ntriu_int32 ok\ntriu_int16 ok\ntriu_int8 ok\n"
    "triu_uint8 ok\ntriu_bool ok\ntril_ones_mask ok\ntriu_compiled ok\n"
    "nonzero_empty_result ok\nnonzero_all ok\nnonzero_0d ok\nnonzero_empty_input ok\nnonzero_1d_bool ok\n"
    "nonzero_3d_float ok\nnonzero_3d_bool ok\nnonzero_signed_zero_nan ok\n"
    "nonzero_float64 ok\nnonzero_float16 ok\nnonzero_bfloat16 ok\nnonzero_int64 ok\nnonzero_int32 ok\nnonzero_int16 ok\n"
    "nonzero_int8 ok\nnonzero_uint8 ok\nnonzero_half_negative_zero ok\nnonzero_transposed ok\nnonzero_sliced ok\n"
    "nonzero_expanded ok\nnonzero_many_blocks ok\nnonzero_as_tuple ok\nnonzero_method ok\nwhere_cond ok\n"
    "nonzero_index_compiled ok\n";

}  // namespace kiln::test
