"""Records a TORCH_TRACE log of a real model under real PyTorch, for `kiln import` at scale.

GPT-2 (transformers, built from a config with random weights: no download) is compiled with
torch.compile and run for a few training steps (forward, backward, AdamW) on the GPU if there is
one. The log lands in TRACE_DIR (default ./trace_gpt2); run it on the GPU machine:

    TORCH_TRACE=/tmp/tt python3 tools/trace/record_gpt2.py --layers 12
"""
import argparse
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=128)
    a = ap.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=a.layers, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
    model = GPT2LMHeadModel(cfg).to(dev)
    model.train()
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq), device=dev)
    for step in range(a.steps):
        t = time.time()
        opt.zero_grad(set_to_none=True)
        out = cmodel(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        if dev == "cuda":
            torch.cuda.synchronize()
        print("step", step, "loss %.4f" % float(out.loss), "%.2f s" % (time.time() - t), flush=True)


if __name__ == "__main__":
    main()
