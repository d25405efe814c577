# tests/gpu/torch_train.py: a small PyTorch training loop on the GPU for tests/gpu/torch.sh.
# A synthetic Dataset with numpy work per item, a DataLoader with 2 workers and pinned memory, a
# small conv net on CUDA, one NVTX range "step N" per step, a loss read back (a synchronization)
# every 25 steps.  Prints "SAMPLE steps N" and "SAMPLE loop SECONDS" (the steps' wall time).
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader


def _bench_module():
    """bench/bench-pytorch.py (its Synthetic Dataset: numpy work per item, as a decoding,
    augmenting Dataset does), loaded by path: its name is no module name."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                        "bench-pytorch.py")
    spec = importlib.util.spec_from_file_location("bench_pytorch", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Synthetic = _bench_module().Synthetic


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
