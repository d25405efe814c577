# fake-cuda-memory.py: a "CUDA program" that allocates, frees and touches managed memory, for
# machines without a GPU: it calls the fake CUDA of libsl-fake-cupti.so (fake-cupti.h) through
# ctypes; test-fake-cupti records it with --cuda-memory-usage and --cuda-um-*-page-faults.
#
# What it does, and what the trace holds with all three options (pages of 64 KiB):
#   cudaMalloc 1 MiB (a) and 4 KiB (b), cudaMallocManaged 256 KiB (m: 4 pages);
#   the host writes m: 4 CPU faults, no migration (the pages were untouched);
#   a kernel writes m: 4 GPU fault groups (3 faults each), 4 HtoD migrations (page fault);
#   the host writes m's first 2 pages: 2 CPU faults, 2 DtoH migrations (page fault);
#   m prefetched to the GPU: 2 HtoD migrations (user prefetch), no fault;
#   cudaFree a, cudaFree m; b is never freed.
# Usage: fake-cuda-memory.py LIBSL-FAKE-CUPTI.SO
import ctypes
import sys

PAGE = 65536

lib = ctypes.CDLL(sys.argv[1])
lib.fake_cudaMalloc.restype = ctypes.c_void_p
lib.fake_cudaMalloc.argtypes = [ctypes.c_size_t]
lib.fake_cudaMallocManaged.restype = ctypes.c_void_p
lib.fake_cudaMallocManaged.argtypes = [ctypes.c_size_t]
lib.fake_cudaFree.argtypes = [ctypes.c_void_p]
lib.fake_um_host_touch.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
lib.fake_um_kernel_touch.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.c_uint64, ctypes.c_void_p]
lib.fake_cudaMemPrefetchAsync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                          ctypes.c_void_p]


def main():
    if lib.fake_cuInit() != 0:
        sys.exit(1)
    a = lib.fake_cudaMalloc(1 << 20)
    b = lib.fake_cudaMalloc(4096)
    m = lib.fake_cudaMallocManaged(4 * PAGE)
    lib.fake_um_host_touch(m, 4 * PAGE)
    lib.fake_um_kernel_touch(b"_Z5touchPf", m, 4 * PAGE, 20000, None)
    lib.fake_cudaDeviceSynchronize()
    lib.fake_um_host_touch(m, 2 * PAGE)
    lib.fake_cudaMemPrefetchAsync(m, 4 * PAGE, 1, None)
    lib.fake_cudaDeviceSynchronize()
    lib.fake_cudaFree(a)
    lib.fake_cudaFree(m)
    print("fake-cuda-memory.py: a=%d b=%d m=%d" % (a, b, m))


main()
