/* test-export.c: `sightline export`: nsys SQLite -> SQLite gives the same reports, -> Chrome JSON
 * is valid JSON holding the model's events, flows, names and args; --range; errors. */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "sl-export.h"
#include "sl-metrics.h"
#include "sl-mpi.h"
#include "sl-plant.h"
#include "sl-range.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static SlTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static char *
out_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* A report as CSV text; "no data" for a report the trace has no data for. */
static char *
report_csv (SlTrace    *trace,
            const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) report = sl_report_compute (trace, name, &error);
  if (report == NULL)
    {
      g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      return g_strdup ("no data");
    }
  GString *out = g_string_new (NULL);
  sl_report_write (report, SL_REPORT_FORMAT_CSV, out);
  /* rank_sum's Rank of a file that says no rank is the file's name, which an export's is not */
  if (strcmp (name, "rank_sum") == 0)
    {
      g_autoptr (GRegex) label = g_regex_new ("^[^,\n]*,", G_REGEX_MULTILINE, 0, NULL);
      g_autofree char *text = g_string_free (out, FALSE);
      return g_regex_replace_literal (label, text, -1, 0, "", 0, NULL);
    }
  return g_string_free (out, FALSE);
}

static void
count_kinds (SlTrace *trace,
             gsize    counts[SL_N_LANE_KINDS],
             SlTime   t0,
             SlTime   t1)
{
  memset (counts, 0, sizeof (gsize) * SL_N_LANE_KINDS);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; k < lane->n_events; k++)
        if (sl_export_keeps (lane->events[k].start, lane->events[k].end, t0, t1))
          counts[lane->kind]++;
    }
}

/* Unified-memory migrations by cause: counts[cause] over every copy (SL_MIGRATION_NONE: the
 * copies that are no migration), and in `labels` the sum of their addresses and the trace's
 * label of each cause seen. */
static void
count_migrations (SlTrace *trace,
                  gsize    counts[256],
                  GString *labels)
{
  guint64 addresses = 0;   /* their virtual addresses, summed */

  memset (counts, 0, sizeof (gsize) * 256);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_MEMCPY && k < lane->n_events; k++)
        {
          const SlCopyInfo *info = sl_trace_get_copy_info (trace, lane->events[k].aux);
          counts[info->migration_cause]++;
          addresses += info->address;
        }
    }
  g_string_append_printf (labels, "addresses %" G_GUINT64_FORMAT ";", addresses);
  for (guint c = 0; c < SL_MIGRATION_NONE; c++)
    if (counts[c] > 0)
      g_string_append_printf (labels, "%u=%s;", c,
                              sl_trace_enum_label (trace, SL_ENUM_UM_MIGRATION, c));
}

/* Every report of `back` (an export of `trace`) as CSV text equals that of `trace`. */
static void
assert_same_reports (SlTrace    *trace,
                     SlTrace    *back,
                     const char *what)
{
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autofree char *x = report_csv (trace, *n);
      g_autofree char *y = report_csv (back, *n);
      if (g_strcmp0 (x, y) != 0)
        g_error ("%s: %s differs after the SQLite export:\n%s\n---\n%s", what, *n, x, y);
    }
}

/* ---- SQLite ---------------------------------------------------------------------------------- */

/* Every real trace: the export loads back with the same events, the same span, and every report
 * (the five the issue names among them) gives the same CSV text. */
static int
compare_str (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Each CUDA call's backtrace as text ("correlationId: frame;frame…"), sorted. */
static GPtrArray *
cuda_backtraces (SlTrace *trace)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_CUDA_API && k < lane->n_events; k++)
        {
          const guint32 *syms, *mods;
          guint n = sl_trace_get_cuda_callchain (trace, lane, &lane->events[k], &syms, &mods);
          if (n == 0)
            continue;
          GString *text = g_string_new (NULL);
          g_string_printf (text, "%u:", lane->events[k].corr);
          for (guint f = 0; f < n; f++)
            g_string_append_printf (text, " %s@%s;", sl_trace_str (trace, syms[f]),
                                    sl_trace_str (trace, mods[f]));
          g_ptr_array_add (out, g_string_free (text, FALSE));
        }
    }
  g_ptr_array_sort (out, compare_str);
  return out;
}

static void
test_sqlite_round_trip (void)
{
  g_auto (GStrv) traces = sl_test_nsys_traces ();
  g_assert_nonnull (traces[0]);

  for (char **t = traces; *t != NULL; t++)
    {
      g_autoptr (SlTrace) trace = load (*t);
      g_autofree char *base = g_path_get_basename (*t);
      g_autofree char *out = out_path (base);
      g_autoptr (GError) error = NULL;

      g_test_message ("%s", base);
      g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      g_autoptr (SlTrace) back = load (out);

      gsize a[SL_N_LANE_KINDS], b[SL_N_LANE_KINDS];
      count_kinds (trace, a, G_MININT64, G_MAXINT64);
      count_kinds (back, b, G_MININT64, G_MAXINT64);
      for (guint k = 0; k < SL_N_LANE_KINDS; k++)
        g_assert_cmpuint (a[k], ==, b[k]);
      g_assert_cmpint (sl_trace_get_start (trace), ==, sl_trace_get_start (back));
      g_assert_cmpint (sl_trace_get_end (trace), ==, sl_trace_get_end (back));
      g_assert_cmpuint (sl_trace_get_n_diagnostics (trace), ==, sl_trace_get_n_diagnostics (back));
      g_assert_cmpstr (sl_trace_get_schema (back), ==, "3.25.0");

      assert_same_reports (trace, back, base);
      /* CUDA calls' backtraces (CUDA_CALLCHAINS), frame by frame */
      g_autoptr (GPtrArray) bt_a = cuda_backtraces (trace);
      g_autoptr (GPtrArray) bt_b = cuda_backtraces (back);
      g_assert_cmpuint (bt_a->len, ==, bt_b->len);
      for (guint i = 0; i < bt_a->len; i++)
        g_assert_cmpstr (bt_a->pdata[i], ==, bt_b->pdata[i]);
      if (strstr (base, "cuda-backtraces") != NULL)
        g_assert_cmpuint (bt_a->len, ==, 18);
      /* CUDA event records and the waits linked to them */
      guint waits_a, linked_a, waits_b, linked_b;
      sl_trace_get_event_wait_counts (trace, &waits_a, &linked_a);
      sl_trace_get_event_wait_counts (back, &waits_b, &linked_b);
      g_assert_cmpuint (sl_trace_get_n_event_records (back), ==,
                        sl_trace_get_n_event_records (trace));
      g_assert_cmpuint (waits_b, ==, waits_a);
      g_assert_cmpuint (linked_b, ==, linked_a);
      if (strstr (base, "2025.5-cuda-events") != NULL)
        g_assert_cmpuint (linked_b, ==, 2000);
      /* unified-memory migrations keep their cause and the trace's words for it */
      gsize mig_a[256], mig_b[256];
      g_autoptr (GString) labels_a = g_string_new (NULL);
      g_autoptr (GString) labels_b = g_string_new (NULL);
      count_migrations (trace, mig_a, labels_a);
      count_migrations (back, mig_b, labels_b);
      for (guint c = 0; c < 256; c++)
        g_assert_cmpuint (mig_a[c], ==, mig_b[c]);
      g_assert_cmpstr (labels_a->str, ==, labels_b->str);
      gsize migrations = 0;
      for (guint c = 0; c < SL_MIGRATION_NONE; c++)
        migrations += mig_a[c];
      if (strstr (base, "-um-") != NULL)   /* the two unified-memory traces have them */
        {
          g_assert_cmpuint (migrations, >, 100);
          g_assert_null (strstr (labels_a->str, "addresses 0;"));
        }
      g_unlink (out);
    }
}

/* A planted trace with NVTX ranges in a named domain, OS runtime calls and samples with stacks:
 * the export has the nsys tables a script reads, with nsys's column values. */
static char *
plant_rich (void)
{
  char *path = out_path ("rich.sqlite");
  Plant *p = plant_new (path);
  const char *const stack[] = { "leaf@libc.so", "mid@app", "main@app" };

  gint64 t = plant_loop (p, PLANT_MS, 50, 20 * PLANT_US, 10 * PLANT_US, "k_loop",
                         &plant_config_full);
  gint64 c = plant_api (p, PLANT_MAIN, "cudaMemcpyAsync", t, t + 5 * PLANT_US);
  plant_memcpy (p, 1, 0, 2, 1 << 20, t + 6 * PLANT_US, t + 50 * PLANT_US, c);
  plant_osrt (p, PLANT_LOADER_0, "read", PLANT_MS, 2 * PLANT_MS);
  for (int i = 0; i < 20; i++)
    plant_sample_stack (p, PLANT_LOADER_1, PLANT_MS + i * 100 * PLANT_US, stack, 3);
  plant_finish (p);
  plant_nvtx (path, PLANT_MAIN, 59, "step", PLANT_MS, 2 * PLANT_MS);
  plant_nvtx (path, PLANT_MAIN, 60, "epoch", PLANT_MS / 2, 3 * PLANT_MS);
  /* a kernel name that needs escaping in JSON and is not UTF-8 */
  plant_sql (path, "UPDATE StringIds SET value = 'k_\"quoted\"\\back' || char(9) || 'tab' || "
                   "char(1) || CAST(X'FF' AS TEXT) || 'end' WHERE value = 'k_loop'");
  return path;
}

static void
test_sqlite_planted (void)
{
  g_autofree char *path = plant_rich ();
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *out = out_path ("rich-export.sqlite");
  g_autoptr (GError) error = NULL;

  g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);

  struct sqlite3 *db = sl_test_open_db (out);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 50);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), ==,
                   51);
  /* every kernel joins its launch by correlation id, as nsys scripts join them */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                        "CUPTI_ACTIVITY_KIND_RUNTIME r USING (correlationId)"),
                   ==, 50);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE "
                                        "copyKind = 1 AND srcKind = 0 AND dstKind = 2 AND "
                                        "bytes = 1048576"), ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN "
                                        "(59, 60)"), ==, 2);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o JOIN StringIds s ON "
                                        "s.id = o.nameId WHERE s.value = 'read'"), ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS"), ==, 20);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==, 60);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS c JOIN "
                                        "StringIds s ON s.id = c.symbol WHERE c.stackDepth = 2 "
                                        "AND s.value = 'main'"), ==, 20);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM TARGET_INFO_GPU WHERE smCount = 132"),
                   ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM META_DATA_EXPORT"), >, 0);
  sqlite3_close (db);

  g_autoptr (SlTrace) back = load (out);
  assert_same_reports (trace, back, "planted");
}

/* ---- Chrome JSON ----------------------------------------------------------------------------- */

static JsonParser *
parse_json (const char *path)
{
  g_autoptr (GError) error = NULL;
  JsonParser *parser = json_parser_new ();

  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
      g_assert_no_error (error);
      g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autoptr (GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (z));
      json_parser_load_from_stream (parser, in, NULL, &error);
    }
  else
    json_parser_load_from_file (parser, path, &error);
  if (error != NULL)
    g_error ("%s is not valid JSON: %s", path, error->message);
  return parser;
}

static SlTime
json_ns (JsonObject *o,
         const char *member)
{
  return (SlTime) llround (json_object_get_double_member (o, member) * 1000.0);
}

/* A time of the model as json_ns reads it back: written as µs with three decimals, parsed into a
 * double. Exact for session-relative times; epoch times (Kineto's) keep ~0.25 µs in a double,
 * so both sides go through the same rounding, and test_chrome_times checks the written digits. */
static SlTime
through_double (SlTime ns)
{
  guint64 mag = ns < 0 ? -(guint64) ns : (guint64) ns;
  char text[48];
  g_snprintf (text, sizeof text, "%s%" G_GUINT64_FORMAT ".%03u", ns < 0 ? "-" : "",
              mag / 1000, (unsigned) (mag % 1000));
  return (SlTime) llround (g_ascii_strtod (text, NULL) * 1000.0);
}

/* "|peer,tag,bytes,recv bytes,root,communicator,request,rank" of an MPI call, -1 for what it
 * lacks: in the model's key and the JSON's */
static char *
mpi_text (gint64 v[8])
{
  return g_strdup_printf ("|%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                          G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                          G_GINT64_FORMAT ",%" G_GINT64_FORMAT, v[0], v[1], v[2], v[3], v[4],
                          v[5], v[6], v[7]);
}

static char *
mpi_details (const SlMpiCall *c)
{
  gint64 v[8];
  g_assert_nonnull (c);
  v[0] = (c->flags & SL_MPI_HAS_PEER) ? c->peer : -1;
  v[1] = (c->flags & SL_MPI_HAS_TAG) ? c->tag : -1;
  v[2] = (c->flags & SL_MPI_HAS_SIZE) ? c->size : -1;
  v[3] = (c->flags & SL_MPI_HAS_RECV_SIZE) ? c->recv_size : -1;
  v[4] = (c->flags & SL_MPI_HAS_ROOT) ? c->root : -1;
  v[5] = (c->flags & SL_MPI_HAS_COMM) ? c->comm : -1;
  v[6] = (c->flags & SL_MPI_HAS_REQUEST) ? c->request : -1;
  v[7] = (c->flags & SL_MPI_HAS_RANK) ? c->rank : -1;
  return mpi_text (v);
}

static char *
json_mpi_details (JsonObject *args)
{
  static const char *const keys[8] = { "peer", "tag", "bytes", "recv bytes", "root",
                                       "communicator", "request", "rank" };
  gint64 v[8];
  g_assert_nonnull (args);
  for (guint i = 0; i < 8; i++)
    v[i] = json_object_has_member (args, keys[i]) ? json_object_get_int_member (args, keys[i])
                                                  : -1;
  return mpi_text (v);
}

static const char *
cat_of (const SlLane *lane,
        const SlEvent *ev)
{
  switch (lane->kind)
    {
    case SL_LANE_CUDA_API: return (ev->aux & 0xFF) == 1 ? "cuda_driver" : "cuda_runtime";
    case SL_LANE_KERNELS: return "kernel";
    case SL_LANE_MEMCPY: return "gpu_memcpy";
    case SL_LANE_MEMSET: return "gpu_memset";
    case SL_LANE_SYNC: return "cuda_sync";
    case SL_LANE_OSRT: return "os_runtime";
    case SL_LANE_SAMPLES: return "cpu_sample";
    case SL_LANE_MPI: return "mpi";
    case SL_LANE_NVTX: return NULL;   /* by domain */
    default: return NULL;
    }
}

/* "cat|pid|tid|ts|dur|name|correlation" of an event of the model, as the JSON should hold it */
static char *
model_key (SlTrace       *trace,
           const SlLane  *lane,
           const SlEvent *ev)
{
  gint64 pid, tid;
  const char *cat = cat_of (lane, ev);
  if (lane->gpu >= 0)
    {
      pid = sl_trace_get_gpu (trace, lane->gpu)->device_id;
      tid = lane->stream_id;
    }
  else
    {
      const SlThread *t = sl_trace_get_thread (trace, lane->thread);
      pid = t->pid;
      tid = t->tid;
    }
  g_autofree char *name = g_utf8_make_valid (sl_trace_str (trace, ev->name), -1);
  gboolean named = lane->kind != SL_LANE_MEMCPY && lane->kind != SL_LANE_MEMSET;
  gboolean corr = lane->kind != SL_LANE_NVTX && lane->kind != SL_LANE_OSRT
                  && lane->kind != SL_LANE_SAMPLES && lane->kind != SL_LANE_MPI;
  g_autofree char *mpi = lane->kind == SL_LANE_MPI
                         ? mpi_details (sl_trace_get_mpi_call (trace, lane, ev)) : g_strdup ("");
  return g_strdup_printf ("%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%"
                          G_GINT64_FORMAT "|%s|%d%s", cat != NULL ? cat : "nvtx", pid, tid,
                          through_double (ev->start),
                          lane->kind == SL_LANE_SAMPLES
                          || (lane->kind == SL_LANE_NVTX && (ev->link & SL_NVTX_MARK))
                          ? (SlTime) -1 : through_double (ev->end - ev->start),
                          named ? name : "", corr ? (int) ev->corr : -1, mpi);
}

/* Whether an event is one the Chrome export writes on its own: an MPI call of an NVTX range is
 * that range */
static gboolean
written_alone (const SlLane  *lane,
               const SlEvent *ev)
{
  return lane->kind != SL_LANE_MPI || SL_MPI_SOURCE_OF (ev->aux) != SL_MPI_NVTX;
}

/* The messages whose send and receive both overlap [t0, t1) */
static guint
kept_messages (SlTrace *trace,
               SlTime   t0,
               SlTime   t1)
{
  const SlMpiMessages *msgs = sl_trace_get_mpi_messages (trace);
  guint n = 0;

  for (gsize i = 0; i < msgs->n_messages; i++)
    {
      const SlLane *sl = sl_trace_get_lane (trace, (guint) msgs->messages[i].send.lane);
      const SlLane *rl = sl_trace_get_lane (trace, (guint) msgs->messages[i].recv.lane);
      const SlEvent *a = &sl->events[msgs->messages[i].send.index];
      const SlEvent *b = &rl->events[msgs->messages[i].recv.index];
      n += sl_export_keeps (a->start, a->end, t0, t1) && sl_export_keeps (b->start, b->end, t0, t1);
    }
  return n;
}

/* The JSON of an export against the model it came from, over [t0, t1). */
static void
check_chrome (SlTrace    *trace,
              const char *path,
              SlTime      t0,
              SlTime      t1)
{
  g_autoptr (JsonParser) parser = parse_json (path);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "schemaVersion"), ==, 1);
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  JsonArray *devices = json_object_get_array_member (root, "deviceProperties");
  g_assert_nonnull (events);
  g_assert_nonnull (devices);

  g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) got = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) flows = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                       g_free);
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_links = 0, n_s = 0, n_f = 0, n_mpi_s = 0, n_mpi_f = 0;
  g_autoptr (GHashTable) mpi_flows = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_SCHED)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (!sl_export_keeps (ev->start, ev->end, t0, t1) || !written_alone (lane, ev))
            continue;
          g_ptr_array_add (want, model_key (trace, lane, ev));
          const SlLane *other;
          gsize at;
          if (lane->gpu >= 0 && ev->link != SL_NO_LINK
              && sl_trace_resolve (trace, ev->link, &other, &at)
              && sl_export_keeps (other->events[at].start, other->events[at].end, t0, t1))
            n_links++;
        }
    }

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *o = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (o, "ph");
      g_assert_nonnull (ph);
      gint64 pid = json_object_get_int_member (o, "pid");
      gint64 tid = json_object_get_int_member (o, "tid");
      if (strcmp (ph, "M") == 0)
        {
          JsonObject *args = json_object_get_object_member (o, "args");
          g_assert_nonnull (args);
          if (strcmp (json_object_get_string_member (o, "name"), "thread_name") == 0)
            {
              g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                                      pid, tid);
              g_hash_table_add (names, g_steal_pointer (&key));
            }
          continue;
        }
      if ((strcmp (ph, "s") == 0 || strcmp (ph, "f") == 0)
          && strcmp (json_object_get_string_member (o, "cat"), "mpi_message") == 0)
        {
          /* a message: its send's start, then its receive's, on their threads */
          gint64 id = json_object_get_int_member (o, "id");
          const SlMpiMessages *msgs = sl_trace_get_mpi_messages (trace);
          g_assert_cmpint (id, >=, (gint64) 1 << 52);
          g_assert_cmpint (id - ((gint64) 1 << 52), <, (gint64) msgs->n_messages);
          const SlMpiMessage *m = &msgs->messages[id - ((gint64) 1 << 52)];
          SlEventRef ref = ph[0] == 's' ? m->send : m->recv;
          const SlLane *lane = sl_trace_get_lane (trace, (guint) ref.lane);
          const SlThread *t = sl_trace_get_thread (trace, lane->thread);
          g_assert_cmpint (pid, ==, t->pid);
          g_assert_cmpint (tid, ==, t->tid);
          g_assert_cmpint (json_ns (o, "ts"), ==, through_double (lane->events[ref.index].start));
          if (ph[0] == 's')
            {
              g_assert_false (g_hash_table_contains (mpi_flows, &id));
              g_hash_table_add (mpi_flows, g_memdup2 (&id, sizeof id));
              n_mpi_s++;
            }
          else
            {
              g_assert_cmpstr (json_object_get_string_member (o, "bp"), ==, "e");
              g_assert_true (g_hash_table_contains (mpi_flows, &id));
              n_mpi_f++;
            }
          continue;
        }
      if (strcmp (ph, "s") == 0 || strcmp (ph, "f") == 0)
        {
          gint64 id = json_object_get_int_member (o, "id");
          g_assert_cmpstr (json_object_get_string_member (o, "cat"), ==, "ac2g");
          gint64 *count = g_hash_table_lookup (flows, &id);
          if (count == NULL)
            {
              count = g_new0 (gint64, 2);
              g_hash_table_insert (flows, g_memdup2 (&id, sizeof id), count);
            }
          /* an s is followed by its f: pairs never interleave */
          if (ph[0] == 's')
            {
              g_assert_cmpint (count[0], ==, count[1]);
              count[0]++;
              n_s++;
            }
          else
            {
              g_assert_cmpstr (json_object_get_string_member (o, "bp"), ==, "e");
              count[1]++;
              g_assert_cmpint (count[0], ==, count[1]);
              n_f++;
            }
          continue;
        }
      const char *cat = json_object_get_string_member (o, "cat");
      JsonObject *args = json_object_has_member (o, "args")
                         ? json_object_get_object_member (o, "args") : NULL;
      gboolean gpu = strcmp (cat, "kernel") == 0 || strcmp (cat, "gpu_memcpy") == 0
                     || strcmp (cat, "gpu_memset") == 0 || strcmp (cat, "cuda_sync") == 0;
      gboolean mpi = strcmp (cat, "mpi") == 0;
      gboolean nvtx = !gpu && !mpi && strcmp (cat, "cuda_runtime") != 0
                      && strcmp (cat, "cuda_driver") != 0 && strcmp (cat, "os_runtime") != 0
                      && strcmp (cat, "cpu_sample") != 0;
      gboolean corr = !nvtx && !mpi && strcmp (cat, "os_runtime") != 0
                      && strcmp (cat, "cpu_sample") != 0;
      gboolean named = strcmp (cat, "gpu_memcpy") != 0 && strcmp (cat, "gpu_memset") != 0;
      if (gpu)
        {
          g_assert_nonnull (args);
          g_assert_cmpint (json_object_get_int_member (args, "device"), ==, pid);
          g_assert_cmpint (json_object_get_int_member (args, "stream"), ==, tid);
        }
      if (strcmp (cat, "gpu_memcpy") == 0)
        g_assert_true (g_str_has_prefix (json_object_get_string_member (o, "name"), "Memcpy "));
      if (strcmp (cat, "kernel") == 0)
        {
          JsonArray *grid = json_object_get_array_member (args, "grid");
          JsonArray *block = json_object_get_array_member (args, "block");
          g_assert_cmpuint (json_array_get_length (grid), ==, 3);
          g_assert_cmpuint (json_array_get_length (block), ==, 3);
          g_assert_true (json_object_has_member (args, "registers per thread"));
          g_assert_true (json_object_has_member (args, "shared memory"));
        }
      gboolean dur = json_object_has_member (o, "dur");
      g_assert_true (dur == (strcmp (ph, "X") == 0));
      g_autofree char *details = mpi ? json_mpi_details (args) : g_strdup ("");
      g_autofree char *key = g_strdup_printf (
          "%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT
          "|%s|%d%s", nvtx ? "nvtx" : cat, pid, tid, json_ns (o, "ts"),
          dur ? json_ns (o, "dur") : (SlTime) -1,
          named ? json_object_get_string_member (o, "name") : "",
          corr ? (int) json_object_get_int_member (args, "correlation") : -1, details);
      g_ptr_array_add (got, g_steal_pointer (&key));
      if (gpu)
        {
          g_autofree char *stream = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                                                     pid, tid);
          g_assert_true (g_hash_table_contains (names, stream));   /* named before use */
        }
    }

  g_ptr_array_sort (want, compare_str);
  g_ptr_array_sort (got, compare_str);
  g_assert_cmpuint (got->len, ==, want->len);
  for (guint i = 0; i < want->len; i++)
    g_assert_cmpstr (g_ptr_array_index (got, i), ==, g_ptr_array_index (want, i));
  g_assert_cmpuint (n_s, ==, n_f);
  g_assert_cmpuint (n_f, ==, n_links);
  g_assert_cmpuint (n_mpi_s, ==, n_mpi_f);
  g_assert_cmpuint (n_mpi_f, ==, kept_messages (trace, t0, t1));

  guint described = 0;
  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *g = sl_trace_get_gpu (trace, i);
      if (!g->described && g->limits.cc_major == 0)
        continue;
      JsonObject *d = json_array_get_object_element (devices, described++);
      g_assert_cmpint (json_object_get_int_member (d, "id"), ==, g->device_id);
      g_assert_cmpint (json_object_get_int_member (d, "numSms"), ==, g->limits.sm_count);
      g_assert_cmpint (json_object_get_int_member (d, "computeMajor"), ==, g->limits.cc_major);
      g_assert_cmpint (json_object_get_int_member (d, "warpSize"), ==, g->limits.warp_size);
    }
  g_assert_cmpuint (json_array_get_length (devices), ==, described);
}

static void
test_chrome_real (void)
{
  g_auto (GStrv) traces = sl_test_nsys_traces ();

  for (char **t = traces; *t != NULL; t++)
    {
      g_autoptr (SlTrace) trace = load (*t);
      g_autofree char *base = g_path_get_basename (*t);
      g_autofree char *name = g_strconcat (base, ".json", NULL);
      g_autofree char *out = out_path (name);
      g_autoptr (GError) error = NULL;

      g_test_message ("%s", base);
      g_assert_true (sl_export_chrome (trace, out, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      check_chrome (trace, out, G_MININT64, G_MAXINT64);
      g_unlink (out);
    }
}

/* Names that need escaping and are not UTF-8; Kineto's kernel args from the launch
 * configuration; .gz by the name. */
static void
test_chrome_planted (void)
{
  g_autofree char *path = plant_rich ();
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *out = out_path ("rich.json.gz");
  g_autoptr (GError) error = NULL;

  g_assert_true (sl_export_chrome (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  check_chrome (trace, out, G_MININT64, G_MAXINT64);

  g_autoptr (JsonParser) parser = parse_json (out);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  guint kernels = 0, samples = 0, nvtx = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *o = json_array_get_object_element (events, i);
      const char *cat = json_object_get_string_member_with_default (o, "cat", "");
      if (strcmp (cat, "kernel") == 0)
        {
          JsonObject *args = json_object_get_object_member (o, "args");
          g_assert_cmpstr (json_object_get_string_member (o, "name"), ==,
                           "k_\"quoted\"\\back\ttab\x01\xEF\xBF\xBD" "end");
          g_assert_cmpint (json_object_get_int_member (args, "registers per thread"), ==, 32);
          g_assert_cmpint (json_array_get_int_element (json_object_get_array_member (args,
                                                                                     "block"),
                                                       0), ==, 256);
          /* plant_config_full: 100% theoretical occupancy; the grid fills the 132 SMs */
          g_assert_cmpint (json_object_get_int_member (args, "est. achieved occupancy %"), >, 0);
          g_assert_true (json_object_has_member (args, "blocks per SM"));
          kernels++;
        }
      else if (strcmp (cat, "cpu_sample") == 0)
        {
          JsonArray *stack = json_object_get_array_member (json_object_get_object_member (o,
                                                                                        "args"),
                                                           "stack");
          g_assert_cmpuint (json_array_get_length (stack), ==, 3);
          g_assert_cmpstr (json_array_get_string_element (stack, 0), ==, "leaf");
          g_assert_cmpstr (json_array_get_string_element (stack, 2), ==, "main");
          samples++;
        }
      else if (strcmp (cat, "user_annotation") == 0)
        nvtx++;
    }
  g_assert_cmpuint (kernels, ==, 50);
  g_assert_cmpuint (samples, ==, 20);
  g_assert_cmpuint (nvtx, ==, 2);
  JsonArray *devices = json_object_get_array_member (root, "deviceProperties");
  g_assert_cmpuint (json_array_get_length (devices), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (devices, 0),
                                               "numSms"), ==, 132);
}

/* Times are written as µs with exactly three decimals from integer ns: negative times and
 * those whose µs are not exact in a double come through as text. */
static void
test_chrome_times (void)
{
  g_autofree char *path = out_path ("times.sqlite");
  Plant *p = plant_new (path);
  gint64 c = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", 1234567, 1234568);
  plant_kernel (p, "k", &plant_config_full, 1234999, 1236000, c);
  plant_finish (p);
  plant_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -1500, end = 7");
  plant_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 1712195495505582988, "
                   "end = 1712195495505587916");
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *out = out_path ("times.json");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (sl_export_chrome (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"ts\":-1.500,\"dur\":1.507,"));
  g_assert_nonnull (strstr (text, "\"ts\":1712195495505582.988,\"dur\":4.928,"));
}

/* A trace with no events: valid JSON with empty arrays, an SQLite file that loads. */
static void
test_empty (void)
{
  g_autofree char *path = out_path ("empty.sqlite");
  g_autofree char *json = out_path ("empty.json");
  g_autofree char *sql = out_path ("empty-export.sqlite");
  g_autoptr (GError) error = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  g_autoptr (SlTrace) trace = load (path);
  g_assert_true (sl_export_chrome (trace, json, G_MININT64, G_MAXINT64, &error));
  g_assert_true (sl_export_sqlite (trace, sql, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  check_chrome (trace, json, G_MININT64, G_MAXINT64);
  g_autoptr (SlTrace) back = load (sql);
  g_assert_cmpuint (sl_trace_get_n_events (back), ==, 0);
}

/* ---- --range ------------------------------------------------------------------------------- */

static void
test_range (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (SlTrace) trace = load (path);
  g_autoptr (GError) error = NULL;
  SlTime t0, t1;

  /* 100 ms to 300 ms into the file, whose first event is 155.36 s after its session's start */
  g_assert_true (sl_range_parse ("155.45s:155.65s", trace, &t0, &t1, &error));
  g_assert_no_error (error);
  g_autofree char *sql = out_path ("range.sqlite");
  g_autofree char *json = out_path ("range.json");
  g_assert_true (sl_export_sqlite (trace, sql, t0, t1, &error));
  g_assert_true (sl_export_chrome (trace, json, t0, t1, &error));
  g_assert_no_error (error);

  /* what was kept: exactly the events overlapping the range, by kind */
  gsize all[SL_N_LANE_KINDS], want[SL_N_LANE_KINDS], got[SL_N_LANE_KINDS];
  count_kinds (trace, all, G_MININT64, G_MAXINT64);
  count_kinds (trace, want, t0, t1);
  g_autoptr (SlTrace) back = load (sql);
  count_kinds (back, got, G_MININT64, G_MAXINT64);
  gsize total_want = 0, total_all = 0;
  for (guint k = 0; k < SL_N_LANE_KINDS; k++)
    {
      if (k == SL_LANE_SCHED)
        continue;
      g_assert_cmpuint (got[k], ==, want[k]);
      total_want += want[k];
      total_all += all[k];
    }
  g_assert_cmpuint (total_want, >, 0);
  g_assert_cmpuint (total_want, <, total_all);
  /* and nothing outside it */
  for (guint i = 0; i < sl_trace_get_n_lanes (back); i++)
    {
      const SlLane *lane = sl_trace_get_lane (back, i);
      if (lane->kind == SL_LANE_SCHED)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        g_assert_true (sl_export_keeps (lane->events[k].start, lane->events[k].end, t0, t1));
    }
  /* the range's kernel summary over the kept kernels is that of the original over them */
  check_chrome (trace, json, t0, t1);
}

/* ---- errors ---------------------------------------------------------------------------------- */

static void
test_errors (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *bad = out_path ("no-such-dir/out.json");
  g_autofree char *bad_sql = out_path ("no-such-dir/out.sqlite");
  g_autofree char *part = g_strconcat (bad, ".part", NULL);
  g_autoptr (GError) error = NULL;
  SlExportFormat format;

  g_assert_false (sl_export_chrome (trace, bad, G_MININT64, G_MAXINT64, &error));
  g_assert_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, bad));
  g_clear_error (&error);
  g_assert_false (sl_export_sqlite (trace, bad_sql, G_MININT64, G_MAXINT64, &error));
  g_assert_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, bad_sql));
  g_clear_error (&error);
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));

  /* an existing output is replaced, and no .part is left beside it */
  g_autofree char *out = out_path ("replaced.sqlite");
  g_assert_true (g_file_set_contents (out, "not a trace", -1, NULL));
  g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  g_autofree char *out_part = g_strconcat (out, ".part", NULL);
  g_assert_false (g_file_test (out_part, G_FILE_TEST_EXISTS));
  g_autoptr (SlTrace) back = load (out);
  g_assert_cmpuint (sl_trace_get_n_events (back), ==, sl_trace_get_n_events (trace));

  g_assert_true (sl_export_format_parse ("chrome", &format) && format == SL_EXPORT_CHROME);
  g_assert_true (sl_export_format_parse ("SQLite", &format) && format == SL_EXPORT_SQLITE);
  g_assert_false (sl_export_format_parse ("xml", &format));
}

/* A pipe (or device: /dev/stdout, /dev/null) is written in place and stays what it was; a
 * symbolic link stays a link, and the file it points to gets the export.  (Renaming the finished
 * file over the output replaced a device with a regular file.) */
typedef struct
{
  const char *path;
  GString    *got;
} FifoReader;

static gpointer
fifo_read (gpointer data)
{
  FifoReader *r = data;
  int fd = g_open (r->path, O_RDONLY | O_NONBLOCK, 0);
  gboolean seen = FALSE;
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  char buf[65536];

  g_assert_cmpint (fd, >=, 0);
  while (g_get_monotonic_time () < deadline)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      poll (&pfd, 1, 100);
      gssize n = read (fd, buf, sizeof buf);
      if (n > 0)
        {
          g_string_append_len (r->got, buf, n);
          seen = TRUE;
        }
      else if (n == 0 && seen)
        break;   /* the writer closed it */
    }
  close (fd);
  return NULL;
}

static void
test_special_outputs (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *plain = out_path ("plain.json");
  g_autofree char *fifo = out_path ("fifo.json");
  g_autofree char *link = out_path ("link.json");
  g_autofree char *real = out_path ("real.sqlite");
  g_autoptr (GError) error = NULL;
  g_autofree char *want = NULL;
  GStatBuf st;

  g_assert_true (sl_export_chrome (trace, plain, G_MININT64, G_MAXINT64, &error));
  g_assert_true (g_file_get_contents (plain, &want, NULL, NULL));

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  FifoReader r = { fifo, g_string_new (NULL) };
  GThread *reader = g_thread_new ("fifo", fifo_read, &r);
  g_usleep (50000);
  g_assert_true (sl_export_chrome (trace, fifo, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  g_thread_join (reader);
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_cmpstr (r.got->str, ==, want);
  g_string_free (r.got, TRUE);
  /* SQLite cannot be written to a pipe: an error naming it, and the pipe left alone */
  g_assert_false (sl_export_sqlite (trace, fifo, G_MININT64, G_MAXINT64, &error));
  g_assert_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE);
  g_assert_nonnull (strstr (error->message, fifo));
  g_clear_error (&error);
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));

  /* a link to a file not made yet, then to one that exists */
  g_assert_cmpint (symlink ("real.sqlite", link), ==, 0);
  for (int i = 0; i < 2; i++)
    {
      g_assert_true (sl_export_sqlite (trace, link, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_lstat (link, &st), ==, 0);
      g_assert_true (S_ISLNK (st.st_mode));
      g_autoptr (SlTrace) back = load (real);
      g_assert_cmpuint (sl_trace_get_n_events (back), ==, sl_trace_get_n_events (trace));
    }
}

#ifdef SL_HAVE_JSON_READER
/* Reports compared across a JSON round trip: those of the issue, and every one of them for a
 * trace the JSON reader wrote (an nsys trace loses, in Chrome JSON, what the format has no room
 * for: NVTX domains other than Kineto's, thread states). */
static void
assert_same_named (SlTrace            *trace,
                   SlTrace            *back,
                   const char *const  *names,
                   const char         *what)
{
  for (const char *const *n = names; *n != NULL; n++)
    {
      g_autofree char *x = report_csv (trace, *n);
      g_autofree char *y = report_csv (back, *n);
      if (g_strcmp0 (x, y) != 0)
        g_error ("%s: %s differs after the round trip:\n%s\n---\n%s", what, *n, x, y);
    }
}

/* nsys SQLite -> Chrome JSON -> model: the same kernel and API summaries (the test). */
static void
test_chrome_read_back (void)
{
  static const char *const names[] = { "cuda_gpu_kern_sum", "cuda_api_sum", NULL };
  g_auto (GStrv) traces = sl_test_nsys_traces ();

  for (char **t = traces; *t != NULL; t++)
    {
      g_autoptr (SlTrace) trace = load (*t);
      g_autofree char *base = g_path_get_basename (*t);
      g_autoptr (GError) error = NULL;

      for (int gz = 0; gz < 2; gz++)
        {
          g_autofree char *name = g_strconcat (base, gz ? ".json.gz" : ".json", NULL);
          g_autofree char *out = out_path (name);
          g_test_message ("%s", name);
          g_assert_true (sl_export_chrome (trace, out, G_MININT64, G_MAXINT64, &error));
          g_assert_no_error (error);
          g_autoptr (SlTrace) back = load (out);
          assert_same_named (trace, back, names, name);
          g_unlink (out);
        }
    }
}

/* The PyTorch traces: Kineto JSON -> SQLite -> model gives every report as the JSON did, and
 * Kineto JSON -> Chrome JSON -> model the kernel and API summaries. */
static void
test_kineto_round_trip (void)
{
  static const char *const names[] = { "cuda_gpu_kern_sum", "cuda_api_sum", NULL };
  g_autofree char *dir = g_build_filename (SL_TRACES_DIR, "pytorch", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *file;
  guint n = 0;

  g_assert_nonnull (d);
  while ((file = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, file, NULL);
      g_autofree char *sql = out_path ("kineto.sqlite");
      g_autofree char *json = out_path ("kineto.json.gz");
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

      g_test_message ("%s", file);
      if (trace == NULL)
        g_error ("%s: %s", file, error->message);
      g_assert_true (sl_export_sqlite (trace, sql, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      g_autoptr (SlTrace) from_sql = load (sql);
      assert_same_reports (trace, from_sql, file);

      g_assert_true (sl_export_chrome (trace, json, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      check_chrome (trace, json, G_MININT64, G_MAXINT64);
      g_autoptr (SlTrace) from_json = load (json);
      assert_same_named (trace, from_json, names, file);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}
#endif

#ifdef SL_SIGHTLINE_BIN
/* The command: its output equals the library's, and its errors name the file and the problem. */
static void
test_cmd (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autofree char *out = out_path ("cmd.json.gz");
  g_autofree char *bad = out_path ("no-such-dir/cmd.json");
  g_autofree char *missing = out_path ("missing.sqlite");
  g_auto (SlTestRun) ok = { 0 };
  g_auto (SlTestRun) fmt = { 0 };
  g_auto (SlTestRun) no_out = { 0 };
  g_auto (SlTestRun) unwritable = { 0 };
  g_auto (SlTestRun) absent = { 0 };
  g_auto (SlTestRun) range = { 0 };
  g_auto (SlTestRun) sql = { 0 };
  g_auto (SlTestRun) no_fmt = { 0 };

  sl_test_run (&ok, SL_SIGHTLINE_BIN, "export", path, "--format", "chrome", "-o", out, NULL);
  g_assert_cmpint (ok.status, ==, 0);
  g_autoptr (SlTrace) trace = load (path);
  check_chrome (trace, out, G_MININT64, G_MAXINT64);

  sl_test_run (&fmt, SL_SIGHTLINE_BIN, "export", path, "-f", "xml", "-o", out, NULL);
  g_assert_cmpint (fmt.status, ==, 2);
  g_assert_nonnull (strstr (fmt.err, "'xml'"));
  sl_test_run (&no_out, SL_SIGHTLINE_BIN, "export", path, "-f", "sqlite", NULL);
  g_assert_cmpint (no_out.status, ==, 2);
  g_assert_nonnull (strstr (no_out.err, "-o"));
  /* no --format: by the name of OUT, or an error that says so */
  g_autofree char *by_name = out_path ("by-name.sqlite");
  g_autofree char *unnamed = out_path ("by-name.out");
  sl_test_run (&sql, SL_SIGHTLINE_BIN, "export", path, "-o", by_name, NULL);
  g_assert_cmpint (sql.status, ==, 0);
  g_autoptr (SlTrace) back = load (by_name);
  g_assert_cmpuint (sl_trace_get_n_events (back), ==, sl_trace_get_n_events (trace));
  sl_test_run (&no_fmt, SL_SIGHTLINE_BIN, "export", path, "-o", unnamed, NULL);
  g_assert_cmpint (no_fmt.status, ==, 2);
  g_assert_nonnull (strstr (no_fmt.err, "--format"));
  g_assert_false (g_file_test (unnamed, G_FILE_TEST_EXISTS));
  sl_test_run (&unwritable, SL_SIGHTLINE_BIN, "export", path, "-f", "chrome", "-o", bad, NULL);
  g_assert_cmpint (unwritable.status, ==, 1);
  g_assert_nonnull (strstr (unwritable.err, bad));
  sl_test_run (&absent, SL_SIGHTLINE_BIN, "export", missing, "-f", "sqlite", "-o", out, NULL);
  g_assert_cmpint (absent.status, ==, 1);
  g_assert_nonnull (strstr (absent.err, missing));
  sl_test_run (&range, SL_SIGHTLINE_BIN, "export", path, "-f", "sqlite", "-o", out, "--range",
               "2s:1s", NULL);
  g_assert_cmpint (range.status, ==, 2);
  g_assert_nonnull (strstr (range.err, "--range"));
}
#endif

#ifdef SL_GEN_PATH
/* Issue 30: CUDA graphs written back as nsys writes them: a graph launch traced whole is its
 * CUPTI_ACTIVITY_KIND_GRAPH_TRACE row again (the table made only then), a kernel traced as a
 * graph node keeps its graphId and graphNodeId; the same rows as the source, column by column. */
/* GPU metrics (issue 31): every sample and name of a generated trace's GPU_METRICS comes back
 * (two GPUs, the device the typeId's low byte); a range keeps the samples in effect in it, the one
 * in effect at its start included, and the export's series equal the trace's over that range. */
static void
test_sqlite_metrics (void)
{
  static const char *const rows =
    "SELECT count(*) || ':' || group_concat (x, ';') FROM (SELECT m.timestamp || ',' "
    "|| (m.typeId & 255) || ',' || i.metricName || ',' || m.value AS x FROM GPU_METRICS m JOIN "
    "TARGET_INFO_GPU_METRICS i USING (typeId, metricId) ORDER BY m.typeId & 255, m.metricId, "
    "m.timestamp)";
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "export-metrics.sqlite", NULL);
  g_autofree char *out = g_strconcat (path, ".out.sqlite", NULL);
  g_autofree char *part = g_strconcat (path, ".part.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--gpu-metrics=2000",
               "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_metrics_get_n_series (trace), >, 18);
  g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  {
    struct sqlite3 *src = sl_test_open_db (path), *dst = sl_test_open_db (out);
    g_autofree char *want = sl_test_sql_text (src, rows);
    g_autofree char *got = sl_test_sql_text (dst, rows);
    g_assert_false (g_str_has_prefix (want, "0:"));
    g_assert_cmpstr (got, ==, want);
    sqlite3_close (src);
    sqlite3_close (dst);
  }

  /* the middle third: each series' samples from the one in effect at its start */
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  SlTime a = t0 + (t1 - t0) / 3, b = t0 + 2 * (t1 - t0) / 3;
  g_assert_true (sl_export_sqlite (trace, part, a, b, &error));
  g_assert_no_error (error);
  g_autoptr (SlTrace) back = sl_trace_load (part, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_metrics_get_n_series (back), ==, sl_metrics_get_n_series (trace));
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    {
      SlMetricStats x, y;
      const SlMetricSeries *si = sl_metrics_get_series (trace, i);
      gint j = sl_metrics_find_series (back, si->gpu, sl_metrics_get_name (trace, i));
      g_assert_cmpint (j, >=, 0);
      g_assert_true (sl_metrics_stats (trace, i, a, b - 1000000, &x));
      g_assert_true (sl_metrics_stats (back, (guint) j, a, b - 1000000, &y));
      g_assert_cmpfloat_with_epsilon (x.mean, y.mean, 1e-9 * MAX (1.0, fabs (x.mean)));
      g_assert_cmpuint (x.n, ==, y.n);
      g_assert_cmpint (sl_metrics_get_times (back, (guint) j)[0], <=, a);
      g_assert_cmpint (sl_metrics_get_times (back, (guint) j)[0], >, a - si->period * 2);
    }
}

/* Unified memory's page faults (issue 31): both fault tables of a generated trace come back row
 * for row, so every report, the um_* ones that read them from the file included, is the same. */
static void
test_sqlite_um_faults (void)
{
  static const char *const queries[] = {
    "SELECT count(*) || ':' || group_concat (x, ';') FROM (SELECT start || ',' || end || ',' || "
    "globalPid || ',' || deviceId || ',' || address || ',' || numberOfPageFaults || ',' || "
    "faultAccessType AS x FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS ORDER BY start, address, deviceId)",
    "SELECT count(*) || ':' || group_concat (x, ';') FROM (SELECT start || ',' || globalPid || ',' "
    "|| address AS x FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS ORDER BY start, address)",
  };
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "export-um.sqlite", NULL);
  g_autofree char *out = g_strconcat (path, ".out.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--um-faults",
               "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  struct sqlite3 *src = sl_test_open_db (path), *dst = sl_test_open_db (out);
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      g_autofree char *want = sl_test_sql_text (src, queries[q]);
      g_autofree char *got = sl_test_sql_text (dst, queries[q]);
      g_assert_false (g_str_has_prefix (want, "0:"));
      g_assert_cmpstr (got, ==, want);
    }
  sqlite3_close (src);
  sqlite3_close (dst);
  g_autoptr (SlTrace) back = sl_trace_load (out, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_um_faults (back), ==, sl_trace_get_n_um_faults (trace));
  assert_same_reports (trace, back, "export-um");
}

static void
test_sqlite_graphs (void)
{
  static const char *const modes[] = { "graph", "node" };
  static const char *const queries[] = {
    "SELECT count(*) || ':' || coalesce (group_concat (x, ';'), '') FROM (SELECT start || ',' "
    "|| end || ',' || deviceId || ',' || contextId || ',' || streamId || ',' || correlationId "
    "|| ',' || globalPid || ',' || graphId || ',' || graphExecId AS x FROM "
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE ORDER BY start, streamId)",
    "SELECT count(*) || ':' || coalesce (group_concat (x, ';'), '') FROM (SELECT start || ',' "
    "|| correlationId || ',' || graphId || ',' || graphNodeId AS x FROM "
    "CUPTI_ACTIVITY_KIND_KERNEL WHERE graphId IS NOT NULL ORDER BY start, streamId)",
  };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *name = g_strdup_printf ("export-graphs-%s.sqlite", modes[m]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
      g_autofree char *out = g_strconcat (path, ".out.sqlite", NULL);
      g_auto (SlTestRun) run = { 0 };
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = NULL;
      struct sqlite3 *src, *dst;

      sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "8000", "--gpus", "2", "--graphs",
                   modes[m], "--force", NULL);
      g_assert_cmpint (run.status, ==, 0);
      trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      src = sl_test_open_db (path);
      dst = sl_test_open_db (out);
      g_assert_cmpint (sl_test_sql_int (dst, "SELECT count(*) FROM sqlite_master WHERE name = "
                                             "'CUPTI_ACTIVITY_KIND_GRAPH_TRACE'"), ==, m == 0);
      for (guint q = m == 0 ? 0 : 1; q < G_N_ELEMENTS (queries); q++)
        {
          g_autofree char *want = sl_test_sql_text (src, queries[q]);
          g_autofree char *got = sl_test_sql_text (dst, queries[q]);
          g_assert_false (g_str_has_prefix (want, "0:") && q == m);
          g_assert_cmpstr (got, ==, want);
        }
      sqlite3_close (src);
      sqlite3_close (dst);

      /* Chrome JSON: every graph launch is GPU work again when read back (a kernel event named
       * as the launch), so the GPU's kernel time is the same */
      {
        g_autofree char *json = g_strconcat (path, ".json", NULL);
        g_autoptr (SlTrace) back = NULL;
        guint64 launches = 0, found = 0;
        g_assert_true (sl_export_chrome (trace, json, G_MININT64, G_MAXINT64, &error));
        g_assert_no_error (error);
        back = sl_trace_load (json, SL_LOAD_ALL, NULL, NULL, NULL, &error);
        g_assert_no_error (error);
        for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
          if (sl_trace_get_lane (trace, l)->kind == SL_LANE_GRAPHS)
            launches += sl_trace_get_lane (trace, l)->n_events;
        for (guint l = 0; l < sl_trace_get_n_lanes (back); l++)
          {
            const SlLane *lane = sl_trace_get_lane (back, l);
            for (gsize e = 0; lane->kind == SL_LANE_KERNELS && e < lane->n_events; e++)
              found += g_str_has_prefix (sl_trace_str (back, lane->events[e].name), "CUDA Graph ");
          }
        g_assert_cmpuint (launches, ==, m == 0 ? found : 0);
        g_assert_true (m == 1 || launches > 0);
      }
    }
}

/* The MPI report `name` over [t0, t1) as CSV text */
static char *
range_report_csv (SlTrace    *trace,
                  const char *name,
                  SlTime      t0,
                  SlTime      t1)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) report = sl_report_compute_range (trace, name, t0, t1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report);
  GString *out = g_string_new (NULL);
  sl_report_write (report, SL_REPORT_FORMAT_CSV, out);
  return g_string_free (out, FALSE);
}

/* MPI rows of every table, as "table: count, total time, sizes" by the file's own SQL */
static char *
mpi_rows_text (const char *path)
{
  static const char *const queries[] = {
    "SELECT 'p2p', count(*), sum(end - start), sum(size), sum(tag), sum(remoteRank), "
    "count(requestHandle), count(DISTINCT commHandle) FROM MPI_P2P_EVENTS",
    "SELECT 'coll', count(*), sum(end - start), sum(size), sum(recvSize), sum(rootRank), "
    "count(requestHandle), count(DISTINCT commHandle) FROM MPI_COLLECTIVES_EVENTS",
    "SELECT 'wait', count(*), sum(end - start), count(requestHandle) FROM MPI_START_WAIT_EVENTS",
    "SELECT 'other', count(*), sum(end - start) FROM MPI_OTHER_EVENTS",
    "SELECT 'ranks', group_concat(rank) FROM (SELECT DISTINCT rank FROM MPI_RANKS ORDER BY 1)",
    "SELECT 'names', group_concat(value) FROM (SELECT DISTINCT s.value FROM MPI_P2P_EVENTS AS e "
    "JOIN StringIds AS s ON s.id = e.textId ORDER BY 1)",
  };
  sqlite3 *db = sl_test_open_db (path);
  GString *out = g_string_new (NULL);

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      sqlite3_stmt *stmt = NULL;
      g_assert_cmpint (sqlite3_prepare_v2 (db, queries[q], -1, &stmt, NULL), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
      for (int c = 0; c < sqlite3_column_count (stmt); c++)
        g_string_append_printf (out, "%s|", sqlite3_column_type (stmt, c) == SQLITE_NULL
                                             ? "NULL"
                                             : (const char *) sqlite3_column_text (stmt, c));
      g_string_append_c (out, '\n');
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
  return g_string_free (out, FALSE);
}

/* A gap of rank `trace`'s MPI calls (an instant no call overlaps) near `t`: the first end of a
 * call at or after t that the next call starts after */
static SlTime
mpi_gap_after (SlTrace *trace,
               SlTime   t)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MPI)
        continue;
      for (gsize k = 0; k + 1 < lane->n_events; k++)
        if (lane->events[k].end >= t && lane->events[k + 1].start > lane->events[k].end)
          return lane->events[k].end;
    }
  g_assert_not_reached ();
}

/* A 4-rank MPI job (sightline-gen --mpi --ranks 4): each rank's file exported whole to SQLite
 * keeps the MPI tables, so every report (mpi_event_sum, mpi_event_trace with its ranks,
 * mpi_msg_size_sum) is the source's and the tables' rows agree by SQL; a range keeps the calls
 * that overlap it, so that the export's MPI reports over the range are the source's, and, for a
 * range whose ends no call straddles, the exported file's whole mpi_event_sum is the source's
 * over that range; the merged job to Chrome JSON has every call as a slice with its details and
 * an arrow for each message. */
static void
test_mpi (void)
{
  g_autofree char *dir = out_path ("mpi");
  g_autofree char *pattern = g_build_filename (dir, "job-%r.sqlite", NULL);
  g_autoptr (GError) error = NULL;
  SlTestRun run = { 0 };
  char *paths[4];

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  sl_test_run (&run, SL_GEN_PATH, "-o", pattern, "-n", "20k", "--ranks", "4", "--straggler", "2",
               "--mpi", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  for (int r = 0; r < 4; r++)
    paths[r] = g_strdup_printf ("%s/job-%d.sqlite", dir, r);

  for (int r = 0; r < 4; r++)
    {
      g_autoptr (SlTrace) trace = load (paths[r]);
      g_autofree char *out = g_strdup_printf ("%s/export-%d.sqlite", dir, r);
      g_assert_cmpuint (sl_trace_get_n_mpi_calls (trace), >, 100);
      g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
      g_assert_no_error (error);
      g_autoptr (SlTrace) back = load (out);
      assert_same_reports (trace, back, paths[r]);
      g_autofree char *want = mpi_rows_text (paths[r]);
      g_autofree char *got = mpi_rows_text (out);
      g_assert_cmpstr (got, ==, want);
      g_autofree char *sum = report_csv (back, "mpi_event_sum");
      g_assert_false (g_str_equal (sum, "no data"));

      /* the middle third of the rank's calls: any instants, then gaps no call straddles */
      SlTime a = sl_trace_get_start (trace), b = sl_trace_get_end (trace);
      SlTime t0 = a + (b - a) / 3, t1 = a + 2 * (b - a) / 3;
      for (int gaps = 0; gaps < 2; gaps++)
        {
          if (gaps)
            {
              t0 = mpi_gap_after (trace, t0);
              t1 = mpi_gap_after (trace, t1);
            }
          g_autofree char *part = g_strdup_printf ("%s/range-%d-%d.sqlite", dir, r, gaps);
          g_assert_true (sl_export_sqlite (trace, part, t0, t1, &error));
          g_assert_no_error (error);
          g_autoptr (SlTrace) cut = load (part);
          gsize want_kinds[SL_N_LANE_KINDS], got_kinds[SL_N_LANE_KINDS];
          count_kinds (trace, want_kinds, t0, t1);
          count_kinds (cut, got_kinds, G_MININT64, G_MAXINT64);
          g_assert_cmpuint (got_kinds[SL_LANE_MPI], ==, want_kinds[SL_LANE_MPI]);
          g_assert_cmpuint (got_kinds[SL_LANE_MPI], >, 10);
          for (const char *const *n = (const char *const[]) { "mpi_event_sum", "mpi_event_trace",
                                                              "mpi_msg_size_sum", NULL };
               *n != NULL; n++)
            {
              g_autofree char *x = range_report_csv (trace, *n, t0, t1);
              g_autofree char *y = range_report_csv (cut, *n, t0, t1);
              g_assert_cmpstr (y, ==, x);
              if (gaps)
                {
                  g_autofree char *whole = report_csv (cut, *n);
                  g_assert_cmpstr (whole, ==, x);
                }
            }
        }
    }

  /* the merged job: its messages cross files, so arrows join the ranks' threads */
  g_autoptr (SlTrace) merged = sl_trace_load_merged ((const char *const *) paths, 4, SL_LOAD_ALL,
                                                     NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (merged);
  g_assert_cmpuint (sl_trace_get_mpi_messages (merged)->n_messages, >, 100);
  g_autofree char *json = g_build_filename (dir, "job.json", NULL);
  g_assert_true (sl_export_chrome (merged, json, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  check_chrome (merged, json, G_MININT64, G_MAXINT64);
  SlTime a = sl_trace_get_start (merged), b = sl_trace_get_end (merged);
  SlTime t0 = a + (b - a) / 3, t1 = a + (b - a) / 2;
  g_assert_true (sl_export_chrome (merged, json, t0, t1, &error));
  g_assert_no_error (error);
  check_chrome (merged, json, t0, t1);
  g_assert_cmpuint (kept_messages (merged, t0, t1), >, 0);
  g_assert_cmpuint (kept_messages (merged, t0, t1), <,
                    sl_trace_get_mpi_messages (merged)->n_messages);
  for (int r = 0; r < 4; r++)
    g_free (paths[r]);
  sl_test_run_clear (&run);
}
#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/export/sqlite-round-trip", test_sqlite_round_trip);
  g_test_add_func ("/model/export/sqlite-planted", test_sqlite_planted);
  g_test_add_func ("/model/export/chrome-real", test_chrome_real);
  g_test_add_func ("/model/export/chrome-planted", test_chrome_planted);
  g_test_add_func ("/model/export/chrome-times", test_chrome_times);
  g_test_add_func ("/model/export/empty", test_empty);
  g_test_add_func ("/model/export/range", test_range);
  g_test_add_func ("/model/export/errors", test_errors);
  g_test_add_func ("/model/export/special-outputs", test_special_outputs);
#ifdef SL_GEN_PATH
  g_test_add_func ("/model/export/sqlite-graphs", test_sqlite_graphs);
  g_test_add_func ("/model/export/sqlite-metrics", test_sqlite_metrics);
  g_test_add_func ("/model/export/sqlite-um-faults", test_sqlite_um_faults);
  g_test_add_func ("/model/export/mpi", test_mpi);
#endif
#ifdef SL_HAVE_JSON_READER
  g_test_add_func ("/model/export/chrome-read-back", test_chrome_read_back);
  g_test_add_func ("/model/export/kineto-round-trip", test_kineto_round_trip);
#endif
#ifdef SL_SIGHTLINE_BIN
  g_test_add_func ("/app/export/cmd", test_cmd);
#endif
  return g_test_run ();
}
