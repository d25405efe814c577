/* sl-trace-cache.c: the built model of a trace file kept on disk, so that reopening it is fast.
 *
 * A 10^8-event nsys export takes over a minute to load (SQL, sorting, linking, indexing); the
 * model it becomes is mostly flat arrays, so it is written once as they are and read back by
 * mapping the file: the small tables are copied out, the events stay in the mapping (see
 * SlEventsMap).  The cache lives in $XDG_CACHE_HOME/sightline (~/.cache/sightline), one file per
 * source, named by a hash of the source's canonical path.
 *
 * Nothing read back is trusted.  The file starts with a header that says which build wrote it
 * (magic, format version, byte order, the size of every struct stored raw) and which source it
 * was built from (canonical path, size, mtime and ctime in ns, inode, device); a 64-bit hash
 * covers the header and another the rest.  A header that differs, a size that is not the one the
 * header states, or a hash that does not match makes the file ignored and deleted.  Then every
 * count is checked against the bytes left before it is allocated, and every string id, index and
 * link against the tables it points into, as the SQLite reader checks a file: a file made to
 * pass the hashes must still not make the model read out of bounds.
 *
 * What the trace holds, and whether it is stored or rebuilt here:
 *   path                     the path asked for (as a fresh load keeps it)
 *   schema, start … world_size:  schema, rank, world_size, is_json stored; start, end and
 *                            n_events rebuilt from the lanes (_sl_trace_index_lanes)
 *   warnings                 stored (those of the first load, link warnings included)
 *   chunk, strs, str_bytes   stored as one blob of NUL-terminated strings, copied into the chunk
 *   str_ids                  empty, as after a fresh load (_sl_trace_finish empties it)
 *   processes, threads, gpus stored raw (GPU limits already completed)
 *   lanes                    stored: kind, thread, gpu, pid, context, green context, stream,
 *                            depth, label, source and the events, raw (32 bytes each, already
 *                            sorted and linked; used in place, events_map holds the mapping);
 *                            rebuilt: index, base, max_end/max_level,
 *                            busy, busy_prefix, lod/n_lod/lod_origin (one pass each over the
 *                            events, cheaper to redo than to check, see below)
 *   kernel_infos, copy_infos, chain_offsets/symbols/modules, osrt_chains, cuda_chains,
 *   cuda_events, event_waits, diagnostics, um_faults:  raw
 *   event_links, um_fault_index  built on first use, as after a fresh load
 *   enum_labels              stored as (enum, value, string id)
 *   gpu_busy                 rebuilt (_sl_gpu_busy_build)
 *   table_reads              stored (counts, table name, why not read)
 *   nvtx_proj, sources       built on first use, as after a fresh load
 *   ref_count, lock          new
 *
 * Sizes: the events are 32 bytes each and everything else is small beside them, so a file is
 * ~33 bytes an event.  Rebuilding the derived arrays costs a few passes over the events (10^7
 * events: ~0.04 s for the trees, busy sums and LOD, ~0.1 s for the GPU unions, of a ~0.6 s
 * cached load; bench/bench-cache.c); storing them would add ~3 … 11 bytes an event and need
 * checking about as long, since a level-of-detail bucket or an interval-tree node read back is
 * an index into the events.
 */
#include "sl-mpi.h"
#include "sl-openmp.h"
#include "sl-trace-private.h"
#include "sl-occupancy.h"
#include "sl-reader-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC   "SLCACHE1"
#define CACHE_VERSION 13  /* 2: an NVTX event's link holds its NVTX_EVENTS rowid (issue 29);
                           * 3: CUDA API calls' backtraces (issue 30);
                           * 4: CUDA event records and waits (issue 30; their sizes are
                           * asserted in sl-trace-private.h);
                           * 5: where CUDA graphs and nodes were made (issue 30);
                           * 6: GPU memory allocated and freed (issue 31);
                           * 7: a copy's unified-memory migration cause (issue 31);
                           * 8: GPU metrics, their series and samples (issue 31);
                           * 9: a migration's virtual address in its copy info (issue 31);
                           * 10: unified memory's GPU and CPU page faults (issue 31);
                           * 11: a CPU page fault's instruction and source line (issue 31);
                           * 12: MPI lanes and their calls' details (issue 33);
                           * 13: OpenMP and OpenACC lanes and their events' details (issue 33) */
#define CACHE_ORDER   G_GUINT64_CONSTANT (0x0102030405060708)
#define CACHE_SUFFIX  ".slcache"
#define CACHE_TMP     ".slcache-tmp"
/* defaults of SIGHTLINE_CACHE_MAX and SIGHTLINE_CACHE_MIN_MS */
#define CACHE_MAX_DEFAULT    (G_GUINT64_CONSTANT (4) << 30)
#define CACHE_MIN_MS_DEFAULT 500

/* ---- a 64-bit hash, in the manner of xxHash64: four lanes over 32-byte blocks, ~10 GB/s, so
 * checking a file of 10^7 events (320 MB) costs ~30 ms ---------------------------------------- */

#define P1 G_GUINT64_CONSTANT (11400714785074694791)
#define P2 G_GUINT64_CONSTANT (14029467366897019519)
#define P3 G_GUINT64_CONSTANT (1609587929392839161)
#define P4 G_GUINT64_CONSTANT (9650029242287828579)
#define P5 G_GUINT64_CONSTANT (2870177450012600261)

typedef struct
{
  guint64 v[4];
  guint8  buf[32];
  gsize   fill;
  guint64 total;
} Hash;

static inline guint64
rotl64 (guint64 x,
        int     r)
{
  return (x << r) | (x >> (64 - r));
}

static inline guint64
hash_round (guint64 acc,
            guint64 in)
{
  return rotl64 (acc + in * P2, 31) * P1;
}

static inline guint64
read64 (const guint8 *p)
{
  guint64 x;
  memcpy (&x, p, 8);
  return x;
}

static void
hash_init (Hash *h)
{
  memset (h, 0, sizeof *h);
  h->v[0] = P1 + P2;
  h->v[1] = P2;
  h->v[2] = 0;
  h->v[3] = -P1;
}

static void
hash_blocks (Hash         *h,
             const guint8 *p,
             gsize         n_blocks)
{
  guint64 a = h->v[0], b = h->v[1], c = h->v[2], d = h->v[3];

  for (gsize i = 0; i < n_blocks; i++, p += 32)
    {
      a = hash_round (a, read64 (p));
      b = hash_round (b, read64 (p + 8));
      c = hash_round (c, read64 (p + 16));
      d = hash_round (d, read64 (p + 24));
    }
  h->v[0] = a;
  h->v[1] = b;
  h->v[2] = c;
  h->v[3] = d;
}

static void
hash_update (Hash       *h,
             const void *data,
             gsize       n)
{
  const guint8 *p = data;

  h->total += n;
  if (h->fill > 0)
    {
      gsize take = MIN (n, 32 - h->fill);
      memcpy (h->buf + h->fill, p, take);
      h->fill += take;
      p += take;
      n -= take;
      if (h->fill < 32)
        return;
      hash_blocks (h, h->buf, 1);
      h->fill = 0;
    }
  hash_blocks (h, p, n / 32);
  p += n / 32 * 32;
  n %= 32;
  memcpy (h->buf, p, n);
  h->fill = n;
}

static guint64
hash_final (const Hash *h)
{
  guint64 acc = rotl64 (h->v[0], 1) + rotl64 (h->v[1], 7) + rotl64 (h->v[2], 12)
                + rotl64 (h->v[3], 18);
  gsize i = 0;

  for (guint k = 0; k < 4; k++)
    acc = (acc ^ hash_round (0, h->v[k])) * P1 + P4;
  acc += h->total;
  for (; i + 8 <= h->fill; i += 8)
    acc = rotl64 (acc ^ hash_round (0, read64 (h->buf + i)), 27) * P1 + P4;
  for (; i < h->fill; i++)
    acc = rotl64 (acc ^ (h->buf[i] * P5), 11) * P1;
  acc ^= acc >> 33;
  acc *= P2;
  acc ^= acc >> 29;
  acc *= P3;
  acc ^= acc >> 32;
  return acc;
}

guint64
_sl_trace_cache_hash (const void *data,
                      gsize       n)
{
  Hash h;

  hash_init (&h);
  hash_update (&h, data, n);
  return hash_final (&h);
}

/* ---- the file: a header, the canonical source path, then sections in a fixed order ---------- */

typedef struct
{
  char    magic[8];
  guint64 order;          /* CACHE_ORDER: another byte order reads another number */
  guint32 version;
  guint32 n_sizes;
  guint32 sizes[12];      /* of every struct stored raw: another layout is another build */
  guint64 src_size;
  guint64 src_mtime_ns;
  guint64 src_ctime_ns;
  guint64 src_ino;
  guint64 src_dev;
  guint64 file_size;      /* of the whole cache file */
  guint64 payload_hash;   /* of everything after the path */
  guint32 path_len;       /* bytes of the canonical path after the header, then zeros to 8 */
  guint32 flags;          /* the SlLoadFlags of the load */
  guint64 header_hash;    /* of this header, with this field 0, and the path */
} CacheHeader;

G_STATIC_ASSERT (sizeof (CacheHeader) == 144);

enum
{
  SEC_META = 1,
  SEC_STRS,
  SEC_SCHEMA,
  SEC_WARNINGS,
  SEC_TABLES,
  SEC_TABLE_NAMES,
  SEC_PROCESSES,
  SEC_THREADS,
  SEC_GPUS,
  SEC_KERNEL_INFOS,
  SEC_COPY_INFOS,
  SEC_CHAIN_OFFSETS,
  SEC_CHAIN_SYMBOLS,
  SEC_CHAIN_MODULES,
  SEC_OSRT_CHAINS,
  SEC_ENUMS,
  SEC_DIAGNOSTICS,
  SEC_LANES,
  SEC_EVENTS,
  SEC_CUDA_CHAINS,   /* written after SEC_OSRT_CHAINS: tags name sections, not their order */
  SEC_CUDA_EVENTS,   /* CUDA event records and waits: after SEC_CUDA_CHAINS */
  SEC_EVENT_WAITS,
  SEC_GRAPH_MADE,    /* CUDA_GRAPH_EVENTS and CUDA_GRAPH_NODE_EVENTS rows */
  SEC_MEM_USAGE,     /* CUDA_GPU_MEMORY_USAGE_EVENTS rows */
  SEC_METRIC_SERIES, /* GPU_METRICS: SlMetricSeries, then their samples' times and values */
  SEC_METRIC_TIMES,
  SEC_METRIC_VALUES,
  SEC_UM_FAULTS,     /* CUDA_UM_{GPU,CPU}_PAGE_FAULT_EVENTS rows */
  SEC_MPI_CALLS,     /* SlMpiCall: the details of the MPI lanes' calls */
  SEC_OMP_EVENTS,    /* SlOmpEvent: the details of the OpenMP and OpenACC lanes' events */
};

/* Each section: this, `count` elements of `elem` bytes, zeros to a multiple of 8. */
typedef struct
{
  guint32 tag;
  guint32 elem;
  guint64 count;
} SectionHead;

typedef struct
{
  gint64  rank;
  gint64  world_size;
  guint32 is_json;
  guint32 has_schema;
  guint32 n_strs;
  guint32 n_warnings;
} CacheMeta;

typedef struct
{
  guint64 rows, null_time, bad_type, null_owner, not_events, bad_range, bad_order;
  guint32 has_not_read;   /* its two strings are in SEC_TABLE_NAMES: table, then why ("") */
  guint32 pad;
} CacheTable;

typedef struct
{
  gint64  value;
  guint32 which;
  guint32 str;
} CacheEnum;

typedef struct
{
  guint64 global_pid;
  guint64 n_events;
  gint32  thread;
  gint32  gpu;
  guint32 kind;
  guint32 context_id;
  guint32 green_context_id;
  guint32 stream_id;
  guint32 depth;
  guint32 label;
  guint32 source;
  guint32 pad;
} CacheLane;

static void
header_sizes (guint32 sizes[12])
{
  const guint32 s[12] = {
    sizeof (SlEvent), sizeof (SlProcess), sizeof (SlThread), sizeof (SlGpu),
    sizeof (SlKernelInfo), sizeof (SlCopyInfo), sizeof (SlDiagnostic), sizeof (SlChainId),
    sizeof (CacheMeta), sizeof (CacheTable), sizeof (CacheLane), sizeof (CacheEnum),
  };
  memcpy (sizes, s, sizeof s);
}

/* ---- settings and statistics ----------------------------------------------------------------- */

static SlCacheStats stats;
G_LOCK_DEFINE_STATIC (stats);

#define COUNT(field) G_STMT_START { G_LOCK (stats); stats.field++; G_UNLOCK (stats); } G_STMT_END

void
_sl_trace_cache_get_stats (SlCacheStats *out)
{
  G_LOCK (stats);
  *out = stats;
  G_UNLOCK (stats);
}

static gboolean
cache_enabled (void)
{
  const char *v = g_getenv ("SIGHTLINE_CACHE");
  return v == NULL || strcmp (v, "0") != 0;
}

static guint64
env_u64 (const char *name,
         guint64     fallback)
{
  const char *v = g_getenv (name);
  guint64 x;

  if (v == NULL || !g_ascii_string_to_unsigned (v, 10, 0, G_MAXUINT64, &x, NULL))
    return fallback;
  return x;
}

/* $XDG_CACHE_HOME read each time, not through g_get_user_cache_dir (), which keeps its first
 * answer for the life of the process. */
char *
_sl_trace_cache_dir (void)
{
  const char *xdg = g_getenv ("XDG_CACHE_HOME");

  if (xdg != NULL && g_path_is_absolute (xdg))
    return g_build_filename (xdg, "sightline", NULL);
  return g_build_filename (g_get_user_cache_dir (), "sightline", NULL);
}

static gboolean
key_stat (SlCacheKey *key,
          const char *path)
{
  struct stat st;

  if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  key->size = st.st_size;
  key->mtime_ns = (guint64) st.st_mtim.tv_sec * G_GUINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  key->ctime_ns = (guint64) st.st_ctim.tv_sec * G_GUINT64_CONSTANT (1000000000) + st.st_ctim.tv_nsec;
  key->ino = st.st_ino;
  key->dev = st.st_dev;
  return TRUE;
}

static gboolean
key_make (SlCacheKey *key,
          const char *path)
{
  char *canonical;

  memset (key, 0, sizeof *key);
  if (!cache_enabled () || (canonical = realpath (path, NULL)) == NULL)
    return FALSE;
  key->canonical = g_strdup (canonical);
  free (canonical);
  if (strlen (key->canonical) > 65536 || !key_stat (key, key->canonical))
    {
      _sl_cache_key_clear (key);
      return FALSE;
    }
  g_autofree char *dir = _sl_trace_cache_dir ();
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key->canonical, -1);
  digest[32] = '\0';
  g_autofree char *name = g_strconcat (digest, CACHE_SUFFIX, NULL);
  key->file = g_build_filename (dir, name, NULL);
  return TRUE;
}

void
_sl_cache_key_clear (SlCacheKey *key)
{
  g_clear_pointer (&key->canonical, g_free);
  g_clear_pointer (&key->file, g_free);
}

/* ---- writing --------------------------------------------------------------------------------- */

typedef struct
{
  FILE    *f;
  Hash     hash;
  guint64  bytes;
  gboolean failed;
} Writer;

static void
w_bytes (Writer     *w,
         const void *data,
         gsize       n)
{
  if (w->failed || n == 0)
    return;
  if (fwrite (data, 1, n, w->f) != n)
    w->failed = TRUE;
  hash_update (&w->hash, data, n);
  w->bytes += n;
}

static void
w_pad (Writer *w)
{
  static const guint8 zeros[8] = { 0 };
  if (w->bytes % 8 != 0)
    w_bytes (w, zeros, 8 - w->bytes % 8);
}

static void
w_head (Writer  *w,
        guint32  tag,
        guint32  elem,
        guint64  count)
{
  SectionHead head = { tag, elem, count };
  w_bytes (w, &head, sizeof head);
}

static void
w_section (Writer     *w,
           guint32     tag,
           guint32     elem,
           guint64     count,
           const void *data)
{
  w_head (w, tag, elem, count);
  w_bytes (w, data, elem * count);
  w_pad (w);
}

static void
w_array (Writer  *w,
         guint32  tag,
         GArray  *array)
{
  w_section (w, tag, g_array_get_element_size (array), array->len, array->data);
}

/* Strings as one blob, each NUL-terminated. */
static void
w_strings (Writer     *w,
           guint32     tag,
           GPtrArray  *strs,
           guint       n)
{
  g_autoptr (GString) blob = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_len (blob, g_ptr_array_index (strs, i),
                         strlen (g_ptr_array_index (strs, i)) + 1);
  w_section (w, tag, 1, blob->len, blob->str);
}

static void
write_payload (Writer  *w,
               SlTrace *trace)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) tables = g_array_new (FALSE, TRUE, sizeof (CacheTable));
  g_autoptr (GArray) enums = g_array_new (FALSE, TRUE, sizeof (CacheEnum));
  g_autoptr (GArray) lanes = g_array_new (FALSE, TRUE, sizeof (CacheLane));
  guint n_warnings = trace->warnings->len;
  guint64 n_events = 0;

  /* sl_trace_get_warnings leaves a NULL at the end */
  if (n_warnings > 0 && g_ptr_array_index (trace->warnings, n_warnings - 1) == NULL)
    n_warnings--;
  CacheMeta meta = { trace->rank, trace->world_size, trace->is_json != FALSE,
                     trace->schema != NULL, trace->strs->len, n_warnings };
  w_section (w, SEC_META, sizeof meta, 1, &meta);
  w_strings (w, SEC_STRS, trace->strs, trace->strs->len);
  w_section (w, SEC_SCHEMA, 1, trace->schema != NULL ? strlen (trace->schema) + 1 : 0,
             trace->schema);
  w_strings (w, SEC_WARNINGS, trace->warnings, n_warnings);

  for (guint i = 0; i < trace->table_reads->len; i++)
    {
      const SlTableRead *r = &g_array_index (trace->table_reads, SlTableRead, i);
      CacheTable t = { r->rows, r->null_time, r->bad_type, r->null_owner, r->not_events,
                       r->bad_range, r->bad_order, r->not_read != NULL, 0 };
      g_array_append_val (tables, t);
      g_ptr_array_add (names, r->table != NULL ? r->table : (char *) "");
      g_ptr_array_add (names, (char *) (r->not_read != NULL ? r->not_read : ""));
    }
  w_array (w, SEC_TABLES, tables);
  w_strings (w, SEC_TABLE_NAMES, names, names->len);

  w_array (w, SEC_PROCESSES, trace->processes);
  w_array (w, SEC_THREADS, trace->threads);
  w_array (w, SEC_GPUS, trace->gpus);
  w_array (w, SEC_KERNEL_INFOS, trace->kernel_infos);
  w_array (w, SEC_COPY_INFOS, trace->copy_infos);
  w_array (w, SEC_CHAIN_OFFSETS, trace->chain_offsets);
  w_array (w, SEC_CHAIN_SYMBOLS, trace->chain_symbols);
  w_array (w, SEC_CHAIN_MODULES, trace->chain_modules);
  w_array (w, SEC_OSRT_CHAINS, trace->osrt_chains);
  w_array (w, SEC_CUDA_CHAINS, trace->cuda_chains);
  w_array (w, SEC_CUDA_EVENTS, trace->cuda_events);
  w_array (w, SEC_EVENT_WAITS, trace->event_waits);
  w_array (w, SEC_GRAPH_MADE, trace->graph_made);
  w_array (w, SEC_MEM_USAGE, trace->mem_usage);
  w_array (w, SEC_METRIC_SERIES, trace->metric_series);
  w_array (w, SEC_METRIC_TIMES, trace->metric_times);
  w_array (w, SEC_METRIC_VALUES, trace->metric_values);
  w_array (w, SEC_UM_FAULTS, trace->um_faults);
  {
    g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (SlMpiCall));
    w_array (w, SEC_MPI_CALLS, trace->mpi_calls != NULL ? trace->mpi_calls : none);
    g_autoptr (GArray) no_omp = g_array_new (FALSE, FALSE, sizeof (SlOmpEvent));
    w_array (w, SEC_OMP_EVENTS, trace->omp_events != NULL ? trace->omp_events : no_omp);
  }

  /* enum labels point into the chunk at interned strings: store their ids */
  gboolean any_enum = FALSE;
  for (guint e = 0; e < SL_N_ENUMS; e++)
    any_enum |= g_hash_table_size (trace->enum_labels[e]) > 0;
  if (any_enum)
    {
      g_autoptr (GHashTable) ids = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < trace->strs->len; i++)
        g_hash_table_insert (ids, g_ptr_array_index (trace->strs, i), GUINT_TO_POINTER (i + 1));
      for (guint e = 0; e < SL_N_ENUMS; e++)
        {
          GHashTableIter iter;
          gpointer k, v;
          g_hash_table_iter_init (&iter, trace->enum_labels[e]);
          while (g_hash_table_iter_next (&iter, &k, &v))
            {
              guint id = GPOINTER_TO_UINT (g_hash_table_lookup (ids, v));
              if (id == 0)
                {
                  w->failed = TRUE;   /* a label that is not a string of the trace */
                  return;
                }
              CacheEnum ce = { *(const gint64 *) k, e, id - 1 };
              g_array_append_val (enums, ce);
            }
        }
    }
  w_array (w, SEC_ENUMS, enums);
  w_array (w, SEC_DIAGNOSTICS, trace->diagnostics);

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *l = g_ptr_array_index (trace->lanes, i);
      CacheLane cl = { l->global_pid, l->n_events, l->thread, l->gpu, l->kind, l->context_id,
                       l->green_context_id, l->stream_id, l->depth, l->label, l->source, 0 };
      g_array_append_val (lanes, cl);
      n_events += l->n_events;
    }
  w_array (w, SEC_LANES, lanes);
  w_head (w, SEC_EVENTS, sizeof (SlEvent), n_events);
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *l = g_ptr_array_index (trace->lanes, i);
      w_bytes (w, l->events, l->n_events * sizeof (SlEvent));
    }
}

typedef struct
{
  char   *name;
  guint64 size;
  gint64  mtime;   /* ns */
} CacheEntry;

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const CacheEntry *x = a, *y = b;
  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static void
entry_clear (gpointer p)
{
  g_free (((CacheEntry *) p)->name);
}

/* Deletes the least recently used files (by mtime: a hit touches its file) until the folder holds
 * at most `max` bytes, and temporary files of writers that died an hour ago or more. */
static void
evict (const char *dir,
       guint64     max)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GArray) entries = g_array_new (FALSE, TRUE, sizeof (CacheEntry));
  const char *name;
  guint64 total = 0;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;

  g_array_set_clear_func (entries, entry_clear);
  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      struct stat st;
      if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      if (g_str_has_suffix (name, CACHE_TMP))
        {
          if (now - st.st_mtime > 3600)
            g_unlink (path);
          continue;
        }
      if (!g_str_has_suffix (name, CACHE_SUFFIX))
        continue;
      CacheEntry e = { g_steal_pointer (&path), st.st_size,
                       st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec };
      g_array_append_val (entries, e);
      total += st.st_size;
    }
  g_array_sort (entries, compare_entries);
  for (guint i = 0; i < entries->len && total > max; i++)
    {
      const CacheEntry *e = &g_array_index (entries, CacheEntry, i);
      if (g_unlink (e->name) == 0)
        {
          total -= e->size;
          COUNT (evicted);
        }
    }
}

void
_sl_trace_cache_store (SlTrace          *trace,
                       const SlCacheKey *key,
                       gint64            load_us)
{
  guint64 max = env_u64 ("SIGHTLINE_CACHE_MAX", CACHE_MAX_DEFAULT);
  guint64 min_ms = env_u64 ("SIGHTLINE_CACHE_MIN_MS", CACHE_MIN_MS_DEFAULT);
  SlCacheKey now = { 0 };
  guint64 estimate = 0;

  g_return_if_fail (trace != NULL && key != NULL);
  if (key->canonical == NULL || !cache_enabled () || (guint64) MAX (load_us, 0) < min_ms * 1000)
    return;
  /* links are global ids, which the cache numbers densely (a live trace keeps room) */
  if (trace->n_ids != trace->n_events)
    return;
  /* changed while it was read: what was read may be neither the old file nor the new */
  if (!key_stat (&now, key->canonical) || now.size != key->size || now.mtime_ns != key->mtime_ns
      || now.ctime_ns != key->ctime_ns || now.ino != key->ino || now.dev != key->dev)
    return;
  for (guint i = 0; i < trace->lanes->len; i++)
    estimate += ((SlLane *) g_ptr_array_index (trace->lanes, i))->n_events * sizeof (SlEvent);
  if (estimate + trace->str_bytes > max)
    return;

  g_autofree char *dir = g_path_get_dirname (key->file);
  g_autofree char *tmp = g_strconcat (key->file, ".XXXXXX" CACHE_TMP, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return;
  int fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  Writer w = { .f = fdopen (fd, "w+b") };
  if (w.f == NULL)
    {
      close (fd);
      g_unlink (tmp);
      return;
    }
  setvbuf (w.f, NULL, _IOFBF, 1 << 20);

  /* the header is written last, once the sizes and the hash are known */
  CacheHeader h = { .version = 0 };
  gsize path_len = strlen (key->canonical);
  gsize path_pad = (8 - path_len % 8) % 8;
  static const guint8 zeros[8] = { 0 };
  if (fwrite (&h, sizeof h, 1, w.f) != 1 || fwrite (key->canonical, 1, path_len, w.f) != path_len
      || fwrite (zeros, 1, path_pad, w.f) != path_pad)
    w.failed = TRUE;
  hash_init (&w.hash);
  write_payload (&w, trace);

  memcpy (h.magic, CACHE_MAGIC, 8);
  h.order = CACHE_ORDER;
  h.version = CACHE_VERSION;
  h.n_sizes = 12;
  header_sizes (h.sizes);
  h.src_size = key->size;
  h.src_mtime_ns = key->mtime_ns;
  h.src_ctime_ns = key->ctime_ns;
  h.src_ino = key->ino;
  h.src_dev = key->dev;
  h.file_size = sizeof h + path_len + path_pad + w.bytes;
  h.payload_hash = hash_final (&w.hash);
  h.path_len = path_len;
  h.flags = SL_LOAD_ALL;
  Hash hh;
  hash_init (&hh);
  hash_update (&hh, &h, sizeof h);
  hash_update (&hh, key->canonical, path_len);
  h.header_hash = hash_final (&hh);
  if (!w.failed && (fflush (w.f) != 0 || fseek (w.f, 0, SEEK_SET) != 0
                    || fwrite (&h, sizeof h, 1, w.f) != 1))
    w.failed = TRUE;
  if (fclose (w.f) != 0)
    w.failed = TRUE;
  /* rename() is atomic: a reader sees the old file or the whole new one, never half of one */
  if (w.failed || g_rename (tmp, key->file) != 0)
    {
      g_unlink (tmp);
      return;
    }
  COUNT (stores);
  evict (dir, max);
}

/* ---- reading --------------------------------------------------------------------------------- */

/* The cache file, mapped: the events of its lanes stay in the mapping (MAP_PRIVATE: a lane written
 * to, as a merge shifts times, gets its own copy of the pages it writes), each lane holding a
 * reference.  Copying them out instead cost most of a cached load: on the VM this was measured on,
 * the first touch of new memory ran at ~0.3 GB/s, 1.0 s for the 320 MB of 10^7 events against
 * ~0.05 s to map and hash the file's pages from the page cache.  The file is only ever replaced
 * whole (rename) or unlinked, which leaves a mapping of the old one intact; only someone writing
 * into the user's cache file in place could change the pages under a loaded trace. */
struct _SlEventsMap
{
  gint   ref_count;
  void  *addr;
  gsize  len;
};

static SlEventsMap *
events_map_ref (SlEventsMap *map)
{
  g_atomic_int_inc (&map->ref_count);
  return map;
}

void
_sl_events_map_unref (SlEventsMap *map)
{
  if (map == NULL || !g_atomic_int_dec_and_test (&map->ref_count))
    return;
  _sl_release_pages (map->addr, map->len);
  munmap (map->addr, map->len);
  g_free (map);
}

typedef struct
{
  const guint8 *base;
  guint64       pos;
  guint64       len;
  gboolean      bad;
} Reader;

static gboolean
r_bytes (Reader *r,
         void   *dst,
         gsize   n)
{
  if (r->bad || n > r->len - r->pos)
    return !(r->bad = TRUE);
  if (n > 0)   /* an empty GArray's data may be NULL */
    memcpy (dst, r->base + r->pos, n);
  r->pos += n;
  return TRUE;
}

/* `n` bytes where they are in the file, or NULL. */
static const void *
r_view (Reader *r,
        gsize   n)
{
  const void *p = r->base + r->pos;

  if (r->bad || n > r->len - r->pos)
    return (r->bad = TRUE, NULL);
  r->pos += n;
  return p;
}

static gboolean
r_pad (Reader *r)
{
  gsize n = (8 - r->pos % 8) % 8;
  const guint8 *pad = r_view (r, n);

  for (gsize i = 0; pad != NULL && i < n; i++)
    if (pad[i] != 0)
      return !(r->bad = TRUE);
  return pad != NULL;
}

/* A section's head: its count, checked against the bytes the file has left. */
static gboolean
r_head (Reader  *r,
        guint32  tag,
        guint32  elem,
        guint64 *count)
{
  SectionHead head;

  if (!r_bytes (r, &head, sizeof head) || head.tag != tag || head.elem != elem
      || (elem > 0 && head.count > (r->len - r->pos) / elem))
    return !(r->bad = TRUE);
  *count = head.count;
  return TRUE;
}

/* A whole section into a new buffer (g_free). */
static gpointer
r_section (Reader  *r,
           guint32  tag,
           guint32  elem,
           guint64 *count)
{
  if (!r_head (r, tag, elem, count))
    return NULL;
  gpointer data = g_malloc (MAX (*count * elem, 1));
  if (!r_bytes (r, data, *count * elem) || !r_pad (r))
    {
      g_free (data);
      return NULL;
    }
  return data;
}

/* A section into `array` (of elements of its size), replacing what it held. */
static gboolean
r_array (Reader  *r,
         guint32  tag,
         GArray  *array)
{
  guint elem = g_array_get_element_size (array);
  guint64 count;

  if (!r_head (r, tag, elem, &count) || count > G_MAXUINT32)
    return !(r->bad = TRUE);
  g_array_set_size (array, count);
  return r_bytes (r, array->data, count * elem) && r_pad (r);
}

/* The next NUL-terminated, valid UTF-8 string of a blob, or NULL. */
static const char *
blob_next (const char **p,
           const char  *end)
{
  const char *s = *p;
  const char *nul = s < end ? memchr (s, '\0', end - s) : NULL;

  if (nul == NULL || !g_utf8_validate_len (s, nul - s, NULL))
    return NULL;
  *p = nul + 1;
  return s;
}

/* Strings of a blob section into `out` (pointers into the blob), exactly `n` of them. */
static char *
r_strings (Reader    *r,
           guint32    tag,
           guint      n,
           GPtrArray *out)
{
  guint64 len;
  char *blob = r_section (r, tag, 1, &len);
  const char *p = blob, *s;

  if (blob == NULL)
    return NULL;
  for (guint i = 0; i < n; i++)
    {
      if ((s = blob_next (&p, blob + len)) == NULL)
        {
          g_free (blob);
          r->bad = TRUE;
          return NULL;
        }
      g_ptr_array_add (out, (char *) s);
    }
  if (p != blob + len)
    {
      g_free (blob);
      r->bad = TRUE;
      return NULL;
    }
  return blob;
}

#define STR_OK(id) ((id) < n_strs)

/* Every id and index of the small tables, against the tables they point into. */
static gboolean
check_tables (SlTrace *trace)
{
  guint n_strs = trace->strs->len;
  guint n_chains = trace->chain_offsets->len - 1;

  for (guint i = 0; i < trace->processes->len; i++)
    {
      const SlProcess *p = &g_array_index (trace->processes, SlProcess, i);
      if (!STR_OK (p->name) || !STR_OK (p->command_line) || p->source != 0)
        return FALSE;
    }
  for (guint i = 0; i < trace->threads->len; i++)
    {
      const SlThread *t = &g_array_index (trace->threads, SlThread, i);
      if (!STR_OK (t->name) || t->process >= trace->processes->len || t->source != 0)
        return FALSE;
    }
  for (guint i = 0; i < trace->gpus->len; i++)
    {
      SlGpu *g = &g_array_index (trace->gpus, SlGpu, i);
      if (!STR_OK (g->name) || !STR_OK (g->bus_location) || !STR_OK (g->uuid)
          || !STR_OK (g->chip_name) || g->source != 0)
        return FALSE;
      g->described = g->described != FALSE;
      sl_gpu_limits_complete (&g->limits);
    }
  for (guint i = 0; i < trace->kernel_infos->len; i++)
    {
      const SlKernelInfo *k = &g_array_index (trace->kernel_infos, SlKernelInfo, i);
      if (!STR_OK (k->demangled_name) || !STR_OK (k->short_name) || !STR_OK (k->mangled_name))
        return FALSE;
    }
  /* call chains: offsets from 0, never decreasing, up to the symbols, one module a symbol */
  const guint32 *off = (const guint32 *) trace->chain_offsets->data;
  if (trace->chain_offsets->len == 0 || off[0] != 0
      || off[n_chains] != trace->chain_symbols->len
      || trace->chain_modules->len != trace->chain_symbols->len)
    return FALSE;
  for (guint i = 0; i < n_chains; i++)
    if (off[i + 1] < off[i])
      return FALSE;
  for (guint i = 0; i < trace->chain_symbols->len; i++)
    if (!STR_OK (g_array_index (trace->chain_symbols, guint32, i))
        || !STR_OK (g_array_index (trace->chain_modules, guint32, i)))
      return FALSE;
  for (guint i = 0; i < trace->osrt_chains->len; i++)
    {
      const SlChainId *c = &g_array_index (trace->osrt_chains, SlChainId, i);
      if (c->chain >= n_chains
          || (i > 0 && c->id < g_array_index (trace->osrt_chains, SlChainId, i - 1).id))
        return FALSE;
    }
  for (guint i = 0; i < trace->cuda_chains->len; i++)
    if (g_array_index (trace->cuda_chains, SlCudaChain, i).chain >= n_chains)
      return FALSE;
  for (guint i = 0; i < trace->diagnostics->len; i++)
    if (!STR_OK (g_array_index (trace->diagnostics, SlDiagnostic, i).text))
      return FALSE;
  return TRUE;
}

static gboolean
is_gpu_kind (SlLaneKind kind)
{
  return kind == SL_LANE_KERNELS || kind == SL_LANE_MEMCPY || kind == SL_LANE_MEMSET
         || kind == SL_LANE_SYNC || kind == SL_LANE_GRAPHS;
}

/* One lane's events, as a fresh load leaves them: sorted by start, within ±2^61 ns, none ending
 * before it starts, names and the indexes in `aux` that the lane's kind has within their tables. */
static gboolean
check_events (SlTrace      *trace,
              const SlLane *lane)
{
  const SlEvent *ev = lane->events;
  guint n_strs = trace->strs->len;
  guint32 n_aux = G_MAXUINT32;

  if (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_GRAPHS)
    n_aux = trace->kernel_infos->len;
  else if (lane->kind == SL_LANE_MEMCPY || lane->kind == SL_LANE_MEMSET)
    n_aux = trace->copy_infos->len;
  for (gsize i = 0; i < lane->n_events; i++)
    {
      if (ev[i].start < -SL_READER_TIME_LIMIT || ev[i].end > SL_READER_TIME_LIMIT
          || ev[i].end < ev[i].start || (i > 0 && ev[i].start < ev[i - 1].start)
          || !STR_OK (ev[i].name) || ev[i].aux >= n_aux)
        return FALSE;
      if (lane->kind == SL_LANE_NVTX && !STR_OK (ev[i].corr))
        return FALSE;
      /* an MPI call's details, and its table (the low byte of aux) */
      if (lane->kind == SL_LANE_MPI
          && (trace->mpi_calls == NULL || ev[i].corr >= trace->mpi_calls->len
              || SL_MPI_SOURCE_OF (ev[i].aux) >= SL_MPI_N_SOURCES))
        return FALSE;
      /* an OpenMP / OpenACC event's details, and a table of its lane's kind */
      if ((lane->kind == SL_LANE_OPENMP || lane->kind == SL_LANE_OPENACC)
          && (trace->omp_events == NULL || ev[i].corr >= trace->omp_events->len
              || ev[i].aux >= SL_OMP_N_SOURCES
              || SL_OMP_IS_ACC (ev[i].aux) != (lane->kind == SL_LANE_OPENACC)))
        return FALSE;
    }
  return TRUE;
}

/* The lane kind that holds global id `id`, or SL_N_LANE_KINDS; `hint` is the lane found last
 * (links of one lane point into few others, in order). */
static SlLaneKind
kind_of (SlTrace *trace,
         guint32  id,
         guint   *hint)
{
  const SlLane *l = g_ptr_array_index (trace->lanes, *hint);
  gsize index;

  if (id >= l->base && id - l->base < l->n_events)
    return l->kind;
  if (!sl_trace_resolve (trace, id, &l, &index))
    return SL_N_LANE_KINDS;
  *hint = l->index;
  return l->kind;
}

/* Links, once the lanes have their global ids: a GPU operation's to a CUDA call, a call's to a
 * GPU operation, or none. */
static gboolean
check_links (SlTrace *trace)
{
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      gboolean gpu = lane->gpu >= 0;
      guint hint = 0;

      if (lane->kind != SL_LANE_CUDA_API && !gpu)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          guint32 link = lane->events[k].link;
          if (link == SL_NO_LINK)
            continue;
          SlLaneKind target = kind_of (trace, link, &hint);
          if (target == SL_N_LANE_KINDS || (gpu ? target != SL_LANE_CUDA_API : !is_gpu_kind (target)))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
read_payload (Reader      *r,
              SlTrace     *trace,
              SlEventsMap *map)
{
  guint64 count;
  g_autofree CacheMeta *meta = r_section (r, SEC_META, sizeof (CacheMeta), &count);

  /* each string takes at least its NUL: a count beyond the bytes left is a lie, and would be
   * allocated before r_strings could say so (fuzz-cache: 2^29 strings, a 4 GiB array) */
  if (meta == NULL || count != 1 || meta->n_strs == 0 || meta->n_warnings > 100
      || meta->n_strs > r->len - r->pos)
    return FALSE;
  trace->rank = meta->rank;
  trace->world_size = meta->world_size;
  trace->is_json = meta->is_json != 0;

  /* strings: the blob is copied into the chunk once, and `strs` points into that copy */
  g_autoptr (GPtrArray) strs = g_ptr_array_sized_new (meta->n_strs);
  g_autofree char *blob = r_strings (r, SEC_STRS, meta->n_strs, strs);
  if (blob == NULL || ((char *) g_ptr_array_index (strs, 0))[0] != '\0')
    return FALSE;
  gsize blob_len = (const char *) g_ptr_array_index (strs, strs->len - 1) - blob
                   + strlen (g_ptr_array_index (strs, strs->len - 1)) + 1;
  char *copy = g_string_chunk_insert_len (trace->chunk, blob, blob_len);
  g_ptr_array_set_size (trace->strs, 0);
  for (guint i = 0; i < strs->len; i++)
    g_ptr_array_add (trace->strs, copy + ((char *) g_ptr_array_index (strs, i) - blob));
  trace->str_bytes = blob_len;
  g_clear_pointer (&blob, g_free);

  g_autoptr (GPtrArray) one = g_ptr_array_new ();
  g_autofree char *schema = r_strings (r, SEC_SCHEMA, meta->has_schema ? 1 : 0, one);
  if (schema == NULL)
    return FALSE;
  if (meta->has_schema)
    trace->schema = g_strdup (g_ptr_array_index (one, 0));

  g_autoptr (GPtrArray) warnings = g_ptr_array_new ();
  g_autofree char *warn_blob = r_strings (r, SEC_WARNINGS, meta->n_warnings, warnings);
  if (warn_blob == NULL)
    return FALSE;
  for (guint i = 0; i < warnings->len; i++)
    g_ptr_array_add (trace->warnings, g_strdup (g_ptr_array_index (warnings, i)));

  g_autofree CacheTable *tables = r_section (r, SEC_TABLES, sizeof (CacheTable), &count);
  if (tables == NULL || count > 10000)
    return FALSE;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree char *names_blob = r_strings (r, SEC_TABLE_NAMES, count * 2, names);
  if (names_blob == NULL)
    return FALSE;
  for (guint i = 0; i < count; i++)
    {
      const CacheTable *t = &tables[i];
      const char *why = g_ptr_array_index (names, 2 * i + 1);
      /* `not_read` is static in a fresh load: here the chunk holds it as long */
      SlTableRead read = { (char *) g_ptr_array_index (names, 2 * i),
                           t->has_not_read ? g_string_chunk_insert (trace->chunk, why) : NULL,
                           t->rows, t->null_time, t->bad_type, t->null_owner, t->not_events,
                           t->bad_range, t->bad_order };
      _sl_trace_note_table (trace, &read);
    }

  if (!r_array (r, SEC_PROCESSES, trace->processes) || !r_array (r, SEC_THREADS, trace->threads)
      || !r_array (r, SEC_GPUS, trace->gpus) || !r_array (r, SEC_KERNEL_INFOS, trace->kernel_infos)
      || !r_array (r, SEC_COPY_INFOS, trace->copy_infos)
      || !r_array (r, SEC_CHAIN_OFFSETS, trace->chain_offsets)
      || !r_array (r, SEC_CHAIN_SYMBOLS, trace->chain_symbols)
      || !r_array (r, SEC_CHAIN_MODULES, trace->chain_modules)
      || !r_array (r, SEC_OSRT_CHAINS, trace->osrt_chains)
      || !r_array (r, SEC_CUDA_CHAINS, trace->cuda_chains)
      || !r_array (r, SEC_CUDA_EVENTS, trace->cuda_events)
      || !r_array (r, SEC_EVENT_WAITS, trace->event_waits)
      || !r_array (r, SEC_GRAPH_MADE, trace->graph_made)
      || !r_array (r, SEC_MEM_USAGE, trace->mem_usage)
      || !r_array (r, SEC_METRIC_SERIES, trace->metric_series)
      || !r_array (r, SEC_METRIC_TIMES, trace->metric_times)
      || !r_array (r, SEC_METRIC_VALUES, trace->metric_values)
      || !r_array (r, SEC_UM_FAULTS, trace->um_faults)
      || !_sl_metrics_check (trace) || !_sl_um_faults_check (trace))
    return FALSE;
  trace->mpi_calls = g_array_new (FALSE, FALSE, sizeof (SlMpiCall));
  if (!r_array (r, SEC_MPI_CALLS, trace->mpi_calls))
    return FALSE;
  if (trace->mpi_calls->len == 0)
    g_clear_pointer (&trace->mpi_calls, g_array_unref);
  trace->omp_events = g_array_new (FALSE, FALSE, sizeof (SlOmpEvent));
  if (!r_array (r, SEC_OMP_EVENTS, trace->omp_events))
    return FALSE;
  for (guint i = 0; i < trace->omp_events->len; i++)
    {
      const SlOmpEvent *o = &g_array_index (trace->omp_events, SlOmpEvent, i);
      if (o->file >= trace->strs->len || o->func >= trace->strs->len
          || o->var >= trace->strs->len)
        return FALSE;
    }
  if (trace->omp_events->len == 0)
    g_clear_pointer (&trace->omp_events, g_array_unref);
  for (guint i = 0; i < trace->mem_usage->len; i++)
    if ((guint) g_array_index (trace->mem_usage, SlMemUsage, i).gpu >= trace->gpus->len)
      return FALSE;
  _sl_trace_sort_mem_usage (trace);
  _sl_trace_sort_um_faults (trace);
  /* the waits are searched by halving: whatever order was read back is sorted again (they hold
   * ids, not indexes: nothing else to check) */
  _sl_trace_sort_event_waits (trace);

  g_autofree CacheEnum *enums = r_section (r, SEC_ENUMS, sizeof (CacheEnum), &count);
  if (enums == NULL)
    return FALSE;
  for (guint64 i = 0; i < count; i++)
    {
      if (enums[i].which >= SL_N_ENUMS || enums[i].str >= trace->strs->len)
        return FALSE;
      g_hash_table_insert (trace->enum_labels[enums[i].which],
                           g_memdup2 (&enums[i].value, sizeof (gint64)),
                           g_ptr_array_index (trace->strs, enums[i].str));
    }
  if (!r_array (r, SEC_DIAGNOSTICS, trace->diagnostics) || !check_tables (trace))
    return FALSE;

  g_autofree CacheLane *lanes = r_section (r, SEC_LANES, sizeof (CacheLane), &count);
  guint n_strs = trace->strs->len;
  guint64 n_events = 0, total;
  if (lanes == NULL || count > G_MAXUINT32)
    return FALSE;
  for (guint64 i = 0; i < count; i++)
    {
      const CacheLane *cl = &lanes[i];
      gboolean gpu = is_gpu_kind (cl->kind);
      if (cl->kind >= SL_N_LANE_KINDS || cl->n_events == 0 || cl->n_events >= G_MAXUINT32
          || cl->source != 0 || !STR_OK (cl->label)
          || (gpu ? cl->gpu < 0 || (guint) cl->gpu >= trace->gpus->len || cl->thread != -1
                  : cl->thread < 0 || (guint) cl->thread >= trace->threads->len || cl->gpu != -1))
        return FALSE;
      n_events += cl->n_events;
    }
  if (!r_head (r, SEC_EVENTS, sizeof (SlEvent), &total) || total != n_events
      || total >= G_MAXUINT32)
    return FALSE;
  for (guint64 i = 0; i < count; i++)
    {
      const CacheLane *cl = &lanes[i];
      SlLane *lane = _sl_trace_add_lane (trace, cl->kind);
      lane->thread = cl->thread;
      lane->gpu = cl->gpu;
      lane->global_pid = cl->global_pid;
      lane->context_id = cl->context_id;
      lane->green_context_id = cl->green_context_id;
      lane->stream_id = cl->stream_id;
      lane->depth = cl->depth;
      lane->label = cl->label;
      lane->source = cl->source;
      /* sections are padded to 8 bytes, so the events are aligned as an SlEvent must be */
      lane->events = (SlEvent *) r_view (r, cl->n_events * sizeof (SlEvent));
      if (lane->events == NULL)
        return FALSE;
      lane->events_map = events_map_ref (map);
      lane->n_events = cl->n_events;
      if (!check_events (trace, lane))
        return FALSE;
    }
  return r->pos == r->len;
}

static gpointer
gpu_busy_thread (gpointer data)
{
  _sl_gpu_busy_build (data);
  return NULL;
}

/* The trace in the payload of a mapped cache file (from `offset`, a multiple of 8, to its end),
 * its hash already checked; NULL with `why` set when anything in it does not fit. */
static SlTrace *
parse_payload (const char   *path,
               SlEventsMap  *map,
               gsize         offset,
               const char  **why)
{
  Reader r = { (const guint8 *) map->addr + offset, 0, map->len - offset, FALSE };
  g_autoptr (SlTrace) trace = _sl_trace_new (path);
  GThread *gpu_thread = NULL;
  GError *error = NULL;

  if (!read_payload (&r, trace, map) || r.bad)
    {
      *why = "damaged";
      return NULL;
    }
  /* The GPUs' busy unions (a third of what is rebuilt) on a second thread, beside the lanes'
   * indexes and the link checks: it reads each lane's kind, GPU and events, they write other
   * fields of the lanes, and neither changes the lane table.  10^7 events: ~0.1 s off a
   * ~0.45 s load.  Not for small traces, where a thread costs more than it saves. */
  gsize n_events = 0;
  for (guint i = 0; i < trace->lanes->len; i++)
    n_events += ((SlLane *) g_ptr_array_index (trace->lanes, i))->n_events;
  if (n_events >= 1u << 20)
    gpu_thread = g_thread_new ("sl-cache-gpu", gpu_busy_thread, trace);
  if (!_sl_trace_index_lanes (trace, &error))
    {
      *why = "damaged (too many events)";
      g_clear_error (&error);
    }
  else if (!check_links (trace))
    *why = "damaged (links)";
  if (gpu_thread != NULL)
    g_thread_join (gpu_thread);
  else if (*why == NULL)
    _sl_gpu_busy_build (trace);
  if (*why != NULL)
    return NULL;
  g_hash_table_remove_all (trace->str_ids);
  return g_steal_pointer (&trace);
}

SlTrace *
_sl_trace_cache_parse (const char *path,
                       const void *payload,
                       gsize       len)
{
  const char *why = NULL;
  void *addr;

  g_return_val_if_fail (path != NULL && (payload != NULL || len == 0), NULL);
  addr = mmap (NULL, MAX (len, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED)
    return NULL;
  if (len > 0)
    memcpy (addr, payload, len);
  SlEventsMap *map = g_new0 (SlEventsMap, 1);
  map->ref_count = 1;
  map->addr = addr;
  map->len = MAX (len, 1);
  SlTrace *trace = parse_payload (path, map, 0, &why);
  _sl_events_map_unref (map);
  return trace;
}

SlTrace *
_sl_trace_cache_load (const char *path,
                      SlCacheKey *key)
{
  g_autoptr (SlTrace) trace = NULL;
  CacheHeader h;
  struct stat st;
  guint32 sizes[12];
  const char *why = NULL;

  g_return_val_if_fail (path != NULL && key != NULL, NULL);
  if (!key_make (key, path))
    return NULL;
  int fd = open (key->file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      COUNT (misses);
      return NULL;
    }

  Reader r = { NULL, 0, 0, FALSE };
  SlEventsMap *map = NULL;
  header_sizes (sizes);
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    why = "not a file";
  else if ((guint64) st.st_size < sizeof h)
    why = "truncated";
  else
    {
      /* mapped read-only with MAP_POPULATE (one call maps every page of the page cache: 10 ms
       * for 330 MB, where faulting them in as the hash reads cost ~50 ms), then made writable:
       * MAP_POPULATE on a writable private mapping would copy every page */
      void *addr = mmap (NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (addr != MAP_FAILED && mprotect (addr, st.st_size, PROT_READ | PROT_WRITE) != 0)
        {
          munmap (addr, st.st_size);
          addr = MAP_FAILED;
        }
      if (addr == MAP_FAILED)
        why = "unreadable";
      else
        {
          map = g_new0 (SlEventsMap, 1);
          map->ref_count = 1;
          map->addr = addr;
          map->len = st.st_size;
          r.base = addr;
          r.len = st.st_size;
        }
    }
  if (why != NULL)
    ;
  else if (!r_bytes (&r, &h, sizeof h))
    why = "truncated";
  else if (memcmp (h.magic, CACHE_MAGIC, 8) != 0 || h.order != CACHE_ORDER
           || h.version != CACHE_VERSION || h.n_sizes != 12
           || memcmp (h.sizes, sizes, sizeof sizes) != 0)
    why = "of another build";
  else if (h.file_size != (guint64) st.st_size)
    why = "truncated";
  else if (h.path_len != strlen (key->canonical) || h.flags != SL_LOAD_ALL)
    why = "of another file";
  else
    {
      gsize pad = (8 - h.path_len % 8) % 8;
      guint64 stored_hash = h.header_hash;
      const char *stored_path = r_view (&r, h.path_len + pad);
      Hash hh;
      if (stored_path == NULL)
        why = "truncated";
      else
        {
          h.header_hash = 0;
          hash_init (&hh);
          hash_update (&hh, &h, sizeof h);
          hash_update (&hh, stored_path, h.path_len);
          if (hash_final (&hh) != stored_hash)
            why = "damaged (header)";
          else if (memcmp (stored_path, key->canonical, h.path_len) != 0)
            why = "of another file";
          else if (h.src_size != key->size || h.src_mtime_ns != key->mtime_ns
                   || h.src_ctime_ns != key->ctime_ns || h.src_ino != key->ino
                   || h.src_dev != key->dev)
            why = "stale";
          else if (_sl_trace_cache_hash (r.base + r.pos, r.len - r.pos) != h.payload_hash)
            why = "damaged (hash)";
        }
    }

  if (why == NULL)
    trace = parse_payload (path, map, r.pos, &why);
  /* the lanes hold the mapping now, if anything does */
  g_clear_pointer (&map, _sl_events_map_unref);
  if (why == NULL)
    {
      /* the least recently used go first: a hit makes this one the most recent */
      futimens (fd, NULL);
      close (fd);
      COUNT (hits);
      return g_steal_pointer (&trace);
    }
  g_clear_pointer (&trace, sl_trace_unref);
  close (fd);
  g_debug ("%s: cache file %s is %s; reading the file itself", path, key->file, why);
  g_unlink (key->file);
  COUNT (rejected);
  return NULL;
}
