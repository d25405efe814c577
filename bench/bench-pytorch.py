# bench-pytorch.py: a small real PyTorch training loop for bench-pytorch (synthetic Dataset with
# numpy work per item, DataLoader with 4 workers, a small conv net on CPU, a fixed step count).
# Prints "loop SECONDS" (the training steps' wall time, imports excluded), "cpu SECONDS" (the CPU
# time of the process and its DataLoader workers over the loop, less sensitive to a loaded
# machine) and "steps N"; under sightline's sampler with SIGHTLINE_SAMPLE_STATS=1, "sampler PID
# SIGNALS HANDLER_US PYTHON_US WALK_US FRAMES_REUSED LIBGCC_WALKS PY_STACKS PY_READS PY_FRAMES
# PY_VOUCHED": its own account of this process over the loop (the workers' come on stderr as they
# exit).
import ctypes
import os
import resource
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    """Images made with some numpy work per item, as a decoding/augmenting Dataset does."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.standard_normal((3, 32, 32)).astype(np.float32)
        img = np.clip(img * 0.5 + np.roll(img, 1, axis=2) * 0.25, -2.0, 2.0)
        img -= img.mean(axis=(1, 2), keepdims=True)
        return torch.from_numpy(img), int(i % 10)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def cpu_time():
    """User + system time of this process and its waited-for children (the workers, joined when
    the loader is exhausted)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def sampler_stats():
    """This process's sampler account (signals, handler µs, Python µs, native walk µs, frames
    reused, walks by libgcc; Python stacks, their reads, frames, frames vouched for by the stack
    before), None without one (the walk's three and Python's four are 0 from a library without
    them)."""
    try:
        lib = ctypes.CDLL(None)
        fn = lib.sightline_sample_stats
    except (AttributeError, OSError):
        return None
    out = (ctypes.c_uint64 * 3)()
    walk = (ctypes.c_uint64 * 3)()
    py = (ctypes.c_uint64 * 4)()
    try:
        lib.sightline_sample_walk_stats(walk)
        lib.sightline_sample_python_stats(py)
    except AttributeError:
        pass
    return tuple(out) + tuple(walk) + tuple(py) if fn(out) else None


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    torch.manual_seed(0)
    batch = 32
    loader = DataLoader(Synthetic(steps * batch), batch_size=batch, num_workers=4, shuffle=False)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    # flushed at once: bench-pytorch reads the daemon's CPU time when it sees this line and "loop"
    print("start", flush=True)
    w0 = time.monotonic_ns()  # CLOCK_MONOTONIC, the trace's clock
    t0 = time.monotonic()
    c0 = cpu_time()
    s0 = sampler_stats()
    n = 0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        n += 1
    s1 = sampler_stats()
    print("loop %.6f" % (time.monotonic() - t0), flush=True)
    if s0 is not None and s1 is not None:
        print("sampler %d %d %d %d %d %d %d %d %d %d %d" % ((os.getpid(),)
                                                + tuple(b - a for a, b in zip(s0, s1))))
    print("cpu %.6f" % (cpu_time() - c0))
    print("steps %d" % n)
    print("window %d %d" % (w0, time.monotonic_ns()))


if __name__ == "__main__":
    main()
