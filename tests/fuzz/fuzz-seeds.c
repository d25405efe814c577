/* fuzz-seeds.c: writes the seed corpora of fuzz-wire and fuzz-control (binary formats that only
 * our structs describe): a target's stream of every record type as the injection library sends
 * them, and the messages `sightline record` sends the daemon, as sl_control_send() frames them.
 * Usage: fuzz-seeds WIRE_DIR CONTROL_DIR (tests/fuzz/make-corpus runs it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sl-control.h"
#include "sl-schema.h"
#include "sl-wire.h"

#define PID 4242
#define TID 4243
#define T   UINT64_C (1000000000)

typedef struct
{
  uint8_t bytes[1 << 16];
  size_t  len;
} Stream;

/* Appends a record of `fixed` bytes and `text_len` bytes of text (which may hold NULs). */
static void
put (Stream     *s,
     uint16_t    type,
     const void *fixed_part,
     size_t      fixed,
     const void *text,
     size_t      text_len)
{
  uint32_t size = sl_wire_size ((uint32_t) fixed, (uint32_t) text_len);
  uint8_t *r = s->bytes + s->len;

  if (s->len + size > sizeof s->bytes)
    abort ();
  memset (r, 0, size);
  memcpy (r, fixed_part, fixed);
  ((SlWireHeader *) r)->type = type;
  ((SlWireHeader *) r)->size = (uint16_t) size;
  if (text != NULL)
    memcpy (r + fixed, text, text_len);
  s->len += size;
}

static void
put_text (Stream     *s,
          uint16_t    type,
          const void *fixed_part,
          size_t      fixed,
          const char *text)
{
  put (s, type, fixed_part, fixed, text, text != NULL ? strlen (text) : 0);
}

static void
save (const char *dir,
      const char *name,
      const void *data,
      size_t      len)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen (path, "wb");
  if (f == NULL || fwrite (data, 1, len, f) != len || fclose (f) != 0)
    {
      perror (path);
      exit (1);
    }
}

static void
hello (Stream *s)
{
  SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 1, 7, T, T * 5 };
  static const char cmd[] = "/usr/bin/python3 train.py --epochs 1\0rank=3";
  put (s, SL_WIRE_HELLO, &h, sizeof h, cmd, sizeof cmd - 1);
  SlWireThreadName n = { { 0, 0, TID }, T };
  put_text (s, SL_WIRE_THREAD_NAME, &n, sizeof n, "trainer");
}

/* CUDA: a device, a context, a stream, launches, copies, a set, a sync, lost records */
static void
cuda (Stream *s)
{
  SlWireGpu g = { { 0, 0, TID }, 0, 8, 0, 108, 1024, 64, 32, 65536, 65536, 49152, 166912,
                  167936, 32, 1410000, 2, 41943040, 42949672960ull, 1555000000000ull,
                  { 1024, 1024, 64 }, { 2147483647, 65535, 65535 }, 0, 0x17, 0, { 1, 2 }, 0 };
  put_text (s, SL_WIRE_GPU, &g, sizeof g, "NVIDIA A100-SXM4-40GB");
  SlWireContext c = { { 0, 0, TID }, 0, 1, 7, 0 };
  put (s, SL_WIRE_CONTEXT, &c, sizeof c, NULL, 0);
  SlWireStream st = { { 0, 0, TID }, 0, 1, 13, -2, SL_STREAM_TYPE_NON_BLOCKING, 0 };
  put (s, SL_WIRE_STREAM, &st, sizeof st, NULL, 0);
  for (uint32_t i = 0; i < 3; i++)
    {
      SlWireCudaApi a = { { 0, 0, TID }, T + i * 1000000, T + i * 1000000 + 5000, 100 + i,
                          SL_EVENT_CLASS_CUDA_RUNTIME, 0, 211 };
      put_text (s, SL_WIRE_CUDA_API, &a, sizeof a, "cudaLaunchKernel_v7000");
      SlWireKernel k = { { 0, 0, 0 }, T + i * 1000000 + 20000, T + i * 1000000 + 520000, 0, 1,
                         13, 100 + i, 64, 2, 1, 256, 1, 1, 40, 1024, 4096, 0, 0, 7 + i,
                         SL_LAUNCH_TYPE_REGULAR, 2, 8192, 0, 0, 0, 0, 0, 0, 0 };
      put_text (s, SL_WIRE_KERNEL, &k, sizeof k,
                i == 0 ? "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"
                         "NS_6detail5ArrayIPcLi1EEEEEviT0_T1_"
                       : "ampere_sgemm_128x64_nn");
    }
  SlWireCudaApi a = { { 0, 0, TID }, T + 3000000, T + 3400000, 200, SL_EVENT_CLASS_CUDA_RUNTIME,
                      0, 31 };
  put_text (s, SL_WIRE_CUDA_API, &a, sizeof a, "cudaMemcpy_v3020");
  SlWireMemcpy m = { { 0, 0, 0 }, T + 3100000, T + 3300000, 1 << 20, 0, 1, 7, 200,
                     SL_MEMCPY_HTOD, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_DEVICE, 0, 0, 0 };
  put (s, SL_WIRE_MEMCPY, &m, sizeof m, NULL, 0);
  SlWireMemset ms = { { 0, 0, 0 }, T + 3500000, T + 3510000, 4096, 0, 1, 7, 201, 0,
                      SL_MEM_KIND_DEVICE };
  put (s, SL_WIRE_MEMSET, &ms, sizeof ms, NULL, 0);
  SlWireSync y = { { 0, 0, 0 }, T + 3600000, T + 3700000, 0, 1, UINT32_MAX, 202,
                   SL_SYNC_CONTEXT, UINT32_MAX, UINT32_MAX };
  put (s, SL_WIRE_SYNC, &y, sizeof y, NULL, 0);
  SlWireDropped d = { { 0, 0, TID }, T + 4000000, 7, SL_DROP_CUPTI, 0 };
  put (s, SL_WIRE_DROPPED, &d, sizeof d, NULL, 0);
}

/* the CPU side: OS runtime calls with a backtrace, NVTX, samples in a module, Python code,
 * context switches, a child process, and the end */
static void
cpu (Stream *s)
{
  struct
  {
    SlWireOsrt o;
    uint64_t frames[3];
  } osrt = { { { 0, 0, TID }, T + 100, T + 900000, 512, SL_OSRT_READ, 3 },
             { 0x401234, 0x402345, 0x403456 } };
  put (s, SL_WIRE_OSRT, &osrt, sizeof osrt, NULL, 0);
  SlWireOsrt lock = { { 0, 0, TID }, T + 1000000, T + 1200000, 0, SL_OSRT_PTHREAD_MUTEX_LOCK, 0 };
  put (s, SL_WIRE_OSRT, &lock, sizeof lock, NULL, 0);

  SlWireNvtx dom = { { 0, 0, TID }, T, 0, 99, SL_NVTX_DOMAIN_CREATE, 0, 0, 0 };
  put_text (s, SL_WIRE_NVTX, &dom, sizeof dom, "loader");
  SlWireNvtx push = { { 0, 0, TID }, T + 10, 0, 0, SL_NVTX_PUSH, 0xff00ff00, 1, 1 };
  put_text (s, SL_WIRE_NVTX, &push, sizeof push, "step");
  SlWireNvtx start = { { 0, 0, TID }, T + 20, 5, 99, SL_NVTX_START, 0, 0, 0 };
  put_text (s, SL_WIRE_NVTX, &start, sizeof start, "batch");
  SlWireNvtx mark = { { 0, 0, TID }, T + 30, 0, 0, SL_NVTX_MARK, 0, 0, 0 };
  put_text (s, SL_WIRE_NVTX, &mark, sizeof mark, "checkpoint");
  SlWireNvtx end = { { 0, 0, TID }, T + 2000000, 5, 99, SL_NVTX_END, 0, 0, 0 };
  put (s, SL_WIRE_NVTX, &end, sizeof end, NULL, 0);
  SlWireNvtx pop = { { 0, 0, TID }, T + 3000000, 0, 0, SL_NVTX_POP, 0, 0, 0 };
  put (s, SL_WIRE_NVTX, &pop, sizeof pop, NULL, 0);
  SlWireNvtx tname = { { 0, 0, TID }, T + 40, TID, 0, SL_NVTX_THREAD_NAME, 0, 0, 0 };
  put_text (s, SL_WIRE_NVTX, &tname, sizeof tname, "main loop");

  SlWireModule mod = { { 0, 0, TID }, 0x400000, 0x400000, 0x500000 };
  put_text (s, SL_WIRE_MODULE, &mod, sizeof mod, "/bin/true");
  SlWireModule vdso = { { 0, 0, TID }, 0x7fff0000, 0x7fff0000, 0x7fff2000 };
  put_text (s, SL_WIRE_MODULE, &vdso, sizeof vdso, "[vdso]");

  /* a Python 3.11 code object: "step" in train.py from line 40, a one-entry location table */
  static const char py[] = "train.step\0train.py\0\x80\x00";
  SlWirePyCode code = { { 0, 0, TID }, 0x7f0000001000, 40, 10, 8, 2, 0x030b, 0 };
  put (s, SL_WIRE_PYCODE, &code, sizeof code, py, sizeof py - 1);
  for (uint32_t i = 0; i < 4; i++)
    {
      struct
      {
        SlWireSample smp;
        uint64_t frames[4];
      } sample = { { { 0, 0, TID }, T + i * 1000000, 4, SL_THREAD_STATE_RUNNING },
                   { 0x401000 + i, 0x7fff0100, SL_WIRE_PYFRAME_BIT | (UINT64_C (6) << 47)
                                                 | 0x7f0000001000, 0x402000 } };
      put (s, SL_WIRE_SAMPLE, &sample, sizeof sample, NULL, 0);
    }

  SlWireSched in = { { 0, 0, TID }, T + 50, PID, 1, 1, SL_THREAD_STATE_RUNNING };
  put (s, SL_WIRE_SCHED, &in, sizeof in, NULL, 0);
  SlWireSched out = { { 0, 0, TID }, T + 800000, PID, 1, 0, SL_THREAD_STATE_WAITING };
  put (s, SL_WIRE_SCHED, &out, sizeof out, NULL, 0);
  SlWireProcess child = { { 0, 0, PID + 10 }, T + 60, PID + 10, PID };
  put_text (s, SL_WIRE_PROCESS, &child, sizeof child, "python3 -c worker");

  SlWireBye bye = { { 0, 0, TID }, T + 5000000, 0, 0 };
  put (s, SL_WIRE_BYE, &bye, sizeof bye, NULL, 0);
}

/* What -t mpi and -t openmp send: MPI_COMM_WORLD, one batch of a thread's MPI calls (each flag's
 * word once, a long call), an OpenMP region and its implicit task. */
static void
hpc (Stream *s)
{
  SlWireMpiComm world = { { 0, 0, TID }, T + 10, 0x1000, 0, 0xC0FFEE, 0, 0, 2, 0 };
  put_text (s, SL_WIRE_MPI_COMM, &world, sizeof world, "0,1");
  struct
  {
    SlWireMpiCalls b;
    uint64_t words[26];
  } batch = {
    { { 0, 0, TID }, 6, TID },
    {
      /* MPI_Init: no fields */
      SL_MPI_INIT | (UINT64_C (5000) << 32), T + 20,
      /* MPI_Isend to rank 1, tag 7, 4 KiB, a request */
      SL_MPI_ISEND | ((uint64_t) (SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG
                                  | SL_MPI_HAS_SIZE | SL_MPI_HAS_REQUEST) << 8)
        | (UINT64_C (800) << 32), T + 100, 0x1000, 1 | (UINT64_C (7) << 32), 4096, 0xAB00,
      /* MPI_Recv from rank 1 */
      SL_MPI_RECV | ((uint64_t) (SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG
                                 | SL_MPI_HAS_SIZE) << 8)
        | (UINT64_C (90000) << 32), T + 1000, 0x1000, 1 | (UINT64_C (7) << 32), 4096,
      /* MPI_Wait on the Isend's request */
      SL_MPI_WAIT | ((uint64_t) SL_MPI_HAS_REQUEST << 8) | (UINT64_C (300) << 32), T + 92000,
      0xAB00,
      /* MPI_Allreduce of 1 KiB */
      SL_MPI_ALLREDUCE | ((uint64_t) (SL_MPI_HAS_COMM | SL_MPI_HAS_SIZE | SL_MPI_HAS_RECV_SIZE)
                          << 8) | (UINT64_C (40000) << 32), T + 100000, 0x1000, 1024, 1024,
      /* MPI_Finalize, 5 s long: its end a word of its own */
      SL_MPI_FINALIZE | ((uint64_t) SL_MPI_LONG << 8), T + 200000, T + 5200000000,
    },
  };
  put (s, SL_WIRE_MPI, &batch, sizeof batch, NULL, 0);
  SlWireOpenmp region = { { 0, 0, TID }, T + 300000, T + 400000, 1, 1, 0x401234, 0x1234,
                          SL_OMP_PARALLEL, 4, 2, 0 };
  put_text (s, SL_WIRE_OPENMP, &region, sizeof region, "/bin/true");
  SlWireOpenmp task = { { 0, 0, TID + 1 }, T + 301000, T + 399000, 1, 2, 0, 0,
                        SL_OMP_IMPLICIT_TASK, 0, 1, 0 };
  put (s, SL_WIRE_OPENMP, &task, sizeof task, NULL, 0);
}

/* One control message as sl_control_send() puts it on the socket. */
static void
save_control (const char        *dir,
              const char        *name,
              const char *const *strings,
              size_t             n)
{
  int sv[2];
  uint8_t buf[1 << 16];

  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) != 0 || !sl_control_send (sv[0], strings, n, NULL, 0))
    {
      perror ("fuzz-seeds: control");
      exit (1);
    }
  close (sv[0]);
  size_t len = 0;
  ssize_t r;
  while ((r = read (sv[1], buf + len, sizeof buf - len)) > 0)
    len += (size_t) r;
  close (sv[1]);
  save (dir, name, buf, len);
}

int
main (int    argc,
      char **argv)
{
  static Stream s;

  if (argc != 3)
    {
      fprintf (stderr, "usage: fuzz-seeds WIRE_DIR CONTROL_DIR\n");
      return 2;
    }
  hello (&s);
  save (argv[1], "hello", s.bytes, s.len);
  cuda (&s);
  save (argv[1], "cuda", s.bytes, s.len);
  s.len = 0;
  hello (&s);
  cpu (&s);
  save (argv[1], "cpu", s.bytes, s.len);
  cuda (&s);
  save (argv[1], "all", s.bytes, s.len);
  s.len = 0;
  hello (&s);
  hpc (&s);
  save (argv[1], "hpc", s.bytes, s.len);

  static const char *const record[] = {
    "record", "output=/tmp/trace-%q{RANK}-%h-%p.sqlite", "trace=cuda,nvtx,osrt", "sample_hz=1000",
    "delay_ms=0", "duration_ms=5000", "force=1", "osrt_threshold_ns=1000",
    "osrt_backtrace_ns=80000", "sched=auto", "env=RANK=3", "cwd=/tmp", "--", "/bin/true", "x",
  };
  save_control (argv[2], "record", record, sizeof record / sizeof record[0]);
  static const char *const stop[] = { "stop" };
  save_control (argv[2], "stop", stop, 1);
  static const char *const error[] = { "error", "nothing to record: no program given", "2" };
  save_control (argv[2], "error", error, 3);
  static const char *const pattern[] = { "%q{HOME}/%%x-%p-%h-%q{SLURM_PROCID}.sqlite" };
  save_control (argv[2], "pattern", pattern, 1);
  return 0;
}
