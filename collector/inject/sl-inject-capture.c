/* sl-inject-capture.c: nsys's capture ranges (--capture-range, --nvtx-capture,
 * --capture-range-end) inside the target; C11 + POSIX, no GLib.
 *
 * With a capture range, the process records nothing (CUDA, NVTX, OS runtime, samples) until it
 * calls cudaProfilerStart (cuProfilerStart) or enters the NVTX range named by
 * SIGHTLINE_NVTX_CAPTURE, and stops at cudaProfilerStop or that range's end.  What is made on the
 * program's threads (NVTX, OS runtime calls, samples, CUDA backtraces) is checked against one
 * flag in _sl_emit_begin(): one relaxed load per record.  CUPTI's activity records come later,
 * from its buffers, so they are checked by their start time against the ranges so far (a few:
 * SL_CAPTURE_MAX, the rest of repeat's ranges are not recorded).  Metadata (thread names,
 * modules, Python code, devices, contexts, streams) is always sent: the ranges need it.
 *
 * The end (SIGHTLINE_CAPTURE_RANGE_END): stop, the collection ends with the first range and the
 * program runs on unrecorded; stop-shutdown, and the program is sent SIGTERM (nsys's default);
 * repeat[:N], every range (or the first N) is recorded.
 */
#include "sl-inject-private.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SL_CAPTURE_MAX 256 /* ranges remembered for CUPTI's late records */

typedef enum
{
  CAPTURE_NONE,
  CAPTURE_PROFILER_API,
  CAPTURE_NVTX,
} CaptureMode;

typedef enum
{
  END_STOP,
  END_STOP_SHUTDOWN,
  END_REPEAT,
} CaptureEnd;

static struct
{
  CaptureMode mode;
  CaptureEnd end;
  unsigned repeat_max; /* repeat:N; 0: every range */
  char nvtx_name[256];
  char nvtx_domain[256]; /* "" the default domain; "*" any */

  pthread_mutex_t lock;
  _Atomic int gate;     /* 1: records of the program's threads are not made */
  bool open;            /* in a range */
  bool finished;        /* no range starts again */
  unsigned n_ranges;    /* begun so far */
  uint32_t nvtx_tid;    /* the thread that pushed the range, and its depth there */
  unsigned nvtx_depth;
  uint64_t nvtx_range;  /* the start/end range's id */
  _Atomic unsigned n_iv;
  uint64_t iv_begin[SL_CAPTURE_MAX];
  _Atomic uint64_t iv_end[SL_CAPTURE_MAX]; /* UINT64_MAX while open */
} cap = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* NVTX push depth of the calling thread, over all domains */
static __thread unsigned tls_nvtx_depth __attribute__ ((tls_model ("initial-exec")));

void
_sl_capture_configure (const char *range,
                       const char *nvtx,
                       const char *end)
{
  cap.mode = CAPTURE_NONE;
  if (range != NULL && strcmp (range, "cudaProfilerApi") == 0)
    cap.mode = CAPTURE_PROFILER_API;
  else if (range != NULL && strcmp (range, "nvtx") == 0 && nvtx != NULL && *nvtx != '\0')
    {
      const char *at = strrchr (nvtx, '@');
      size_t n = at != NULL ? (size_t) (at - nvtx) : strlen (nvtx);
      if (n >= sizeof cap.nvtx_name)
        n = sizeof cap.nvtx_name - 1;
      memcpy (cap.nvtx_name, nvtx, n);
      cap.nvtx_name[n] = '\0';
      snprintf (cap.nvtx_domain, sizeof cap.nvtx_domain, "%s", at != NULL ? at + 1 : "");
      cap.mode = CAPTURE_NVTX;
    }
  cap.end = END_STOP_SHUTDOWN;
  cap.repeat_max = 0;
  if (end != NULL && strcmp (end, "stop") == 0)
    cap.end = END_STOP;
  else if (end != NULL && strncmp (end, "repeat", 6) == 0)
    {
      cap.end = END_REPEAT;
      if (end[6] == ':')
        cap.repeat_max = (unsigned) strtoul (end + 7, NULL, 10);
    }
  atomic_store (&cap.gate, cap.mode != CAPTURE_NONE);
}

bool
_sl_capture_gated (void)
{
  return atomic_load_explicit (&cap.gate, memory_order_relaxed) != 0;
}

bool
_sl_capturing (void)
{
  return !_sl_capture_gated ();
}

bool
_sl_capture_by_profiler_api (void)
{
  return cap.mode == CAPTURE_PROFILER_API;
}

bool
_sl_capture_covers (uint64_t t)
{
  if (cap.mode == CAPTURE_NONE)
    return true;
  unsigned n = atomic_load_explicit (&cap.n_iv, memory_order_acquire);
  for (unsigned i = n; i-- > 0;)
    if (t >= cap.iv_begin[i] && t < atomic_load_explicit (&cap.iv_end[i], memory_order_relaxed))
      return true;
  return false;
}

void
_sl_capture_begin (void)
{
  if (cap.mode == CAPTURE_NONE)
    return;
  pthread_mutex_lock (&cap.lock);
  if (!cap.open && !cap.finished)
    {
      unsigned n = atomic_load_explicit (&cap.n_iv, memory_order_relaxed);
      cap.open = true;
      cap.n_ranges++;
      if (n < SL_CAPTURE_MAX)
        {
          cap.iv_begin[n] = _sl_now ();
          atomic_store_explicit (&cap.iv_end[n], UINT64_MAX, memory_order_relaxed);
          atomic_store_explicit (&cap.n_iv, n + 1, memory_order_release);
          atomic_store (&cap.gate, 0);
        }
    }
  pthread_mutex_unlock (&cap.lock);
}

void
_sl_capture_end (void)
{
  bool shutdown = false;

  if (cap.mode == CAPTURE_NONE)
    return;
  pthread_mutex_lock (&cap.lock);
  if (cap.open)
    {
      unsigned n = atomic_load_explicit (&cap.n_iv, memory_order_relaxed);
      atomic_store (&cap.gate, 1);
      if (n > 0)
        atomic_store_explicit (&cap.iv_end[n - 1], _sl_now (), memory_order_release);
      cap.open = false;
      if (cap.end != END_REPEAT || (cap.repeat_max > 0 && cap.n_ranges >= cap.repeat_max))
        cap.finished = true;
      shutdown = cap.end == END_STOP_SHUTDOWN;
    }
  pthread_mutex_unlock (&cap.lock);
  if (shutdown)
    {
      /* what was recorded goes out from the exit path (our SIGTERM handler flushes CUPTI and
       * the rings before the default action), as nsys ends the program */
      kill (getpid (), SIGTERM);
    }
}

/* The range `text` in domain `domain` ("" the default) is the one asked for. */
static bool
nvtx_matches (const char *domain,
              const char *text)
{
  if (text == NULL || strcmp (text, cap.nvtx_name) != 0)
    return false;
  return strcmp (cap.nvtx_domain, "*") == 0
         || strcmp (cap.nvtx_domain, domain != NULL ? domain : "") == 0;
}

void
_sl_capture_nvtx (uint32_t    op,
                  const char *domain,
                  uint64_t    range_id,
                  const char *text,
                  bool        before)
{
  if (op == SL_NVTX_PUSH && before)
    tls_nvtx_depth++;
  if (cap.mode != CAPTURE_NVTX)
    {
      if (op == SL_NVTX_POP && !before && tls_nvtx_depth > 0)
        tls_nvtx_depth--;
      return;
    }
  if (before && (op == SL_NVTX_PUSH || op == SL_NVTX_START) && nvtx_matches (domain, text))
    {
      pthread_mutex_lock (&cap.lock);
      bool starts = !cap.open && !cap.finished;
      if (starts)
        {
          cap.nvtx_tid = op == SL_NVTX_PUSH ? _sl_tid () : 0;
          cap.nvtx_depth = tls_nvtx_depth;
          cap.nvtx_range = op == SL_NVTX_START ? range_id : 0;
        }
      pthread_mutex_unlock (&cap.lock);
      if (starts)
        _sl_capture_begin ();
    }
  else if (!before && (op == SL_NVTX_POP || op == SL_NVTX_END))
    {
      bool ends;
      pthread_mutex_lock (&cap.lock);
      if (op == SL_NVTX_POP)
        ends = cap.open && cap.nvtx_tid == _sl_tid () && cap.nvtx_depth == tls_nvtx_depth;
      else
        ends = cap.open && cap.nvtx_tid == 0 && cap.nvtx_range == range_id;
      pthread_mutex_unlock (&cap.lock);
      if (ends)
        _sl_capture_end ();
    }
  if (op == SL_NVTX_POP && !before && tls_nvtx_depth > 0)
    tls_nvtx_depth--;
}
