#!/usr/bin/env python3
"""Rebuild a lokizero bundle's network in PyTorch from its
model.safetensors, check its inference outputs reproduce burn's (reference
JSON from `lokizero bench --reference-out`), then time training steps as
lokizero's trainer takes them (crates/train/src/trainer.rs): policy
cross-entropy with the softmax over the legal actions, WDL cross-entropy,
AdamW (betas 0.9/0.999, eps 1e-5, weight decay 1e-4: burn's AdamWConfig
defaults), batch norm in training mode. Benchmark-only: PyTorch is not a
dependency of the product.

Prints `pytorch training batch B: R samples/s, C cores used` where C is the
process CPU time (all threads) over the wall time of the timed loop.

Usage: torch_train_reference.py BUNDLE REFERENCE_JSON THREADS SECONDS BATCH
"""
import json
import sys
import time

import numpy as np
import torch
from safetensors.numpy import load_file
from torch import nn


class ConvBn(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1)

    def forward(self, x):
        return self.bn(self.conv(x))


class Net(nn.Module):
    """model::Net (crates/model/src/net.rs), layer for layer."""

    def __init__(self, shape):
        super().__init__()
        c, p, f = shape["input_planes"], shape["policy_planes"], shape["filters"]
        hw = shape["height"] * shape["width"]
        self.stem = ConvBn(c, f, 3)
        self.blocks = nn.ModuleList(
            nn.ModuleDict({"first": ConvBn(f, f, 3), "second": ConvBn(f, f, 3)})
            for _ in range(shape["blocks"]))
        self.policy_hidden = ConvBn(f, f, 3)
        self.policy_out = nn.Conv2d(f, p, 1)
        self.value_conv = ConvBn(f, 2, 1)
        self.value_fc = nn.Linear(2 * hw, shape["value_hidden"])
        self.value_out = nn.Linear(shape["value_hidden"], 3)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        for b in self.blocks:
            y = torch.relu(b["first"](x))
            x = torch.relu(b["second"](y) + x)
        policy = self.policy_out(torch.relu(self.policy_hidden(x))).flatten(1)
        v = torch.relu(self.value_conv(x)).flatten(1)
        v = torch.relu(self.value_fc(v))
        return policy, self.value_out(v)


def load_weights(net, weights):
    state = {}
    for name, value in weights.items():
        t = torch.from_numpy(np.ascontiguousarray(value))
        name = name.replace(".gamma", ".weight").replace(".beta", ".bias")
        # burn's Linear stores its weight as [in, out]; PyTorch's as [out, in].
        if name in ("value_fc.weight", "value_out.weight"):
            t = t.t().contiguous()
        state[name] = t
    missing, unexpected = net.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith("num_batches_tracked")]
    if missing or unexpected:
        sys.exit(f"ERROR: weights do not match the network: missing {missing}, unexpected {unexpected}")


def main():
    bundle, ref_path, threads, seconds, batch = (
        sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    meta = json.load(open(f"{bundle}/model.json"))
    shape = meta["shape"]
    if shape.get("moves_left"):
        sys.exit("ERROR: the moves-left head is not rebuilt here")
    net = Net(shape)
    load_weights(net, load_file(f"{bundle}/model.safetensors"))
    ref = json.load(open(ref_path))
    x = torch.tensor(np.asarray(ref["input"], dtype=np.float32).reshape(ref["shape"]))
    net.eval()
    with torch.no_grad():
        policy, wdl = net(x)
    dp = (policy.flatten() - torch.tensor(ref["policy_logits"])).abs().max().item()
    dv = (wdl.flatten() - torch.tensor(ref["wdl_logits"])).abs().max().item()
    print(f"pytorch vs burn max abs difference: policy {dp:.2e}, wdl {dv:.2e}")
    if max(dp, dv) > 1e-3:
        sys.exit("ERROR: the PyTorch network does not reproduce burn's outputs")

    # A training batch: the reference positions repeated, a uniform policy
    # target over a random half of the actions (the legal mask), draws.
    gen = torch.Generator().manual_seed(1)
    xb = x.repeat((batch + x.shape[0] - 1) // x.shape[0], 1, 1, 1)[:batch].contiguous()
    n_pol = policy.shape[1]
    legal = torch.rand(batch, n_pol, generator=gen) < 0.1
    mask = torch.where(legal, 0.0, -1.0e4)
    pi = legal.float() / legal.float().sum(1, keepdim=True).clamp(min=1)
    z = torch.tensor([[0.0, 1.0, 0.0]]).repeat(batch, 1)
    w = torch.ones(batch, 1)
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-5, weight_decay=1e-4)

    def step():
        policy, value = net(xb)
        policy_loss = -(torch.log_softmax(policy + mask, 1) * pi).sum(1).mean()
        value_loss = -(torch.log_softmax(value, 1) * z).sum(1, keepdim=True).mul(w).sum() / w.sum().clamp(min=1)
        loss = policy_loss + value_loss
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()

    step()  # warm-up
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        step()
        n += batch
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"pytorch training batch {batch:>4}: {n / wall:>10.0f} samples/s, {cpu / wall:.2f} cores used")


if __name__ == "__main__":
    main()
