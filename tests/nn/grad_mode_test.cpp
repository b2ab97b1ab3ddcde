// torch.no_grad / enable_grad / set_grad_enabled as context managers and decorators.
#include "tests/nn/nn_test_util.h"

namespace kiln::nntest {
namespace {

TEST(GradMode, ContextManagersAndDecorators) {
  Script r(R"(
import torch
x = torch.ones(2, requires_grad=True)
flags = []
with torch.no_grad():
    flags.append(torch.is_grad_enabled())
    y = x * 2
    with torch.enable_grad():
        flags.append(torch.is_grad_enabled())
        z = x * 2
    flags.append(torch.is_grad_enabled())
flags.append(torch.is_grad_enabled())

@torch.no_grad()
def f(a):
    return a * 3

@torch.no_grad
def f2(a):
    return a * 3

class T:
    @torch.no_grad()
    def m(self, a):
        return a * 4, torch.is_grad_enabled()

w = f(x)
w2 = f2(x)
m, inside = T().m(x)
torch.set_grad_enabled(False)
flags.append(torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    flags.append(torch.is_grad_enabled())
flags.append(torch.is_grad_enabled())
try:
    with torch.no_grad():
        raise ValueError("boom")
except ValueError:
    pass
flags.append(torch.is_grad_enabled())
req = [y.requires_grad, z.requires_grad, w.requires_grad, w2.requires_grad, m.requires_grad, inside]
)");
  ASSERT_EQ(r.error, "");
  expectNear(r.values("flags"), {0, 1, 0, 1, 0, 0, 1, 1});
  expectNear(r.values("req"), {0, 1, 0, 0, 0, 0});
}

}  // namespace
}  // namespace kiln::nntest
