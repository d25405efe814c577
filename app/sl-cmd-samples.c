/* sl-cmd-samples.c: `sightline samples FILE`: the CPU samples of a range and of some threads, as
 * the collapsed stacks flame-graph tools read (`folded`) or as functions by samples (`top`); or,
 * with --source cuda-api, the CUDA API calls with a backtrace, by count or time. */
#include "sl-cmd-samples.h"

#include <stdio.h>
#include <string.h>

#include "sl-calltree.h"
#include "sl-range.h"
#include "sl-trace.h"

/* The threads that --pid and --tid (0: any) name; FALSE, with a message, when none does. */
static gboolean
select_threads (SlTrace  *trace,
                gint64    pid,
                gint64    tid,
                GArray   *threads,
                GError  **error)
{
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    {
      const SlThread *t = sl_trace_get_thread (trace, i);
      if ((pid == 0 || t->pid == pid) && (tid == 0 || t->tid == tid))
        g_array_append_val (threads, i);
    }
  if (threads->len > 0)
    return TRUE;
  if (tid != 0 && pid != 0)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "no thread %" G_GINT64_FORMAT " in process %" G_GINT64_FORMAT, tid, pid);
  else if (tid != 0)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "no thread %" G_GINT64_FORMAT, tid);
  else
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "no process %" G_GINT64_FORMAT, pid);
  return FALSE;
}

int
sl_cmd_samples (int    argc,
                char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_autofree char *source = NULL;
  g_autofree char *name = NULL;
  g_autofree char *weight = NULL;
  gint64 pid = 0, tid = 0;
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "folded (default): `root;…;leaf COUNT` per distinct stack, as flamegraph.pl, speedscope "
      "and inferno read it; top: functions by self and total samples", "FORMAT" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "Only the samples taken in [A, B), times from the time 0 that `sightline info` and the "
      "viewer count from (an nsys export's session start), with units: 1.5s:2s, 250ms:300ms "
      "(bare numbers are ns)", "A:B" },
    { "source", 0, 0, G_OPTION_ARG_STRING, &source,
      "samples (default): CPU samples; cuda-api: the CUDA API calls that have a backtrace "
      "(nsys --cudabacktrace), each under its name as the leaf frame", "SOURCE" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name,
      "cuda-api: only the calls whose name (as shown, without nsys's _vNNNN) matches this glob, "
      "or holds this text where it has no '*' or '?'", "PATTERN" },
    { "weight", 0, 0, G_OPTION_ARG_STRING, &weight,
      "cuda-api: count (default): a call counts 1; time: its duration in ns", "WEIGHT" },
    { "pid", 0, 0, G_OPTION_ARG_INT64, &pid, "Only the threads of process N", "N" },
    { "tid", 0, 0, G_OPTION_ARG_INT64, &tid, "Only thread N", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output",
      "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context
    = g_option_context_new ("FILE — CPU samples (or CUDA API calls) as call stacks");
  g_autoptr (GError) error = NULL;
  gboolean top = FALSE;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
                                    "Every sample is counted once; one without a call stack as "
                                    "[no stack]. `top` lists each function with the samples taken "
                                    "in it (self) and the samples whose stack holds it (total; a "
                                    "function that recurses counts once per sample). Where the "
                                    "selection has no CPU samples (a PyTorch profiler trace), its "
                                    "nested ranges (python_function, cpu_op, NVTX) make the stacks, "
                                    "weighted by their self time in ns. With --source cuda-api, "
                                    "each CUDA API call that starts in the range and has a "
                                    "backtrace counts once (or its duration in ns): its backtrace "
                                    "from the root, then the call's name; calls without one are "
                                    "left out (nsys records those over a threshold).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline samples: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      fprintf (stderr,
               "sightline samples: give exactly one trace FILE (see `sightline samples --help`)\n");
      return 2;
    }
  if (format != NULL && strcmp (format, "top") == 0)
    top = TRUE;
  else if (format != NULL && strcmp (format, "folded") != 0)
    {
      fprintf (stderr, "sightline samples: unknown format '%s'; use folded or top\n", format);
      return 2;
    }
  gboolean api = source != NULL && strcmp (source, "cuda-api") == 0;
  if (source != NULL && !api && strcmp (source, "samples") != 0)
    {
      fprintf (stderr, "sightline samples: unknown source '%s'; use samples or cuda-api\n",
               source);
      return 2;
    }
  if (weight != NULL && strcmp (weight, "count") != 0 && strcmp (weight, "time") != 0)
    {
      fprintf (stderr, "sightline samples: unknown weight '%s'; use count or time\n", weight);
      return 2;
    }
  if (!api && (name != NULL || weight != NULL))
    {
      fprintf (stderr, "sightline samples: --name and --weight go with --source cuda-api\n");
      return 2;
    }
  if (pid < 0 || tid < 0)
    {
      fprintf (stderr, "sightline samples: --pid and --tid take a positive number\n");
      return 2;
    }

  /* a range counts from time 0, as `sightline info` prints it: where a file has no session start,
   * the first event of the whole trace, which only loading every table gives */
  SlLoadFlags flags = range != NULL ? SL_LOAD_ALL : api ? SL_LOAD_CUDA_API : SL_LOAD_SAMPLES;
  g_autoptr (SlTrace) trace = sl_trace_load (files[0], flags, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "sightline samples: cannot load %s: %s\n", files[0], error->message);
      return 2;
    }
  SlCalltreeScope scope;
  sl_calltree_scope_init (&scope);
  if (api)
    {
      scope.source = SL_CALLTREE_FROM_CUDA_API;
      scope.weight = weight != NULL && strcmp (weight, "time") == 0 ? SL_CALLTREE_BY_TIME
                                                                   : SL_CALLTREE_BY_COUNT;
      scope.name_pattern = name;
    }
  if (range != NULL && !sl_range_parse (range, trace, &scope.t0, &scope.t1, &error))
    {
      fprintf (stderr, "sightline samples: %s: --range: %s\n", files[0], error->message);
      return 2;
    }
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint));
  if ((pid != 0 || tid != 0) && !select_threads (trace, pid, tid, threads, NULL)
      && flags != SL_LOAD_ALL)
    {
      /* loaded for its samples only, the trace lacks the threads that have none (the profiler's
       * own, a thread that only slept): a thread `sightline info` lists is there, with an empty
       * answer.  Only this case pays for loading every table. */
      sl_trace_unref (trace);
      flags = SL_LOAD_ALL;
      trace = sl_trace_load (files[0], flags, NULL, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "sightline samples: cannot load %s: %s\n", files[0], error->message);
          return 2;
        }
    }
  if (pid != 0 || tid != 0)
    {
      if (threads->len == 0 && !select_threads (trace, pid, tid, threads, &error))
        {
          fprintf (stderr, "sightline samples: %s: %s\n", files[0], error->message);
          return 2;
        }
      scope.threads = (const guint *) threads->data;
      scope.n_threads = threads->len;
    }

  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, &scope, NULL, &error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (top)
    sl_calltree_write_top (tree, out);
  else
    sl_calltree_write_folded (tree, out);
  if (api && sl_trace_get_n_cuda_callchains (trace) == 0)
    fprintf (stderr, "sightline samples: %s: no CUDA API call has a backtrace (the trace has no "
                     "CUDA_CALLCHAINS; nsys writes them with --cudabacktrace)\n", files[0]);
  else if (api && sl_calltree_get_n_samples (tree) == 0)
    fprintf (stderr, "sightline samples: %s: no CUDA API call with a backtrace in the "
                     "selection\n", files[0]);
  else if (api)
    ;
  else if (sl_calltree_get_n_samples (tree) == 0)
    fprintf (stderr, "sightline samples: %s: no CPU samples or ranges in the selection\n",
             files[0]);
  else if (sl_calltree_get_unit (tree) == SL_CALLTREE_NANOSECONDS)
    fprintf (stderr, "sightline samples: %s: no CPU samples in the selection: the stacks are its "
                     "nested ranges, weighted by time in ns\n", files[0]);

  if (output != NULL)
    {
      if (!g_file_set_contents (output, out->str, (gssize) out->len, &error))
        {
          fprintf (stderr, "sightline samples: %s\n", error->message);
          return 2;
        }
    }
  else
    fwrite (out->str, 1, out->len, stdout);
  return 0;
}
