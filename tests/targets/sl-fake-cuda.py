# sl-fake-cuda.py: a Python "CUDA program" for machines without a GPU: it calls the fake CUDA of
# libsl-fake-cupti.so (tests/cupti/fake-cupti.h) through ctypes, so that a CUDA call's backtrace
# (--cudabacktrace) has Python frames: test-fake-cupti looks for wait_in_python at its line.
# Usage: sl-fake-cuda.py LIBSL-FAKE-CUPTI.SO
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.fake_cudaStreamCreate.restype = ctypes.c_void_p
lib.fake_cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
lib.fake_cudaLaunchKernel.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
                                      ctypes.c_uint64, ctypes.c_void_p]


def wait_in_python(stream):
    lib.fake_cudaStreamSynchronize(stream)  # LINE:wait


def main():
    if lib.fake_cuInit() != 0:
        sys.exit(1)
    stream = lib.fake_cudaStreamCreate()
    lib.fake_cudaLaunchKernel(b"_Z4stepv", 1, 32, 20000, stream)
    wait_in_python(stream)
    print("fake-cuda.py: done")


main()
