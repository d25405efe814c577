/* sl-cmd-record.c: `sightline record [OPTION…] -- COMMAND [ARG…]`: records a program through
 * sightlined (started on demand), like `nsys profile`.
 *
 * The daemon launches the program with our stdin/stdout/stderr, so its output shows here; we print
 * a live status line on stderr (when it is a terminal), forward Ctrl+C as "stop" (the program gets
 * SIGINT, the trace is finished and kept), and exit with the program's status.
 */
#include "sl-cmd-record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "sl-cmd-stats.h"
#include "sl-control.h"
#include "sl-format.h"
#include "sl-recording.h"

static volatile sig_atomic_t interrupted, snapshots_asked;

static void
on_sigint (int sig)
{
  (void) sig;
  interrupted++;
}

/* SIGUSR1 to `sightline record`: a snapshot of its flight recorder */
static void
on_sigusr1 (int sig)
{
  (void) sig;
  snapshots_asked++;
}

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: sightline record [OPTION…] [--] COMMAND [ARG…]\n"
           "\n"
           "Runs COMMAND and records it into a trace (SQLite, Nsight Systems schema).\n"
           "\n"
           "  -o, --output FILE     the trace (default: sightline-N.sqlite, a new N); in FILE,\n"
           "                        %%q{VAR} is the environment variable VAR, %%h the host name,\n"
           "                        %%p the pid of this command, %%%% a %%: one file per rank\n"
           "                        with srun/mpirun/torchrun (-o 'trace-%%q{RANK}.sqlite');\n"
           "                        with --keep-last, %%n numbers its files (1, 2, …: each\n"
           "                        snapshot, then the trace at the end; 'live' while recording)\n"
           "  -f, --force           overwrite FILE if it exists\n"
           "      --keep-last DURATION  a flight recorder: keep only the events of the last\n"
           "                        DURATION (30s, 5m, 1h) in memory and on disk, older ones\n"
           "                        dropped in chunks of DURATION/8; the trace is written at the\n"
           "                        end, on Ctrl+C and on each snapshot\n"
           "      --max-size SIZE   stop recording when the file reaches SIZE (20M, 2G; powers\n"
           "                        of 1024), the program going on; with --keep-last, keep the\n"
           "                        newest events under SIZE instead\n"
           "      --snapshot [PID|FILE]  (no COMMAND) a snapshot of each running flight\n"
           "                        recorder (of that program or file): a file of its own, the\n"
           "                        program going on; SIGUSR1 to `sightline record` or to\n"
           "                        sightlined does the same\n"
           "  -t, --trace LIST      what to trace: cuda,nvtx,osrt (default: all three), mpi\n"
           "                        (MPI calls through PMPI), openmp (OMPT: LLVM's libomp)\n"
           "  -s, --sample HZ|none  CPU sampling with call stacks (default: 1000)\n"
           "      --osrt-threshold NS  record OS runtime calls of at least NS ns (default: 1000)\n"
           "      --osrt-backtrace NS|none  backtraces of OS runtime calls of at least NS ns\n"
           "                        (default: 80000)\n"
           "      --sched on|off|perf|proc  thread scheduling (default: on: perf context-switch\n"
           "                        records where allowed, else /proc polled at 1 kHz)\n"
           "      --cuda-graph-trace graph|node  a CUDA graph launch as one row (graph, the\n"
           "                        default) or as the kernels of its nodes (node), as nsys\n"
           "      --cudabacktrace all|none|CLASS[:NS][,…]  backtraces of CUDA API calls of a\n"
           "                        CLASS (kernel, memory, sync, other) that took at least NS ns\n"
           "                        (80000 where not given), as nsys (default: sync:250000)\n"
           "      --cuda-memory-usage[=true|false]  GPU memory allocated and freed by CUDA\n"
           "                        calls (CUDA_GPU_MEMORY_USAGE_EVENTS; `sightline memory`)\n"
           "      --cuda-um-cpu-page-faults[=true|false]  unified memory's CPU page faults\n"
           "      --cuda-um-gpu-page-faults[=true|false]  unified memory's GPU page faults;\n"
           "                        either also records its migrations (copies 11, 12)\n"
           "      --gpu-metrics[=HZ]  each GPU's PM counters (SMs Active, SM Issue, Tensor\n"
           "                        Active, DRAM bandwidth, …) sampled HZ times a second\n"
           "                        (10 … 200000; default 10000) through CUPTI's PM sampling\n"
           "                        (GPU_METRICS; `sightline stats --report gpu_metrics_sum`)\n"
           "      --capture-range none|cudaProfilerApi|nvtx  record only between\n"
           "                        cudaProfilerStart and cudaProfilerStop, or inside the NVTX\n"
           "                        range of --nvtx-capture (default: none, the whole run)\n"
           "      --nvtx-capture RANGE[@DOMAIN]  the NVTX range (@* any domain)\n"
           "      --capture-range-end stop|stop-shutdown|repeat[:N]  after a range: stop\n"
           "                        recording, also end the program (the default), or record\n"
           "                        the next ranges (N at most)\n"
           "      --delay S         start collecting after S seconds\n"
           "      --duration S      collect for S seconds, then end the program\n"
           "      --env VAR=VALUE   set VAR in COMMAND's environment (repeatable)\n"
           "      --cwd DIR         run COMMAND in DIR\n"
           "      --stats           print the `sightline stats` reports at the end\n"
           "\n"
           "Ctrl+C ends the program (SIGINT) and keeps the trace.  The exit status is COMMAND's.\n"
           "A recording without --keep-last, --max-size or --duration says its data rate after\n"
           "its first seconds.\n");
}

/* `--NAME VALUE` or `--NAME=VALUE` (nsys writes the second): TRUE when argv[*i] is NAME, with
 * *value its value (NULL when missing) and *i past what was read. */
static gboolean
option_value (char       **argv,
              int          argc,
              int         *i,
              const char  *name,
              const char **value)
{
  const char *a = argv[*i];
  size_t n = strlen (name);

  if (strncmp (a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
    return FALSE;
  if (a[n] == '=')
    *value = a + n + 1;
  else
    *value = *i + 1 < argc ? argv[++*i] : NULL;
  return TRUE;
}

/* A boolean option as nsys takes it: `--NAME`, `--NAME=true|false` or `--NAME true|false`.  TRUE
 * when argv[*i] is NAME, *i then past what was read; *value its value, or -1 for a value that is
 * neither. */
static gboolean
option_bool (char       **argv,
             int          argc,
             int         *i,
             const char  *name,
             int         *value)
{
  const char *a = argv[*i];
  size_t n = strlen (name);
  const char *v = NULL;

  if (strncmp (a, name, n) != 0 || (a[n] != '\0' && a[n] != '='))
    return FALSE;
  if (a[n] == '=')
    v = a + n + 1;
  else if (*i + 1 < argc
           && (strcmp (argv[*i + 1], "true") == 0 || strcmp (argv[*i + 1], "false") == 0))
    v = argv[++*i];
  else
    v = "true";
  *value = strcmp (v, "true") == 0 ? 1 : strcmp (v, "false") == 0 ? 0 : -1;
  return TRUE;
}

static char *
default_output (void)
{
  for (int n = 1; n < 100000; n++)
    {
      char *p = g_strdup_printf ("sightline-%d.sqlite", n);
      if (!g_file_test (p, G_FILE_TEST_EXISTS))
        return p;
      g_free (p);
    }
  return g_strdup ("sightline.sqlite");
}

static const char *
lookup_env (const char *name,
            void       *data)
{
  (void) data;
  return g_getenv (name);
}

static int
exit_code_of (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return 1;
}

/* `sightline record --snapshot [PID|FILE]`: asks this build's daemon for a snapshot of its
 * flight recorders (sl-control.h) and says where each went.  0 when every one was written. */
static int
record_snapshot (const char *which)
{
  char sock[256], dir[256], note[8192];
  SlControlMsg m;
  int failed = 0, n = 0;

  if (!sl_control_socket_path (sock, sizeof sock, dir, sizeof dir))
    {
      fprintf (stderr, "sightline record: cannot use %s for the daemon's socket: %s\n", dir,
               g_strerror (errno));
      return 1;
    }
  g_autofree char *dpath = sl_recording_daemon_path ();
  int fd = sl_control_connect_own (sock, dpath != NULL ? dpath : "sightlined", 5000, note,
                                   sizeof note);
  if (fd < 0)
    {
      fprintf (stderr, "sightline record: %s\n", note);
      return 1;
    }
  /* a FILE as the daemon knows it: absolute, as `record` sent it */
  g_autofree char *file = which != NULL && strspn (which, "0123456789") != strlen (which)
                            ? g_canonicalize_filename (which, NULL)
                            : g_strdup (which != NULL ? which : "");
  if (!sl_control_sendv (fd, "snapshot", file, NULL, NULL)
      || sl_control_recv (fd, &m) != 0)
    {
      fprintf (stderr, "sightline record: --snapshot: the collector daemon did not answer\n");
      close (fd);
      return 1;
    }
  if (m.n >= 2 && strcmp (m.argv[0], "snapshots") == 0)
    n = atoi (m.argv[1]);
  sl_control_msg_clear (&m);
  if (n == 0)
    fprintf (stderr, "sightline record: --snapshot: no flight recorder (record --keep-last) is "
                     "recording%s%s\n",
             which != NULL ? " " : "", which != NULL ? which : "");
  for (int k = 0; k < n; k++)
    {
      if (sl_control_recv (fd, &m) != 0)
        {
          fprintf (stderr, "sightline record: --snapshot: the collector daemon went away\n");
          failed++;
          break;
        }
      if (m.n >= 2 && strcmp (m.argv[0], "snapshot") == 0)
        printf ("%s\n", m.argv[1]);
      else
        {
          fprintf (stderr, "sightline record: --snapshot: %s\n", m.n >= 2 ? m.argv[1] : "?");
          failed++;
        }
      sl_control_msg_clear (&m);
    }
  close (fd);
  return n == 0 || failed > 0 ? 1 : 0;
}

/* The file's size, 0 when it cannot be read. */
static guint64
file_size (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* "~40 MB/min at this rate": what the file grew by since the first progress (not counting the
 * empty tables, a few MiB), over the time between. */
static void
say_rate (guint64  grown,
          guint64  ns,
          gboolean tty)
{
  double per_min = (double) grown / ((double) ns / 60e9);
  g_autofree char *size = g_format_size ((guint64) per_min);
  fprintf (stderr, "%ssightline: ~%s/min at this rate (--keep-last DURATION or --max-size SIZE "
                   "bound a long recording)\n",
           tty ? "\r\033[K" : "", size);
}

int
sl_cmd_record (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *cwd = NULL;
  const char *trace = "cuda,nvtx,osrt";
  const char *sample = "1000";
  const char *osrt_threshold = NULL;
  const char *osrt_backtrace = NULL;
  const char *sched = "auto";
  const char *graph_trace = "graph";
  const char *cuda_backtrace = NULL;
  const char *capture_range = NULL, *nvtx_capture = NULL, *capture_end = NULL;
  g_autofree char *sched_note = NULL;
  double delay = 0, duration = 0;
  gboolean force = FALSE, stats = FALSE;
  int memory_usage = 0, um_cpu = 0, um_gpu = 0;
  int gpu_metrics_hz = 0; /* --gpu-metrics[=HZ]; 0: not asked */
  double keep_last = 0;   /* --keep-last, seconds; 0: not asked */
  guint64 max_size = 0;   /* --max-size, bytes; 0: not asked */
  int *flag = NULL;
  g_autoptr (GPtrArray) envs = g_ptr_array_new ();
  int i;

  for (i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp (a, "--") == 0)
        {
          i++;
          break;
        }
      if (a[0] != '-')
        break;
      if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0)
        {
          usage (stdout);
          return 0;
        }
      else if (strcmp (a, "-f") == 0 || strcmp (a, "--force") == 0)
        force = TRUE;
      else if (strcmp (a, "--stats") == 0)
        stats = TRUE;
      else if (strcmp (a, "--snapshot") == 0)
        {
          const char *which = v != NULL && v[0] != '-' ? v : NULL;
          if (i + 1 + (which != NULL) < argc)
            {
              fprintf (stderr, "sightline record: --snapshot [PID|FILE] takes no COMMAND: it asks "
                               "the flight recorders running (record --keep-last) for a copy\n");
              return 2;
            }
          return record_snapshot (which);
        }
      else if (option_value (argv, argc, &i, "--keep-last", &v)
               || option_value (argv, argc, &i, "--max-size", &v))
        {
          g_autoptr (GError) bad = NULL;
          if (v == NULL)
            {
              fprintf (stderr, "sightline record: %.*s needs a value\n", (int) strcspn (a, "="), a);
              return 2;
            }
          if (a[2] == 'k' ? !sl_record_parse_duration (v, &keep_last, &bad)
                          : !sl_record_parse_size (v, &max_size, &bad))
            {
              fprintf (stderr, "sightline record: %s\n", bad->message);
              return 2;
            }
        }
      else if (strcmp (a, "--gpu-metrics") == 0)
        gpu_metrics_hz = 10000; /* nsys's default rate */
      else if (g_str_has_prefix (a, "--gpu-metrics="))
        {
          const char *hz = a + strlen ("--gpu-metrics=");
          char *end = NULL;
          guint64 n = g_ascii_strtoull (hz, &end, 10);
          if (*hz == '\0' || end == NULL || *end != '\0' || n < 10 || n > 200000)
            {
              fprintf (stderr,
                       "sightline record: --gpu-metrics=%s: samples a second, 10 to 200000\n",
                       hz);
              return 2;
            }
          gpu_metrics_hz = (int) n;
        }
      else if (option_bool (argv, argc, &i, "--cuda-memory-usage", flag = &memory_usage)
               || option_bool (argv, argc, &i, "--cuda-um-cpu-page-faults", flag = &um_cpu)
               || option_bool (argv, argc, &i, "--cuda-um-gpu-page-faults", flag = &um_gpu))
        {
          if (*flag < 0)
            {
              fprintf (stderr, "sightline record: %.*s wants true or false\n",
                       (int) strcspn (a, "="), a);
              return 2;
            }
        }
      else if (v == NULL)
        {
          fprintf (stderr, "sightline record: %s needs a value\n", a);
          return 2;
        }
      else if (strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0)
        output = g_strdup (argv[++i]);
      else if (strcmp (a, "-t") == 0 || strcmp (a, "--trace") == 0)
        {
          trace = argv[++i];
          g_auto (GStrv) parts = g_strsplit (trace, ",", -1);
          for (char **p = parts; *p != NULL; p++)
            if (strcmp (*p, "cuda") != 0 && strcmp (*p, "nvtx") != 0 && strcmp (*p, "osrt") != 0
                && strcmp (*p, "mpi") != 0 && strcmp (*p, "openmp") != 0
                && strcmp (*p, "none") != 0)
              {
                fprintf (stderr, "sightline record: unknown trace '%s' (cuda, nvtx, osrt, mpi, "
                         "openmp, none)\n", *p);
                return 2;
              }
        }
      else if (strcmp (a, "-s") == 0 || strcmp (a, "--sample") == 0)
        {
          sample = argv[++i];
          if (strcmp (sample, "none") == 0)
            sample = "0";
          else if (atoi (sample) <= 0 || atoi (sample) > 20000)
            {
              fprintf (stderr, "sightline record: --sample wants a rate in Hz (1…20000) or none\n");
              return 2;
            }
        }
      else if (strcmp (a, "--osrt-threshold") == 0)
        {
          osrt_threshold = argv[++i];
          if (!g_ascii_isdigit (osrt_threshold[0]))
            {
              fprintf (stderr, "sightline record: --osrt-threshold wants nanoseconds\n");
              return 2;
            }
        }
      else if (strcmp (a, "--osrt-backtrace") == 0)
        {
          osrt_backtrace = argv[++i];
          if (!g_ascii_isdigit (osrt_backtrace[0]) && strcmp (osrt_backtrace, "none") != 0)
            {
              fprintf (stderr, "sightline record: --osrt-backtrace wants nanoseconds or none\n");
              return 2;
            }
        }
      else if (option_value (argv, argc, &i, "--cudabacktrace", &cuda_backtrace))
        {
          if (cuda_backtrace == NULL || !sl_record_cuda_backtrace_valid (cuda_backtrace))
            {
              fprintf (stderr, "sightline record: --cudabacktrace wants all, none, or kernel, "
                               "memory, sync, other with :NS, joined by commas\n");
              return 2;
            }
        }
      else if (option_value (argv, argc, &i, "--capture-range", &capture_range))
        {
          if (capture_range == NULL
              || (strcmp (capture_range, "none") != 0
                  && strcmp (capture_range, "cudaProfilerApi") != 0
                  && strcmp (capture_range, "nvtx") != 0))
            {
              fprintf (stderr, "sightline record: --capture-range wants none, cudaProfilerApi "
                               "or nvtx\n");
              return 2;
            }
        }
      else if (option_value (argv, argc, &i, "--nvtx-capture", &nvtx_capture))
        {
          if (nvtx_capture == NULL || *nvtx_capture == '\0' || *nvtx_capture == '@')
            {
              fprintf (stderr, "sightline record: --nvtx-capture wants RANGE or RANGE@DOMAIN\n");
              return 2;
            }
        }
      else if (option_value (argv, argc, &i, "--capture-range-end", &capture_end))
        {
          if (!sl_record_capture_end_valid (capture_end))
            {
              fprintf (stderr, "sightline record: --capture-range-end wants stop, "
                               "stop-shutdown, repeat or repeat:N\n");
              return 2;
            }
        }
      else if (strcmp (a, "--cuda-graph-trace") == 0)
        {
          graph_trace = argv[++i];
          if (strcmp (graph_trace, "graph") != 0 && strcmp (graph_trace, "node") != 0)
            {
              fprintf (stderr, "sightline record: --cuda-graph-trace wants graph or node\n");
              return 2;
            }
        }
      else if (strcmp (a, "--sched") == 0)
        {
          sched = argv[++i];
          if (strcmp (sched, "on") != 0 && strcmp (sched, "auto") != 0
              && strcmp (sched, "off") != 0 && strcmp (sched, "perf") != 0
              && strcmp (sched, "proc") != 0)
            {
              fprintf (stderr, "sightline record: --sched wants on, off, perf or proc\n");
              return 2;
            }
        }
      else if (strcmp (a, "--delay") == 0)
        delay = g_ascii_strtod (argv[++i], NULL);
      else if (strcmp (a, "--duration") == 0)
        duration = g_ascii_strtod (argv[++i], NULL);
      else if (strcmp (a, "--env") == 0)
        {
          if (strchr (v, '=') == NULL)
            {
              fprintf (stderr, "sightline record: --env wants VAR=VALUE, not '%s'\n", v);
              return 2;
            }
          g_ptr_array_add (envs, argv[++i]);
        }
      else if (strcmp (a, "--cwd") == 0)
        cwd = g_canonicalize_filename (argv[++i], NULL);
      else
        {
          fprintf (stderr, "sightline record: unknown option '%s'\n\n", a);
          usage (stderr);
          return 2;
        }
    }
  if (capture_range != NULL && strcmp (capture_range, "nvtx") == 0 && nvtx_capture == NULL)
    {
      fprintf (stderr, "sightline record: --capture-range nvtx needs --nvtx-capture RANGE\n");
      return 2;
    }
  if (i >= argc)
    {
      fprintf (stderr, "sightline record: no command to record\n\n");
      usage (stderr);
      return 2;
    }
  if (delay < 0 || duration < 0)
    {
      fprintf (stderr, "sightline record: --delay and --duration are seconds, not negative\n");
      return 2;
    }

  int code = 0;
  g_autoptr (GError) why = NULL;
  g_autofree char *program = sl_record_resolve_program (argv[i], &code, &why);
  if (program == NULL)
    {
      fprintf (stderr, "sightline record: %s\n", why->message);
      return code;
    }
  if (output == NULL)
    output = default_output ();
  else
    {
      /* %q{VAR}, %h, %p, %%: as nsys expands them; what %p names is said in sl-control.h; with
       * --keep-last, %n (and %%) are left for the daemon, which numbers the files */
      char why_not[512];
      char *expanded = sl_control_expand_pattern (output, lookup_env, NULL, g_get_host_name (),
                                                  (long) getpid (), keep_last > 0, why_not,
                                                  sizeof why_not);
      if (expanded == NULL)
        {
          fprintf (stderr, "sightline record: -o %s\n", why_not);
          return 2;
        }
      g_free (output);
      output = g_strdup (expanded);
      free (expanded);
    }
  {
    char *abs = g_canonicalize_filename (output, NULL);
    g_free (output);
    output = abs;
  }
  /* the file recorded into: a flight recorder's pattern records into %n = "live" */
  g_autofree char *pattern = NULL;
  if (keep_last > 0)
    {
      char *live = sl_control_expand_number (output, "live");
      pattern = g_steal_pointer (&output);
      output = g_strdup (live);
      free (live);
      if (strcmp (output, pattern) == 0)
        g_clear_pointer (&pattern, g_free); /* no %n, no %%: a file as any other */
    }
  if (!force && g_file_test (output, G_FILE_TEST_EXISTS))
    {
      fprintf (stderr, "sightline record: %s already exists (use --force to overwrite it)\n",
               output);
      return 1;
    }

  /* the daemon */
  char sock[256], dir[256];
  if (!sl_control_socket_path (sock, sizeof sock, dir, sizeof dir))
    {
      fprintf (stderr, "sightline record: cannot use %s for the daemon's socket: %s\n", dir,
               g_strerror (errno));
      return 1;
    }
  g_autofree char *dpath = sl_recording_daemon_path ();
  char note[8192];
  /* our own daemon: one left running by another install is passed over (sl-control.h) */
  int fd = sl_control_connect_own (sock, dpath != NULL ? dpath : "sightlined", 5000, note,
                                   sizeof note);
  if (fd < 0)
    {
      fprintf (stderr, "sightline record: %s%s%s\n", note,
               dpath == NULL ? "; sightlined was not found" : "",
               dpath == NULL ? " beside sightline, in ../lib/sightline or on PATH" : "");
      return 1;
    }
  if (note[0] != '\0')
    fprintf (stderr, "sightline: %s\n", note);

  /* the request: options, our environment plus --env, then the command */
  g_autoptr (SlRecordSettings) settings = sl_record_settings_new ();
  g_auto (GStrv) traces = g_strsplit (trace, ",", -1);
  settings->trace_cuda = g_strv_contains ((const char *const *) traces, "cuda");
  settings->trace_nvtx = g_strv_contains ((const char *const *) traces, "nvtx");
  settings->trace_osrt = g_strv_contains ((const char *const *) traces, "osrt");
  settings->sample_hz = (guint) atoi (sample);
  settings->cwd = g_strdup (cwd);
  settings->delay_s = delay;
  settings->duration_s = duration;
  settings->output = g_strdup (output);
  settings->sched = g_strdup (strcmp (sched, "on") == 0 ? "auto" : sched);
  settings->cuda_graph_nodes = strcmp (graph_trace, "node") == 0;
  settings->cuda_backtrace = g_strdup (cuda_backtrace);
  settings->capture_range = g_strdup (capture_range);
  settings->nvtx_capture = g_strdup (nvtx_capture);
  settings->capture_range_end = g_strdup (capture_end);
  if (osrt_backtrace != NULL)
    settings->osrt_backtrace_ns = strcmp (osrt_backtrace, "none") == 0
                                    ? G_MAXUINT64
                                    : MAX (g_ascii_strtoull (osrt_backtrace, NULL, 10), 1);
  g_ptr_array_add (envs, NULL);
  g_strfreev (settings->env);
  settings->env = g_strdupv ((char **) envs->pdata);
  g_strfreev (settings->args);
  settings->args = g_strdupv (argv + i + 1);
  /* 0 ns is "every call": the daemon takes it as given, the settings' 0 means the default */
  settings->osrt_threshold_ns
    = osrt_threshold != NULL ? MAX (g_ascii_strtoull (osrt_threshold, NULL, 10), 1) : 0;
  settings->cuda_memory_usage = memory_usage > 0;
  settings->cuda_um_cpu_faults = um_cpu > 0;
  settings->cuda_um_gpu_faults = um_gpu > 0;
  settings->gpu_metrics_hz = (guint) gpu_metrics_hz;
  settings->keep_last_s = keep_last;
  settings->max_size = max_size;
  if (pattern != NULL)
    {
      g_free (settings->output);
      settings->output = g_strdup (pattern);
      settings->output_pattern = TRUE;
    }
  g_autoptr (GPtrArray) msg = sl_record_request (settings, program, force);
  /* mpi and openmp are not among the settings the window keeps: the request says them here */
  if (g_strv_contains ((const char *const *) traces, "mpi")
      || g_strv_contains ((const char *const *) traces, "openmp"))
    for (guint k = 0; k < msg->len; k++)
      if (g_str_has_prefix (msg->pdata[k], "trace="))
        {
          GString *t = g_string_new (strcmp (msg->pdata[k], "trace=none") == 0 ? "trace="
                                                                                : msg->pdata[k]);
          if (g_strv_contains ((const char *const *) traces, "mpi"))
            g_string_append (t, t->len > 6 ? ",mpi" : "mpi");
          if (g_strv_contains ((const char *const *) traces, "openmp"))
            g_string_append (t, t->len > 6 ? ",openmp" : "openmp");
          g_free (msg->pdata[k]);
          msg->pdata[k] = g_string_free (t, FALSE);
          break;
        }
  int fds[3] = { 0, 1, 2 };
  if (!sl_control_send (fd, (const char *const *) msg->pdata, msg->len, fds, 3))
    {
      fprintf (stderr, "sightline record: cannot talk to the daemon: %s\n", g_strerror (errno));
      close (fd);
      return 1;
    }

  struct sigaction sa = { 0 };
  sa.sa_handler = on_sigint;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sa.sa_handler = on_sigusr1;
  sigaction (SIGUSR1, &sa, NULL);
  /* no bound: the data rate once, after the first seconds */
  gboolean rate_said = keep_last > 0 || max_size > 0 || duration > 0;
  int snapshots_sent = 0;
  guint64 rate_t0 = 0, rate_s0 = 0;

  gboolean tty = isatty (2);
  int status = -1, exit_code = 1, sent_stop = 0;
  gboolean done = FALSE, started = FALSE;
  guint64 events = 0;
  while (!done)
    {
      SlControlMsg m;
      struct pollfd pfd = { fd, POLLIN, 0 };
      if (interrupted > sent_stop)
        {
          /* first Ctrl+C: end the program (SIGINT) and keep the trace; third: kill it */
          sl_control_sendv (fd, interrupted >= 3 ? "kill" : "stop", NULL, NULL, NULL);
          sent_stop = interrupted;
          if (tty)
            fprintf (stderr, "\r\033[Ksightline: stopping the program…\n");
        }
      if (snapshots_asked > snapshots_sent)
        {
          snapshots_sent = snapshots_asked;
          if (keep_last > 0)
            sl_control_sendv (fd, "snapshot", NULL, NULL, NULL);
          else
            fprintf (stderr, "%ssightline record: SIGUSR1: a snapshot is of a flight recorder "
                             "(--keep-last)\n",
                     tty ? "\r\033[K" : "");
        }
      int pr = poll (&pfd, 1, 200);
      if (pr < 0 && errno == EINTR)
        continue;
      if (pr == 0)
        continue;
      if (sl_control_recv (fd, &m) != 0)
        {
          fprintf (stderr, "%ssightline record: the collector daemon went away; %s keeps what was "
                           "written so far\n",
                   tty ? "\r\033[K" : "", output);
          break;
        }
      const char *verb = m.n > 0 ? m.argv[0] : "";
      if (strcmp (verb, "started") == 0 && m.n >= 2)
        {
          started = TRUE;
          fprintf (stderr, "sightline: recording %s (pid %s, tracing %s, sampling %s) into %s\n",
                   program, m.argv[1], trace, strcmp (sample, "0") == 0 ? "off" : sample, output);
          if (keep_last > 0)
            {
              g_autofree char *window = sl_format_duration ((SlTime) (keep_last * 1e9));
              fprintf (stderr, "sightline: a flight recorder: the last %s are kept; "
                               "`kill -USR1 %d` or `sightline record --snapshot` writes a "
                               "snapshot\n",
                       window, (int) getpid ());
            }
        }
      else if (strcmp (verb, "stopped") == 0 && m.n >= 2)
        fprintf (stderr, "%ssightline record: %s\n", tty ? "\r\033[K" : "", m.argv[1]);
      else if (strcmp (verb, "snapshot") == 0 && m.n >= 2)
        fprintf (stderr, "%ssightline: snapshot written to %s\n", tty ? "\r\033[K" : "",
                 m.argv[1]);
      else if (strcmp (verb, "snapshot-error") == 0 && m.n >= 2)
        fprintf (stderr, "%ssightline record: no snapshot: %s\n", tty ? "\r\033[K" : "",
                 m.argv[1]);
      else if (strcmp (verb, "output") == 0 && m.n >= 2)
        {
          g_free (output);
          output = g_strdup (m.argv[1]);
        }
      else if (strcmp (verb, "sched") == 0 && m.n >= 2)
        {
          g_free (sched_note);
          sched_note = g_strdup (m.argv[1]);
        }
      else if (strcmp (verb, "progress") == 0 && m.n >= 3)
        {
          guint64 ns = g_ascii_strtoull (m.argv[1], NULL, 10);
          g_autofree char *elapsed = sl_format_duration ((SlTime) ns);
          if (!rate_said && rate_t0 == 0)
            {
              rate_t0 = MAX (ns, 1);
              rate_s0 = file_size (output);
            }
          else if (!rate_said && ns >= rate_t0 + 5 * G_GUINT64_CONSTANT (1000000000))
            {
              guint64 now = file_size (output);
              say_rate (now > rate_s0 ? now - rate_s0 : 0, ns - rate_t0, tty);
              rate_said = TRUE;
            }
          if (tty)
            fprintf (stderr, "\r\033[Ksightline: %s, %s events", elapsed, m.argv[2]);
        }
      else if (strcmp (verb, "exited") == 0 && m.n >= 2)
        {
          status = atoi (m.argv[1]);
          exit_code = exit_code_of (status);
        }
      else if (strcmp (verb, "warning") == 0 && m.n >= 2)
        fprintf (stderr, "%ssightline record: %s\n", tty ? "\r\033[K" : "", m.argv[1]);
      else if (strcmp (verb, "error") == 0 && m.n >= 2)
        {
          fprintf (stderr, "%ssightline record: %s\n", tty ? "\r\033[K" : "", m.argv[1]);
          exit_code = m.n >= 3 ? atoi (m.argv[2]) : 1;
          done = TRUE;
        }
      else if (strcmp (verb, "done") == 0 && m.n >= 3)
        {
          events = g_ascii_strtoull (m.argv[1], NULL, 10);
          guint64 dropped = g_ascii_strtoull (m.argv[2], NULL, 10);
          /* no process of the program reported from the injection library: the trace has only
           * what the daemon saw from outside (scheduling), which is not a recording of it */
          gboolean silent = m.n >= 4 && g_ascii_strtoull (m.argv[3], NULL, 10) == 0;
          if (tty)
            fprintf (stderr, "\r\033[K");
          if (WIFSIGNALED (status))
            fprintf (stderr, "sightline: the program ended on signal %d (%s)\n", WTERMSIG (status),
                     g_strsignal (WTERMSIG (status)));
          else if (status >= 0)
            fprintf (stderr, "sightline: the program exited with status %d\n", WEXITSTATUS (status));
          if (silent)
            {
              fprintf (stderr, "sightline record: %s\n",
                       m.n >= 5 && m.argv[4][0] != '\0'
                         ? m.argv[4]
                         : "the program never reported from the injection library");
              fprintf (stderr, "sightline: %s keeps only what was seen from outside the program "
                               "(%" G_GUINT64_FORMAT " scheduling events)\n",
                       output, events);
              /* the program's own status where it failed; a failure of ours where it did not */
              if (exit_code == 0)
                exit_code = 1;
            }
          else
            fprintf (stderr, "sightline: %" G_GUINT64_FORMAT " events written to %s\n", events,
                     output);
          fprintf (stderr, "sightline: scheduling: %s\n", sched_note != NULL ? sched_note : "off");
          if (dropped > 0)
            fprintf (stderr, "sightline: %" G_GUINT64_FORMAT " records were lost on the way (see "
                             "SIGHTLINE_DROPPED_RECORDS in the trace)\n",
                     dropped);
          done = TRUE;
        }
      sl_control_msg_clear (&m);
    }
  close (fd);
  if (done && started && stats)
    {
      char *stats_argv[] = { "stats", output, NULL };
      sl_cmd_stats (2, stats_argv);
    }
  return exit_code;
}
