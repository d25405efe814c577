# tests/gpu/torch_train.py: a small PyTorch training loop on the GPU for tests/gpu/torch.sh.
# A synthetic Dataset with numpy work per item, a DataLoader with 2 workers and pinned memory, a
# small conv net on CUDA, one NVTX range "step N" per step, a loss read back (a synchronization)
# every 25 steps.  Prints "SAMPLE steps N" and "SAMPLE loop SECONDS" (the steps' wall time).
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.standard_normal((3, 32, 32)).astype(np.float32)
        img = np.clip(img * 0.5 + np.roll(img, 1, axis=2) * 0.25, -2.0, 2.0)
        return torch.from_numpy(img), int(i % 10)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(64 * 8 * 8, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def train_step(net, opt, loss_fn, x, y):
    opt.zero_grad()
    loss = loss_fn(net(x), y)
    loss.backward()
    opt.step()
    return loss


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    batch = 64
    torch.manual_seed(0)
    dev = torch.device("cuda")
    loader = DataLoader(Synthetic(steps * batch), batch_size=batch, num_workers=2,
                        pin_memory=True)
    net = Net().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.monotonic()
    n = 0
    for x, y in loader:
        torch.cuda.nvtx.range_push("step %d" % n)
        loss = train_step(net, opt, loss_fn, x.to(dev, non_blocking=True),
                          y.to(dev, non_blocking=True))
        if n % 25 == 0:
            loss.item()
        torch.cuda.nvtx.range_pop()
        n += 1
    torch.cuda.synchronize()
    print("SAMPLE steps %d" % n)
    print("SAMPLE loop %.3f" % (time.monotonic() - t0), flush=True)


if __name__ == "__main__":
    main()
