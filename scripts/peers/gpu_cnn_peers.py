#!/usr/bin/env python3
"""Peer benchmark: Fashion-MNIST CNN training examples/s on a GPU, PyTorch.

The same model and training as actorflow's trainer with `--model cnn --from-memory
--device /gpu:0` (apps/train): NHWC input 28x28x1; conv 3x3 16 SAME + ReLU; max-pool 2x2/2;
conv 3x3 32 SAME + ReLU; max-pool 2x2/2; dense 1568->128 + ReLU; dense 128->10 (logits);
softmax cross-entropy on int labels averaged over the batch; Adam lr 1e-3; batch 128. Each
epoch the 60,000 training examples are shuffled; an epoch is 60000 // 128 = 468 full batches,
gathered from in-memory host arrays and copied to the GPU each step (as actorflow feeds a
batch from host memory), so the timed step is: gather, copy to the device, zero_grad,
forward, backward, step, and reading the loss back (as actorflow's trainer fetches it).

Data: the gzip IDX files of Debian's dataset-fashion-mnist (--data-dir). Prints
  PEER torch-gpu epoch=N examples_per_s=... test_accuracy=... seconds=...
for each epoch, the first epoch including warm-up (cuDNN autotuning off, as TF 1.x).

Run where PyTorch with CUDA is installed (a GPU machine's python3, or the venv of
scripts/peers/setup_venv.sh with PEERS_TORCH_FULL=1):
  python3 scripts/peers/gpu_cnn_peers.py [--epochs 2] [--data-dir DIR] [--seed 1]
"""
import argparse
import gzip
import os
import time


def load_idx(path, header, shape):
    import numpy as np
    with gzip.open(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    import numpy as np
    import torch
    import torch.nn as nn
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    xs, ys = {}, {}
    for split, n in (("train", 60000), ("t10k", 10000)):
        x = load_idx(os.path.join(a.data_dir, "%s-images-idx3-ubyte.gz" % split), 16, (n, 784))
        xs[split] = (x.astype(np.float32) / 255.0).reshape(n, 1, 28, 28)
        ys[split] = load_idx(os.path.join(a.data_dir, "%s-labels-idx1-ubyte.gz" % split), 8, (n,)).astype(np.int64)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = nn.CrossEntropyLoss()
    test_x = torch.from_numpy(xs["t10k"]).to(dev)
    test_y = torch.from_numpy(ys["t10k"]).to(dev)
    rng = np.random.default_rng(a.seed)
    steps = 60000 // a.batch
    train_x, train_y = xs["train"], ys["train"]
    for epoch in range(1, a.epochs + 1):
        order = rng.permutation(60000)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for s in range(steps):
            idx = order[s * a.batch:(s + 1) * a.batch]
            bx = torch.from_numpy(train_x[idx]).to(dev, non_blocking=False)
            by = torch.from_numpy(train_y[idx]).to(dev, non_blocking=False)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(bx), by)
            loss.backward()
            opt.step()
            loss.item()
        seconds = time.perf_counter() - t0
        with torch.no_grad():
            acc = (model(test_x).argmax(1) == test_y).float().mean().item()
        print("PEER torch-gpu epoch=%d examples_per_s=%.0f test_accuracy=%.4f seconds=%.2f device=%s" %
              (epoch, steps * a.batch / seconds, acc, seconds, torch.cuda.get_device_name(0)), flush=True)


if __name__ == "__main__":
    main()
