/* sl-reader-json.c: reads Kineto (PyTorch profiler) and Chrome trace-event JSON, plain or gzip,
 * into the model the nsys reader fills.
 *
 * The file is never held whole: it is read (or inflated, by zlib on a second thread) in chunks
 * of 1 MiB; a string-aware scan of the bytes finds the top-level keys and, inside `traceEvents`
 * (or the bare array of the legacy profiler), where each event ends; whole events go to
 * simdjson in batches (sl-json.cpp) and each comes back as an SlJsonEvent that becomes one
 * SlEvent in a lane.  The top-level values other than the events (deviceProperties,
 * distributedInfo, baseTimeNanoseconds …) are small: they are kept as text and read at the end.
 *
 * What each category becomes (see ../notes/design16.md): kernel, gpu_memcpy, gpu_memset,
 * cuda_sync on the GPU stream `args.device` / `args.stream`; cuda_runtime and cuda_driver as CUDA
 * API calls of the thread; every other complete, begin/end or instant event as an NVTX range or
 * mark of its thread with the category as the domain (so gpu_user_annotation ranges live on a
 * thread "stream N" of the process "GPU N", as Kineto's own metadata names them); counters as
 * ranges holding each value until the next, on a thread per counter and series; ac2g flows tie
 * launches to GPU work where `args.correlation` is missing.  Bad input becomes warnings with the
 * byte offset where it was met, and the rest of the trace.
 */
#include "sl-reader-private.h"
#include "sl-json.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define CHUNK        (1u << 20)    /* a batch holds 1-2: simdjson's buffers follow its size */
#define MAX_EVENT    (256u << 20)   /* one event's text; beyond it the file is refused */
#define MAX_META     (64u << 20)    /* top-level values kept; beyond it they are skipped */
#define N_GZ_BLOCKS  3
#define MAX_WARNED   5              /* bad events warned about one by one */

/* ---- input: a file read or inflated in chunks -------------------------------------------- */

typedef struct
{
  char  *data;
  gsize  len;
  char  *error;      /* on the last block: why inflating stopped, or NULL */
  gboolean last;
} Block;

typedef struct
{
  const char  *path;
  int          fd;
  gboolean     gz;
  guint64      size;         /* bytes of the file */
  gsize        read;         /* bytes of the file consumed (progress; atomic) */
  GThread     *thread;
  GAsyncQueue *full, *empty;
  gint         stop;
  gboolean     eof;
  char        *pending_error;  /* the inflater's, after its last data */
  Block       *blocks[N_GZ_BLOCKS];
} Input;

static gpointer
inflate_thread (gpointer data)
{
  Input *in = data;
  z_stream z = { 0 };
  g_autofree guchar *src = g_malloc (1u << 20);
  char *error = NULL;
  gboolean end = FALSE, member_done = FALSE;
  guint64 consumed = 0;

  if (inflateInit2 (&z, 15 + 32) != Z_OK)
    error = g_strdup ("zlib cannot start");
  while (error == NULL && !end)
    {
      Block *b = g_async_queue_pop (in->empty);
      b->len = 0;
      while (error == NULL && !end && b->len < CHUNK)
        {
          if (g_atomic_int_get (&in->stop))
            {
              end = TRUE;
              break;
            }
          if (z.avail_in == 0)
            {
              ssize_t n = read (in->fd, src, 1u << 20);
              if (n < 0 && errno == EINTR)
                continue;
              if (n < 0)
                {
                  error = g_strdup_printf ("cannot read: %s", g_strerror (errno));
                  break;
                }
              if (n == 0)
                {
                  if (!member_done)
                    error = g_strdup_printf ("the gzip data is truncated (the file ends at byte %"
                                             G_GUINT64_FORMAT " inside the compressed stream)",
                                             consumed);
                  end = TRUE;
                  break;
                }
              z.next_in = src;
              z.avail_in = (uInt) n;
              consumed += (guint64) n;
              __atomic_store_n (&in->read, (gsize) consumed, __ATOMIC_RELAXED);
            }
          /* a new member after the end of one (concatenated gzip files) */
          if (member_done)
            {
              if (inflateReset (&z) != Z_OK)
                error = g_strdup ("zlib cannot restart");
              member_done = FALSE;
            }
          z.next_out = (guchar *) b->data + b->len;
          z.avail_out = (uInt) (CHUNK - b->len);
          int rc = inflate (&z, Z_NO_FLUSH);
          b->len = CHUNK - z.avail_out;
          if (rc == Z_STREAM_END)
            member_done = TRUE;
          else if (rc != Z_OK && rc != Z_BUF_ERROR)
            error = g_strdup_printf ("the gzip data is damaged near byte %" G_GUINT64_FORMAT
                                     " of the file: %s",
                                     consumed - z.avail_in, z.msg != NULL ? z.msg : "zlib error");
        }
      b->last = error != NULL || end;
      b->error = error;
      g_async_queue_push (in->full, b);
      if (b->last)
        break;
    }
  inflateEnd (&z);
  return NULL;
}

static gboolean
input_open (Input       *in,
            const char  *path,
            GError     **error)
{
  guchar magic[2] = { 0 };

  memset (in, 0, sizeof *in);
  in->path = path;
  in->fd = open (path, O_RDONLY | O_CLOEXEC);
  if (in->fd < 0)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: cannot open: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  in->size = (guint64) MAX (lseek (in->fd, 0, SEEK_END), 0);
  lseek (in->fd, 0, SEEK_SET);
  in->gz = pread (in->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (in->gz)
    {
      in->full = g_async_queue_new ();
      in->empty = g_async_queue_new ();
      for (guint i = 0; i < N_GZ_BLOCKS; i++)
        {
          in->blocks[i] = g_new0 (Block, 1);
          in->blocks[i]->data = g_malloc (CHUNK);
          g_async_queue_push (in->empty, in->blocks[i]);
        }
      in->thread = g_thread_new ("sl-inflate", inflate_thread, in);
    }
  return TRUE;
}

/* Appends up to CHUNK bytes at `dst`; 0 at the end.  -1 with `error` set on a read or gzip
 * error. */
static gssize
input_read (Input   *in,
            char    *dst,
            GError **error)
{
  if (in->pending_error != NULL)
    {
      /* the inflater stopped after the data it handed over last time */
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT, "%s: %s", in->path,
                   in->pending_error);
      g_clear_pointer (&in->pending_error, g_free);
      return -1;
    }
  if (in->eof)
    return 0;
  if (!in->gz)
    {
      for (;;)
        {
          ssize_t n = read (in->fd, dst, CHUNK);
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            {
              g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: cannot read: %s",
                           in->path, g_strerror (errno));
              return -1;
            }
          in->read += (gsize) n;
          in->eof = n == 0;
          return n;
        }
    }
  Block *b = g_async_queue_pop (in->full);
  gsize n = b->len;
  memcpy (dst, b->data, n);
  if (b->last)
    {
      in->eof = TRUE;
      in->pending_error = g_steal_pointer (&b->error);
      if (n == 0 && in->pending_error != NULL)
        return input_read (in, dst, error);
    }
  else
    g_async_queue_push (in->empty, b);
  return (gssize) n;
}

static void
input_close (Input *in)
{
  if (in->thread != NULL)
    {
      /* let the inflater see `stop` and finish: hand it back blocks until its last one */
      g_atomic_int_set (&in->stop, 1);
      while (!in->eof)
        {
          Block *b = g_async_queue_pop (in->full);
          if (b->last)
            {
              g_free (b->error);
              b->error = NULL;
              in->eof = TRUE;
            }
          else
            g_async_queue_push (in->empty, b);
        }
      g_thread_join (in->thread);
      for (guint i = 0; i < N_GZ_BLOCKS; i++)
        {
          g_free (in->blocks[i]->data);
          g_free (in->blocks[i]);
        }
      g_async_queue_unref (in->full);
      g_async_queue_unref (in->empty);
    }
  g_free (in->pending_error);
  if (in->fd >= 0)
    close (in->fd);
}

/* ---- the model side ---------------------------------------------------------------------- */

/* An open B event, waiting for its E. */
typedef struct
{
  SlTime  start;
  guint32 name;
  guint32 domain;
} OpenRange;

/* What the reader keeps per (pid, tid) of the file. */
typedef struct
{
  gint32  thread;        /* SlThread index, -1 until a CPU event needs one */
  SlTime  last_start;    /* the thread's (or GPU stream's) last event, for flows */
  guint32 last_corr;
  GArray *open;          /* OpenRange, B events not yet ended */
  GArray *api;           /* the thread's CUDA calls (cpu_builders' array), NULL until one */
  SlTime  api_last;      /* start of its last call */
  gboolean api_unsorted; /* a call started before the one before it */
} ThreadState;

/* A flow point kept for linking where events carry no correlation id. */
typedef struct
{
  guint64 id;
  guint64 gtid;          /* (pid, tid) of the file */
  SlTime  ts;
  gboolean start;
} FlowPoint;

/* Ids of flow points that say nothing their event does not (the event carries the flow's id as
 * its correlation): such a point is not kept, only its id, so that the other end of the flow
 * still links.  Kineto's ids are correlation ids, dense: pages of 4096 ids (one bit each for
 * starts and for ends, 1 KiB), a few hundred pages for 10^7 events.  A file of scattered ids
 * fills at most MAX_FLOW_PAGES (4 MiB); its points beyond them are kept as FlowPoints. */
#define FLOW_PAGE_IDS  4096
#define MAX_FLOW_PAGES 4096

typedef struct
{
  guint64 bits[2][FLOW_PAGE_IDS / 64];   /* [0]: ends, [1]: starts */
} FlowPage;

/* A counter series: its thread and its last sample, ended by the next one. */
typedef struct
{
  gint32  thread;
  SlTime  ts;
  guint32 name;          /* "12.5", the value as text */
  gboolean pending;
} Series;

/* Names repeat (a few thousand distinct ones in millions of events): a table of their ids by
 * their bytes spares the trace's interning (UTF-8 check, lock, hash of the whole text) for all
 * but the first of each.  Its hash reads the length and at most 32 bytes; a hit compares all. */
typedef struct
{
  guint64     hash;
  const char *text;      /* the interned copy; NULL = empty slot */
  gsize       len;
  guint32     id;
} NameSlot;

typedef struct
{
  SlReader       r;
  const char    *path;
  SlJsonParser  *parser;
  Input          in;
  SlRowTrouble   trouble;
  guint64        n_events, n_not_events, n_bad_events, n_unended, n_unstarted;
  guint64        n_kernels, n_copies, n_sets, n_api, n_sync, n_ranges, n_marks, n_counters;
  guint64        n_mem_gpu, n_mem_host;   /* [memory] instants of a CUDA device, of the CPU */
  guint64        n_flows_kept, n_bad_utf8;
  guint          n_warned;

  GHashTable    *states;       /* gtid -> ThreadState */
  guint64        last_gtid;
  ThreadState   *last_state;
  GHashTable    *synthetic;    /* "p:text" / "t:pid:text" -> id */
  guint32        next_synthetic;
  GHashTable    *given_names;  /* gpid or gtid (guint64) -> string id: the file's text ids */
  GHashTable    *process_names;/* gpid -> string id (M process_name) */
  GHashTable    *gpu_labels;   /* gpid -> string id (M process_labels "GPU 0") */
  GHashTable    *thread_names; /* gtid -> string id (M thread_name) */
  GHashTable    *process_sort; /* gpid -> sort index */
  GHashTable    *thread_sort;
  GHashTable    *series;       /* "pid\x1fname\x1fseries" -> Series */
  GArray        *flows;        /* FlowPoint */
  GHashTable    *flow_pages;   /* id / FLOW_PAGE_IDS -> FlowPage: the points not kept */
  guint64        last_page_key;
  FlowPage      *last_page;
  guint32        memset_name;
  guint32        sync_names[5];

  gint32         nvtx_thread;  /* add_range's last thread and its array */
  GArray        *nvtx;
  NameSlot      *names;        /* intern_text's table */
  gsize          n_name_slots, n_names;
  GString       *meta;         /* `{"key":value,…}` of the top-level values */
  guint64        batch_offset; /* file offset of the batch being parsed */
  guint64        consumed;     /* for progress */
} JsonReader;

#define MAX_CACHED_NAMES (1u << 20)

static guint64
name_hash (const char *s,
           gsize       len)
{
  guint64 h = len * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  gsize n = MIN (len, 16);
  for (gsize i = 0; i < n; i++)
    h = (h ^ (guchar) s[i]) * G_GUINT64_CONSTANT (0x100000001B3);
  for (gsize i = len - MIN (len, 16); i < len; i++)
    h = (h ^ (guchar) s[i]) * G_GUINT64_CONSTANT (0x100000001B3);
  return h ^ (h >> 31);
}

static guint32
intern_text (JsonReader *jr,
             SlJsonText  t)
{
  if (t.len == 0)
    return SL_NO_STR;
  guint64 h = name_hash (t.s, t.len);
  gsize mask = jr->n_name_slots - 1;
  for (gsize i = h & mask;; i = (i + 1) & mask)
    {
      NameSlot *slot = &jr->names[i];
      if (slot->text == NULL)
        break;
      if (slot->hash == h && slot->len == t.len && memcmp (slot->text, t.s, t.len) == 0)
        return slot->id;
    }
  guint32 id = _sl_trace_intern (jr->r.trace, t.s, (gssize) t.len);
  const char *stored = sl_trace_str (jr->r.trace, id);
  if (jr->n_names >= MAX_CACHED_NAMES || strlen (stored) != t.len)
    return id;    /* repaired text is not cached: it would never match the file's bytes */
  if (2 * (jr->n_names + 1) > jr->n_name_slots)
    {
      gsize n = jr->n_name_slots * 2;
      NameSlot *grown = g_new0 (NameSlot, n);
      for (gsize k = 0; k < jr->n_name_slots; k++)
        if (jr->names[k].text != NULL)
          {
            gsize j = jr->names[k].hash & (n - 1);
            while (grown[j].text != NULL)
              j = (j + 1) & (n - 1);
            grown[j] = jr->names[k];
          }
      g_free (jr->names);
      jr->names = grown;
      jr->n_name_slots = n;
      mask = n - 1;
    }
  gsize i = h & mask;
  while (jr->names[i].text != NULL)
    i = (i + 1) & mask;
  jr->names[i] = (NameSlot) { h, stored, t.len, id };
  jr->n_names++;
  return id;
}

/* A 24-bit pid or tid: small numbers as they are, text and the rest as synthetic ids counted
 * down from 2^24-1 (the model's global ids hold 24 bits of each). */
static guint32
map_id (JsonReader *jr,
        gboolean    is_text,
        gint64      num,
        SlJsonText  text,
        guint32     pid,
        gboolean    is_pid)
{
  if (!is_text && num >= 0 && num < 0xF00000)
    return (guint32) num;
  g_autofree char *key = is_text ? g_strdup_printf ("%c:%u:%.*s", is_pid ? 'p' : 't', pid,
                                                    (int) text.len, text.s)
                                 : g_strdup_printf ("%c:%u:#%" G_GINT64_FORMAT, is_pid ? 'p' : 't',
                                                    pid, num);
  gpointer found;
  if (g_hash_table_lookup_extended (jr->synthetic, key, NULL, &found))
    return GPOINTER_TO_UINT (found);
  guint32 id = jr->next_synthetic > 0xF00000 ? jr->next_synthetic-- : 0xF00000;
  g_hash_table_insert (jr->synthetic, g_steal_pointer (&key), GUINT_TO_POINTER (id));
  if (is_text)
    {
      guint64 g = is_pid ? (guint64) id << 24 : ((guint64) pid << 24) | id;
      guint32 name = intern_text (jr, text);
      g_hash_table_insert (jr->given_names, g_memdup2 (&g, sizeof g), GUINT_TO_POINTER (name));
    }
  return id;
}

static guint64
event_gtid (JsonReader        *jr,
            const SlJsonEvent *ev)
{
  guint32 pid = ev->has_pid ? map_id (jr, ev->pid_is_text, ev->pid, ev->pid_text, 0, TRUE) : 0;
  guint32 tid = ev->has_tid ? map_id (jr, ev->tid_is_text, ev->tid, ev->tid_text, pid, FALSE)
                            : 0;
  return ((guint64) pid << 24) | tid;
}

static ThreadState *
state_for (JsonReader *jr,
           guint64     gtid)
{
  if (jr->last_state != NULL && jr->last_gtid == gtid)
    return jr->last_state;
  ThreadState *s = g_hash_table_lookup (jr->states, &gtid);
  if (s == NULL)
    {
      s = g_new0 (ThreadState, 1);
      s->thread = -1;
      s->last_start = G_MININT64;
      s->api_last = G_MININT64;
      g_hash_table_insert (jr->states, g_memdup2 (&gtid, sizeof gtid), s);
    }
  jr->last_gtid = gtid;
  jr->last_state = s;
  return s;
}

static void
state_free (gpointer p)
{
  ThreadState *s = p;
  if (s->open != NULL)
    g_array_unref (s->open);
  g_free (s);
}

static gint32
state_thread (JsonReader  *jr,
              ThreadState *s,
              guint64      gtid)
{
  if (s->thread < 0)
    s->thread = _sl_reader_thread_lookup (&jr->r, gtid);
  return s->thread;
}

/* Case-insensitive category: a small fixed set the model treats specially, else a domain. */
typedef enum
{
  CAT_OTHER,
  CAT_KERNEL,
  CAT_MEMCPY,
  CAT_MEMSET,
  CAT_RUNTIME,
  CAT_DRIVER,
  CAT_SYNC,
  CAT_FLOW,
} Cat;

static gboolean
text_is (SlJsonText  t,
         const char *s)
{
  gsize n = strlen (s);
  return t.len == n && g_ascii_strncasecmp (t.s, s, n) == 0;
}

static Cat
category (SlJsonText cat)
{
  switch (cat.len)
    {
    case 4:
      return text_is (cat, "ac2g") ? CAT_FLOW : CAT_OTHER;
    case 6:
      return text_is (cat, "kernel") ? CAT_KERNEL : CAT_OTHER;
    case 9:
      return text_is (cat, "cuda_sync") ? CAT_SYNC : CAT_OTHER;
    case 10:
      return text_is (cat, "gpu_memcpy") ? CAT_MEMCPY
             : text_is (cat, "gpu_memset") ? CAT_MEMSET
             : text_is (cat, "cuda_rt") ? CAT_RUNTIME : CAT_OTHER;
    case 11:
      return text_is (cat, "cuda_driver") ? CAT_DRIVER : CAT_OTHER;
    case 12:
      return text_is (cat, "cuda_runtime") ? CAT_RUNTIME : CAT_OTHER;
    case 16:
      return text_is (cat, "async_cpu_to_gpu") ? CAT_FLOW : CAT_OTHER;
    default:
      /* older Kineto: "Memcpy", "Memset", "Runtime", "Driver" */
      return text_is (cat, "memcpy") ? CAT_MEMCPY
             : text_is (cat, "memset") ? CAT_MEMSET
             : text_is (cat, "runtime") ? CAT_RUNTIME
             : text_is (cat, "driver") ? CAT_DRIVER : CAT_OTHER;
    }
}

static guint32
domain_of (JsonReader *jr,
           SlJsonText  cat)
{
  /* categories repeat: intern_text finds them by their bytes (a copy of the text to look up
   * in a table of its own cost a malloc and a free for each of 10^7 ranges) */
  return intern_text (jr, cat);
}

static SlTime
clamp_time (JsonReader *jr,
            SlTime      t)
{
  return _sl_reader_clamp_time (t, &jr->trouble);
}

/* An event's start and end; FALSE (counted) when it has no usable start. */
static gboolean
event_times (JsonReader        *jr,
             const SlJsonEvent *ev,
             gboolean           complete,
             SlEvent           *out)
{
  if (ev->ts_state != SL_JSON_OK)
    {
      if (ev->ts_state == SL_JSON_ABSENT)
        jr->trouble.null_time++;
      else
        jr->trouble.bad_type++;
      return FALSE;
    }
  memset (out, 0, sizeof *out);
  out->start = clamp_time (jr, ev->ts);
  out->end = out->start;
  if (complete)
    {
      if (ev->dur_state == SL_JSON_BAD)
        jr->trouble.bad_type++;
      else if (ev->dur_state == SL_JSON_OK)
        out->end = clamp_time (jr, _sl_time_add (out->start, ev->dur));
      if (out->end < out->start)
        {
          jr->trouble.bad_order++;
          out->end = out->start;
        }
    }
  return TRUE;
}

/* ---- GPU work ---------------------------------------------------------------------------- */

static guint32
clamp_u32 (gint64 v)
{
  return _sl_clamp_u32 (v);
}

static void
gpu_key_of (const SlJsonEvent *ev,
            SlLaneKind         kind,
            SlGpuKey          *key)
{
  memset (key, 0, sizeof *key);
  key->device = clamp_u32 (ev->have & SL_JSON_HAVE_DEVICE ? ev->device
                           : ev->has_pid && !ev->pid_is_text ? ev->pid : 0);
  key->stream = clamp_u32 (ev->have & SL_JSON_HAVE_STREAM ? ev->stream
                           : ev->has_tid && !ev->tid_is_text ? ev->tid : 0);
  /* Kineto's args.context is CUPTI's context id, as nsys's contextId: a lane per (device,
   * context, stream), 0 when the event has none */
  key->context = ev->have & SL_JSON_HAVE_CONTEXT ? clamp_u32 (ev->context) : 0;
  key->kind = kind;
}

static void
gpu_append (JsonReader        *jr,
            const SlJsonEvent *ev,
            SlLaneKind         kind,
            SlEvent           *e)
{
  SlGpuKey key;

  gpu_key_of (ev, kind, &key);
  e->corr = ev->have & SL_JSON_HAVE_CORRELATION ? clamp_u32 (ev->correlation) : 0;
  e->link = SL_NO_LINK;
  g_array_append_val (_sl_reader_gpu_events (&jr->r, &key), *e);
}

/* An event id or correlation id of a wait's args: SL_NO_LINK when absent or out of range. */
static guint32
wait_id (const SlJsonEvent *ev,
         guint32            have,
         gint64             v)
{
  return (ev->have & have) && v >= 0 && v < (gint64) SL_NO_LINK ? (guint32) v : SL_NO_LINK;
}

/* A Kineto "Stream Wait Event": the wait, and the record it names (Kineto has no row of its
 * own for a record: its stream is the wait's wait_on_stream, its call the
 * wait_on_cuda_event_record_corr_id).  Their process is the GPU work's, set once known (a record
 * waited for twice is kept once, then). */
static void
sync_waits (JsonReader        *jr,
            const SlJsonEvent *ev,
            const SlEvent     *e)
{
  guint32 event_id = wait_id (ev, SL_JSON_HAVE_WAIT_EVENT, ev->wait_event_id);
  guint32 record_corr = wait_id (ev, SL_JSON_HAVE_WAIT_RECORD, ev->wait_record_corr);
  SlCudaWaitRow w = { 0, e->start, e->corr, event_id, SL_NO_LINK,
                      record_corr != SL_NO_LINK ? record_corr : 0 };
  SlGpuKey key;

  if (event_id == SL_NO_LINK && record_corr == SL_NO_LINK)
    return;
  g_array_append_val (jr->r.trace->event_waits, w);
  if (record_corr == SL_NO_LINK || record_corr == 0 || !(ev->have & SL_JSON_HAVE_WAIT_STREAM))
    return;
  gpu_key_of (ev, SL_LANE_SYNC, &key);
  SlCudaEventRow rec = { 0, 0, record_corr, event_id, SL_NO_LINK, key.device, key.context,
                         clamp_u32 (ev->wait_stream) };
  g_array_append_val (jr->r.trace->cuda_events, rec);
}

/* "Memcpy HtoD (Pageable -> Device)": the copy kind and the two memory kinds. */
static void
copy_kinds (SlJsonText  name,
            SlCopyInfo *info)
{
  static const char *const kinds[] = { NULL, "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                       "DtoA", "DtoD", "HtoH", "PtoP" };
  static const char *const mems[] = { "Pageable", "Pinned", "Device", "Array", "Managed",
                                      "Device Static", "Managed Static" };
  /* a copy without a name (fuzz-json found one): kinds unknown, as for a name of no known form */
  if (name.s == NULL)
    return;
  g_autofree char *text = g_strndup (name.s, name.len);
  char *p = strstr (text, "Memcpy ");

  if (p != NULL)
    {
      p += 7;
      for (guint i = 1; i < G_N_ELEMENTS (kinds); i++)
        if (strncmp (p, kinds[i], 4) == 0)
          info->copy_kind = (guint8) i;
    }
  char *open = strchr (text, '('), *arrow = strstr (text, " -> "), *close = strrchr (text, ')');
  if (open == NULL || arrow == NULL || close == NULL || arrow < open || close < arrow)
    return;
  *arrow = '\0';
  *close = '\0';
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    {
      if (g_strcmp0 (open + 1, mems[i]) == 0)
        info->src_kind = (guint8) i;
      if (g_strcmp0 (arrow + 4, mems[i]) == 0)
        info->dst_kind = (guint8) i;
    }
}

static void
copy_info_init (SlCopyInfo        *info,
                const SlJsonEvent *ev)
{
  memset (info, 0, sizeof *info);
  info->bytes = (guint64) MAX (ev->have & SL_JSON_HAVE_BYTES ? ev->bytes : 0, 0);
  info->src_kind = info->dst_kind = info->mem_kind = SL_MEM_KIND_NONE;
  info->src_device = info->dst_device = -1;
  info->migration_cause = SL_MIGRATION_NONE;
}

static void
read_gpu (JsonReader        *jr,
          const SlJsonEvent *ev,
          Cat                cat,
          SlEvent           *e)
{
  SlReader *r = &jr->r;

  if (cat == CAT_KERNEL)
    {
      SlKernelInfo info;
      memset (&info, 0, sizeof info);
      info.demangled_name = info.short_name = e->name;
      for (int i = 0; i < 3; i++)
        {
          info.grid[i] = clamp_u32 (ev->grid[i]);
          info.block[i] = clamp_u32 (ev->block[i]);
        }
      info.registers_per_thread = clamp_u32 (ev->registers);
      info.dynamic_shared = clamp_u32 (ev->shared_memory);
      e->aux = _sl_info_set_intern (r->kernel_infos, r->trace->kernel_infos, &info);
      gpu_append (jr, ev, SL_LANE_KERNELS, e);
      jr->n_kernels++;
    }
  else if (cat == CAT_MEMCPY)
    {
      SlCopyInfo info;
      copy_info_init (&info, ev);
      copy_kinds (ev->name, &info);
      e->name = _sl_reader_memcpy_name (r, info.copy_kind);
      e->aux = _sl_info_set_intern (r->copy_infos, r->trace->copy_infos, &info);
      gpu_append (jr, ev, SL_LANE_MEMCPY, e);
      jr->n_copies++;
    }
  else if (cat == CAT_MEMSET)
    {
      SlCopyInfo info;
      copy_info_init (&info, ev);
      if (text_is (ev->name, "Memset (Device)"))
        info.mem_kind = 2;
      e->name = jr->memset_name;
      e->aux = _sl_info_set_intern (r->copy_infos, r->trace->copy_infos, &info);
      gpu_append (jr, ev, SL_LANE_MEMSET, e);
      jr->n_sets++;
    }
  else
    {
      static const char *const kinds[] = { "Unknown", "Event Sync", "Stream Wait Event",
                                           "Stream Sync", "Context Sync" };
      SlJsonText kind = ev->arg_name.len > 0 ? ev->arg_name : ev->name;
      guint t = 0;
      for (guint i = 1; i < G_N_ELEMENTS (kinds); i++)
        if (text_is (kind, kinds[i]))
          t = i;
      if (jr->sync_names[t] == 0)
        jr->sync_names[t] = _sl_trace_intern (r->trace,
                                              sl_trace_enum_label (r->trace, SL_ENUM_SYNC_TYPE, t),
                                              -1);
      e->name = jr->sync_names[t];
      e->aux = t;
      gpu_append (jr, ev, SL_LANE_SYNC, e);
      jr->n_sync++;
      if (ev->have & (SL_JSON_HAVE_WAIT_RECORD | SL_JSON_HAVE_WAIT_EVENT))
        sync_waits (jr, ev, e);
    }
}

static gint
compare_event_rows (gconstpointer a,
                    gconstpointer b)
{
  const SlCudaEventRow *x = a, *y = b;
  return (x->corr > y->corr) - (x->corr < y->corr);
}

/* The waits and records of the file in the process of the GPU work (`pid`), a record once. */
static void
event_rows_done (SlTrace *trace,
                 guint64  pid)
{
  GArray *recs = trace->cuda_events;
  guint n = 0;

  for (guint i = 0; i < trace->event_waits->len; i++)
    g_array_index (trace->event_waits, SlCudaWaitRow, i).global_pid = pid;
  _sl_trace_sort_event_waits (trace);
  g_array_sort (recs, compare_event_rows);
  for (guint i = 0; i < recs->len; i++)
    {
      SlCudaEventRow *rec = &g_array_index (recs, SlCudaEventRow, i);
      if (n > 0 && g_array_index (recs, SlCudaEventRow, n - 1).corr == rec->corr)
        continue;
      rec->global_pid = pid;
      g_array_index (recs, SlCudaEventRow, n++) = *rec;
    }
  g_array_set_size (recs, n);
}

/* ---- events ------------------------------------------------------------------------------ */

static void
add_range (JsonReader *jr,
           gint32      thread,
           SlEvent    *e,
           guint32     domain,
           guint32     flags)
{
  e->corr = domain;
  e->link = flags;
  e->aux = 0;
  /* ranges come in runs of one thread: its array at hand spares a hash lookup a range */
  if (jr->nvtx == NULL || jr->nvtx_thread != thread)
    {
      jr->nvtx = _sl_reader_cpu_events (&jr->r, thread, SL_LANE_NVTX);
      jr->nvtx_thread = thread;
    }
  g_array_append_val (jr->nvtx, *e);
}

static void
read_metadata (JsonReader        *jr,
               const SlJsonEvent *ev,
               guint64            gtid)
{
  guint64 gpid = gtid & G_GUINT64_CONSTANT (0xFFFFFFFFFF000000);
  GHashTable *table = NULL;
  guint64 key = 0;

  if (text_is (ev->name, "process_name"))
    {
      table = jr->process_names;
      key = gpid;
    }
  else if (text_is (ev->name, "process_labels"))
    {
      /* Kineto names a GPU's process after the program and labels it "GPU 0": the label is
       * the better name; "CPU" says nothing */
      if (ev->arg_name.len < 4 || g_ascii_strncasecmp (ev->arg_name.s, "GPU ", 4) != 0)
        return;
      g_hash_table_insert (jr->gpu_labels, g_memdup2 (&gpid, sizeof gpid),
                           GUINT_TO_POINTER (intern_text (jr, ev->arg_name)));
      return;
    }
  else if (text_is (ev->name, "thread_name"))
    {
      table = jr->thread_names;
      key = gtid;
    }
  else if (text_is (ev->name, "process_sort_index") || text_is (ev->name, "thread_sort_index"))
    {
      if (!(ev->have & SL_JSON_HAVE_SORT_INDEX))
        return;
      gboolean proc = ev->name.s[0] == 'p';
      key = proc ? gpid : gtid;
      g_hash_table_insert (proc ? jr->process_sort : jr->thread_sort, g_memdup2 (&key, sizeof key),
                           GINT_TO_POINTER ((gint) CLAMP (ev->sort_index, G_MININT, G_MAXINT)));
      return;
    }
  else
    return;
  if (ev->arg_name.len == 0)
    return;
  guint32 name = intern_text (jr, ev->arg_name);
  g_hash_table_insert (table, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (name));
}

/* A counter sample ends the previous one of its series. */
static void
read_counter (JsonReader        *jr,
              const SlJsonEvent *ev,
              guint64            gtid,
              SlTime             ts)
{
  guint32 pid = (guint32) (gtid >> 24);

  for (guint i = 0; i < ev->n_series; i++)
    {
      g_autofree char *key = g_strdup_printf ("%u\x1f%.*s\x1f%.*s", pid, (int) ev->name.len,
                                              ev->name.s, (int) ev->series_name[i].len,
                                              ev->series_name[i].s);
      Series *s = g_hash_table_lookup (jr->series, key);
      if (s == NULL)
        {
          g_autofree char *label = ev->n_series == 1 && text_is (ev->series_name[i], "value")
                                   ? g_strdup_printf ("%.*s", (int) ev->name.len, ev->name.s)
                                   : g_strdup_printf ("%.*s.%.*s", (int) ev->name.len, ev->name.s,
                                                      (int) ev->series_name[i].len,
                                                      ev->series_name[i].s);
          s = g_new0 (Series, 1);
          SlJsonText t = { label, strlen (label) };
          guint32 tid = map_id (jr, TRUE, 0, t, pid, FALSE);
          guint64 series_gtid = ((guint64) pid << 24) | tid;
          s->thread = _sl_reader_thread_lookup (&jr->r, series_gtid);
          g_hash_table_insert (jr->series, g_steal_pointer (&key), s);
        }
      if (s->pending && ts >= s->ts)
        {
          SlEvent e = { s->ts, ts, s->name, 0, 0, 0 };
          add_range (jr, s->thread, &e, domain_of (jr, (SlJsonText) { "counter", 7 }), 0);
        }
      char value[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (value, sizeof value, "%.6g", ev->series_value[i]);
      s->name = _sl_trace_intern (jr->r.trace, value, -1);
      s->ts = ts;
      s->pending = TRUE;
      jr->n_counters++;
    }
}

static FlowPage *
flow_page (JsonReader *jr,
           guint64     id,
           gboolean    create)
{
  guint64 key = id / FLOW_PAGE_IDS;
  if (jr->last_page != NULL && jr->last_page_key == key)
    return jr->last_page;
  FlowPage *page = g_hash_table_lookup (jr->flow_pages, &key);
  if (page == NULL)
    {
      if (!create || g_hash_table_size (jr->flow_pages) >= MAX_FLOW_PAGES)
        return NULL;
      page = g_new0 (FlowPage, 1);
      g_hash_table_insert (jr->flow_pages, g_memdup2 (&key, sizeof key), page);
    }
  jr->last_page_key = key;
  jr->last_page = page;
  return page;
}

/* Remembers a flow point not kept; FALSE when there is no room (it must be kept). */
static gboolean
flow_note (JsonReader *jr,
           guint64     id,
           gboolean    start)
{
  FlowPage *page = flow_page (jr, id, TRUE);
  if (page == NULL)
    return FALSE;
  guint bit = (guint) (id % FLOW_PAGE_IDS);
  page->bits[start][bit / 64] |= G_GUINT64_CONSTANT (1) << (bit % 64);
  return TRUE;
}

static gboolean
flow_noted (JsonReader *jr,
            guint64     id,
            gboolean    start)
{
  FlowPage *page = flow_page (jr, id, FALSE);
  guint bit = (guint) (id % FLOW_PAGE_IDS);
  return page != NULL && (page->bits[start][bit / 64] >> (bit % 64) & 1) != 0;
}

/* Whether the thread's CUDA call starting at `ts` carries `corr`: the point of a flow that Kineto
 * (or a generator) wrote after other events, not right after its call.  Only while the thread's
 * calls came in time order (a binary search), and only for a call alone at its instant (the one
 * link_flows would find). */
static gboolean
call_carries (const ThreadState *s,
              SlTime             ts,
              guint32            corr)
{
  if (s->api == NULL || s->api_unsorted || s->api->len == 0)
    return FALSE;
  const SlEvent *ev = (const SlEvent *) s->api->data;
  gsize lo = 0, hi = s->api->len;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (ev[mid].start < ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < s->api->len && ev[lo].start == ts && ev[lo].corr == corr
         && (lo + 1 == s->api->len || ev[lo + 1].start != ts);
}

static void
read_flow (JsonReader        *jr,
           const SlJsonEvent *ev,
           guint64            gtid,
           SlTime             ts)
{
  if (!(ev->have & SL_JSON_HAVE_ID))
    {
      jr->n_not_events++;
      return;
    }
  /* Kineto writes a flow point right after the event it binds to, with the event's correlation
   * id: such a point says nothing the event does not.  Its id is noted, not the point: 32 bytes
   * a point were a quarter of the memory of a load while reading */
  ThreadState *s = state_for (jr, gtid);
  gboolean start = ev->ph == 's';
  guint32 corr = (guint32) ev->id;
  if (corr != 0
      && ((s->last_start == ts && s->last_corr == corr) || (start && call_carries (s, ts, corr)))
      && flow_note (jr, ev->id, start))
    return;
  FlowPoint f = { ev->id, gtid, ts, ev->ph == 's' };
  g_array_append_val (jr->flows, f);
  jr->n_flows_kept++;
}

/* A "[memory]" instant of PyTorch's memory profiler (profile_memory=True): an allocation (Bytes
 * above 0) or a free (below 0) by the caching allocator at Addr, kept as a row of nsys's
 * CUDA_GPU_MEMORY_USAGE_EVENTS of kind Device when the device is a GPU ("Device Type" 1), so that
 * the Memory row, `sightline memory` and the memory rules read Kineto traces as they read nsys's.
 * The CPU's own (Device Type 0) are counted, not read: Sightline charts GPU memory. */
static void
read_memory (JsonReader        *jr,
             const SlJsonEvent *ev,
             guint64            gtid,
             SlTime             start)
{
  SlMemUsage m;

  if (ev->mem_device_type != 1 || ev->mem_device_id < 0 || ev->mem_bytes == 0)
    {
      jr->n_mem_host++;
      return;
    }
  memset (&m, 0, sizeof m);
  m.start = start;
  m.global_pid = GPID_OF (gtid);
  m.gpu = _sl_reader_gpu_for (&jr->r, clamp_u32 (ev->mem_device_id));
  m.address = (guint64) ev->mem_addr;
  /* -G_MININT64 is not a gint64: the most a free can give back is G_MAXINT64 */
  m.bytes = ev->mem_bytes > 0 ? (guint64) ev->mem_bytes
                              : (guint64) -(ev->mem_bytes + 1) + 1;
  m.mem_kind = 2;   /* ENUM_CUDA_MEM_KIND: Device */
  m.op = ev->mem_bytes > 0 ? SL_MEM_ALLOC : SL_MEM_FREE;
  m.name = SL_NO_STR;
  m.seq = (guint32) MIN (jr->n_mem_gpu, G_MAXUINT32);
  g_array_append_val (jr->r.trace->mem_usage, m);
  jr->n_mem_gpu++;
}

static gboolean
on_event (const SlJsonEvent *ev,
          gpointer           data)
{
  JsonReader *jr = data;
  SlEvent e;

  jr->n_events++;
  if (ev->ph == 'M')
    {
      read_metadata (jr, ev, event_gtid (jr, ev));
      return TRUE;
    }
  Cat cat = category (ev->cat);
  gboolean complete = ev->ph == 'X';
  switch (ev->ph)
    {
    case 'X':
    case 'B':
    case 'E':
    case 'i':
    case 'I':
    case 'n':
    case 'C':
    case 's':
    case 't':
    case 'f':
      break;
    default:
      jr->n_not_events++;
      return TRUE;
    }
  if (!event_times (jr, ev, complete, &e))
    return TRUE;
  guint64 gtid = event_gtid (jr, ev);

  if (ev->ph == 's' || ev->ph == 't' || ev->ph == 'f')
    {
      if (cat == CAT_FLOW || text_is (ev->name, "ac2g"))
        read_flow (jr, ev, gtid, e.start);
      else
        jr->n_not_events++;
      return TRUE;
    }
  if (ev->ph == 'C')
    {
      read_counter (jr, ev, gtid, e.start);
      return TRUE;
    }
  if ((ev->ph == 'i' || ev->ph == 'I') && (ev->have & SL_JSON_HAVE_MEM_BYTES)
      && text_is (ev->name, "[memory]"))
    {
      read_memory (jr, ev, gtid, e.start);
      return TRUE;
    }

  e.name = intern_text (jr, ev->name);
  if (complete && (cat == CAT_KERNEL || cat == CAT_MEMCPY || cat == CAT_MEMSET
                   || cat == CAT_SYNC))
    {
      read_gpu (jr, ev, cat, &e);
      if (ev->have & SL_JSON_HAVE_CORRELATION)
        {
          ThreadState *s = state_for (jr, gtid);
          s->last_start = e.start;
          s->last_corr = clamp_u32 (ev->correlation);
        }
      return TRUE;
    }

  ThreadState *s = state_for (jr, gtid);
  gint32 thread = state_thread (jr, s, gtid);
  if (complete && (cat == CAT_RUNTIME || cat == CAT_DRIVER))
    {
      e.corr = ev->have & SL_JSON_HAVE_CORRELATION ? clamp_u32 (ev->correlation) : 0;
      e.link = SL_NO_LINK;
      e.aux = cat == CAT_DRIVER ? 1 : 0;
      s->last_start = e.start;
      s->last_corr = e.corr;
      if (s->api == NULL)
        s->api = _sl_reader_cpu_events (&jr->r, thread, SL_LANE_CUDA_API);
      if (e.start < s->api_last)
        s->api_unsorted = TRUE;
      s->api_last = e.start;
      g_array_append_val (s->api, e);
      jr->n_api++;
      return TRUE;
    }

  guint32 domain = domain_of (jr, ev->cat);
  s->last_start = e.start;
  s->last_corr = 0;
  switch (ev->ph)
    {
    case 'X':
      add_range (jr, thread, &e, domain, 0);
      jr->n_ranges++;
      break;
    case 'B':
      if (s->open == NULL)
        s->open = g_array_new (FALSE, FALSE, sizeof (OpenRange));
      if (s->open->len < 100000)
        {
          OpenRange o = { e.start, e.name, domain };
          g_array_append_val (s->open, o);
        }
      break;
    case 'E':
      if (s->open == NULL || s->open->len == 0)
        {
          jr->n_unstarted++;
          break;
        }
      OpenRange *o = &g_array_index (s->open, OpenRange, s->open->len - 1);
      SlEvent r = { o->start, MAX (e.start, o->start), o->name, 0, 0, 0 };
      if (e.start < o->start)
        jr->trouble.bad_order++;
      add_range (jr, thread, &r, o->domain, 0);
      g_array_set_size (s->open, s->open->len - 1);
      jr->n_ranges++;
      break;
    default:    /* instants */
      add_range (jr, thread, &e, domain, SL_NVTX_MARK);
      jr->n_marks++;
      break;
    }
  return TRUE;
}

/* ---- batches of events ------------------------------------------------------------------- */

static void
warn_bad_event (JsonReader *jr,
                guint64     offset,
                const char *what)
{
  jr->n_bad_events++;
  if (jr->n_warned++ < MAX_WARNED)
    _sl_trace_warn (jr->r.trace, "%s: the event at byte %" G_GUINT64_FORMAT " was skipped: %s",
                    jr->path, offset, what);
}

/* One element on its own, after its batch failed: repaired to UTF-8 where that was the fault. */
static void
parse_one (JsonReader *jr,
           const char *text,
           gsize       len,
           guint64     offset)
{
  gsize pad = sl_json_padding ();
  g_autofree char *buf = g_malloc (len + 2 + pad);
  guint64 n_done = 0, n_other = 0;
  gsize at;
  const char *message = NULL;
  gboolean utf8;

  buf[0] = '[';
  memcpy (buf + 1, text, len);
  buf[len + 1] = ']';
  memset (buf + len + 2, 0, pad);
  if (sl_json_parse_events (jr->parser, buf, len + 2, on_event, jr, &n_done, &n_other, &at,
                            &message, &utf8))
    {
      jr->n_not_events += n_other;
      return;
    }
  if (utf8)
    {
      g_autofree char *fixed = g_utf8_make_valid (text, (gssize) len);
      gsize n = strlen (fixed);
      g_autofree char *buf2 = g_malloc (n + 2 + pad);
      buf2[0] = '[';
      memcpy (buf2 + 1, fixed, n);
      buf2[n + 1] = ']';
      memset (buf2 + n + 2, 0, pad);
      jr->n_bad_utf8++;
      if (sl_json_parse_events (jr->parser, buf2, n + 2, on_event, jr, &n_done, &n_other, &at,
                                &message, &utf8))
        {
          jr->n_not_events += n_other;
          return;
        }
    }
  warn_bad_event (jr, offset + (at > 0 ? at - 1 : 0), message);
}

typedef struct
{
  gsize start, end;      /* offsets in the work buffer of an element (object or array) */
} Span;

/* Parses work[from, to) (elements separated by commas) as one array; on an error, the elements
 * not yet handed over one by one. */
static void
parse_batch (JsonReader *jr,
             char       *work,
             gsize       from,
             gsize       to,
             guint64     work_offset,
             GArray     *spans,
             GByteArray *scratch)
{
  while (from < to && (g_ascii_isspace (work[from]) || work[from] == ','))
    from++;
  while (to > from && (g_ascii_isspace (work[to - 1]) || work[to - 1] == ','))
    to--;
  if (from >= to)
    return;

  /* in place: the byte before the first event becomes '[' (it is the array's own '[', a comma
   * or a blank) and the one after the last ']', put back after */
  gsize pad = sl_json_padding ();
  gsize len = to - from + 2;
  char *buf;
  char saved_open = 0, saved_close = 0;
  gboolean in_place = from > 0;
  if (in_place)
    {
      buf = work + from - 1;
      saved_open = buf[0];
      saved_close = buf[len - 1];
    }
  else
    {
      g_byte_array_set_size (scratch, len + pad);
      buf = (char *) scratch->data;
      memcpy (buf + 1, work + from, to - from);
      memset (buf + len, 0, pad);
    }
  buf[0] = '[';
  buf[len - 1] = ']';

  guint64 n_done = 0, n_other = 0;
  gsize at;
  const char *message = NULL;
  gboolean utf8;
  jr->batch_offset = work_offset + from;
  gboolean parsed = sl_json_parse_events (jr->parser, buf, len, on_event, jr, &n_done, &n_other,
                                          &at, &message, &utf8);
  if (in_place)
    {
      buf[0] = saved_open;
      buf[len - 1] = saved_close;
    }
  if (parsed)
    {
      jr->n_not_events += n_other;
      return;
    }
  /* the objects handed over were those before the failing one: `spans` holds the objects */
  guint64 objects = 0;
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *sp = &g_array_index (spans, Span, i);
      if (sp->start < from || sp->end > to)
        continue;
      if (objects++ < n_done)
        continue;
      parse_one (jr, work + sp->start, sp->end - sp->start, work_offset + sp->start);
    }
}

/* ---- the scan of the file ---------------------------------------------------------------- */

typedef enum
{
  TOP_START,
  TOP_KEY,          /* in the top object, before a key */
  TOP_IN_KEY,
  TOP_COLON,
  TOP_VALUE,
  TOP_META,         /* inside a top-level value other than traceEvents */
  TOP_EVENTS,       /* inside the array of events */
  TOP_DONE,
} TopState;

typedef struct
{
  TopState  state;
  gboolean  in_str, escape;
  gint      depth;        /* of the innermost open container, 0 outside everything */
  gint      base;         /* depth of the events array's elements' parent */
  GString  *key;
  gboolean  legacy;       /* a bare array */
  gboolean  saw_events;
} Scan;

/* Bits of 64 bytes: quotes, backslashes, '{' or '[', '}' or ']'. */
typedef struct
{
  guint64 quote, backslash, open, close;
} BlockBits;

static inline void
block_bits (const char *p,
            BlockBits  *b)
{
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8 ('"'), backslash = _mm_set1_epi8 ('\\');
  const __m128i open = _mm_set1_epi8 ('{'), close = _mm_set1_epi8 ('}');
  const __m128i lower = _mm_set1_epi8 (0x20);   /* '[' | 0x20 == '{', ']' | 0x20 == '}' */
  memset (b, 0, sizeof *b);
  for (guint k = 0; k < 4; k++)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) (const void *) (p + 16 * k));
      __m128i w = _mm_or_si128 (v, lower);
      b->quote |= (guint64) (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, quote)) << (16 * k);
      b->backslash |= (guint64) (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, backslash))
                      << (16 * k);
      b->open |= (guint64) (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (w, open)) << (16 * k);
      b->close |= (guint64) (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (w, close)) << (16 * k);
    }
#else
  memset (b, 0, sizeof *b);
  for (guint i = 0; i < 64; i++)
    {
      char c = p[i];
      guint64 bit = G_GUINT64_CONSTANT (1) << i;
      b->quote |= c == '"' ? bit : 0;
      b->backslash |= c == '\\' ? bit : 0;
      b->open |= c == '{' || c == '[' ? bit : 0;
      b->close |= c == '}' || c == ']' ? bit : 0;
    }
#endif
}

/*
 * The scan inside the array of events, 64 bytes at a time (simdjson's stage 1 in small): the
 * bytes' loop below cost a third of a load's time, ~3 cycles a byte of 3.6 GB.  Escaped
 * characters and the inside of strings come from bit masks; only brackets outside strings are
 * visited, a few per event.  Returns where it stopped: fewer than 64 bytes left, a block with a
 * backslash outside strings (not JSON: the bytes' loop decides what it means, as it always did),
 * or the bracket that closes the array.
 */
static gsize
scan_events (Scan       *sc,
             const char *work,
             gsize       pos,
             gsize       len,
             GArray     *spans,
             gsize      *elem_start,
             gsize      *done_to)
{
  const guint64 even = G_GUINT64_CONSTANT (0x5555555555555555);
  guint64 in_str = sc->in_str ? ~G_GUINT64_CONSTANT (0) : 0;   /* all ones inside a string */
  guint64 escaped_in = sc->escape ? 1 : 0;                     /* the block's first byte is */

  for (; pos + 64 <= len; pos += 64)
    {
      BlockBits b;
      block_bits (work + pos, &b);

      /* escaped bytes: those after an odd run of backslashes */
      guint64 bs = b.backslash & ~escaped_in;
      guint64 follows = bs << 1 | escaped_in;
      guint64 odd_starts = bs & ~even & ~follows;
      guint64 seq_even;
      gboolean carry = __builtin_add_overflow (odd_starts, bs, &seq_even);
      guint64 escaped = (even ^ (seq_even << 1)) & follows;

      /* inside strings: a prefix xor of the quotes that are not escaped */
      guint64 q = b.quote & ~escaped, x = q;
      x ^= x << 1;
      x ^= x << 2;
      x ^= x << 4;
      x ^= x << 8;
      x ^= x << 16;
      x ^= x << 32;
      guint64 str = x ^ in_str;
      if (b.backslash & ~str)
        break;
      in_str = (guint64) ((gint64) str >> 63);
      escaped_in = carry ? 1 : 0;

      guint64 brackets = (b.open | b.close) & ~str;
      for (; brackets != 0; brackets &= brackets - 1)
        {
          guint i = (guint) __builtin_ctzll (brackets);
          gsize at = pos + i;
          if (b.open >> i & 1)
            {
              if (sc->depth == sc->base)
                *elem_start = work[at] == '{' ? at : G_MAXSIZE;
              sc->depth++;
            }
          else if (sc->depth - 1 < sc->base)
            {
              /* the end of the events: the bytes' loop handles it, outside any string */
              sc->in_str = FALSE;
              sc->escape = FALSE;
              return at;
            }
          else if (--sc->depth == sc->base)
            {
              Span sp = { *elem_start, at + 1 };
              if (*elem_start != G_MAXSIZE)
                g_array_append_val (spans, sp);
              *done_to = at + 1;
            }
        }
    }
  sc->in_str = in_str != 0;
  sc->escape = escaped_in != 0;
  return pos;
}

static gboolean
scan_error (JsonReader *jr,
            guint64     offset,
            const char *what,
            GError    **error)
{
  g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT,
               "%s: not valid trace-event JSON at byte %" G_GUINT64_FORMAT ": %s", jr->path,
               offset, what);
  return FALSE;
}

static void
report_progress (JsonReader *jr)
{
  SlReader *r = &jr->r;
  if (r->progress != NULL && jr->in.size > 0)
    {
      double f = (double) MIN (__atomic_load_n (&jr->in.read, __ATOMIC_RELAXED), jr->in.size)
                 / (double) jr->in.size;
      r->progress (f * 0.9, "events", r->user_data);
    }
}

/* Reads the whole file: the scan of the top level, batches of events to the parser. */
static gboolean
read_file (JsonReader *jr,
           GError    **error)
{
  Scan sc = { TOP_START, FALSE, FALSE, 0, 0, g_string_new (NULL), FALSE, FALSE };
  gsize pad = sl_json_padding ();
  gsize cap = 2 * CHUNK + pad + 16, len = 0;
  g_autofree char *work = g_malloc (cap);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (GByteArray) scratch = g_byte_array_new ();
  guint64 work_offset = 0;    /* file offset of work[0] */
  gsize pos = 0;              /* next byte to scan */
  gsize batch = 0;            /* start of the events not yet parsed */
  gsize done_to = 0;          /* end of the last complete event */
  gsize elem_start = 0;
  gboolean ok = FALSE, eof = FALSE;
  guint chunks = 0;
  GError *read_error = NULL;

  while (!eof)
    {
      /* room for a chunk after what is kept */
      if (len + CHUNK + pad + 16 > cap)
        {
          if (len > MAX_EVENT)
            {
              scan_error (jr, work_offset, "an event longer than 256 MiB", error);
              goto out;
            }
          cap = len + CHUNK + pad + 16;
          work = g_realloc (work, cap);
        }
      /* a read or gzip error ends the input: what came before it is read, then it is reported */
      gssize n = read_error == NULL ? input_read (&jr->in, work + len, &read_error) : 0;
      if (n < 0)
        n = 0;
      eof = n == 0;
      len += (gsize) n;
      if ((++chunks & 3) == 0)
        {
          report_progress (jr);
          if (g_cancellable_set_error_if_cancelled (jr->r.cancellable, error))
            goto out;
        }

      while (pos < len && sc.state != TOP_DONE)
        {
        if (sc.state == TOP_EVENTS)
          pos = scan_events (&sc, work, pos, len, spans, &elem_start, &done_to);
        for (gsize until = MIN (len, pos + 64); pos < until && sc.state != TOP_DONE; pos++)
          {
            char c = work[pos];
            if (sc.in_str)
              {
                if (sc.escape)
                  sc.escape = FALSE;
                else if (c == '\\')
                  sc.escape = TRUE;
                else if (c == '"')
                  sc.in_str = FALSE;
                if (sc.state == TOP_IN_KEY)
                  {
                    if (sc.in_str && sc.key->len < 256)
                      g_string_append_c (sc.key, c);
                    else if (!sc.in_str)
                      sc.state = TOP_COLON;
                  }
                else if (sc.state == TOP_META && jr->meta->len < MAX_META)
                  g_string_append_c (jr->meta, c);
                continue;
              }
            switch (sc.state)
              {
              case TOP_START:
                if (c == '{')
                  {
                    sc.depth = 1;
                    sc.state = TOP_KEY;
                  }
                else if (c == '[')
                  {
                    sc.depth = 1;
                    sc.base = 1;
                    sc.legacy = TRUE;
                    sc.saw_events = TRUE;
                    sc.state = TOP_EVENTS;
                    batch = done_to = pos + 1;
                  }
                else if (!g_ascii_isspace (c) && (guchar) c != 0xEF && (guchar) c != 0xBB
                         && (guchar) c != 0xBF)
                  {
                    scan_error (jr, work_offset + pos, "neither an object nor an array", error);
                    goto out;
                  }
                break;
              case TOP_KEY:
                if (c == '"')
                  {
                    sc.in_str = TRUE;
                    g_string_truncate (sc.key, 0);
                    sc.state = TOP_IN_KEY;
                  }
                else if (c == '}')
                  {
                    sc.depth = 0;
                    sc.state = TOP_DONE;
                  }
                else if (!g_ascii_isspace (c) && c != ',')
                  {
                    scan_error (jr, work_offset + pos, "a key of the top object was expected",
                                error);
                    goto out;
                  }
                break;
              case TOP_COLON:
                if (c == ':')
                  sc.state = TOP_VALUE;
                else if (!g_ascii_isspace (c))
                  {
                    scan_error (jr, work_offset + pos, "':' was expected after a key", error);
                    goto out;
                  }
                break;
              case TOP_VALUE:
                if (g_ascii_isspace (c))
                  break;
                if (c == '[' && strcmp (sc.key->str, "traceEvents") == 0 && !sc.saw_events)
                  {
                    sc.depth = 2;
                    sc.base = 2;
                    sc.saw_events = TRUE;
                    sc.state = TOP_EVENTS;
                    batch = done_to = pos + 1;
                    break;
                  }
                if (jr->meta->len < MAX_META)
                  {
                    g_string_append_c (jr->meta, jr->meta->len > 1 ? ',' : ' ');
                    g_string_append_c (jr->meta, '"');
                    g_string_append (jr->meta, sc.key->str);
                    g_string_append (jr->meta, "\":");
                  }
                sc.state = TOP_META;
                G_GNUC_FALLTHROUGH;
              case TOP_META:
                if (sc.depth == 1 && (c == ',' || c == '}'))
                  {
                    sc.state = c == ',' ? TOP_KEY : TOP_DONE;
                    if (c == '}')
                      sc.depth = 0;
                    break;
                  }
                if (jr->meta->len < MAX_META)
                  g_string_append_c (jr->meta, c);
                if (c == '"')
                  sc.in_str = TRUE;
                else if (c == '{' || c == '[')
                  sc.depth++;
                else if (c == '}' || c == ']')
                  sc.depth--;
                break;
              case TOP_EVENTS:
                if (c == '"')
                  sc.in_str = TRUE;
                else if (c == '{' || c == '[')
                  {
                    if (sc.depth == sc.base)
                      elem_start = c == '{' ? pos : G_MAXSIZE;
                    sc.depth++;
                  }
                else if (c == '}' || c == ']')
                  {
                    sc.depth--;
                    if (sc.depth == sc.base)
                      {
                        Span sp = { elem_start, pos + 1 };
                        if (elem_start != G_MAXSIZE)
                          g_array_append_val (spans, sp);
                        done_to = pos + 1;
                      }
                    else if (sc.depth < sc.base)
                      {
                        /* the end of the events */
                        if (c != ']')
                          {
                            scan_error (jr, work_offset + pos, "'}' closes the array of events",
                                        error);
                            goto out;
                          }
                        parse_batch (jr, work, batch, pos, work_offset, spans, scratch);
                        g_array_set_size (spans, 0);
                        batch = done_to = pos + 1;
                        sc.state = sc.legacy ? TOP_DONE : TOP_KEY;
                      }
                  }
                break;
              case TOP_IN_KEY:
              case TOP_DONE:
                break;
              }
          }
        }

      if (sc.state == TOP_EVENTS && done_to > batch && (len - batch > CHUNK || eof))
        {
          parse_batch (jr, work, batch, done_to, work_offset, spans, scratch);
          g_array_set_size (spans, 0);
          batch = done_to;
        }
      /* keep only what is not parsed yet */
      gsize keep_from = sc.state == TOP_EVENTS ? batch : pos;
      if (keep_from > 0)
        {
          memmove (work, work + keep_from, len - keep_from);
          len -= keep_from;
          pos -= keep_from;
          work_offset += keep_from;
          batch -= MIN (batch, keep_from);
          done_to -= MIN (done_to, keep_from);
          if (elem_start != G_MAXSIZE)
            elem_start -= MIN (elem_start, keep_from);
          for (guint i = 0; i < spans->len; i++)
            {
              g_array_index (spans, Span, i).start -= keep_from;
              g_array_index (spans, Span, i).end -= keep_from;
            }
        }
      if (sc.state == TOP_DONE)
        break;
    }

  if (read_error != NULL)
    {
      if (jr->n_events == 0)
        {
          g_propagate_error (error, g_steal_pointer (&read_error));
          goto out;
        }
      _sl_trace_warn (jr->r.trace, "%s; the events before it were read", read_error->message);
      g_clear_error (&read_error);
    }
  if (sc.state != TOP_DONE)
    {
      guint64 at = work_offset + pos;
      if (!sc.saw_events || (sc.state != TOP_EVENTS && jr->n_events == 0))
        {
          scan_error (jr, at, "the file ends here (truncated?)", error);
          goto out;
        }
      if (sc.state == TOP_EVENTS && sc.depth > sc.base)
        _sl_trace_warn (jr->r.trace, "%s: the file ends inside an event at byte %" G_GUINT64_FORMAT
                                     " (truncated?); the events before it were read",
                        jr->path, work_offset + (elem_start != G_MAXSIZE ? elem_start : pos));
      else if (sc.state == TOP_EVENTS)
        _sl_trace_warn (jr->r.trace, "%s: the array of events is not closed (the file ends at "
                                     "byte %" G_GUINT64_FORMAT "); the events in it were read",
                        jr->path, at);
      else
        _sl_trace_warn (jr->r.trace, "%s: the file ends at byte %" G_GUINT64_FORMAT
                                     " before its top object is closed (truncated?)",
                        jr->path, at);
    }
  if (!sc.saw_events)
    {
      scan_error (jr, 0, "it has no traceEvents array", error);
      goto out;
    }
  ok = TRUE;

out:
  g_clear_error (&read_error);
  g_string_free (sc.key, TRUE);
  return ok;
}

/* ---- after the last event ---------------------------------------------------------------- */

/* GPUs as deviceProperties describes them. */
static void
apply_devices (JsonReader       *jr,
               const SlJsonMeta *meta)
{
  for (guint i = 0; meta->devices != NULL && i < meta->devices->len; i++)
    {
      const SlJsonDevice *d = &g_array_index (meta->devices, SlJsonDevice, i);
      gint gi = _sl_reader_gpu_for (&jr->r, (guint32) d->id);
      SlGpu *g = &g_array_index (jr->r.trace->gpus, SlGpu, gi);
      if (d->name != NULL)
        g->name = _sl_trace_intern (jr->r.trace, d->name, -1);
      g->total_memory = d->total_memory;
      g->described = TRUE;
      SlGpuLimits *l = &g->limits;
      l->cc_major = d->cc_major;
      l->cc_minor = d->cc_minor;
      l->sm_count = d->sm_count;
      l->warp_size = d->warp_size;
      l->max_threads_per_block = d->max_threads_per_block;
      if (d->warp_size > 0)
        l->max_warps_per_sm = d->max_threads_per_sm / d->warp_size;
      l->max_blocks_per_sm = d->max_blocks_per_sm;
      l->max_regs_per_block = d->max_regs_per_block;
      l->max_regs_per_sm = d->max_regs_per_sm;
      l->max_smem_per_block = d->max_smem_per_block;
      l->max_smem_per_block_optin = d->max_smem_per_block_optin;
      l->max_smem_per_sm = d->max_smem_per_sm;
    }
}

static gint
compare_flows (gconstpointer a,
               gconstpointer b)
{
  const FlowPoint *x = a, *y = b;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  return x->start == y->start ? 0 : x->start ? -1 : 1;
}

/* The event of `a` (sorted by start) that starts at `ts`, or the last one enclosing it. */
static SlEvent *
event_at (GArray *a,
          SlTime  ts)
{
  SlEvent *ev = (SlEvent *) a->data;
  gsize lo = 0, hi = a->len;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (ev[mid].start <= ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize k = lo; k-- > 0 && lo - k < 64;)
    if (ev[k].start <= ts && ev[k].end >= ts)
      return &ev[k];
  return NULL;
}

/* The kept flow points tie calls and GPU work that carry no correlation id: the call gets the
 * flow's id where it has none, the GPU op the call's. */
static void
link_flows (JsonReader *jr)
{
  GArray *flows = jr->flows;
  guint64 nowhere = 0;
  GHashTableIter iter;
  gpointer key, value;
  if (flows->len == 0)
    return;
  /* a flow's GPU end names a device and a stream (its pid and tid), not the context that is
   * part of a lane's key: the lanes by key with context 0 (one context a stream, in Kineto's
   * traces; with several, the lowest is taken) */
  g_autoptr (GHashTable) by_stream = g_hash_table_new_full (_sl_gpu_key_hash, _sl_gpu_key_equal,
                                                            g_free, NULL);
  g_hash_table_iter_init (&iter, jr->r.gpu_lanes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      SlGpuKey k = *(const SlGpuKey *) key;
      const SlLane *had;
      k.context = 0;
      had = g_hash_table_lookup (by_stream, &k);
      if (had == NULL || ((const SlLane *) value)->context_id < had->context_id)
        g_hash_table_insert (by_stream, g_memdup2 (&k, sizeof k), value);
    }
  g_array_sort (flows, compare_flows);
  for (guint i = 0; i < flows->len;)
    {
      guint j = i;
      while (j < flows->len && g_array_index (flows, FlowPoint, j).id == g_array_index (flows, FlowPoint, i).id)
        j++;
      SlEvent *call = NULL, *op = NULL;
      for (guint k = i; k < j; k++)
        {
          const FlowPoint *f = &g_array_index (flows, FlowPoint, k);
          ThreadState *s = g_hash_table_lookup (jr->states, &f->gtid);
          if (call == NULL && s != NULL && s->thread >= 0)
            {
              SlCpuKey key = { SL_LANE_CUDA_API, s->thread };
              GArray *a = g_hash_table_lookup (jr->r.cpu_builders, &key);
              if (a != NULL)
                call = event_at (a, f->ts);
            }
          if (op == NULL)
            {
              static const SlLaneKind kinds[] = { SL_LANE_KERNELS, SL_LANE_MEMCPY, SL_LANE_MEMSET,
                                                  SL_LANE_SYNC };
              for (guint m = 0; m < G_N_ELEMENTS (kinds) && op == NULL; m++)
                {
                  SlGpuKey key = { 0 };
                  key.device = (guint32) (f->gtid >> 24);
                  key.stream = (guint32) (f->gtid & 0xFFFFFF);
                  key.kind = kinds[m];
                  SlLane *lane = g_hash_table_lookup (by_stream, &key);
                  GArray *a = lane != NULL ? g_hash_table_lookup (jr->r.lane_arrays, lane) : NULL;
                  if (a != NULL)
                    op = event_at (a, f->ts);
                }
            }
        }
      /* the end of the flow not kept is an event that carries its id */
      guint64 id = g_array_index (flows, FlowPoint, i).id;
      SlEvent noted_call = { 0, 0, 0, (guint32) id, 0, 0 }, noted_op = noted_call;
      if (call == NULL && flow_noted (jr, id, TRUE))
        call = &noted_call;
      if (op == NULL && flow_noted (jr, id, FALSE))
        op = &noted_op;
      if (call != NULL && op != NULL)
        {
          if (call->corr == 0)
            call->corr = (guint32) id;
          if (op->corr == 0)
            op->corr = call->corr;
        }
      else
        nowhere++;
      i = j;
    }
  if (nowhere > 0)
    _sl_trace_warn (jr->r.trace, "%s: %" G_GUINT64_FORMAT " launch flows (ac2g) point at no "
                                 "CUDA call or no GPU work; they link nothing",
                    jr->path, nowhere);
}

/* Names, processes of GPU lanes, open ranges and counters closed at the trace's end. */
static void
finish_model (JsonReader       *jr,
              const SlJsonMeta *meta)
{
  SlReader *r = &jr->r;
  SlTrace *trace = r->trace;
  GHashTableIter iter;
  gpointer key, value;
  SlTime last = G_MININT64;

  /* the end of the trace, for what is still open */
  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    for (guint i = 0; i < ((GArray *) value)->len; i++)
      last = MAX (last, g_array_index ((GArray *) value, SlEvent, i).end);
  g_hash_table_iter_init (&iter, r->lane_arrays);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    for (guint i = 0; i < ((GArray *) value)->len; i++)
      last = MAX (last, g_array_index ((GArray *) value, SlEvent, i).end);

  g_hash_table_iter_init (&iter, jr->states);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ThreadState *s = value;
      for (guint i = 0; s->open != NULL && i < s->open->len; i++)
        {
          OpenRange *o = &g_array_index (s->open, OpenRange, i);
          SlEvent e = { o->start, MAX (o->start, last), o->name, 0, 0, 0 };
          add_range (jr, state_thread (jr, s, *(guint64 *) key), &e, o->domain,
                     SL_NVTX_UNTERMINATED);
          jr->n_unended++;
        }
    }
  g_hash_table_iter_init (&iter, jr->series);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Series *s = value;
      if (s->pending)
        {
          SlEvent e = { s->ts, MAX (s->ts, last), s->name, 0, 0, 0 };
          add_range (jr, s->thread, &e, domain_of (jr, (SlJsonText) { "counter", 7 }), 0);
        }
    }

  /* calls and GPU work in time order before flows look them up */
  if (jr->flows->len > 0)
    {
      g_hash_table_iter_init (&iter, r->cpu_builders);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (((SlCpuKey *) key)->kind == SL_LANE_CUDA_API)
          _sl_events_sort ((SlEvent *) ((GArray *) value)->data, ((GArray *) value)->len);
      g_hash_table_iter_init (&iter, r->lane_arrays);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        _sl_events_sort ((SlEvent *) ((GArray *) value)->data, ((GArray *) value)->len);
      link_flows (jr);
    }

  /* GPU work belongs to the process that launched it: the one with the most CUDA calls */
  g_autoptr (GHashTable) calls = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  guint64 best = 0, best_n = 0;
  guint n_launchers = 0;
  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlCpuKey *k = key;
      if (k->kind != SL_LANE_CUDA_API)
        continue;
      const SlThread *t = &g_array_index (trace->threads, SlThread, k->thread);
      guint64 gpid = GPID_OF (t->global_tid);
      guint64 *n = g_hash_table_lookup (calls, &gpid);
      if (n == NULL)
        {
          n = g_new0 (guint64, 2);
          n[0] = gpid;
          g_hash_table_insert (calls, n, n);
          n_launchers++;
        }
      n[1] += ((GArray *) value)->len;
      if (n[1] > best_n)
        {
          best_n = n[1];
          best = gpid;
        }
    }
  if (n_launchers > 1)
    _sl_trace_warn (trace, "%s: %u processes make CUDA calls; GPU work is tied to the launches of "
                           "the one with the most",
                    jr->path, n_launchers);
  g_hash_table_iter_init (&iter, r->lane_arrays);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    ((SlLane *) key)->global_pid = best;
  event_rows_done (trace, best);

  /* process and thread names: the file's metadata, else the text of a text id */
  for (guint i = 0; i < trace->processes->len; i++)
    {
      SlProcess *p = &g_array_index (trace->processes, SlProcess, i);
      gpointer name;
      if (g_hash_table_lookup_extended (jr->gpu_labels, &p->global_pid, NULL, &name)
          || g_hash_table_lookup_extended (jr->process_names, &p->global_pid, NULL, &name)
          || g_hash_table_lookup_extended (jr->given_names, &p->global_pid, NULL, &name))
        p->name = GPOINTER_TO_UINT (name);
    }
  for (guint i = 0; i < trace->threads->len; i++)
    {
      SlThread *t = &g_array_index (trace->threads, SlThread, i);
      gpointer name;
      if (g_hash_table_lookup_extended (jr->thread_names, &t->global_tid, NULL, &name)
          || g_hash_table_lookup_extended (jr->given_names, &t->global_tid, NULL, &name))
        t->name = GPOINTER_TO_UINT (name);
    }
  for (guint i = 0; i < trace->threads->len; i++)
    {
      SlThread *t = &g_array_index (trace->threads, SlThread, i);
      SlProcess *p = &g_array_index (trace->processes, SlProcess, t->process);
      if (p->name == SL_NO_STR && t->pid == t->tid)
        p->name = t->name;
    }

  apply_devices (jr, meta);

  /* times relative to baseTimeNanoseconds: shift them all */
  if (meta->base_time_ns != 0)
    {
      SlTime base = meta->base_time_ns;
      GHashTable *tables[2] = { r->cpu_builders, r->lane_arrays };
      for (guint t = 0; t < 2; t++)
        {
          g_hash_table_iter_init (&iter, tables[t]);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            {
              GArray *a = value;
              for (guint i = 0; i < a->len; i++)
                {
                  SlEvent *e = &g_array_index (a, SlEvent, i);
                  e->start = clamp_time (jr, _sl_time_add (e->start, base));
                  e->end = clamp_time (jr, _sl_time_add (e->end, base));
                }
            }
        }
      GArray *mem = trace->mem_usage;
      for (guint i = 0; i < mem->len; i++)
        {
          SlMemUsage *m = &g_array_index (mem, SlMemUsage, i);
          m->start = clamp_time (jr, _sl_time_add (m->start, base));
        }
    }
  _sl_trace_sort_mem_usage (trace);
}

static void
note_reads (JsonReader *jr)
{
  struct
  {
    const char *table;
    guint64     n;
  } parts[] = {
    { "traceEvents: kernel", jr->n_kernels },
    { "traceEvents: gpu_memcpy", jr->n_copies },
    { "traceEvents: gpu_memset", jr->n_sets },
    { "traceEvents: cuda_sync", jr->n_sync },
    { "traceEvents: cuda_runtime, cuda_driver", jr->n_api },
    { "traceEvents: ranges (cpu_op, user_annotation, python_function …)", jr->n_ranges },
    { "traceEvents: instants", jr->n_marks },
    { "traceEvents: counter samples", jr->n_counters },
    { "traceEvents: [memory] of a GPU (as CUDA_GPU_MEMORY_USAGE_EVENTS)", jr->n_mem_gpu },
    { "traceEvents: [memory] of the CPU (not read)", jr->n_mem_host },
  };
  /* all events first, with what was skipped or repaired; then what became what */
  SlTableRead all = { (char *) "traceEvents", NULL, jr->n_events + jr->n_bad_events,
                      jr->trouble.null_time, jr->trouble.bad_type + jr->n_bad_events, 0,
                      jr->n_not_events, jr->trouble.bad_range, jr->trouble.bad_order };
  _sl_trace_note_table (jr->r.trace, &all);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      SlTableRead read = { (char *) parts[i].table, NULL, parts[i].n, 0, 0, 0, 0, 0, 0 };
      if (read.rows > 0)
        _sl_trace_note_table (jr->r.trace, &read);
    }
}

static void
warn_trouble (JsonReader *jr)
{
  SlTrace *trace = jr->r.trace;
  if (jr->trouble.null_time > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " events have no ts and were skipped",
                    jr->path, jr->trouble.null_time);
  if (jr->trouble.bad_type > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " events have a ts or dur that is not a "
                           "number (or one beyond ±2^62 ns) and were skipped or kept with no "
                           "duration",
                    jr->path, jr->trouble.bad_type);
  if (jr->trouble.bad_range > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " times were clamped to ±73 years", jr->path,
                    jr->trouble.bad_range);
  if (jr->trouble.bad_order > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " events end before they start (negative dur "
                           "or E before B); their end was set to their start",
                    jr->path, jr->trouble.bad_order);
  if (jr->n_bad_events > MAX_WARNED)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " events in all were skipped as unreadable",
                    jr->path, jr->n_bad_events);
  if (jr->n_unended > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " B events have no E; they end with the trace",
                    jr->path, jr->n_unended);
  if (jr->n_unstarted > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " E events have no B; they were skipped",
                    jr->path, jr->n_unstarted);
  if (jr->n_bad_utf8 > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " events are not valid UTF-8; unreadable "
                           "bytes were replaced",
                    jr->path, jr->n_bad_utf8);
}

/* The schema line: what the file is, and the rank of a distributed run.  (A function of its own:
 * an autoptr declared after the reader's gotos would be freed uninitialised on their path.) */
static char *
schema_line (JsonReader       *jr,
             const SlJsonMeta *meta)
{
  GString *schema = g_string_new (NULL);

  if (meta->schema_version >= 0)
    g_string_printf (schema, "Kineto JSON (schemaVersion %" G_GINT64_FORMAT ")",
                     meta->schema_version);
  else
    g_string_assign (schema, jr->meta->len > 2 ? "trace-event JSON" : "trace-event JSON array");
  if (meta->has_rank && meta->world_size > 0)
    g_string_append_printf (schema, ", rank %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                            meta->rank, meta->world_size);
  else if (meta->has_rank)
    g_string_append_printf (schema, ", rank %" G_GINT64_FORMAT, meta->rank);
  return g_string_free (schema, FALSE);
}

gboolean
_sl_reader_read_json (SlTrace        *trace,
                      SlLoadFlags     flags,
                      SlProgressFunc  progress,
                      gpointer        user_data,
                      GCancellable   *cancellable,
                      GError        **error)
{
  JsonReader *jr = g_new0 (JsonReader, 1);
  SlJsonMeta meta = { 0 };
  gboolean ok = FALSE;

  jr->path = trace->path;
  jr->r.trace = trace;
  jr->r.flags = flags;
  jr->r.progress = progress;
  jr->r.user_data = user_data;
  jr->r.cancellable = cancellable;
  jr->r.last_thread = -1;
  _sl_reader_init_tables (&jr->r);
  jr->parser = sl_json_parser_new ();
  jr->states = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, state_free);
  jr->synthetic = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  jr->next_synthetic = 0xFFFFFF;
  jr->given_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->process_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->gpu_labels = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->thread_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->process_sort = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->thread_sort = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  jr->series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  jr->flows = g_array_new (FALSE, FALSE, sizeof (FlowPoint));
  jr->flow_pages = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  jr->meta = g_string_new ("{");
  jr->n_name_slots = 1024;
  jr->names = g_new0 (NameSlot, jr->n_name_slots);
  _sl_trace_intern (trace, "[CUDA memset]", -1);
  jr->memset_name = _sl_trace_intern (trace, "[CUDA memset]", -1);
  meta.schema_version = -1;

  if (jr->parser == NULL)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: out of memory", trace->path);
      goto out;
    }
  if (!input_open (&jr->in, trace->path, error))
    goto out;
  gboolean read_ok = read_file (jr, error);
  input_close (&jr->in);
  if (!read_ok)
    goto out;
  /* the events' parser holds buffers the size of a batch (~20 MB): give them back before the
   * lanes are built, a fresh parser reads the small top-level values */
  sl_json_parser_free (jr->parser);
  jr->parser = sl_json_parser_new ();
  if (jr->parser == NULL)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: out of memory", trace->path);
      goto out;
    }

  g_string_append_c (jr->meta, '}');
  const char *message = NULL;
  if (!sl_json_parse_meta (jr->parser, jr->meta->str, jr->meta->len, &meta, &message))
    _sl_trace_warn (trace, "%s: the top-level values other than traceEvents are not valid JSON "
                           "(%s); GPUs are not described",
                    trace->path, message);
  finish_model (jr, &meta);
  g_free (trace->schema);
  trace->schema = schema_line (jr, &meta);
  if (meta.has_rank && meta.rank >= 0)
    {
      trace->rank = meta.rank;
      trace->world_size = MAX (meta.world_size, 0);
    }
  trace->is_json = TRUE;
  warn_trouble (jr);
  note_reads (jr);
  _sl_reader_build_lanes (&jr->r);
  ok = TRUE;

out:
  sl_json_meta_clear (&meta);
  _sl_reader_clear (&jr->r);
  sl_json_parser_free (jr->parser);
  g_hash_table_unref (jr->states);
  g_hash_table_unref (jr->synthetic);
  g_hash_table_unref (jr->given_names);
  g_hash_table_unref (jr->process_names);
  g_hash_table_unref (jr->gpu_labels);
  g_hash_table_unref (jr->thread_names);
  g_hash_table_unref (jr->process_sort);
  g_hash_table_unref (jr->thread_sort);
  g_hash_table_unref (jr->series);
  g_array_unref (jr->flows);
  g_hash_table_unref (jr->flow_pages);
  g_string_free (jr->meta, TRUE);
  g_free (jr->names);
  g_free (jr);
  return ok;
}

/* Kineto / Chrome JSON, by content: gzip data, or text opening with '{' or '[' (after a BOM or
 * blanks).  SQLite files open with "SQLite format 3". */
gboolean
sl_trace_file_is_json (const char *path)
{
  guchar head[64];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  ssize_t n = read (fd, head, sizeof head);
  close (fd);
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return TRUE;
  ssize_t i = 0;
  if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
    i = 3;
  while (i < n && g_ascii_isspace (head[i]))
    i++;
  return i < n && (head[i] == '{' || head[i] == '[');
}
