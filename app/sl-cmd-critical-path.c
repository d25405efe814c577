/* sl-cmd-critical-path.c: `sightline critical-path FILE (--range A:B | --nvtx NAME)`: the chain
 * of CPU work, launches, GPU work and waits that bounds a range's duration, as text or JSON. */
#include "sl-cmd-critical-path.h"

#include <stdio.h>
#include <string.h>

#include "sl-critical-path.h"
#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-range.h"
#include "sl-trace.h"

/* Where a segment's time passed: "thread 1234 (python3)" or "GPU 0 stream 7". */
static char *
place_text (SlTrace           *trace,
            const SlCpSegment *s)
{
  if (s->gpu >= 0)
    return g_strdup_printf ("GPU %u stream %u", sl_trace_get_gpu (trace, (guint) s->gpu)->device_id,
                            s->stream_id);
  if (s->thread >= 0)
    {
      const SlThread *t = sl_trace_get_thread (trace, (guint) s->thread);
      const char *name = sl_trace_str (trace, t->name);
      return *name != '\0' ? g_strdup (name) : g_strdup_printf ("thread %u", t->tid);
    }
  return g_strdup ("—");
}

static const char *
event_name (SlTrace           *trace,
            const SlCpSegment *s)
{
  if (s->event.lane < 0)
    return "";
  const SlLane *lane = sl_trace_get_lane (trace, (guint) s->event.lane);
  return sl_trace_display_name (trace, lane->kind, lane->events[s->event.index].name);
}

static void
write_text (GString        *out,
            SlTrace        *trace,
            SlCriticalPath *path,
            const char     *what)
{
  SlTime t0 = sl_critical_path_get_start (path), t1 = sl_critical_path_get_end (path);
  SlTime origin = sl_trace_get_origin (trace);
  g_autofree char *span = sl_format_duration (t1 - t0);
  g_autofree char *from = sl_format_offset (t0 - origin);
  g_autofree char *to = sl_format_offset (t1 - origin);
  gsize n_nodes, n_edges, n_path_edges, n_events, n;
  const SlCpSegment *segs = sl_critical_path_get_segments (path, &n);

  sl_critical_path_get_counts (path, &n_nodes, &n_edges, &n_path_edges, &n_events);
  g_string_append_printf (out, "Critical path of %s [%s, %s): %s\n", what, from, to, span);
  for (SlCpKind k = 0; k < SL_CP_N_KINDS; k++)
    {
      SlTime t = sl_critical_path_get_time (path, k);
      g_autofree char *d = sl_format_duration (t);
      g_string_append_printf (out, "  %-7s %14s  %5.1f %%\n", sl_cp_kind_name (k), d,
                              100.0 * (double) t / (double) (t1 - t0));
    }
  g_string_append_printf (out, "Graph: %zu nodes, %zu edges; the path: %zu edges through %zu "
                               "events, %zu segments\n", n_nodes, n_edges, n_path_edges,
                          n_events, n);
  g_string_append_printf (out, "Dependencies (on the path): %zu launches (%zu), %zu waits for "
                               "GPU work (%zu), %zu event waits by their record (%zu), %zu "
                               "guessed (%zu)\n\n",
                          sl_critical_path_count_edges (path, SL_CP_EDGE_LAUNCH),
                          sl_critical_path_count_path_edges (path, SL_CP_EDGE_LAUNCH),
                          sl_critical_path_count_edges (path, SL_CP_EDGE_SYNC),
                          sl_critical_path_count_path_edges (path, SL_CP_EDGE_SYNC),
                          sl_critical_path_count_edges (path, SL_CP_EDGE_EVENT_WAIT),
                          sl_critical_path_count_path_edges (path, SL_CP_EDGE_EVENT_WAIT),
                          sl_critical_path_count_edges (path, SL_CP_EDGE_EVENT_GUESS),
                          sl_critical_path_count_path_edges (path, SL_CP_EDGE_EVENT_GUESS));
  g_string_append_printf (out, "  %-14s %-12s %-7s %-28s %s\n", "from start", "duration", "kind",
                          "where", "event");
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *at = sl_format_offset (segs[i].start - t0);
      g_autofree char *d = sl_format_duration (segs[i].end - segs[i].start);
      g_autofree char *where = place_text (trace, &segs[i]);
      g_string_append_printf (out, "  %-14s %-12s %-7s %-28s %s\n", at, d,
                              sl_cp_kind_name (segs[i].kind), where, event_name (trace, &segs[i]));
    }
}

static void
write_json (GString        *out,
            SlTrace        *trace,
            SlCriticalPath *path,
            const char     *file,
            const char     *name,
            gint64          instance)
{
  SlTime t0 = sl_critical_path_get_start (path), t1 = sl_critical_path_get_end (path);
  SlTime origin = sl_trace_get_origin (trace);
  gsize n_nodes, n_edges, n_path_edges, n_events, n;
  const SlCpSegment *segs = sl_critical_path_get_segments (path, &n);

  sl_critical_path_get_counts (path, &n_nodes, &n_edges, &n_path_edges, &n_events);
  g_string_append (out, "{\n  \"file\": ");
  sl_json_append_string (out, file);
  g_string_append (out, ",\n  \"range\": ");
  if (name != NULL)
    {
      g_string_append (out, "{\"name\": ");
      sl_json_append_string (out, name);
      g_string_append_printf (out, ", \"instance\": %" G_GINT64_FORMAT ", ", instance);
    }
  else
    g_string_append (out, "{");
  g_string_append_printf (out, "\"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %" G_GINT64_FORMAT
                               ", \"origin_ns\": %" G_GINT64_FORMAT "},\n", t0, t1, origin);
  g_string_append_printf (out, "  \"duration_ns\": %" G_GINT64_FORMAT ",\n", t1 - t0);
  g_string_append (out, "  \"by_kind_ns\": {");
  for (SlCpKind k = 0; k < SL_CP_N_KINDS; k++)
    g_string_append_printf (out, "%s\"%s\": %" G_GINT64_FORMAT, k > 0 ? ", " : "",
                            sl_cp_kind_name (k), sl_critical_path_get_time (path, k));
  g_string_append (out, "},\n");
  g_string_append_printf (out, "  \"weight_ns\": %" G_GINT64_FORMAT ",\n",
                          sl_critical_path_get_weight (path));
  g_string_append_printf (out, "  \"graph\": {\"nodes\": %zu, \"edges\": %zu, \"path_edges\": %zu, "
                               "\"path_events\": %zu,\n", n_nodes, n_edges, n_path_edges,
                          n_events);
  static const char *const dep_keys[] = { "launch", "sync", "event_wait", "event_wait_guessed" };
  static const SlCpEdgeKind dep_kinds[] = { SL_CP_EDGE_LAUNCH, SL_CP_EDGE_SYNC,
                                            SL_CP_EDGE_EVENT_WAIT, SL_CP_EDGE_EVENT_GUESS };
  for (guint on_path = 0; on_path < 2; on_path++)
    {
      g_string_append_printf (out, "    \"%s\": {", on_path ? "dependencies_on_path"
                                                           : "dependencies");
      for (guint k = 0; k < G_N_ELEMENTS (dep_keys); k++)
        g_string_append_printf (out, "%s\"%s\": %zu", k > 0 ? ", " : "", dep_keys[k],
                                on_path ? sl_critical_path_count_path_edges (path, dep_kinds[k])
                                        : sl_critical_path_count_edges (path, dep_kinds[k]));
      g_string_append (out, on_path ? "}},\n" : "},\n");
    }
  g_string_append (out, "  \"segments\": [");
  for (gsize i = 0; i < n; i++)
    {
      const SlCpSegment *s = &segs[i];
      g_string_append_printf (out, "%s\n    {\"kind\": \"%s\", \"start_ns\": %" G_GINT64_FORMAT
                                   ", \"end_ns\": %" G_GINT64_FORMAT ", \"duration_ns\": %"
                                   G_GINT64_FORMAT, i > 0 ? "," : "",
                              sl_cp_kind_name (s->kind), s->start, s->end, s->end - s->start);
      if (s->gpu >= 0)
        g_string_append_printf (out, ", \"gpu\": %u, \"stream\": %u, \"pid\": null, \"tid\": null",
                                sl_trace_get_gpu (trace, (guint) s->gpu)->device_id, s->stream_id);
      else if (s->thread >= 0)
        {
          const SlThread *t = sl_trace_get_thread (trace, (guint) s->thread);
          g_string_append_printf (out, ", \"gpu\": null, \"stream\": null, \"pid\": %u, "
                                       "\"tid\": %u", t->pid, t->tid);
        }
      else
        g_string_append (out, ", \"gpu\": null, \"stream\": null, \"pid\": null, \"tid\": null");
      if (s->event.lane >= 0)
        {
          g_string_append_printf (out, ", \"event\": {\"lane\": %d, \"index\": %zu, \"name\": ",
                                  s->event.lane, s->event.index);
          sl_json_append_string (out, event_name (trace, s));
          g_string_append (out, "}}");
        }
      else
        g_string_append (out, ", \"event\": null}");
    }
  g_string_append (out, "\n  ]\n}\n");
}

int
sl_cmd_critical_path (int    argc,
                      char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *range = NULL;
  g_autofree char *nvtx = NULL;
  g_autofree char *output = NULL;
  gint64 instance = 0;
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "The range [A, B), times from the time 0 that `sightline info` and the viewer count from "
      "(an nsys export's session start), with units: 1.5s:2s, 250ms:300ms (bare numbers are ns)",
      "A:B" },
    { "nvtx", 0, 0, G_OPTION_ARG_STRING, &nvtx,
      "The range of an NVTX range, PyTorch annotation or operator of that name (exactly, else "
      "every one whose name holds it: ProfilerStep)", "NAME" },
    { "instance", 0, 0, G_OPTION_ARG_INT64, &instance,
      "With --nvtx: which one, 0 (default) the first in time", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output",
      "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context
    = g_option_context_new ("FILE — the critical path of a range: what bounds its duration");
  g_autoptr (GError) error = NULL;
  gboolean json = FALSE;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
                                    "The path runs from the range's start to its end through "
                                    "CPU work on threads, launches, GPU work on streams and the "
                                    "waits between them, along their dependencies (thread order, "
                                    "stream order, launch to work, work to the call that "
                                    "synchronized with it, event waits across streams); of all "
                                    "such paths it is the one with the most work on it. Its "
                                    "segments tile the range: cpu, gpu, launch (delay or queue), "
                                    "wait (sync) and idle (nothing traced). See "
                                    "sightline-critical-path(1).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline critical-path: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      fprintf (stderr, "sightline critical-path: give exactly one trace FILE (see `sightline "
                       "critical-path --help`)\n");
      return 2;
    }
  if ((range == NULL) == (nvtx == NULL))
    {
      fprintf (stderr, "sightline critical-path: give one of --range A:B and --nvtx NAME\n");
      return 2;
    }
  if (instance < 0 || instance > G_MAXUINT32 || (instance != 0 && nvtx == NULL))
    {
      fprintf (stderr, "sightline critical-path: --instance takes a number from 0 and goes with "
                       "--nvtx\n");
      return 2;
    }
  if (format != NULL && strcmp (format, "json") == 0)
    json = TRUE;
  else if (format != NULL && strcmp (format, "text") != 0)
    {
      fprintf (stderr, "sightline critical-path: unknown format '%s'; use text or json\n",
               format);
      return 2;
    }

  g_autoptr (SlTrace) trace = sl_trace_load (files[0], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "sightline critical-path: cannot load %s: %s\n", files[0], error->message);
      return 2;
    }
  SlTime t0, t1;
  if (range != NULL && !sl_range_parse (range, trace, &t0, &t1, &error))
    {
      fprintf (stderr, "sightline critical-path: %s: --range: %s\n", files[0], error->message);
      return 2;
    }
  if (nvtx != NULL && !sl_critical_path_find_range (trace, nvtx, (guint) instance, &t0, &t1,
                                                    &error))
    {
      fprintf (stderr, "sightline critical-path: %s: --nvtx: %s\n", files[0], error->message);
      return 2;
    }
  g_autoptr (SlCriticalPath) path = sl_critical_path_compute (trace, t0, t1, NULL, NULL, &error);
  if (path == NULL)
    {
      fprintf (stderr, "sightline critical-path: %s: %s\n", files[0], error->message);
      return 2;
    }

  g_autoptr (GString) out = g_string_new (NULL);
  if (json)
    write_json (out, trace, path, files[0], nvtx, instance);
  else
    {
      g_autofree char *what = nvtx != NULL
                                ? g_strdup_printf ("'%s' instance %" G_GINT64_FORMAT, nvtx,
                                                   instance)
                                : g_strdup ("the range");
      write_text (out, trace, path, what);
    }
  if (output != NULL)
    {
      if (!g_file_set_contents (output, out->str, (gssize) out->len, &error))
        {
          fprintf (stderr, "sightline critical-path: %s\n", error->message);
          return 2;
        }
    }
  else
    fwrite (out->str, 1, out->len, stdout);
  return 0;
}
