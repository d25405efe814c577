/* sl-daemon.c: sightlined's event loop, sessions and writer threads.
 *
 * One thread runs poll() over the listening socket, every connection and a signalfd for SIGCHLD;
 * it only cuts the byte streams of target processes into whole records and queues them, so that a
 * target never waits for the disk.  Each recording (session) has a writer thread that turns the
 * queued records into rows (sl-trace-writer.c) and commits every SL_COMMIT_MS.  Connections are
 * accepted only from our own uid (SO_PEERCRED).
 */
#include "sl-daemon.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sl-control.h"
#include "sl-sched.h"
#include "sl-trace-writer.h"
#include "sl-wire.h"

#define SL_COMMIT_MS       100
#define SL_PROGRESS_MS     250
#define SL_DRAIN_GRACE_MS  2000 /* after the program exits, its children may still send */
#define SL_STOP_GRACE_MS   5000 /* after SIGINT on stop, before SIGKILL */
#define MAX_CONNS          1024
#define CONN_BUF           (1u << 20)

typedef struct Chunk Chunk;
struct Chunk
{
  Chunk   *next;
  int32_t  pid;
  int      ended;      /* a marker: process `pid` is gone (wait status in `status`) */
  int      status;
  size_t   len;
  uint8_t  data[];
};

/* A snapshot asked of a flight recorder (sl-control.h): made by the writer thread, answered by
 * the connection thread to whoever asked (a connection known by its slot and serial, which a
 * connection closed since and another made in its slot do not share; -1: SIGUSR1). */
typedef struct Snapshot Snapshot;
struct Snapshot
{
  Snapshot *next;
  int       conn;
  uint64_t  serial;
  char     *path;
  char     *error; /* NULL: written */
};

typedef struct
{
  uint64_t        id;
  pid_t           child;
  int             client_fd;
  SlTraceWriter  *writer;
  SlSched        *sched;         /* scheduling of the tree (sl-sched.c); NULL: off */
  char           *sched_note;    /* how it is recorded, for the client */
  char           *output;
  char           *program;       /* as exec'd: what a person is told about when it never reports */
  int             n_reported;    /* processes that said HELLO: 0, the library never ran in any */
  pthread_t       thread;
  pthread_mutex_t lock;
  pthread_cond_t  cond;
  Chunk          *head, *tail;
  size_t          queued;
  bool            finishing;     /* no more chunks: writer finishes the trace */
  bool            finished;      /* writer is done */
  char           *error;         /* writer's fatal error (disk full) */
  _Atomic uint64_t events;
  _Atomic uint64_t dropped;
  int             n_conns;
  bool            child_exited;
  int             child_status;
  uint64_t        exit_time_ms;
  uint64_t        stop_time_ms;  /* "stop" asked: SIGINT sent then */
  uint64_t        start_ms, duration_ms;
  bool            killed_on_duration;
  bool            reported_done;
  bool            active;
  /* a flight recorder (--keep-last) and a bounded trace (--max-size) */
  uint64_t        keep_last_ms;
  char           *pattern;       /* output_pattern: %n numbers the files (else NULL) */
  int             n_files;       /* files numbered so far */
  bool            force;
  Snapshot       *snap_todo;     /* under lock: for the writer */
  Snapshot       *snap_done;     /* under lock: for the connection thread */
  char           *stopped;       /* under lock: --max-size stopped the recording (why) */
  bool            stop_said;
  bool            stop_closed;   /* the connection thread closed its processes' connections */
} Session;

typedef enum
{
  CONN_NEW,
  CONN_TARGET,
  CONN_CLIENT,
} ConnKind;

typedef struct
{
  int       fd;
  ConnKind  kind;
  Session  *session;
  int32_t   pid;
  uint8_t  *buf;
  size_t    len;
  uint64_t  serial; /* which connection of those that had this slot */
} Conn;

static struct
{
  int          listen_fd;
  int          sig_fd;
  Conn         conns[MAX_CONNS];
  Session     *sessions[64];
  uint64_t     next_session;
  char         inject_path[PATH_MAX];
  char         self_dir[PATH_MAX];
  char         socket_path[PATH_MAX];
  uint64_t     next_serial;
} d;

static uint64_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
client_say (Session    *s,
            const char *verb,
            const char *a,
            const char *b)
{
  if (s->client_fd >= 0)
    sl_control_sendv (s->client_fd, verb, a, b, NULL);
}

/* ---------------------------------------------------------------------------------------------- */
/* The writer thread of a session                                                                 */

static void
queue_push (Session *s,
            Chunk   *c)
{
  pthread_mutex_lock (&s->lock);
  c->next = NULL;
  if (s->tail != NULL)
    s->tail->next = c;
  else
    s->head = c;
  s->tail = c;
  s->queued += c->len;
  pthread_cond_signal (&s->cond);
  pthread_mutex_unlock (&s->lock);
}

/* The cost the daemon puts on the recorded program where they share CPUs (a training loop with
 * its DataLoader workers keeps every core busy): the writer, which turns records into rows, runs
 * niced, so that it takes mostly the CPU time the program leaves; records wait in the queue
 * meanwhile (the connection thread, which empties the targets' sockets, keeps its priority so
 * that their rings do not fill).  bench-pytorch prints the daemon's CPU time. */
#define SL_WRITER_NICE 10

void
_sl_thread_lower_priority (int by)
{
  errno = 0;
  int cur = getpriority (PRIO_PROCESS, 0);
  if (cur == -1 && errno != 0)
    return;
  /* per thread on Linux: the tid as the "process" */
  int nice = cur + by < 19 ? cur + by : 19;
  (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), nice);
}

/* The snapshots asked since the last turn: each a copy of the committed trace, finished as at
 * the end (sl_trace_writer_snapshot()); answered by the connection thread. */
static void
writer_snapshots (Session *s)
{
  pthread_mutex_lock (&s->lock);
  Snapshot *todo = s->snap_todo;
  s->snap_todo = NULL;
  pthread_mutex_unlock (&s->lock);
  while (todo != NULL)
    {
      Snapshot *q = todo;
      todo = q->next;
      if (s->writer == NULL)
        q->error = strdup ("the recording has ended (or failed): its trace is all there is");
      else if (!sl_trace_writer_snapshot (s->writer, q->path, s->force, &q->error)
               && q->error == NULL)
        q->error = strdup ("out of memory");
      pthread_mutex_lock (&s->lock);
      q->next = s->snap_done;
      s->snap_done = q;
      pthread_mutex_unlock (&s->lock);
    }
}

static void *
writer_main (void *data)
{
  Session *s = data;
  uint64_t last_commit = now_ms ();
  char *error = NULL;

  _sl_thread_lower_priority (SL_WRITER_NICE);
  for (;;)
    {
      Chunk *list;
      bool finishing;

      pthread_mutex_lock (&s->lock);
      while (s->head == NULL && !s->finishing && s->snap_todo == NULL)
        {
          struct timespec ts;
          clock_gettime (CLOCK_REALTIME, &ts);
          ts.tv_nsec += SL_COMMIT_MS * 1000000L;
          if (ts.tv_nsec >= 1000000000L)
            {
              ts.tv_sec++;
              ts.tv_nsec -= 1000000000L;
            }
          if (pthread_cond_timedwait (&s->cond, &s->lock, &ts) == ETIMEDOUT)
            break;
        }
      list = s->head;
      s->head = s->tail = NULL;
      s->queued = 0;
      finishing = s->finishing;
      pthread_mutex_unlock (&s->lock);

      while (list != NULL)
        {
          Chunk *c = list;
          list = c->next;
          if (s->writer != NULL && c->ended)
            sl_trace_writer_process_ended (s->writer, c->pid, c->status, true);
          for (size_t off = 0; s->writer != NULL && off + sizeof (SlWireHeader) <= c->len;)
            {
              const SlWireHeader *h = (const SlWireHeader *) (c->data + off);
              sl_trace_writer_add (s->writer, c->pid, h);
              off += h->size;
            }
          free (c);
          if (list != NULL && s->writer != NULL && now_ms () - last_commit >= SL_COMMIT_MS)
            {
              /* a backlog (the writer fell behind): committed a batch at a time as usual, not in
               * one transaction of all of it, which the file (a --keep-last window's included)
               * and the journal would grow by before the next commit; the rest goes back first */
              Chunk *last = list;
              size_t len = last->len;
              while (last->next != NULL)
                {
                  last = last->next;
                  len += last->len;
                }
              pthread_mutex_lock (&s->lock);
              last->next = s->head;
              if (s->head == NULL)
                s->tail = last;
              s->head = list;
              s->queued += len;
              pthread_mutex_unlock (&s->lock);
              list = NULL;
              finishing = false; /* not before what went back is written */
            }
        }
      if (s->writer != NULL)
        atomic_store (&s->dropped, sl_trace_writer_n_dropped (s->writer));
      if (s->writer != NULL && (finishing || now_ms () - last_commit >= SL_COMMIT_MS))
        {
          /* the count is read after the commit: samples become rows there */
          bool ok = finishing ? sl_trace_writer_end (s->writer, &error)
                              : sl_trace_writer_commit (s->writer, &error);
          atomic_store (&s->events, sl_trace_writer_n_events (s->writer));
          if (!ok)
            {
              /* disk full or file gone: keep what is committed, stop writing */
              sl_trace_writer_finish (s->writer, NULL == error ? &error : &(char *) { NULL });
              s->writer = NULL;
              pthread_mutex_lock (&s->lock);
              s->error = error;
              pthread_mutex_unlock (&s->lock);
              error = NULL;
            }
          last_commit = now_ms ();
        }
      else if (s->writer != NULL)
        atomic_store (&s->events, sl_trace_writer_n_events (s->writer));
      writer_snapshots (s);
      if (s->writer != NULL && sl_trace_writer_stop_reason (s->writer) != NULL && !s->stop_said)
        {
          pthread_mutex_lock (&s->lock);
          s->stopped = strdup (sl_trace_writer_stop_reason (s->writer));
          pthread_mutex_unlock (&s->lock);
          s->stop_said = true; /* the writer's own flag; the connection thread says it */
        }
      if (finishing)
        break;
    }
  writer_snapshots (s); /* asked too late: answered (with an error) all the same */
  if (s->writer != NULL)
    {
      if (!sl_trace_writer_finish (s->writer, &error))
        {
          pthread_mutex_lock (&s->lock);
          if (s->error == NULL)
            s->error = error;
          pthread_mutex_unlock (&s->lock);
        }
      s->writer = NULL;
    }
  pthread_mutex_lock (&s->lock);
  s->finished = true;
  pthread_mutex_unlock (&s->lock);
  return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* Connections                                                                                    */

static Conn *
conn_add (int      fd,
          ConnKind kind)
{
  for (int i = 0; i < MAX_CONNS; i++)
    if (d.conns[i].fd < 0)
      {
        d.conns[i] = (Conn) { fd, kind, NULL, 0, NULL, 0, ++d.next_serial };
        d.conns[i].buf = malloc (CONN_BUF);
        if (d.conns[i].buf == NULL)
          {
            d.conns[i].fd = -1;
            return NULL;
          }
        return &d.conns[i];
      }
  return NULL;
}

static void
conn_close (Conn *c)
{
  if (c->kind == CONN_TARGET && c->session != NULL)
    {
      Session *s = c->session;
      Chunk *end = calloc (1, sizeof *end);
      if (end != NULL)
        {
          end->pid = c->pid;
          end->ended = 1;
          queue_push (s, end);
        }
      s->n_conns--;
    }
  if (c->kind == CONN_CLIENT && c->session != NULL)
    c->session->client_fd = -1;
  close (c->fd);
  free (c->buf);
  c->fd = -1;
  c->buf = NULL;
}

static Session *
session_find (uint64_t id)
{
  for (size_t i = 0; i < sizeof d.sessions / sizeof d.sessions[0]; i++)
    if (d.sessions[i] != NULL && d.sessions[i]->id == id)
      return d.sessions[i];
  return NULL;
}

/* Whole records of a target connection to the session's queue; a bad frame closes it. */
static bool
target_consume (Conn *c)
{
  size_t off = 0;

  for (;;)
    {
      long size = sl_wire_frame (c->buf + off, c->len - off);
      if (size < 0)
        return false;
      if (size == 0)
        break;
      const SlWireHeader *h = (const SlWireHeader *) (c->buf + off);
      if (c->session == NULL)
        {
          /* the first record must be a HELLO naming a live session */
          const SlWireHello *hello = (const SlWireHello *) h;
          if (h->type != SL_WIRE_HELLO || h->size < sizeof *hello || hello->magic != SL_WIRE_MAGIC
              || hello->version != SL_WIRE_VERSION)
            return false;
          c->session = session_find (hello->session);
          /* a recording --max-size stopped takes no more: the library stops recording */
          if (c->session != NULL && c->session->stop_closed)
            {
              c->session = NULL;
              return false;
            }
          if (c->session == NULL || c->session->finishing)
            return false;
          c->pid = hello->pid;
          c->session->n_conns++;
          c->session->n_reported++;
        }
      off += h->size;
    }
  if (off > 0)
    {
      Chunk *chunk = malloc (sizeof *chunk + off);
      if (chunk == NULL)
        return false;
      memset (chunk, 0, sizeof *chunk);
      chunk->pid = c->pid;
      chunk->len = off;
      memcpy (chunk->data, c->buf, off);
      queue_push (c->session, chunk);
      memmove (c->buf, c->buf + off, c->len - off);
      c->len -= off;
    }
  return true;
}

/* ---------------------------------------------------------------------------------------------- */
/* Launching                                                                                      */

static const char *
opt (char **kv,
     size_t n,
     const char *key)
{
  size_t k = strlen (key);

  for (size_t i = 0; i < n; i++)
    if (strncmp (kv[i], key, k) == 0 && kv[i][k] == '=')
      return kv[i] + k + 1;
  return NULL;
}

/* Scheduling records come from the collector's thread as if a target had sent them. */
static void
sched_sink (const void *records,
            size_t      len,
            void       *user_data)
{
  Session *s = user_data;
  Chunk *chunk = malloc (sizeof *chunk + len);

  if (chunk == NULL)
    return;
  memset (chunk, 0, sizeof *chunk);
  chunk->pid = s->child;
  chunk->len = len;
  memcpy (chunk->data, records, len);
  queue_push (s, chunk);
}

static void
session_free (Session *s)
{
  for (size_t i = 0; i < sizeof d.sessions / sizeof d.sessions[0]; i++)
    if (d.sessions[i] == s)
      d.sessions[i] = NULL;
  sl_sched_stop (s->sched);
  free (s->sched_note);
  free (s->output);
  free (s->program);
  free (s->error);
  free (s->pattern);
  free (s->stopped);
  for (Snapshot *q = s->snap_done, *next; q != NULL; q = next)
    {
      next = q->next;
      free (q->path);
      free (q->error);
      free (q);
    }
  pthread_mutex_destroy (&s->lock);
  pthread_cond_destroy (&s->cond);
  free (s);
}

static char *
env_entry (const char *key,
           const char *value)
{
  char *e = NULL;

  if (asprintf (&e, "%s=%s", key, value) < 0)
    return NULL;
  return e;
}

/* A NAME=value the daemon sets for the recorded program itself (a recording inside a recording
 * gets the inner session's); the person's own (SIGHTLINE_PYTHON, SIGHTLINE_SAMPLER) pass. */
static bool
set_by_daemon (const char *v)
{
  static const char *const names[] = {
    "SIGHTLINE_SOCKET=", "SIGHTLINE_SESSION=", "SIGHTLINE_TRACE=", "SIGHTLINE_SAMPLE_HZ=",
    "SIGHTLINE_OSRT_THRESHOLD_NS=", "SIGHTLINE_OSRT_BACKTRACE_NS=", "NVTX_INJECTION64_PATH=",
    "CUDA_INJECTION64_PATH=", "SIGHTLINE_CUDA_GRAPH_TRACE=", "SIGHTLINE_CUDA_BACKTRACE=",
    "SIGHTLINE_CAPTURE_RANGE=", "SIGHTLINE_NVTX_CAPTURE=", "SIGHTLINE_CAPTURE_RANGE_END=",
    "SIGHTLINE_CUDA_MEMORY_USAGE=", "SIGHTLINE_CUDA_UM_CPU_PAGE_FAULTS=",
    "SIGHTLINE_CUDA_UM_GPU_PAGE_FAULTS=", "SIGHTLINE_GPU_METRICS=",
  };

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp (v, names[i], strlen (names[i])) == 0)
      return true;
  return false;
}

/* A boolean option's value: absent, "true" or "false" (as nsys spells them). */
static bool
bool_option (const char *v)
{
  return v == NULL || strcmp (v, "true") == 0 || strcmp (v, "false") == 0;
}

static bool
is_true (const char *v)
{
  return v != NULL && strcmp (v, "true") == 0;
}

/* Whether a pattern of sl_control_expand_pattern() numbers its files ("%n", not "%%n"). */
static bool
has_number (const char *pattern)
{
  for (const char *p = pattern; *p != '\0'; p++)
    if (*p == '%' && (p[1] == 'n' || p[1] == '%'))
      {
        if (p[1] == 'n')
          return true;
        p++;
      }
  return false;
}

/* The file of number `n` of a flight recorder: its pattern's %n, or without one its output with
 * "-N" before the extension ("trace.sqlite": "trace-2.sqlite").  malloc'd. */
static char *
numbered_path (const Session *s,
               int            n)
{
  char num[16];
  char *path = NULL;

  snprintf (num, sizeof num, "%d", n);
  if (s->pattern != NULL)
    return sl_control_expand_number (s->pattern, num);
  const char *slash = strrchr (s->output, '/');
  const char *base = slash != NULL ? slash + 1 : s->output;
  const char *dot = strrchr (base, '.');
  int stem = dot != NULL && dot != base ? (int) (dot - s->output) : (int) strlen (s->output);
  if (asprintf (&path, "%.*s-%s%s", stem, s->output, num, s->output + stem) < 0)
    return NULL;
  return path;
}

/* The next numbered file that is not there yet (with --force: the next number). */
static char *
next_numbered_path (Session *s)
{
  struct stat st;

  for (int tries = 0; tries < 100000; tries++)
    {
      char *path = numbered_path (s, ++s->n_files);
      if (path == NULL || s->force || lstat (path, &st) != 0)
        return path;
      free (path);
    }
  return NULL;
}

/* "record" OPTIONS… "--" PROGRAM ARGS…: check, create the trace, fork and exec the program. */
static void
session_start (Conn         *client,
               SlControlMsg *msg)
{
  size_t sep = 0;
  char err[1024];

  while (sep < msg->n && strcmp (msg->argv[sep], "--") != 0)
    sep++;
  if (sep + 1 >= msg->n)
    {
      sl_control_sendv (client->fd, "error", "nothing to record: no program given", "2", NULL);
      return;
    }
  char **kv = msg->argv + 1;
  size_t n_kv = sep - 1;
  char **argv = msg->argv + sep + 1;
  const char *output = opt (kv, n_kv, "output");
  const char *cwd = opt (kv, n_kv, "cwd");
  const char *trace = opt (kv, n_kv, "trace");
  const char *hz = opt (kv, n_kv, "sample_hz");
  const char *delay = opt (kv, n_kv, "delay_ms");
  const char *duration = opt (kv, n_kv, "duration_ms");
  const char *force = opt (kv, n_kv, "force");
  const char *threshold = opt (kv, n_kv, "osrt_threshold_ns");
  const char *backtrace = opt (kv, n_kv, "osrt_backtrace_ns");
  const char *graph_trace = opt (kv, n_kv, "cuda_graph_trace");
  /* nsys's --cudabacktrace (checked by the library; the client checks it for a person) and
   * --capture-range, --nvtx-capture, --capture-range-end */
  const char *cuda_backtrace = opt (kv, n_kv, "cuda_backtrace");
  const char *capture_range = opt (kv, n_kv, "capture_range");
  const char *nvtx_capture = opt (kv, n_kv, "nvtx_capture");
  const char *capture_end = opt (kv, n_kv, "capture_range_end");
  /* nsys's --cuda-memory-usage, --cuda-um-cpu-page-faults, --cuda-um-gpu-page-faults: "true" or
   * "false" (the default) */
  const char *memory_usage = opt (kv, n_kv, "cuda_memory_usage");
  const char *um_cpu = opt (kv, n_kv, "cuda_um_cpu_page_faults");
  const char *um_gpu = opt (kv, n_kv, "cuda_um_gpu_page_faults");
  /* --gpu-metrics[=HZ]: PM samples a second on each GPU (10 … 200000, as nsys takes them) */
  const char *gpu_metrics = opt (kv, n_kv, "gpu_metrics");
  int sched = sl_sched_method_parse (opt (kv, n_kv, "sched"));
  /* --keep-last (ms), --max-size (bytes); output_pattern=1: `output` is a pattern in which "%n"
   * numbers the files and "%%" is a '%' (sl_control_expand_pattern()) */
  const char *keep_last = opt (kv, n_kv, "keep_last_ms");
  const char *max_size = opt (kv, n_kv, "max_size");
  const char *output_pattern = opt (kv, n_kv, "output_pattern");
  char *werr = NULL;
  char *working = NULL;

  if (output == NULL)
    {
      sl_control_sendv (client->fd, "error", "no output file given", "2", NULL);
      return;
    }
  if (sched < 0)
    {
      sl_control_sendv (client->fd, "error", "sched: one of auto, on, off, perf, proc", "2", NULL);
      return;
    }
  if (graph_trace == NULL)
    graph_trace = "graph"; /* nsys's default */
  if (cuda_backtrace == NULL)
    cuda_backtrace = "sync:250000"; /* ours: waits of 250 µs and more (sightline-record(1)) */
  if (capture_range != NULL && strcmp (capture_range, "none") != 0
      && strcmp (capture_range, "cudaProfilerApi") != 0 && strcmp (capture_range, "nvtx") != 0)
    {
      sl_control_sendv (client->fd, "error", "capture_range: none, cudaProfilerApi or nvtx", "2",
                        NULL);
      return;
    }
  if (capture_range != NULL && strcmp (capture_range, "nvtx") == 0
      && (nvtx_capture == NULL || *nvtx_capture == '\0'))
    {
      sl_control_sendv (client->fd, "error", "capture_range nvtx needs nvtx_capture (a range name)",
                        "2", NULL);
      return;
    }
  if (strcmp (graph_trace, "graph") != 0 && strcmp (graph_trace, "node") != 0)
    {
      sl_control_sendv (client->fd, "error", "cuda_graph_trace: graph or node", "2", NULL);
      return;
    }
  if (!bool_option (memory_usage) || !bool_option (um_cpu) || !bool_option (um_gpu))
    {
      sl_control_sendv (client->fd, "error",
                        "cuda_memory_usage, cuda_um_cpu_page_faults, cuda_um_gpu_page_faults: true "
                        "or false",
                        "2", NULL);
      return;
    }
  if (gpu_metrics != NULL
      && (strspn (gpu_metrics, "0123456789") != strlen (gpu_metrics) || strlen (gpu_metrics) > 6
          || atoi (gpu_metrics) < 10 || atoi (gpu_metrics) > 200000))
    {
      sl_control_sendv (client->fd, "error", "gpu_metrics: samples a second, 10 to 200000", "2",
                        NULL);
      return;
    }
  /* the client checked them for a person (SL_RECORD_*_MIN/MAX in app/sl-recording.h): here
   * only what keeps the daemon sane */
  if (keep_last != NULL
      && (*keep_last == '\0' || strspn (keep_last, "0123456789") != strlen (keep_last)
          || strlen (keep_last) > 12 || strtoull (keep_last, NULL, 10) < 100))
    {
      sl_control_sendv (client->fd, "error", "keep_last_ms: milliseconds, at least 100", "2", NULL);
      return;
    }
  if (max_size != NULL
      && (*max_size == '\0' || strspn (max_size, "0123456789") != strlen (max_size)
          || strlen (max_size) > 16 || strtoull (max_size, NULL, 10) < (1u << 20)))
    {
      sl_control_sendv (client->fd, "error", "max_size: bytes, at least 1 MiB", "2", NULL);
      return;
    }
  if (output_pattern != NULL && keep_last == NULL)
    {
      sl_control_sendv (client->fd, "error", "output_pattern: only with keep_last_ms", "2", NULL);
      return;
    }
  /* a pattern with %n records into "live" and is numbered at the end (session_numbered()) */
  if (output_pattern != NULL && (working = sl_control_expand_number (output, "live")) == NULL)
    {
      sl_control_sendv (client->fd, "error", "out of memory", "1", NULL);
      return;
    }
  if (working != NULL && strcmp (working, output) == 0)
    {
      /* no %n: "%%" only */
      free (working);
      working = sl_control_expand_number (output, "");
    }
  if (working != NULL)
    output = working;
  /* a daemon whose library was removed since it started (its prefix uninstalled) would run the
   * program with nothing recorded inside it */
  if (access (d.inject_path, R_OK) != 0)
    {
      snprintf (err, sizeof err, "the injection library %.512s is gone (%s): this sightlined (pid %d) "
                                 "cannot record; it exits when idle",
                d.inject_path, strerror (errno), (int) getpid ());
      sl_control_sendv (client->fd, "error", err, "1", NULL);
      return;
    }
  if (access (argv[0], X_OK) != 0)
    {
      int e = errno;
      snprintf (err, sizeof err, "%s: %s", argv[0],
                e == ENOENT ? "no such program" : e == EACCES ? "not executable" : strerror (e));
      sl_control_sendv (client->fd, "error", err, e == ENOENT ? "127" : "126", NULL);
      return;
    }
  size_t slot = 0;
  while (slot < sizeof d.sessions / sizeof d.sessions[0] && d.sessions[slot] != NULL)
    slot++;
  if (slot == sizeof d.sessions / sizeof d.sessions[0])
    {
      sl_control_sendv (client->fd, "error", "too many recordings at once", "1", NULL);
      return;
    }

  SlTraceWriter *w = sl_trace_writer_open (output, force != NULL && strcmp (force, "1") == 0,
                                           &werr);
  if (w == NULL)
    {
      sl_control_sendv (client->fd, "error", werr, "1", NULL);
      free (werr);
      free (working);
      return;
    }
  if (keep_last != NULL)
    {
      sl_trace_writer_set_keep_last (w, strtoull (keep_last, NULL, 10) * 1000000u);
      sl_trace_writer_add_meta (w, "KEEP_LAST_MS", keep_last);
    }
  if (max_size != NULL)
    {
      sl_trace_writer_set_max_size (w, strtoull (max_size, NULL, 10));
      sl_trace_writer_add_meta (w, "MAX_SIZE", max_size);
    }
  {
    char name[64];
    sl_trace_writer_add_meta (w, "CAPTURE_TOOL", "sightline record");
    sl_trace_writer_add_meta (w, "PROCESS_0:COMMAND", argv[0]);
    for (size_t i = 1; argv[i] != NULL; i++)
      {
        snprintf (name, sizeof name, "PROCESS_0:ARGUMENT_%zu", i - 1);
        sl_trace_writer_add_meta (w, name, argv[i]);
      }
    if (trace != NULL)
      sl_trace_writer_add_meta (w, "TRACE", trace);
    if (hz != NULL)
      sl_trace_writer_add_meta (w, "SAMPLING_FREQUENCY", hz);
    /* as nsys names the mode (its reports say "Graph" or "Node") */
    if (trace == NULL || strstr (trace, "cuda") != NULL)
      sl_trace_writer_add_meta (w, "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE",
                                strcmp (graph_trace, "node") == 0 ? "Node" : "Graph");
  }

  Session *s = calloc (1, sizeof *s);
  s->id = ++d.next_session;
  s->writer = w;
  s->output = strdup (output);
  s->program = strdup (argv[0]);
  s->keep_last_ms = keep_last != NULL ? strtoull (keep_last, NULL, 10) : 0;
  s->pattern = output_pattern != NULL && has_number (opt (kv, n_kv, "output"))
                 ? strdup (opt (kv, n_kv, "output"))
                 : NULL;
  s->force = force != NULL && strcmp (force, "1") == 0;
  free (working);
  output = s->output;
  s->client_fd = client->fd;
  s->start_ms = now_ms ();
  s->duration_ms = duration != NULL ? strtoull (duration, NULL, 10) : 0;
  pthread_mutex_init (&s->lock, NULL);
  pthread_cond_init (&s->cond, NULL);
  if (delay != NULL || duration != NULL)
    {
      uint64_t t = now_ns ();
      uint64_t dl = delay != NULL ? strtoull (delay, NULL, 10) * 1000000u : 0;
      uint64_t du = duration != NULL ? strtoull (duration, NULL, 10) * 1000000u : 0;
      sl_trace_writer_set_window (w, dl ? t + dl : 0, du ? t + dl + du : 0);
    }

  /* the environment: the client's, then ours on top; built before fork */
  size_t n_env = 0;
  for (size_t i = 0; i < n_kv; i++)
    n_env += strncmp (kv[i], "env=", 4) == 0;
  char **envp = calloc (n_env + 26, sizeof (char *));
  size_t e = 0;
  const char *preload = NULL;
  for (size_t i = 0; i < n_kv; i++)
    if (strncmp (kv[i], "env=", 4) == 0)
      {
        const char *v = kv[i] + 4;
        if (strncmp (v, "LD_PRELOAD=", 11) == 0)
          preload = v + 11;
        else if (!set_by_daemon (v))
          envp[e++] = strdup (v);
      }
  char buf[PATH_MAX * 2];
  snprintf (buf, sizeof buf, "%s%s%s", d.inject_path, preload != NULL && *preload ? " " : "",
            preload != NULL ? preload : "");
  envp[e++] = env_entry ("LD_PRELOAD", buf);
  envp[e++] = env_entry ("SIGHTLINE_SOCKET", d.socket_path);
  snprintf (buf, sizeof buf, "%" PRIu64, s->id);
  envp[e++] = env_entry ("SIGHTLINE_SESSION", buf);
  envp[e++] = env_entry ("SIGHTLINE_TRACE", trace != NULL ? trace : "cuda,nvtx,osrt");
  envp[e++] = env_entry ("SIGHTLINE_SAMPLE_HZ", hz != NULL ? hz : "0");
  if (threshold != NULL)
    envp[e++] = env_entry ("SIGHTLINE_OSRT_THRESHOLD_NS", threshold);
  if (backtrace != NULL)
    envp[e++] = env_entry ("SIGHTLINE_OSRT_BACKTRACE_NS", backtrace);
  if (trace == NULL || strstr (trace, "nvtx") != NULL)
    envp[e++] = env_entry ("NVTX_INJECTION64_PATH", d.inject_path);
  if (trace == NULL || strstr (trace, "cuda") != NULL)
    {
      envp[e++] = env_entry ("CUDA_INJECTION64_PATH", d.inject_path);
      envp[e++] = env_entry ("SIGHTLINE_CUDA_GRAPH_TRACE", graph_trace);
      envp[e++] = env_entry ("SIGHTLINE_CUDA_BACKTRACE", cuda_backtrace);
      if (is_true (memory_usage))
        envp[e++] = env_entry ("SIGHTLINE_CUDA_MEMORY_USAGE", "true");
      if (is_true (um_cpu))
        envp[e++] = env_entry ("SIGHTLINE_CUDA_UM_CPU_PAGE_FAULTS", "true");
      if (is_true (um_gpu))
        envp[e++] = env_entry ("SIGHTLINE_CUDA_UM_GPU_PAGE_FAULTS", "true");
      if (gpu_metrics != NULL)
        envp[e++] = env_entry ("SIGHTLINE_GPU_METRICS", gpu_metrics);
    }
  if (capture_range != NULL && strcmp (capture_range, "none") != 0)
    {
      envp[e++] = env_entry ("SIGHTLINE_CAPTURE_RANGE", capture_range);
      if (nvtx_capture != NULL)
        envp[e++] = env_entry ("SIGHTLINE_NVTX_CAPTURE", nvtx_capture);
      if (capture_end != NULL)
        envp[e++] = env_entry ("SIGHTLINE_CAPTURE_RANGE_END", capture_end);
    }
  envp[e] = NULL;

  int fds[3] = { -1, -1, -1 };
  for (size_t i = 0; i < msg->n_fds && i < 3; i++)
    fds[i] = msg->fds[i];
  int errpipe[2], gopipe[2];
  if (pipe2 (errpipe, O_CLOEXEC) != 0)
    errpipe[0] = errpipe[1] = -1;
  /* the child waits on it until scheduling is recorded: perf events attach before exec */
  if (pipe2 (gopipe, O_CLOEXEC) != 0)
    gopipe[0] = gopipe[1] = -1;

  pid_t pid = fork ();
  if (pid == 0)
    {
      /* the child: only async-signal-safe calls until exec */
      sigset_t none;
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      if (gopipe[0] >= 0)
        {
          char go;
          close (gopipe[1]);
          while (read (gopipe[0], &go, 1) < 0 && errno == EINTR)
            ;
        }
      setpgid (0, 0);
      for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
          dup2 (fds[i], i);
      if (cwd != NULL && chdir (cwd) != 0)
        {
          int en = errno;
          ssize_t r = write (errpipe[1], &en, sizeof en);
          (void) r;
          _exit (126);
        }
      execve (argv[0], argv, envp);
      int en = errno;
      ssize_t r = write (errpipe[1], &en, sizeof en);
      (void) r;
      _exit (en == ENOENT ? 127 : 126);
    }
  for (size_t i = 0; envp[i] != NULL; i++)
    free (envp[i]);
  free (envp);
  if (pid > 0 && sched != SL_SCHED_OFF)
    {
      char *why = NULL;
      s->sched = sl_sched_start (pid, (SlSchedMethod) sched, sched_sink, s, &why);
      s->child = pid; /* the sink's process */
      if (s->sched != NULL)
        {
          sl_trace_writer_add_meta (w, "SCHED_METHOD", sl_sched_describe (s->sched));
          if (asprintf (&s->sched_note, "%s%s%s", sl_sched_describe (s->sched),
                        why != NULL ? "; " : "", why != NULL ? why : "")
              < 0)
            s->sched_note = NULL;
        }
      else if (asprintf (&s->sched_note, "not recorded: %s", why != NULL ? why : "?") < 0)
        s->sched_note = NULL;
      free (why);
    }
  if (backtrace != NULL)
    sl_trace_writer_add_meta (w, "OSRT_BACKTRACE_THRESHOLD", backtrace);
  sl_trace_writer_add_meta (w, "CUDA_BACKTRACE", cuda_backtrace);
  if (is_true (memory_usage))
    sl_trace_writer_add_meta (w, "CUDA_MEMORY_USAGE", "true");
  if (is_true (um_cpu))
    sl_trace_writer_add_meta (w, "CUDA_UM_CPU_PAGE_FAULTS", "true");
  if (is_true (um_gpu))
    sl_trace_writer_add_meta (w, "CUDA_UM_GPU_PAGE_FAULTS", "true");
  if (gpu_metrics != NULL)
    sl_trace_writer_add_meta (w, "GPU_METRICS_FREQUENCY", gpu_metrics);
  if (capture_range != NULL)
    sl_trace_writer_add_meta (w, "CAPTURE_RANGE", capture_range);
  if (nvtx_capture != NULL)
    sl_trace_writer_add_meta (w, "NVTX_CAPTURE", nvtx_capture);
  if (capture_end != NULL)
    sl_trace_writer_add_meta (w, "CAPTURE_RANGE_END", capture_end);
  if (gopipe[0] >= 0)
    {
      close (gopipe[0]);
      ssize_t r = write (gopipe[1], "g", 1);
      (void) r;
      close (gopipe[1]);
    }
  close (errpipe[1]);
  int child_errno = 0;
  if (pid > 0 && read (errpipe[0], &child_errno, sizeof child_errno) != sizeof child_errno)
    child_errno = 0;
  close (errpipe[0]);
  if (pid < 0 || child_errno != 0)
    {
      snprintf (err, sizeof err, "%s: cannot start: %s%s%s", argv[0],
                strerror (pid < 0 ? errno : child_errno), cwd != NULL ? " (in " : "",
                cwd != NULL ? ")" : "");
      if (cwd != NULL)
        snprintf (err, sizeof err, "%s: cannot start in %s: %s", argv[0], cwd,
                  strerror (pid < 0 ? errno : child_errno));
      sl_control_sendv (client->fd, "error", err, child_errno == ENOENT ? "127" : "126", NULL);
      if (pid > 0)
        waitpid (pid, NULL, 0);
      sl_sched_stop (s->sched);
      free (s->sched_note);
      char *ignored = NULL;
      sl_trace_writer_finish (w, &ignored);
      free (ignored);
      unlink (output);
      s->writer = NULL;
      free (s->output);
      free (s->program);
      free (s->pattern);
      pthread_mutex_destroy (&s->lock);
      pthread_cond_destroy (&s->cond);
      free (s);
      return;
    }
  s->child = pid;
  s->active = true;
  d.sessions[slot] = s;
  client->session = s;
  pthread_create (&s->thread, NULL, writer_main, s);
  snprintf (buf, sizeof buf, "%d", (int) pid);
  sl_control_sendv (client->fd, "started", buf, s->output, NULL);
  if (s->sched_note != NULL)
    sl_control_sendv (client->fd, "sched", s->sched_note, NULL, NULL);
}

/* A snapshot of flight recorder `s` for the connection in slot `conn` (-1: SIGUSR1), for its
 * writer thread to make; one that cannot be made is answered as such. */
static void
snapshot_ask (Session *s,
              int      conn)
{
  Snapshot *q = calloc (1, sizeof *q);

  if (q == NULL)
    return;
  q->conn = conn;
  q->serial = conn >= 0 ? d.conns[conn].serial : 0;
  q->path = s->finishing ? NULL : next_numbered_path (s); /* the writer's own: its thread's */
  if (q->path == NULL)
    q->error = strdup (s->finishing ? "the recording is ending: its trace is written at its end"
                                    : "no free file name for a snapshot");
  pthread_mutex_lock (&s->lock);
  if (q->error != NULL)
    {
      q->next = s->snap_done;
      s->snap_done = q;
    }
  else
    {
      /* in the order asked */
      Snapshot **tail = &s->snap_todo;
      while (*tail != NULL)
        tail = &(*tail)->next;
      *tail = q;
    }
  pthread_cond_signal (&s->cond);
  pthread_mutex_unlock (&s->lock);
}

/* "snapshot" [PID|FILE] on connection `c`: of its own recording, or of every flight recorder
 * (of that program, or writing that file). */
static void
snapshot_request (Conn       *c,
                  const char *which)
{
  int slot = (int) (c - d.conns);
  char n[16];
  int asked = 0;

  if (c->session != NULL)
    {
      if (c->session->keep_last_ms == 0)
        sl_control_sendv (c->fd, "snapshot-error", "not a flight recorder (record --keep-last)",
                          NULL, NULL);
      else
        snapshot_ask (c->session, slot);
      return;
    }
  /* how many answers follow, then the asks */
  for (int pass = 0; pass < 2; pass++)
    {
      for (size_t i = 0; i < sizeof d.sessions / sizeof d.sessions[0]; i++)
        {
          Session *s = d.sessions[i];
          char pid[16];
          if (s == NULL || s->keep_last_ms == 0 || s->finishing)
            continue;
          snprintf (pid, sizeof pid, "%d", (int) s->child);
          if (which != NULL && *which != '\0' && strcmp (which, pid) != 0
              && strcmp (which, s->output) != 0)
            continue;
          if (pass == 0)
            asked++;
          else
            snapshot_ask (s, slot);
        }
      if (pass == 0)
        {
          snprintf (n, sizeof n, "%d", asked);
          sl_control_sendv (c->fd, "snapshots", n, NULL, NULL);
        }
    }
}

/* "detach": the recording ends here and the program runs on.  Its processes' connections are
 * closed (their libraries see the daemon gone and stop recording, the program unharmed); the
 * trace is finished with what came so far. */
static void
session_detach (Session *s)
{
  if (s->finishing)
    return;
  for (int i = 0; i < MAX_CONNS; i++)
    if (d.conns[i].fd >= 0 && d.conns[i].kind == CONN_TARGET && d.conns[i].session == s)
      {
        target_consume (&d.conns[i]);
        conn_close (&d.conns[i]);
      }
  s->child_exited = true; /* no longer waited for: the session ends at the next tick */
  s->exit_time_ms = now_ms ();
  s->child = 0;
}

static void
client_message (Conn *c)
{
  SlControlMsg msg;
  long used;

  while ((used = sl_control_parse (c->buf, c->len, &msg)) > 0)
    {
      if (msg.n > 0 && strcmp (msg.argv[0], "hello") == 0)
        sl_control_hello_answer (c->fd, d.inject_path);
      else if (msg.n > 0 && strcmp (msg.argv[0], "record") == 0 && c->session == NULL)
        session_start (c, &msg);
      else if (msg.n > 0 && strcmp (msg.argv[0], "stop") == 0 && c->session != NULL)
        {
          Session *s = c->session;
          if (!s->child_exited && s->stop_time_ms == 0)
            {
              kill (-s->child, SIGINT);
              s->stop_time_ms = now_ms ();
            }
        }
      else if (msg.n > 0 && strcmp (msg.argv[0], "kill") == 0 && c->session != NULL)
        {
          if (!c->session->child_exited)
            kill (-c->session->child, SIGKILL);
        }
      else if (msg.n > 0 && strcmp (msg.argv[0], "detach") == 0 && c->session != NULL)
        session_detach (c->session);
      else if (msg.n > 0 && strcmp (msg.argv[0], "snapshot") == 0)
        snapshot_request (c, msg.n > 1 ? msg.argv[1] : NULL);
      sl_control_msg_clear (&msg);
      memmove (c->buf, c->buf + used, c->len - (size_t) used);
      c->len -= (size_t) used;
    }
  /* a malformed message (no magic, a length over SL_CONTROL_MAX): the client is not ours, or
   * broken; dropping its bytes and reading on would parse garbage as messages forever */
  if (used < 0)
    conn_close (c);
}

/* The descriptors of a "record" arrive as SCM_RIGHTS with its first bytes. */
static ssize_t
conn_read (Conn   *c,
           int    *fds,
           size_t *n_fds)
{
  *n_fds = 0;
  return sl_control_read (c->fd, c->buf + c->len, CONN_BUF - c->len, MSG_DONTWAIT, fds, n_fds);
}

static void
conn_readable (Conn *c)
{
  int fds[SL_CONTROL_MAX_FDS];
  size_t n_fds = 0;

  if (c->len == CONN_BUF)
    {
      conn_close (c); /* a record over 1 MiB: not ours */
      return;
    }
  ssize_t r = conn_read (c, fds, &n_fds);
  if (r < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (r <= 0)
    {
      for (size_t i = 0; i < n_fds; i++)
        close (fds[i]);
      conn_close (c);
      return;
    }
  c->len += (size_t) r;
  if (c->kind == CONN_NEW && c->len >= 4)
    c->kind = memcmp (c->buf, SL_CONTROL_MAGIC, 4) == 0 ? CONN_CLIENT : CONN_TARGET;
  if (c->kind == CONN_CLIENT)
    {
      /* a "record" message's descriptors: handed over inside the parsed message */
      if (n_fds > 0)
        {
          SlControlMsg msg;
          long used = sl_control_parse (c->buf, c->len, &msg);
          if (used > 0)
            {
              memcpy (msg.fds, fds, n_fds * sizeof (int));
              msg.n_fds = n_fds;
              if (msg.n > 0 && strcmp (msg.argv[0], "record") == 0 && c->session == NULL)
                session_start (c, &msg);
              sl_control_msg_clear (&msg);
              memmove (c->buf, c->buf + used, c->len - (size_t) used);
              c->len -= (size_t) used;
            }
          else
            for (size_t i = 0; i < n_fds; i++)
              close (fds[i]);
        }
      client_message (c);
    }
  else
    {
      for (size_t i = 0; i < n_fds; i++)
        close (fds[i]);
      if (c->kind == CONN_TARGET && !target_consume (c))
        conn_close (c);
    }
}

static void
accept_conn (void)
{
  int fd = accept4 (d.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  struct ucred cred;
  socklen_t len = sizeof cred;

  if (fd < 0)
    return;
  /* only our own user may record or send records */
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != getuid ())
    {
      close (fd);
      return;
    }
  if (conn_add (fd, CONN_NEW) == NULL)
    close (fd);
}

/* ---------------------------------------------------------------------------------------------- */
/* Children and session ends                                                                      */

static void
reap_children (void)
{
  struct signalfd_siginfo si;
  int status;
  pid_t pid;

  bool usr1 = false;

  while (read (d.sig_fd, &si, sizeof si) == sizeof si)
    usr1 |= si.ssi_signo == SIGUSR1;
  /* SIGUSR1: a snapshot of every flight recorder (sightlined(1)) */
  for (size_t i = 0; usr1 && i < sizeof d.sessions / sizeof d.sessions[0]; i++)
    if (d.sessions[i] != NULL && d.sessions[i]->keep_last_ms != 0 && !d.sessions[i]->finishing)
      snapshot_ask (d.sessions[i], -1);
  while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
    for (size_t i = 0; i < sizeof d.sessions / sizeof d.sessions[0]; i++)
      {
        Session *s = d.sessions[i];
        if (s != NULL && s->child == pid)
          {
            char buf[32];
            s->child_exited = true;
            s->child_status = status;
            s->exit_time_ms = now_ms ();
            snprintf (buf, sizeof buf, "%d", status);
            client_say (s, "exited", buf, NULL);
          }
      }
}

/* A program that ends at once (`true`) may be reaped in the poll turn that accepts its
 * connection, or before it is accepted at all; its HELLO, sent before it exited, is in the socket
 * by then.  Taken before the session is judged over, so that it is not turned away and the
 * program not called silent. */
static void
take_waiting_connections (void)
{
  for (int i = 0; i < MAX_CONNS; i++)
    {
      struct pollfd p = { d.listen_fd, POLLIN, 0 };
      if (poll (&p, 1, 0) <= 0)
        break;
      accept_conn ();
    }
  for (int i = 0; i < MAX_CONNS; i++)
    if (d.conns[i].fd >= 0 && d.conns[i].kind == CONN_NEW)
      conn_readable (&d.conns[i]);
}

/* 1: `path` is an ELF program with a dynamic loader (PT_INTERP), 0: one without (linked
 * statically), -1: neither or unreadable; *elf32 whether it is a 32-bit one, a "#!" script's
 * interpreter goes to `interp`.  Nothing read is trusted: counts and sizes are checked against
 * what was read. */
static int
elf_has_loader (const char *path,
                bool       *elf32,
                char       *interp,
                size_t      interp_size)
{
  unsigned char head[256];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? pread (fd, head, sizeof head - 1, 0) : -1;
  int found = -1;

  if (n >= 2 && head[0] == '#' && head[1] == '!')
    {
      head[n] = '\0';
      char *p = (char *) head + 2;
      p += strspn (p, " \t");
      snprintf (interp, interp_size, "%.*s", (int) strcspn (p, " \t\r\n"), p);
    }
  else if (n >= (ssize_t) sizeof (Elf64_Ehdr) && memcmp (head, ELFMAG, SELFMAG) == 0
           && (head[EI_CLASS] == ELFCLASS64 || head[EI_CLASS] == ELFCLASS32))
    {
      bool is64 = head[EI_CLASS] == ELFCLASS64;
      Elf64_Ehdr e64;
      Elf32_Ehdr e32;
      memcpy (&e64, head, sizeof e64);
      memcpy (&e32, head, sizeof e32);
      uint64_t off = is64 ? e64.e_phoff : e32.e_phoff;
      unsigned num = is64 ? e64.e_phnum : e32.e_phnum;
      unsigned ent = is64 ? e64.e_phentsize : e32.e_phentsize;
      size_t size = is64 ? sizeof (Elf64_Phdr) : sizeof (Elf32_Phdr);
      *elf32 = !is64;
      /* a damaged header says nothing: -1, never "linked statically" */
      found = ent >= size && num > 0 && num < 4096 ? 0 : -1;
      for (unsigned i = 0; found == 0 && i < num; i++)
        {
          Elf64_Phdr p64;
          Elf32_Phdr p32;
          if (pread (fd, is64 ? (void *) &p64 : (void *) &p32, size,
                     (off_t) (off + (uint64_t) i * ent))
              != (ssize_t) size)
            found = -1;
          else if ((is64 ? p64.p_type : p32.p_type) == PT_INTERP)
            found = 1;
        }
    }
  if (fd >= 0)
    close (fd);
  return found;
}

/* What keeps the dynamic loader from preloading the library into `path`, or NULL: linked
 * statically, set-user-ID / set-group-ID to someone else (the loader ignores LD_PRELOAD), or a
 * 32-bit program (the library is 64-bit). */
static const char *
loader_refuses (const char *path,
                char       *interp,
                size_t      interp_size)
{
  struct stat st;
  bool elf32 = false;
  int loader;

  interp[0] = '\0';
  if (stat (path, &st) == 0 && (st.st_mode & S_ISUID) != 0 && st.st_uid != geteuid ())
    return "is set-user-ID: the dynamic loader ignores LD_PRELOAD in it";
  if (stat (path, &st) == 0 && (st.st_mode & S_ISGID) != 0 && st.st_gid != getegid ())
    return "is set-group-ID: the dynamic loader ignores LD_PRELOAD in it";
  loader = elf_has_loader (path, &elf32, interp, interp_size);
  if (loader == 0)
    return "is statically linked: no dynamic loader runs in it to preload the library";
  if (loader == 1 && elf32 && sizeof (void *) == 8)
    return "is a 32-bit program: the dynamic loader cannot preload the 64-bit library into it";
  return NULL;
}

/* Why no process of a session reported from the injection library, for a person. */
static void
explain_unreported (const Session *s,
                    char          *buf,
                    size_t         size)
{
  char interp[PATH_MAX], interp2[PATH_MAX], cause[2 * PATH_MAX];
  const char *why = loader_refuses (s->program, interp, sizeof interp);

  if (why != NULL)
    snprintf (cause, sizeof cause, "%s %s", s->program, why);
  else if (interp[0] != '\0' && (why = loader_refuses (interp, interp2, sizeof interp2)) != NULL)
    snprintf (cause, sizeof cause, "its interpreter %s %s", interp, why);
  else if (access (d.inject_path, R_OK) != 0)
    snprintf (cause, sizeof cause, "the injection library %s is gone", d.inject_path);
  else
    snprintf (cause, sizeof cause, "the injection library %s was not loaded: the program may "
                                   "remove LD_PRELOAD from its environment and run itself again, "
                                   "or was killed before its start-up code ran",
              d.inject_path);
  snprintf (buf, size, "%s never reported from the injection library (%s): nothing inside it "
                       "(CUDA, NVTX, OS runtime calls, CPU samples) was recorded",
            s->program, cause);
}

/* Each snapshot made (or refused) to whoever asked, and to the recording's own client. */
static void
snapshots_answer (Session  *s,
                  Snapshot *list)
{
  while (list != NULL)
    {
      Snapshot *q = list;
      const char *verb = q->error != NULL ? "snapshot-error" : "snapshot";
      const char *text = q->error != NULL ? q->error : q->path;
      list = q->next;
      Conn *c = q->conn >= 0 ? &d.conns[q->conn] : NULL;
      bool asker_there = c != NULL && c->fd >= 0 && c->serial == q->serial;
      if (asker_there)
        sl_control_sendv (c->fd, verb, text, NULL, NULL);
      if (s->client_fd >= 0 && (!asker_there || c->fd != s->client_fd))
        client_say (s, verb, text, NULL);
      free (q->path);
      free (q->error);
      free (q);
    }
}

/* A flight recorder whose pattern numbers its files recorded into %n = "live": at the end that
 * file takes the next number (never over another file, unless --force), and the client is told
 * where ("output" PATH). */
static void
session_numbered (Session *s)
{
  char *final;

  if (s->pattern == NULL || (final = next_numbered_path (s)) == NULL)
    return;
  bool ok = s->force ? rename (s->output, final) == 0
                     : link (s->output, final) == 0 && unlink (s->output) == 0;
  if (ok)
    {
      client_say (s, "output", final, NULL);
      free (s->output);
      s->output = final;
      return;
    }
  char text[3 * PATH_MAX];
  snprintf (text, sizeof text, "%s: cannot name it %s (%s): the trace stays there", s->output,
            final, strerror (errno));
  client_say (s, "warning", text, NULL);
  free (final);
}

static void
session_tick (Session *s)
{
  uint64_t t = now_ms ();

  if (s->duration_ms != 0 && !s->child_exited && !s->killed_on_duration
      && t - s->start_ms >= s->duration_ms)
    {
      /* --duration: the recording ends; the program is asked to end too, as nsys does */
      kill (-s->child, SIGTERM);
      s->killed_on_duration = true;
      s->stop_time_ms = t;
    }
  if (s->stop_time_ms != 0 && !s->child_exited && s->child > 0
      && t - s->stop_time_ms > SL_STOP_GRACE_MS)
    kill (-s->child, SIGKILL);
  if (s->child_exited && !s->finishing && s->n_conns == 0)
    take_waiting_connections ();
  if (s->child_exited && !s->finishing
      && (s->n_conns == 0 || t - s->exit_time_ms > SL_DRAIN_GRACE_MS))
    {
      /* the program is gone and so are its processes' connections (or the grace is over); the
       * scheduling collector sends its last records before the queue closes */
      sl_sched_stop (s->sched);
      s->sched = NULL;
      for (int i = 0; i < MAX_CONNS; i++)
        if (d.conns[i].fd >= 0 && d.conns[i].kind == CONN_TARGET && d.conns[i].session == s)
          {
            /* what is still buffered was read already; detach it */
            target_consume (&d.conns[i]);
            d.conns[i].session = NULL;
            s->n_conns--;
          }
      pthread_mutex_lock (&s->lock);
      s->finishing = true;
      pthread_cond_signal (&s->cond);
      pthread_mutex_unlock (&s->lock);
    }
  pthread_mutex_lock (&s->lock);
  bool finished = s->finished;
  char *error = s->error;
  s->error = NULL;
  char *stopped = s->stopped;
  s->stopped = NULL;
  Snapshot *done = s->snap_done;
  s->snap_done = NULL;
  pthread_mutex_unlock (&s->lock);
  if (error != NULL)
    {
      client_say (s, "warning", error, NULL);
      free (error);
    }
  if (stopped != NULL)
    {
      /* --max-size: the program goes on, unrecorded; its processes' libraries see the daemon
       * gone and stop recording (as on "detach"), but the session waits for the program */
      client_say (s, "stopped", stopped, NULL);
      free (stopped);
      s->stop_closed = true;
      sl_sched_stop (s->sched);
      s->sched = NULL;
      for (int i = 0; i < MAX_CONNS; i++)
        if (d.conns[i].fd >= 0 && d.conns[i].kind == CONN_TARGET && d.conns[i].session == s)
          conn_close (&d.conns[i]);
    }
  snapshots_answer (s, done);
  if (finished && !s->reported_done)
    {
      char ev[32], dr[32], rep[32], why[4 * PATH_MAX] = "";
      pthread_join (s->thread, NULL);
      pthread_mutex_lock (&s->lock);
      done = s->snap_done;
      s->snap_done = NULL;
      pthread_mutex_unlock (&s->lock);
      snapshots_answer (s, done);
      session_numbered (s);
      snprintf (ev, sizeof ev, "%" PRIu64, atomic_load (&s->events));
      snprintf (dr, sizeof dr, "%" PRIu64, atomic_load (&s->dropped));
      snprintf (rep, sizeof rep, "%d", s->n_reported);
      if (s->n_reported == 0)
        explain_unreported (s, why, sizeof why);
      if (s->client_fd >= 0)
        {
          const char *done[] = { "done", ev, dr, rep, why };
          sl_control_send (s->client_fd, done, s->n_reported == 0 ? 5 : 4, NULL, 0);
        }
      s->reported_done = true;
      for (int i = 0; i < MAX_CONNS; i++)
        if (d.conns[i].fd >= 0 && d.conns[i].session == s)
          d.conns[i].session = NULL;
      session_free (s);
    }
}

static void
progress (Session *s)
{
  char a[32], b[32];

  snprintf (a, sizeof a, "%" PRIu64, (now_ms () - s->start_ms) * 1000000u);
  snprintf (b, sizeof b, "%" PRIu64, atomic_load (&s->events));
  client_say (s, "progress", a, b);
}

/* ---------------------------------------------------------------------------------------------- */

static bool
find_inject_library (void)
{
  char exe[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);

  if (n <= 0)
    return false;
  exe[n] = '\0';
  /* the place a client looks too, to know this daemon is its own (sl_control_handshake()) */
  return sl_control_find_inject (exe, d.inject_path, sizeof d.inject_path);
}

/* Chunks of records (up to CONN_BUF each) are allocated by the connection thread and freed by
 * the writer: with glibc's defaults large ones may be mmap/munmap pairs and the writer's frees
 * trim the connection thread's arena back to the kernel (munmap and page faults showed in perf
 * profiles of the daemon under bench-pytorch).  Keep them in the heap and the heap's top mapped. */
static void
tune_malloc (void)
{
  mallopt (M_MMAP_THRESHOLD, (int) (4 * CONN_BUF));
  mallopt (M_TRIM_THRESHOLD, (int) (64 * CONN_BUF));
}

int
sl_daemon_run (const char *path,
               int         idle_exit_s)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  sigset_t mask;
  uint64_t last_busy = now_ms (), last_progress = 0;

  for (int i = 0; i < MAX_CONNS; i++)
    d.conns[i].fd = -1;
  tune_malloc ();
  if (!find_inject_library ())
    {
      fprintf (stderr, "sightlined: cannot find libsightline-inject.so (looked beside the daemon "
                       "and in ../lib/sightline; set SIGHTLINE_INJECT)\n");
      return 1;
    }
  snprintf (d.socket_path, sizeof d.socket_path, "%s", path);
  if (strlen (path) >= sizeof addr.sun_path)
    {
      fprintf (stderr, "sightlined: socket path too long: %s\n", path);
      return 1;
    }
  strcpy (addr.sun_path, path);
  d.listen_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  /* a stale socket from a daemon that died: replace it, but not a live one */
  int probe = sl_control_connect (path);
  if (probe >= 0)
    {
      close (probe);
      fprintf (stderr, "sightlined: another daemon already listens on %s\n", path);
      return 0;
    }
  unlink (path);
  mode_t old = umask (077);
  if (bind (d.listen_fd, (struct sockaddr *) &addr, sizeof addr) != 0
      || listen (d.listen_fd, 64) != 0)
    {
      fprintf (stderr, "sightlined: cannot listen on %s: %s\n", path, strerror (errno));
      umask (old);
      return 1;
    }
  umask (old);
  chmod (path, 0700);
  /* who we are, beside the socket: for people and tests that must stop this daemon and no other */
  {
    char pidfile[PATH_MAX];
    snprintf (pidfile, sizeof pidfile, "%s.pid", path);
    FILE *f = fopen (pidfile, "w");
    if (f != NULL)
      {
        fprintf (f, "%d\n", (int) getpid ());
        fclose (f);
      }
  }

  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  sigaddset (&mask, SIGUSR1);
  sigprocmask (SIG_BLOCK, &mask, NULL);
  d.sig_fd = signalfd (-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  signal (SIGPIPE, SIG_IGN);
  /* a file-size limit (ulimit -f) is a full disk to the writer: EFBIG, not a killed daemon */
  signal (SIGXFSZ, SIG_IGN);

  for (;;)
    {
      struct pollfd pfds[MAX_CONNS + 2];
      Conn *which[MAX_CONNS + 2];
      int n = 0;
      bool busy = false;

      pfds[n] = (struct pollfd) { d.listen_fd, POLLIN, 0 };
      which[n++] = NULL;
      pfds[n] = (struct pollfd) { d.sig_fd, POLLIN, 0 };
      which[n++] = NULL;
      for (int i = 0; i < MAX_CONNS; i++)
        if (d.conns[i].fd >= 0)
          {
            pfds[n] = (struct pollfd) { d.conns[i].fd, POLLIN, 0 };
            which[n++] = &d.conns[i];
            busy = true;
          }
      if (poll (pfds, (nfds_t) n, 50) < 0 && errno != EINTR)
        break;
      if (pfds[0].revents & POLLIN)
        accept_conn ();
      if (pfds[1].revents & POLLIN)
        reap_children ();
      for (int i = 2; i < n; i++)
        if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR) && which[i]->fd >= 0)
          conn_readable (which[i]);
      bool tick_progress = now_ms () - last_progress >= SL_PROGRESS_MS;
      for (size_t i = 0; i < sizeof d.sessions / sizeof d.sessions[0]; i++)
        if (d.sessions[i] != NULL)
          {
            Session *s = d.sessions[i];
            busy = true;
            if (tick_progress && !s->finishing)
              progress (s);
            session_tick (s);
          }
      if (tick_progress)
        last_progress = now_ms ();
      if (busy)
        last_busy = now_ms ();
      else if (idle_exit_s > 0 && now_ms () - last_busy > (uint64_t) idle_exit_s * 1000)
        break;
    }
  unlink (path);
  {
    char pidfile[PATH_MAX];
    snprintf (pidfile, sizeof pidfile, "%s.pid", path);
    unlink (pidfile);
  }
  return 0;
}
