# Open finding (tests/fuzz/README.md): an empty tensor whose other dims multiply past int64.
# PyTorch allows it; Kiln makes it, then about twenty size products in the ops overflow (signed
# overflow, undefined behaviour; a release build wraps and, multiplied by the 0, gets 0).
# UBSan: view_ops.cpp numelOf via reshape_as. The .bin reproduces it under the tensor fuzzer with
# KILN_FUZZ_HUGE_EMPTY=1.
import torch

x = torch.zeros(2**62, 5, 0)
print(x.reshape_as(x).shape)
