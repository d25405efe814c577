# sl-py-target.py: the Python program tests/test-python.c records: two threads each busy in a known
# function, one blocking read from a known line, and a forked multiprocessing worker.
# Pure Python, no third-party module.  Lines named by the test are marked "# LINE:<tag>".
# Usage: sl-py-target.py [BUSY_S [exit|crash|exec|deep]]: with a mode, the main thread spins BUSY_S
# in spin_alpha and then leaves that way (os._exit(3), os.abort(), exec of another Python); deep:
# spins in spin_alpha at the bottom of 40 calls of `deep` through the C function map() (a stack
# deeper than the 128 frames a sample keeps), then returns.
import multiprocessing
import os
import sys
import threading
import time

BUSY_S = float(sys.argv[1]) if len(sys.argv) > 1 else 0.6
MODE = sys.argv[2] if len(sys.argv) > 2 else ""


def spin_alpha(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1  # LINE:alpha
    return n


def spin_beta(seconds):
    end = time.monotonic() + seconds
    x = 0.0
    while time.monotonic() < end:
        x = x * 0.5 + 1.0  # LINE:beta
    return x


def blocking_read():
    r, w = os.pipe()

    def later():
        time.sleep(0.2)
        os.write(w, b"x")

    t = threading.Thread(target=later)
    t.start()
    data = os.read(r, 1)  # LINE:read
    t.join()
    os.close(r)
    os.close(w)
    return data


def worker_main(seconds):
    spin_alpha(seconds)


def deep(n):
    if n == 0:
        return spin_alpha(BUSY_S)
    return list(map(deep, [n - 1]))[0]  # LINE:deep


def leave(mode):
    spin_alpha(BUSY_S)
    if mode == "exit":
        os._exit(3)
    if mode == "crash":
        os.abort()
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(0.1)"])


def main():
    if MODE == "deep":
        return 0 if deep(40) > 0 else 1
    if MODE:
        leave(MODE)
    threads = [threading.Thread(target=spin_alpha, args=(BUSY_S,), name="alpha"),
               threading.Thread(target=spin_beta, args=(BUSY_S,), name="beta")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    blocking_read()
    ctx = multiprocessing.get_context("fork")
    p = ctx.Process(target=worker_main, args=(BUSY_S / 2,))
    p.start()
    p.join()
    return p.exitcode


if __name__ == "__main__":
    sys.exit(main())
