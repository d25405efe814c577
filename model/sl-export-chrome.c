/* sl-export-chrome.c: a trace as Chrome trace-event JSON shaped as Kineto (PyTorch's profiler)
 * writes it, which Perfetto UI, chrome://tracing and Sightline's JSON reader open.
 *
 * What goes where (see /work/notes/design16.md, the contract with the JSON reader):
 *   CUDA API calls      X  cat cuda_runtime / cuda_driver on (pid, tid), args.correlation
 *   kernels             X  cat kernel on (pid = deviceId, tid = streamId), Kineto's args
 *   copies, sets        X  cat gpu_memcpy / gpu_memset, "Memcpy HtoD (Pageable -> Device)"
 *   synchronization     X  cat cuda_sync on the stream
 *   launch -> GPU work  s / f (bp e) flows of cat ac2g, id = correlation id
 *   NVTX ranges, marks  X / i  cat user_annotation, or the domain's name when it is one of
 *                         Kineto's CPU categories (cpu_op, python_function, ...)
 *   OS runtime calls    X  cat os_runtime
 *   CPU samples         i  cat cpu_sample, the call stack (leaf first) in args.stack
 *   MPI calls           X  cat mpi on (pid, tid), args peer, tag, bytes (and recv bytes, root,
 *                         communicator, request, rank where the call has them); the calls of
 *                         NVTX ranges of the domain "MPI" are those ranges, written once
 *   send -> receive     s / f (bp e) flows of cat mpi_message, id 2^52 + the message's index
 *                         (sl_trace_get_mpi_messages), from the send's start to the receive's
 *                         start, where both are kept
 *   thread states       left out: Chrome JSON has no kind for them
 * Times are the trace's integer ns written as µs with exactly three decimals, so the reader gets
 * back the same ns.
 *
 * A 10^7-event trace is ~2 GB of JSON: events are formatted by hand into one 1 MiB buffer (no
 * printf, no allocation per event); each string is escaped once and copied from then on, and a
 * kernel's or copy's arguments that follow from its launch configuration once per
 * configuration.
 */
#include "sl-export-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <zlib.h>

#include "sl-lane.h"
#include "sl-mpi.h"
#include "sl-occupancy.h"

#define OUT_SIZE (1u << 20)

typedef struct
{
  char       *buf;
  gsize       len;
  gsize       cap;
  FILE       *file;
  gzFile      gz;
  int         errsv;     /* errno of the first failure */
  char        what[128]; /* or zlib's word for it */
  gboolean    failed;
  guint64     n_events;  /* written into traceEvents, for the separating commas */
} Out;

static void
out_flush (Out *o)
{
  if (o->len == 0 || o->failed)
    {
      o->len = 0;
      return;
    }
  if (o->gz != NULL)
    {
      if (gzwrite (o->gz, o->buf, (unsigned) o->len) != (int) o->len)
        {
          int zerr;
          const char *msg = gzerror (o->gz, &zerr);
          o->failed = TRUE;
          o->errsv = zerr == Z_ERRNO ? errno : 0;
          if (zerr != Z_ERRNO)
            g_strlcpy (o->what, msg != NULL ? msg : "gzip error", sizeof o->what);
        }
    }
  else if (fwrite (o->buf, 1, o->len, o->file) != o->len)
    {
      o->failed = TRUE;
      o->errsv = errno;
    }
  o->len = 0;
}

/* Room for n more bytes; returns where they go (advance o->len past what was written). */
static inline char *
out_room (Out  *o,
          gsize n)
{
  if (G_UNLIKELY (o->len + n > o->cap))
    {
      out_flush (o);
      if (n > o->cap)
        {
          o->cap = n;
          o->buf = g_realloc (o->buf, o->cap);
        }
    }
  return o->buf + o->len;
}

static inline void
out_raw (Out        *o,
         const char *s,
         gsize       n)
{
  char *p = out_room (o, n);
  memcpy (p, s, n);
  o->len += n;
}

#define out_lit(o, s) out_raw ((o), "" s, sizeof (s) - 1)

/* JSON text already made */
static inline void
out_cstr_raw (Out        *o,
              const char *s)
{
  out_raw (o, s, strlen (s));
}

static inline char *
put_u64 (char   *p,
         guint64 v)
{
  char tmp[20];
  int n = 0;
  do
    {
      tmp[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}

static inline char *
put_i64 (char  *p,
         gint64 v)
{
  if (v < 0)
    {
      *p++ = '-';
      return put_u64 (p, (guint64) 0 - (guint64) v);
    }
  return put_u64 (p, (guint64) v);
}

/* ns as µs with three decimals: 1234567 -> 1234.567, -1500 -> -1.500 */
static inline char *
put_time (char  *p,
          SlTime ns)
{
  guint64 u = ns < 0 ? (guint64) 0 - (guint64) ns : (guint64) ns;
  if (ns < 0)
    *p++ = '-';
  p = put_u64 (p, u / 1000);
  guint frac = (guint) (u % 1000);
  p[0] = '.';
  p[1] = (char) ('0' + frac / 100);
  p[2] = (char) ('0' + frac / 10 % 10);
  p[3] = (char) ('0' + frac % 10);
  return p + 4;
}

static inline char *
put_lit (char       *p,
         const char *s,
         gsize       n)
{
  memcpy (p, s, n);
  return p + n;
}

#define PUT(p, s) put_lit ((p), "" s, sizeof (s) - 1)

/* JSON string text (without quotes): control characters as escapes, bytes that are not UTF-8
 * as U+FFFD. */
static void
escape_into (GString    *dst,
             const char *s,
             gsize       n)
{
  const char *end = s + n;

  while (s < end)
    {
      guchar c = (guchar) *s;
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
        {
          const char *run = s;
          while (s < end && (guchar) *s >= 0x20 && (guchar) *s < 0x80 && *s != '"' && *s != '\\')
            s++;
          g_string_append_len (dst, run, s - run);
          continue;
        }
      if (c < 0x80)
        {
          switch (c)
            {
            case '"': g_string_append (dst, "\\\""); break;
            case '\\': g_string_append (dst, "\\\\"); break;
            case '\n': g_string_append (dst, "\\n"); break;
            case '\t': g_string_append (dst, "\\t"); break;
            case '\r': g_string_append (dst, "\\r"); break;
            case '\b': g_string_append (dst, "\\b"); break;
            case '\f': g_string_append (dst, "\\f"); break;
            default: g_string_append_printf (dst, "\\u%04x", c); break;
            }
          s++;
          continue;
        }
      gunichar u = g_utf8_get_char_validated (s, end - s);
      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          g_string_append (dst, "\xEF\xBF\xBD");
          s++;
          continue;
        }
      const char *next = g_utf8_next_char (s);
      g_string_append_len (dst, s, next - s);
      s = next;
    }
}

typedef struct
{
  SlTrace    *trace;
  Out         o;
  SlTime      t0, t1;

  /* every string escaped once: string id -> offset + 1 in `esc`, and its length */
  GString    *esc;
  guint32    *esc_off;
  guint32    *esc_len;
  guint       n_strs;

  GHashTable *by_gpid;         /* global pid -> process index + 1 */
  /* (GPU index, kernel info) -> offset + 1 in `esc` of the args that follow from them */
  GHashTable *kernel_args;
  guint32    *copy_name;       /* copy info -> offset + 1 of its quoted name in `esc` */
  guint32    *copy_name_len;
} Chrome;

/* Keeps `s` quoted and escaped in `esc`: its offset + 1 and length go to *off and *len. */
static void
esc_keep (Chrome     *c,
          const char *s,
          guint32    *off,
          guint32    *len)
{
  gsize at = c->esc->len;
  g_string_append_c (c->esc, '"');
  escape_into (c->esc, s, strlen (s));
  g_string_append_c (c->esc, '"');
  *off = (guint32) at + 1;
  *len = (guint32) (c->esc->len - at);
}

/* The quoted, escaped text of string `id`. */
static inline void
out_str (Chrome *c,
         guint32 id)
{
  if (id >= c->n_strs)
    id = SL_NO_STR;
  if (c->esc_off[id] == 0)
    esc_keep (c, sl_trace_str (c->trace, id), &c->esc_off[id], &c->esc_len[id]);
  out_raw (&c->o, c->esc->str + c->esc_off[id] - 1, c->esc_len[id]);
}

static void
out_cstr (Out        *o,
          const char *s)
{
  g_autoptr (GString) e = g_string_new ("\"");
  escape_into (e, s, strlen (s));
  g_string_append_c (e, '"');
  out_raw (o, e->str, e->len);
}

/* ",\n" between events */
static inline void
out_sep (Out *o)
{
  if (o->n_events++ > 0)
    out_lit (o, ",\n");
  else
    out_lit (o, "\n");
}

/* {"ph":"X","cat":"CAT","name":  (the name follows) */
static inline void
out_head (Chrome     *c,
          const char *ph_cat,
          gsize       n)
{
  out_sep (&c->o);
  out_raw (&c->o, ph_cat, n);
}

#define HEAD(c, s) out_head ((c), "" s, sizeof (s) - 1)

/* ,"pid":P,"tid":T,"ts":S,"dur":D */
static inline void
out_where (Chrome        *c,
           gint64         pid,
           gint64         tid,
           const SlEvent *ev,
           gboolean       dur)
{
  char *p = out_room (&c->o, 128), *p0 = p;
  p = PUT (p, ",\"pid\":");
  p = put_i64 (p, pid);
  p = PUT (p, ",\"tid\":");
  p = put_i64 (p, tid);
  p = PUT (p, ",\"ts\":");
  p = put_time (p, ev->start);
  if (dur)
    {
      p = PUT (p, ",\"dur\":");
      p = put_time (p, MAX (ev->end - ev->start, 0));
    }
  c->o.len += p - p0;
}

/* ---- processes and threads (M events) ---------------------------------------------------- */

static void
out_meta (Chrome     *c,
          const char *what,
          gint64      pid,
          gint64      tid,
          const char *key,
          const char *text,
          gint64      number)
{
  out_sep (&c->o);
  out_lit (&c->o, "{\"name\":");
  out_cstr (&c->o, what);
  char *p = out_room (&c->o, 128), *p0 = p;
  p = PUT (p, ",\"ph\":\"M\",\"ts\":");
  p = put_time (p, sl_trace_get_start (c->trace));
  p = PUT (p, ",\"pid\":");
  p = put_i64 (p, pid);
  p = PUT (p, ",\"tid\":");
  p = put_i64 (p, tid);
  p = PUT (p, ",\"args\":{\"");
  c->o.len += p - p0;
  out_raw (&c->o, key, strlen (key));
  out_lit (&c->o, "\":");
  if (text != NULL)
    out_cstr (&c->o, text);
  else
    {
      p = p0 = out_room (&c->o, 24);
      p = put_i64 (p, number);
      c->o.len += p - p0;
    }
  out_lit (&c->o, "}}");
}

static gboolean
is_gpu_lane (const SlLane *lane)
{
  return lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
         || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_SYNC
         || lane->kind == SL_LANE_GRAPHS;
}

static guint32
lane_device (Chrome       *c,
             const SlLane *lane)
{
  return lane->gpu >= 0 ? sl_trace_get_gpu (c->trace, lane->gpu)->device_id : 0;
}

static void
write_names (Chrome *c)
{
  SlTrace *trace = c->trace;
  guint n_threads = sl_trace_get_n_threads (trace), n_processes = sl_trace_get_n_processes (trace);
  g_autofree gboolean *thread_used = g_new0 (gboolean, n_threads + 1);
  g_autofree gboolean *process_used = g_new0 (gboolean, n_processes + 1);

  /* only the threads that have events to show (nsys lists every thread of the system) and
   * their processes */
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->thread >= 0 && (guint) lane->thread < n_threads && lane->kind != SL_LANE_SCHED
          && lane->n_events > 0)
        {
          thread_used[lane->thread] = TRUE;
          guint p = sl_trace_get_thread (trace, lane->thread)->process;
          if (p < n_processes)
            process_used[p] = TRUE;
        }
    }
  for (guint i = 0; i < n_processes; i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, i);
      if (!process_used[i])
        continue;
      out_meta (c, "process_name", p->pid, 0, "name", sl_trace_str (trace, p->name), 0);
      out_meta (c, "process_labels", p->pid, 0, "labels", "CPU", 0);
      out_meta (c, "process_sort_index", p->pid, 0, "sort_index", NULL, p->pid);
    }
  for (guint i = 0; i < n_threads; i++)
    {
      const SlThread *t = sl_trace_get_thread (trace, i);
      if (!thread_used[i])
        continue;
      if (t->name != SL_NO_STR)
        out_meta (c, "thread_name", t->pid, t->tid, "name", sl_trace_str (trace, t->name), 0);
      out_meta (c, "thread_sort_index", t->pid, t->tid, "sort_index", NULL, t->tid);
    }
  /* GPUs as Kineto shows them: a process per device, a thread per stream */
  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *g = sl_trace_get_gpu (trace, i);
      g_autofree char *label = g_strdup_printf ("GPU %u", g->device_id);
      out_meta (c, "process_name", g->device_id, 0, "name", label, 0);
      out_meta (c, "process_labels", g->device_id, 0, "labels", label, 0);
      out_meta (c, "process_sort_index", g->device_id, 0, "sort_index", NULL,
                16777216 + (gint64) g->device_id);
    }
  g_autoptr (GHashTable) streams = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          NULL);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (!is_gpu_lane (lane))
        continue;
      guint32 dev = lane_device (c, lane);
      gint64 key = (gint64) (((guint64) dev << 32) | lane->stream_id);
      if (g_hash_table_contains (streams, &key))
        continue;
      g_hash_table_add (streams, g_memdup2 (&key, sizeof key));
      g_autofree char *label = g_strdup_printf ("stream %u", lane->stream_id);
      out_meta (c, "thread_name", dev, lane->stream_id, "name", label, 0);
      out_meta (c, "thread_sort_index", dev, lane->stream_id, "sort_index", NULL,
                lane->stream_id);
    }
}

/* ---- deviceProperties ---------------------------------------------------------------------- */

static void
out_prop (Out        *o,
          const char *key,
          gint64      v,
          gboolean    last)
{
  char *p = out_room (o, strlen (key) + 32), *p0 = p;
  *p++ = '"';
  p = put_lit (p, key, strlen (key));
  p = PUT (p, "\":");
  p = put_i64 (p, v);
  if (!last)
    p = PUT (p, ", ");
  o->len += p - p0;
}

static void
write_devices (Chrome *c)
{
  SlTrace *trace = c->trace;
  gboolean first = TRUE;

  out_lit (&c->o, "  \"deviceProperties\": [");
  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *g = sl_trace_get_gpu (trace, i);
      const SlGpuLimits *l = &g->limits;
      if (!g->described && l->cc_major == 0)
        continue;
      out_cstr_raw (&c->o, first ? "\n    {" : ",\n    {");
      first = FALSE;
      out_prop (&c->o, "id", g->device_id, FALSE);
      out_lit (&c->o, "\"name\": ");
      out_str (c, g->name);
      out_lit (&c->o, ", ");
      out_prop (&c->o, "totalGlobalMem", g->total_memory, FALSE);
      out_prop (&c->o, "computeMajor", l->cc_major, FALSE);
      out_prop (&c->o, "computeMinor", l->cc_minor, FALSE);
      out_prop (&c->o, "maxThreadsPerBlock", l->max_threads_per_block, FALSE);
      out_prop (&c->o, "maxThreadsPerMultiprocessor",
                (gint64) l->max_warps_per_sm * l->warp_size, FALSE);
      out_prop (&c->o, "regsPerBlock", l->max_regs_per_block, FALSE);
      out_prop (&c->o, "regsPerMultiprocessor", l->max_regs_per_sm, FALSE);
      out_prop (&c->o, "warpSize", l->warp_size, FALSE);
      out_prop (&c->o, "sharedMemPerBlock", l->max_smem_per_block, FALSE);
      out_prop (&c->o, "sharedMemPerMultiprocessor", l->max_smem_per_sm, FALSE);
      out_prop (&c->o, "numSms", l->sm_count, FALSE);
      out_prop (&c->o, "sharedMemPerBlockOptin", l->max_smem_per_block_optin, TRUE);
      out_lit (&c->o, "}");
    }
  out_cstr_raw (&c->o, first ? "],\n" : "\n  ],\n");
}

/* ---- GPU work ------------------------------------------------------------------------------ */

static void
append_double (GString    *s,
               const char *key,
               const char *format,
               double      v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, ",\"%s\":%s", key, g_ascii_formatd (buf, sizeof buf, format, v));
}

/* ,"registers per thread":…,"est. achieved occupancy %":N  for a kernel info on a GPU */
static void
out_kernel_args (Chrome       *c,
                 const SlLane *lane,
                 guint32       aux)
{
  guint64 key = ((guint64) (guint32) lane->gpu << 32) | aux;
  gpointer found = g_hash_table_lookup (c->kernel_args, &key);
  if (found == NULL)
    {
      const SlKernelInfo *k = sl_trace_get_kernel_info (c->trace, aux);
      GString *s = c->esc;
      gsize at = s->len;
      if (k != NULL)
        {
          guint64 blocks = (guint64) k->grid[0] * k->grid[1] * k->grid[2];
          guint64 threads = (guint64) k->block[0] * k->block[1] * k->block[2];
          guint64 shared = (guint64) k->static_shared + k->dynamic_shared;
          g_string_append_printf (s, ",\"registers per thread\":%u,\"shared memory\":%"
                                  G_GUINT64_FORMAT, k->registers_per_thread, shared);
          const SlGpuLimits *l = lane->gpu >= 0 ? &sl_trace_get_gpu (c->trace, lane->gpu)->limits
                                                : NULL;
          if (l != NULL && l->sm_count > 0 && l->warp_size > 0)
            {
              double per_sm = (double) blocks / l->sm_count;
              append_double (s, "blocks per SM", "%.6f", per_sm);
              append_double (s, "warps per SM", "%.6f",
                             per_sm * (double) ((threads + l->warp_size - 1) / l->warp_size));
            }
          g_string_append_printf (s, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", k->grid[0],
                                  k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
          if (l != NULL && threads <= G_MAXINT && shared <= G_MAXINT)
            {
              SlOccupancy occ;
              sl_occupancy_compute_full (l, (gint) threads, (gint) k->registers_per_thread,
                                         (gint64) shared, SL_OCC_FLAG_NO_OPTIN, &occ);
              double est = sl_occupancy_estimated_achieved (l, &occ, (gint64) MIN (blocks,
                                                                                  G_MAXINT64),
                                                            (gint) threads);
              if (est >= 0)
                g_string_append_printf (s, ",\"est. achieved occupancy %%\":%d",
                                        (int) (0.5 + 100 * est));
            }
          /* beyond Kineto: what nsys has and the sum of "shared memory" hides */
          g_string_append_printf (s, ",\"static shared memory\":%u,\"dynamic shared memory\":%u,"
                                  "\"local memory per thread\":%u",
                                  k->static_shared, k->dynamic_shared, k->local_per_thread);
        }
      g_string_append_c (s, '}');
      /* offset + 1, length in the upper 32 bits */
      found = GSIZE_TO_POINTER (((gsize) (s->len - at) << 32) | (at + 1));
      g_hash_table_insert (c->kernel_args, g_memdup2 (&key, sizeof key), found);
    }
  gsize v = GPOINTER_TO_SIZE (found);
  out_raw (&c->o, c->esc->str + (v & 0xFFFFFFFFu) - 1, v >> 32);
}

static const char *
copy_kind_name (guint kind)
{
  static const char *const names[] = { "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                       "DtoA", "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD" };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "Unknown";
}

static const char *
mem_kind_name (guint kind)
{
  /* ENUM_CUDA_MEM_KIND in the words Kineto uses */
  static const char *const names[] = { "Pageable", "Pinned", "Device", "Array", "Managed",
                                       "Device Static", "Managed Static", "Unknown" };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "Unknown";
}

/* "Memcpy HtoD (Pageable -> Device)" or "Memset (Device)", quoted */
static void
out_copy_name (Chrome       *c,
               const SlLane *lane,
               guint32       aux)
{
  guint n = c->trace->copy_infos->len;
  if (aux >= n)
    {
      out_cstr_raw (&c->o, lane->kind == SL_LANE_MEMSET
                           ? "\"Memset (Unknown)\"" : "\"Memcpy Unknown (Unknown -> Unknown)\"");
      return;
    }
  if (c->copy_name[aux] == 0)
    {
      const SlCopyInfo *info = sl_trace_get_copy_info (c->trace, aux);
      g_autofree char *name = lane->kind == SL_LANE_MEMSET
                              ? g_strdup_printf ("Memset (%s)", mem_kind_name (info->mem_kind))
                              : g_strdup_printf ("Memcpy %s (%s -> %s)",
                                                 copy_kind_name (info->copy_kind),
                                                 mem_kind_name (info->src_kind),
                                                 mem_kind_name (info->dst_kind));
      esc_keep (c, name, &c->copy_name[aux], &c->copy_name_len[aux]);
    }
  out_raw (&c->o, c->esc->str + c->copy_name[aux] - 1, c->copy_name_len[aux]);
}

/* The launch of a GPU op, when it is kept too: then its flow pair is written. */
static void
out_flow (Chrome        *c,
          const SlEvent *ev,
          guint32        device,
          guint32        stream,
          guint64        flow_base)
{
  const SlLane *launch_lane;
  gsize at;

  if (ev->link == SL_NO_LINK || !sl_trace_resolve (c->trace, ev->link, &launch_lane, &at)
      || launch_lane->thread < 0)
    return;
  const SlEvent *launch = &launch_lane->events[at];
  if (!sl_export_keeps (launch->start, launch->end, c->t0, c->t1))
    return;
  const SlThread *t = sl_trace_get_thread (c->trace, launch_lane->thread);
  guint64 id = flow_base | ev->corr;

  out_sep (&c->o);
  char *p = out_room (&c->o, 256), *p0 = p;
  p = PUT (p, "{\"ph\":\"s\",\"id\":");
  p = put_u64 (p, id);
  p = PUT (p, ",\"pid\":");
  p = put_i64 (p, t->pid);
  p = PUT (p, ",\"tid\":");
  p = put_i64 (p, t->tid);
  p = PUT (p, ",\"ts\":");
  p = put_time (p, launch->start);
  p = PUT (p, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n{\"ph\":\"f\",\"id\":");
  p = put_u64 (p, id);
  p = PUT (p, ",\"pid\":");
  p = put_i64 (p, device);
  p = PUT (p, ",\"tid\":");
  p = put_i64 (p, stream);
  p = PUT (p, ",\"ts\":");
  p = put_time (p, ev->start);
  p = PUT (p, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
  c->o.len += p - p0;
  c->o.n_events++;
}

static void
write_gpu_lane (Chrome       *c,
                const SlLane *lane)
{
  guint32 dev = lane_device (c, lane);
  gint process = _sl_export_process_of (c->trace, c->by_gpid, lane->global_pid);
  /* correlation ids are per process: the flows of the second process on are told apart */
  guint64 flow_base = process > 0 ? (guint64) process << 32 : 0;

  for (gsize k = 0; _sl_export_next (lane, &k, c->t0, c->t1); k++)
    {
      const SlEvent *ev = &lane->events[k];
      switch (lane->kind)
        {
        case SL_LANE_KERNELS:
        case SL_LANE_GRAPHS:
          /* a graph launch is GPU work as a kernel is (Kineto has no category of its own for
           * it): read back, it keeps the GPU busy */
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":");
          out_str (c, ev->name);
          break;
        case SL_LANE_MEMCPY:
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":");
          out_copy_name (c, lane, ev->aux);
          break;
        case SL_LANE_MEMSET:
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":");
          out_copy_name (c, lane, ev->aux);
          break;
        default:
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":");
          out_str (c, ev->name);
          break;
        }
      out_where (c, dev, lane->stream_id, ev, TRUE);

      char *p = out_room (&c->o, 256), *p0 = p;
      p = PUT (p, ",\"args\":{\"device\":");
      p = put_u64 (p, dev);
      p = PUT (p, ",\"context\":");
      p = put_u64 (p, lane->context_id);
      p = PUT (p, ",\"stream\":");
      p = put_u64 (p, lane->stream_id);
      p = PUT (p, ",\"correlation\":");
      p = put_u64 (p, ev->corr);
      if (lane->kind == SL_LANE_MEMCPY || lane->kind == SL_LANE_MEMSET)
        {
          const SlCopyInfo *info = ev->aux < c->trace->copy_infos->len
                                   ? sl_trace_get_copy_info (c->trace, ev->aux) : NULL;
          guint64 bytes = info != NULL ? info->bytes : 0;
          p = PUT (p, ",\"bytes\":");
          p = put_u64 (p, bytes);
          SlTime dur = ev->end - ev->start;
          if (dur > 0 && bytes < G_MAXUINT64 / 1000)
            {
              /* bytes per ns is GB/s; three decimals, by integer arithmetic */
              guint64 milli = bytes * 1000 / (guint64) dur;
              p = PUT (p, ",\"memory bandwidth (GB/s)\":");
              p = put_u64 (p, milli / 1000);
              *p++ = '.';
              *p++ = (char) ('0' + milli % 1000 / 100);
              *p++ = (char) ('0' + milli % 100 / 10);
              *p++ = (char) ('0' + milli % 10);
            }
          if (lane->kind == SL_LANE_MEMSET && info != NULL)
            {
              p = PUT (p, ",\"value\":");
              p = put_u64 (p, info->value);
            }
          p = PUT (p, "}}");
          c->o.len += p - p0;
        }
      else if (lane->kind == SL_LANE_KERNELS)
        {
          c->o.len += p - p0;
          out_kernel_args (c, lane, ev->aux);
          out_lit (&c->o, "}");
        }
      else
        {
          p = PUT (p, ",\"sync type\":");
          p = put_u64 (p, ev->aux);
          p = PUT (p, "}}");
          c->o.len += p - p0;
        }
      out_flow (c, ev, dev, lane->stream_id, flow_base);
    }
}

/* ---- CPU lanes ----------------------------------------------------------------------------- */

/* ,"args":{"peer":P,"tag":T,"bytes":B,...}} of an MPI call: the details it has */
static void
out_mpi_args (Chrome          *c,
              const SlMpiCall *call)
{
  char *p = out_room (&c->o, 320), *p0 = p;
  guint32 f = call != NULL ? call->flags : 0;
  const char *sep = "";

#define MPI_ARG(flag, key, value)                                                                  \
  if (f & (flag))                                                                                  \
    {                                                                                              \
      p = put_lit (p, sep, strlen (sep));                                                          \
      p = PUT (p, "\"" key "\":");                                                                 \
      p = put_i64 (p, (value));                                                                    \
      sep = ",";                                                                                   \
    }
  p = PUT (p, ",\"args\":{");
  MPI_ARG (SL_MPI_HAS_PEER, "peer", call->peer);
  MPI_ARG (SL_MPI_HAS_TAG, "tag", call->tag);
  MPI_ARG (SL_MPI_HAS_SIZE, "bytes", call->size);
  MPI_ARG (SL_MPI_HAS_RECV_SIZE, "recv bytes", call->recv_size);
  MPI_ARG (SL_MPI_HAS_ROOT, "root", call->root);
  MPI_ARG (SL_MPI_HAS_COMM, "communicator", call->comm);
  MPI_ARG (SL_MPI_HAS_REQUEST, "request", call->request);
  MPI_ARG (SL_MPI_HAS_RANK, "rank", call->rank);
#undef MPI_ARG
  p = PUT (p, "}}");
  c->o.len += p - p0;
}

#define MPI_FLOW_BASE ((guint64) 1 << 52) /* past every ac2g id; JSON readers keep 2^53 exact */

/* {"ph":"s"|"f","id":ID,"pid":P,"tid":T,"ts":S,"cat":"mpi_message","name":"mpi_message"} */
static void
out_mpi_flow_end (Chrome        *c,
                  gboolean       start,
                  guint64        id,
                  const SlLane  *lane,
                  const SlEvent *ev)
{
  const SlThread *t = sl_trace_get_thread (c->trace, lane->thread);

  out_sep (&c->o);
  char *p = out_room (&c->o, 200), *p0 = p;
  if (start)
    p = PUT (p, "{\"ph\":\"s\",\"id\":");
  else
    p = PUT (p, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":");
  p = put_u64 (p, id);
  p = PUT (p, ",\"pid\":");
  p = put_i64 (p, t->pid);
  p = PUT (p, ",\"tid\":");
  p = put_i64 (p, t->tid);
  p = PUT (p, ",\"ts\":");
  p = put_time (p, ev->start);
  p = PUT (p, ",\"cat\":\"mpi_message\",\"name\":\"mpi_message\"}");
  c->o.len += p - p0;
}

/* An arrow for each message whose send and receive are both kept */
static void
write_mpi_flows (Chrome *c)
{
  gboolean any = FALSE;

  for (guint i = 0; i < sl_trace_get_n_lanes (c->trace) && !any; i++)
    any = sl_trace_get_lane (c->trace, i)->kind == SL_LANE_MPI;
  if (!any)
    return;
  const SlMpiMessages *msgs = sl_trace_get_mpi_messages (c->trace);
  for (gsize i = 0; i < msgs->n_messages && !c->o.failed; i++)
    {
      const SlMpiMessage *m = &msgs->messages[i];
      if (m->send.lane < 0 || m->recv.lane < 0)
        continue;
      const SlLane *sl = sl_trace_get_lane (c->trace, (guint) m->send.lane);
      const SlLane *rl = sl_trace_get_lane (c->trace, (guint) m->recv.lane);
      if (sl->thread < 0 || rl->thread < 0 || m->send.index >= sl->n_events
          || m->recv.index >= rl->n_events)
        continue;
      const SlEvent *send = &sl->events[m->send.index], *recv = &rl->events[m->recv.index];
      if (!sl_export_keeps (send->start, send->end, c->t0, c->t1)
          || !sl_export_keeps (recv->start, recv->end, c->t0, c->t1))
        continue;
      out_mpi_flow_end (c, TRUE, MPI_FLOW_BASE + i, sl, send);
      out_mpi_flow_end (c, FALSE, MPI_FLOW_BASE + i, rl, recv);
    }
}


/* NVTX domains that are Kineto categories keep them (a Kineto trace read back); others are
 * user annotations with the domain in args. */
static gboolean
is_kineto_category (const char *domain)
{
  static const char *const cats[] = { "cpu_op", "user_annotation", "python_function",
                                      "cpu_instant_event", "overhead", "cuda_profiler_range",
                                      "gpu_user_annotation" };
  for (guint i = 0; i < G_N_ELEMENTS (cats); i++)
    if (g_ascii_strcasecmp (domain, cats[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
write_cpu_lane (Chrome       *c,
                const SlLane *lane)
{
  const SlThread *t = sl_trace_get_thread (c->trace, lane->thread);

  for (gsize k = 0; _sl_export_next (lane, &k, c->t0, c->t1); k++)
    {
      const SlEvent *ev = &lane->events[k];
      switch (lane->kind)
        {
        case SL_LANE_CUDA_API:
          if ((ev->aux & 0xFF) == 1)
            HEAD (c, "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":");
          else
            HEAD (c, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":");
          out_str (c, ev->name);
          out_where (c, t->pid, t->tid, ev, TRUE);
          {
            char *p = out_room (&c->o, 64), *p0 = p;
            p = PUT (p, ",\"args\":{\"correlation\":");
            p = put_u64 (p, ev->corr);
            p = PUT (p, "}}");
            c->o.len += p - p0;
          }
          break;
        case SL_LANE_NVTX:
          {
            const char *domain = ev->corr != SL_NO_STR ? sl_trace_str (c->trace, ev->corr) : "";
            gboolean kineto = *domain != '\0' && is_kineto_category (domain);
            gboolean mark = (ev->link & SL_NVTX_MARK) != 0;
            out_sep (&c->o);
            out_lit (&c->o, "{\"ph\":");
            if (mark)
              out_lit (&c->o, "\"i\",\"s\":\"t\"");
            else
              out_lit (&c->o, "\"X\"");
            out_lit (&c->o, ",\"cat\":");
            if (kineto)
              out_str (c, ev->corr);
            else
              out_lit (&c->o, "\"user_annotation\"");
            out_lit (&c->o, ",\"name\":");
            out_str (c, ev->name);
            out_where (c, t->pid, t->tid, ev, !mark);
            if (*domain != '\0' && !kineto)
              {
                out_lit (&c->o, ",\"args\":{\"domain\":");
                out_str (c, ev->corr);
                out_lit (&c->o, "}");
              }
            out_lit (&c->o, "}");
          }
          break;
        case SL_LANE_OSRT:
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"os_runtime\",\"name\":");
          out_str (c, ev->name);
          out_where (c, t->pid, t->tid, ev, TRUE);
          out_lit (&c->o, "}");
          break;
        case SL_LANE_SAMPLES:
          {
            const guint32 *syms, *mods;
            guint n = ev->aux != G_MAXUINT32
                      ? sl_trace_get_callchain (c->trace, ev->aux, &syms, &mods) : 0;
            HEAD (c, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_sample\",\"name\":");
            out_str (c, ev->name);
            out_where (c, t->pid, t->tid, ev, FALSE);
            out_lit (&c->o, ",\"args\":{\"stack\":[");
            for (guint f = 0; f < n; f++)
              {
                if (f > 0)
                  out_lit (&c->o, ",");
                out_str (c, syms[f]);
              }
            out_lit (&c->o, "]}}");
          }
          break;
        case SL_LANE_MPI:
          if (SL_MPI_SOURCE_OF (ev->aux) == SL_MPI_NVTX)
            break; /* the NVTX range it is, written with its lane */
          HEAD (c, "{\"ph\":\"X\",\"cat\":\"mpi\",\"name\":");
          out_str (c, ev->name);
          out_where (c, t->pid, t->tid, ev, TRUE);
          out_mpi_args (c, sl_trace_get_mpi_call (c->trace, lane, ev));
          break;
        default:
          return;
        }
    }
}

/* ---- the file ------------------------------------------------------------------------------ */

static void
write_trace (Chrome *c)
{
  SlTrace *trace = c->trace;

  out_lit (&c->o, "{\n  \"schemaVersion\": 1,\n");
  write_devices (c);
  out_lit (&c->o, "  \"traceEvents\": [");
  write_names (c);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && !c->o.failed; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (is_gpu_lane (lane))
        write_gpu_lane (c, lane);
      else if (lane->thread >= 0 && lane->kind != SL_LANE_SCHED)
        write_cpu_lane (c, lane);
    }
  write_mpi_flows (c);
  out_lit (&c->o, "\n  ],\n  \"traceName\": ");
  out_cstr (&c->o, sl_trace_get_path (trace) != NULL ? sl_trace_get_path (trace) : "");
  out_lit (&c->o, ",\n  \"displayTimeUnit\": \"ns\"\n}\n");
}

gboolean
sl_export_chrome (SlTrace     *trace,
                  const char  *path,
                  SlTime       t0,
                  SlTime       t1,
                  GError     **error)
{
  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  g_autofree char *part = NULL;
  g_autofree char *target = _sl_export_target (path, &part, error);
  Chrome c = { 0 };
  gboolean gz = g_str_has_suffix (path, ".gz");

  if (target == NULL)
    return FALSE;
  int fd = g_open (part != NULL ? part : target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      _sl_export_set_error (error, path, NULL, errno);
      return FALSE;
    }
  if (gz)
    c.o.gz = gzdopen (fd, "wb1");
  else
    c.o.file = fdopen (fd, "wb");
  if (c.o.gz == NULL && c.o.file == NULL)
    {
      int errsv = errno;
      close (fd);
      if (part != NULL)
        g_unlink (part);
      _sl_export_set_error (error, path, NULL, errsv);
      return FALSE;
    }

  c.trace = trace;
  c.t0 = t0;
  c.t1 = t1;
  c.o.cap = OUT_SIZE;
  c.o.buf = g_malloc (c.o.cap);
  c.esc = g_string_sized_new (1 << 16);
  c.n_strs = sl_trace_get_n_strs (trace);
  c.esc_off = g_new0 (guint32, MAX (c.n_strs, 1));
  c.esc_len = g_new0 (guint32, MAX (c.n_strs, 1));
  c.by_gpid = _sl_export_process_index (trace);
  c.kernel_args = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c.copy_name = g_new0 (guint32, trace->copy_infos->len + 1);
  c.copy_name_len = g_new0 (guint32, trace->copy_infos->len + 1);

  write_trace (&c);
  out_flush (&c.o);

  if (c.o.gz != NULL)
    {
      int rc = gzclose (c.o.gz);
      if (rc != Z_OK && !c.o.failed)
        {
          c.o.failed = TRUE;
          c.o.errsv = rc == Z_ERRNO ? errno : 0;
          if (rc != Z_ERRNO)
            g_strlcpy (c.o.what, "the gzip stream could not be completed", sizeof c.o.what);
        }
    }
  else if (fclose (c.o.file) != 0 && !c.o.failed)
    {
      c.o.failed = TRUE;
      c.o.errsv = errno;
    }

  g_free (c.o.buf);
  g_string_free (c.esc, TRUE);
  g_free (c.esc_off);
  g_free (c.esc_len);
  g_hash_table_unref (c.by_gpid);
  g_hash_table_unref (c.kernel_args);
  g_free (c.copy_name);
  g_free (c.copy_name_len);

  if (c.o.failed)
    {
      if (part != NULL)
        g_unlink (part);
      _sl_export_set_error (error, path, c.o.what[0] != '\0' ? c.o.what : NULL, c.o.errsv);
      return FALSE;
    }
  return _sl_export_finish (part, target, error);
}
