/* bench-json.c: the JSON reader's and the Chrome exporter's figures (issue 16), each against a
 * baseline measured in the same run.
 *
 *   bench-json TRACE.json [RUNS]
 *
 * TRACE.json: a Kineto trace, e.g. `sightline-gen -F kineto -n 10M -o k10M.json` (~3.6 GB);
 * TRACE.json.gz beside it is written once (zlib, level 6) when missing.  RUNS rounds (default 3),
 * interleaved, medians:
 *
 *  1. plain load (sl_trace_load of TRACE.json): MB/s of the file (target ≥ 250 MB/s), beside the
 *     time to read the file into memory (its bytes from the page cache: the floor);
 *  2. gzip load (TRACE.json.gz) against its decompression alone (zlib into a buffer thrown away)
 *     plus the plain load (target ≤ 1.3 ×);
 *  3. export: the loaded trace written as Chrome JSON (sl_export_chrome) against its plain load
 *     (target ≤ 1.5 ×);
 *  4. memory: a child process that only loads TRACE.json reports its peak and final resident
 *     memory (VmHWM, VmRSS) per event (target ≤ 48 bytes per event, peak included).
 *
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sl-bench.h"
#include "sl-export.h"
#include "sl-trace.h"

static void
add (GArray *a,
     double  v)
{
  g_array_append_val (a, v);
}

/* kB of a "Name:   123 kB" line of /proc/self/status */
static gsize
status_kb (const char *name)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return 0;
  const char *at = strstr (text, name);
  return at != NULL ? (gsize) g_ascii_strtoull (at + strlen (name), NULL, 10) : 0;
}

/* BENCH_PHASES=1: the resident memory as the load passes each of its phases, on stderr. */
static void
phase_cb (double      fraction,
          const char *what,
          gpointer    data)
{
  char **last = data;
  static double shown = -1;

  if (g_strcmp0 (what, *last) == 0 && fraction < shown + 0.1)
    return;
  shown = fraction;
  fprintf (stderr, "  %5.1f%% %-40s rss %6zu MB, peak %6zu MB\n", 100 * fraction, what,
           status_kb ("VmRSS:") / 1024, status_kb ("VmHWM:") / 1024);
  g_free (*last);
  *last = g_strdup (what);
}

/* The child of part 4: loads and prints "events N hwm KB rss KB". */
static int
child_load (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *last = NULL;
  gboolean phases = g_getenv ("BENCH_PHASES") != NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, phases ? phase_cb : NULL, &last,
                                             NULL, &error);

  if (trace == NULL)
    {
      fprintf (stderr, "bench-json: %s\n", error->message);
      return 1;
    }
  printf ("events %" G_GSIZE_FORMAT " hwm %" G_GSIZE_FORMAT " rss %" G_GSIZE_FORMAT "\n",
          sl_trace_get_n_events (trace), status_kb ("VmHWM:"), status_kb ("VmRSS:"));
  return 0;
}

static double
read_file_s (const char *path)
{
  double t0 = sl_bench_now ();
  FILE *f = fopen (path, "rb");
  static char buf[1 << 20];
  gsize sink = 0;

  if (f == NULL)
    return -1;
  for (size_t n; (n = fread (buf, 1, sizeof buf, f)) > 0;)
    sink += (guchar) buf[n - 1];
  fclose (f);
  (void) sink;
  return sl_bench_now () - t0;
}

static double
gunzip_s (const char *path)
{
  double t0 = sl_bench_now ();
  gzFile f = gzopen (path, "rb");
  static char buf[1 << 20];

  if (f == NULL)
    return -1;
  gzbuffer (f, 1 << 20);
  while (gzread (f, buf, sizeof buf) > 0)
    ;
  gzclose (f);
  return sl_bench_now () - t0;
}

static gboolean
write_gz (const char *path,
          const char *gz)
{
  FILE *in = fopen (path, "rb");
  gzFile out = gzopen (gz, "wb6");
  static char buf[1 << 20];
  gboolean ok = in != NULL && out != NULL;

  for (size_t n; ok && (n = fread (buf, 1, sizeof buf, in)) > 0;)
    ok = gzwrite (out, buf, (unsigned) n) == (int) n;
  if (in != NULL)
    fclose (in);
  if (out != NULL && gzclose (out) != Z_OK)
    ok = FALSE;
  return ok;
}

static SlTrace *
load (const char *path,
      double     *seconds)
{
  g_autoptr (GError) error = NULL;
  double t0 = sl_bench_now ();
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  *seconds = sl_bench_now () - t0;
  if (trace == NULL)
    g_error ("%s", error->message);
  return trace;
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--child-load"))
    return child_load (argv[2]);
  if (argc < 2)
    {
      fprintf (stderr, "usage: bench-json TRACE.json [RUNS]\n");
      return 2;
    }
  const char *path = argv[1];
  int runs = argc > 2 ? atoi (argv[2]) : 3;
  g_autofree char *gz = g_strconcat (path, ".gz", NULL);
  g_autofree char *out = g_strconcat (path, ".bench-export.json", NULL);
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      fprintf (stderr, "bench-json: %s: no such file\n", path);
      return 1;
    }
  double mb = (double) st.st_size / 1e6;
  if (!g_file_test (gz, G_FILE_TEST_EXISTS))
    {
      printf ("writing %s …\n", gz);
      if (!write_gz (path, gz))
        {
          fprintf (stderr, "bench-json: cannot write %s\n", gz);
          return 1;
        }
    }
  GStatBuf gst;
  g_stat (gz, &gst);

  /* 4 first, in a fresh process: nothing loaded yet here */
  g_autofree char *child_out = NULL;
  g_autoptr (GError) error = NULL;
  const char *child[] = { "/proc/self/exe", "--child-load", path, NULL };
  int status = 0;
  gsize events = 0, hwm = 0, rss = 0;
  if (!g_spawn_sync (NULL, (char **) child, NULL, G_SPAWN_DEFAULT, NULL, NULL, &child_out, NULL,
                     &status, &error)
      || sscanf (child_out, "events %zu hwm %zu rss %zu", &events, &hwm, &rss) != 3)
    fprintf (stderr, "bench-json: the loading child failed: %s\n",
             error != NULL ? error->message : child_out);

  g_autoptr (GArray) t_read = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_plain = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_gunzip = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_gz = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_export = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) r_gz = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) r_export = g_array_new (FALSE, FALSE, sizeof (double));
  gsize n_events = 0;

  for (int r = 0; r < runs; r++)
    {
      double s_read = read_file_s (path), s_plain, s_gz, s_unz, s_exp;
      SlTrace *trace = load (path, &s_plain);
      n_events = sl_trace_get_n_events (trace);
      double t0 = sl_bench_now ();
      if (!sl_export_chrome (trace, out, G_MININT64, G_MAXINT64, &error))
        g_error ("%s", error->message);
      s_exp = sl_bench_now () - t0;
      sl_trace_unref (trace);
      s_unz = gunzip_s (gz);
      sl_trace_unref (load (gz, &s_gz));
      add (t_read, s_read);
      add (t_plain, s_plain);
      add (t_export, s_exp);
      add (t_gunzip, s_unz);
      add (t_gz, s_gz);
      add (r_gz, s_gz / (s_unz + s_plain));
      add (r_export, s_exp / s_plain);
      printf ("run %d: read %.2f s, plain load %.2f s, export %.2f s, gunzip %.2f s, gz load %.2f s\n",
              r + 1, s_read, s_plain, s_exp, s_unz, s_gz);
      fflush (stdout);
    }
  g_unlink (out);

  printf ("\n%s: %.0f MB (%.0f MB gzipped), %" G_GSIZE_FORMAT " events; %d runs, medians\n", path,
          mb, (double) gst.st_size / 1e6, n_events, runs);
  printf ("1. plain load %.2f s: %.0f MB/s (target >= 250); reading the file alone %.2f s "
          "(%.0f MB/s)\n",
          sl_bench_median (t_plain), mb / sl_bench_median (t_plain), sl_bench_median (t_read), mb / sl_bench_median (t_read));
  printf ("2. gzip load %.2f s = %.2f x (gunzip alone %.2f s + plain load) (target <= 1.3)\n",
          sl_bench_median (t_gz), sl_bench_median (r_gz), sl_bench_median (t_gunzip));
  printf ("3. export to Chrome JSON %.2f s = %.2f x the plain load (target <= 1.5)\n",
          sl_bench_median (t_export), sl_bench_median (r_export));
  if (events > 0)
    printf ("4. resident memory of a process that loads it: peak %.1f, after %.1f bytes/event "
            "(target <= 48)\n",
            (double) hwm * 1024 / (double) events, (double) rss * 1024 / (double) events);
  return 0;
}
