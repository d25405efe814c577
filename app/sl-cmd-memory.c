/* sl-cmd-memory.c: `sightline memory FILE [--at TIME|peak]`: GPU memory in use, its peak, and the
 * allocations live at an instant, from CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage). */
#include "sl-cmd-memory.h"

#include <stdio.h>
#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-memory.h"
#include "sl-range.h"
#include "sl-trace.h"

typedef enum
{
  FORMAT_TEXT,
  FORMAT_CSV,
  FORMAT_JSON,
} Format;

/* A CSV field: quoted where it holds a comma, a quote or a line break. */
static void
csv_field (GString    *out,
           const char *s)
{
  g_autofree char *valid = g_utf8_make_valid (s, -1);

  if (strpbrk (valid, ",\"\r\n") == NULL)
    {
      g_string_append (out, valid);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* The operating system's process id in nsys's serialized global id. */
static guint
pid_of (guint64 global_pid)
{
  return (guint) ((global_pid >> 24) & 0xFFFFFF);
}

static guint32
device_id (SlTrace *trace,
           gint     gpu)
{
  return sl_trace_get_gpu (trace, (guint) gpu)->device_id;
}

/* The instant to show a series at: its peak, or `at`. */
static SlTime
when (const SlMemSeries *s,
      gboolean           at_peak,
      SlTime             at)
{
  return at_peak ? s->peak_time : at;
}

static void
write_text (GString  *out,
            SlTrace  *trace,
            gboolean  at_peak,
            SlTime    at,
            guint     limit)
{
  SlTime origin = sl_trace_get_origin (trace);
  guint n = sl_memory_get_n_series (trace);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < n; i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      const SlGpu *gpu = sl_trace_get_gpu (trace, (guint) s->gpu);
      g_autofree char *peak = sl_format_bytes ((guint64) MAX (s->peak, 0));
      g_autofree char *peak_t = sl_format_offset (s->peak_time - origin);
      SlTime t = when (s, at_peak, at);
      g_autofree char *now = sl_format_bytes ((guint64) MAX (sl_mem_series_bytes_at (s, t), 0));
      g_autofree char *now_t = sl_format_offset (t - origin);

      if (s->kind == SL_MEM_SERIES_GPU)
        {
          g_string_append_printf (out, "%sGPU %u (%s): memory on the GPU peaks at %s at %s",
                                  i > 0 ? "\n" : "", gpu->device_id,
                                  sl_trace_str (trace, gpu->name), peak, peak_t);
          if (gpu->total_memory > 0)
            {
              g_autofree char *total = sl_format_bytes ((guint64) gpu->total_memory);
              double share = 100.0 * (double) MAX (s->peak, 0) / (double) gpu->total_memory;
              g_string_append_printf (out, ", %.1f %% of its %s", share, total);
            }
          g_string_append (out, "\n");
        }
      else
        g_string_append_printf (out, "  process %u, %s: peak %s at %s\n",
                                pid_of (s->global_pid),
                                sl_mem_kind_label (trace, s->kind), peak, peak_t);

      /* what is live then: for a GPU's series, or a kind that has no GPU series (host memory) */
      if (s->kind != SL_MEM_SERIES_GPU && sl_mem_kind_on_gpu (s->kind))
        continue;
      g_array_set_size (live, 0);
      guint k = sl_memory_live_at (trace, i, t, live);
      g_string_append_printf (out, "  %s at %s: %s in %u allocation%s\n",
                              at_peak ? "live at the peak" : "live", now_t, now, k,
                              k == 1 ? "" : "s");
      for (guint j = 0; j < MIN (k, limit); j++)
        {
          const SlMemAlloc *a = sl_memory_get_alloc (trace, g_array_index (live, guint32, j));
          g_autofree char *bytes = sl_format_bytes (a->bytes);
          g_autofree char *since = sl_format_offset (a->start - origin);
          const char *name = sl_memory_alloc_name (trace, a);
          const char *call = sl_memory_row_call_name (trace, a->alloc);
          g_string_append_printf (out, "    %12s  %-13s 0x%" G_GINT64_MODIFIER
                                       "x  since %s%s%s%s%s\n",
                                  bytes, sl_mem_kind_label (trace, a->mem_kind), a->address,
                                  since, *call != '\0' ? "  by " : "", call,
                                  *name != '\0' ? "  " : "", name);
        }
      if (k > limit)
        g_string_append_printf (out, "    … and %u more (--limit)\n", k - limit);
    }

  /* never freed: live at the end of the trace */
  guint never = 0;
  guint64 never_bytes = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    {
      const SlMemAlloc *a = sl_memory_get_alloc (trace, i);
      if (a->alloc != SL_NO_LINK && a->free == SL_NO_LINK)
        {
          never++;
          never_bytes += a->bytes;
        }
    }
  g_autofree char *nb = sl_format_bytes (never_bytes);
  g_string_append_printf (out, "\nNever freed: %u allocation%s, %s\n", never,
                          never == 1 ? "" : "s", nb);
}

static void
write_csv (GString  *out,
           SlTrace  *trace,
           gboolean  at_peak,
           SlTime    at)
{
  guint n = sl_memory_get_n_series (trace);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));

  g_string_append (out, "Device,Series,Pid,Time (ns),Bytes,Address,Kind,Allocated (ns),"
                        "Freed (ns),Call,Name\n");
  for (guint i = 0; i < n; i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      if (s->kind != SL_MEM_SERIES_GPU && sl_mem_kind_on_gpu (s->kind))
        continue;
      SlTime t = when (s, at_peak, at);
      g_array_set_size (live, 0);
      guint k = sl_memory_live_at (trace, i, t, live);
      for (guint j = 0; j < k; j++)
        {
          const SlMemAlloc *a = sl_memory_get_alloc (trace, g_array_index (live, guint32, j));
          g_string_append_printf (out, "%u,", device_id (trace, s->gpu));
          csv_field (out, sl_mem_kind_label (trace, s->kind));
          g_string_append_printf (out, ",%u,%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT
                                       ",0x%" G_GINT64_MODIFIER "x,",
                                  pid_of (a->global_pid), t, a->bytes,
                                  a->address);
          csv_field (out, sl_mem_kind_label (trace, a->mem_kind));
          g_string_append_printf (out, ",%" G_GINT64_FORMAT ",", a->start);
          if (a->free != SL_NO_LINK)
            g_string_append_printf (out, "%" G_GINT64_FORMAT, a->end);
          g_string_append_c (out, ',');
          csv_field (out, sl_memory_row_call_name (trace, a->alloc));
          g_string_append_c (out, ',');
          csv_field (out, sl_memory_alloc_name (trace, a));
          g_string_append_c (out, '\n');
        }
    }
}

static void
json_alloc (GString          *out,
            SlTrace          *trace,
            const SlMemAlloc *a)
{
  g_string_append_printf (out, "{\"address\": %" G_GUINT64_FORMAT ", \"bytes\": %" G_GUINT64_FORMAT
                               ", \"kind\": ", a->address, a->bytes);
  sl_json_append_string (out, sl_mem_kind_label (trace, a->mem_kind));
  g_string_append_printf (out, ", \"pid\": %u, \"allocated_ns\": %" G_GINT64_FORMAT
                               ", \"freed_ns\": ",
                          pid_of (a->global_pid), a->start);
  if (a->free != SL_NO_LINK)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, a->end);
  else
    g_string_append (out, "null");
  g_string_append (out, ", \"call\": ");
  sl_json_append_string (out, sl_memory_row_call_name (trace, a->alloc));
  g_string_append (out, ", \"name\": ");
  sl_json_append_string (out, sl_memory_alloc_name (trace, a));
  g_string_append_c (out, '}');
}

static void
write_json (GString    *out,
            SlTrace    *trace,
            const char *file,
            gboolean    at_peak,
            SlTime      at,
            guint       limit)
{
  guint n = sl_memory_get_n_series (trace);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean first_device = TRUE;

  g_string_append (out, "{\n  \"file\": ");
  sl_json_append_string (out, file);
  if (at_peak)
    g_string_append (out, ",\n  \"at\": \"peak\"");
  else
    g_string_append_printf (out, ",\n  \"at\": %" G_GINT64_FORMAT, at);
  g_string_append_printf (out, ",\n  \"rows\": %u,\n  \"devices\": [",
                          sl_trace_get_n_mem_usage (trace));
  for (guint i = 0; i < n; i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      if (s->kind != SL_MEM_SERIES_GPU)
        continue;
      const SlGpu *gpu = sl_trace_get_gpu (trace, (guint) s->gpu);
      SlTime t = when (s, at_peak, at);
      g_string_append_printf (out, "%s\n    {\"device_id\": %u, \"total_bytes\": %" G_GUINT64_FORMAT
                                   ", \"peak_bytes\": %" G_GINT64_FORMAT ", \"peak_ns\": %"
                                   G_GINT64_FORMAT ", \"at_ns\": %" G_GINT64_FORMAT
                                   ", \"bytes_at\": %" G_GINT64_FORMAT ",\n     \"series\": [",
                              first_device ? "" : ",", gpu->device_id, gpu->total_memory,
                              s->peak, s->peak_time, t, sl_mem_series_bytes_at (s, t));
      first_device = FALSE;
      gboolean first = TRUE;
      for (guint j = 0; j < n; j++)
        {
          const SlMemSeries *p = sl_memory_get_series (trace, j);
          if (p->gpu != s->gpu || p->kind == SL_MEM_SERIES_GPU)
            continue;
          g_string_append_printf (out, "%s{\"pid\": %u, \"kind\": ", first ? "" : ", ",
                                  pid_of (p->global_pid));
          sl_json_append_string (out, sl_mem_kind_label (trace, p->kind));
          g_string_append_printf (out, ", \"peak_bytes\": %" G_GINT64_FORMAT ", \"peak_ns\": %"
                                       G_GINT64_FORMAT ", \"changes\": %zu}",
                                  p->peak, p->peak_time, p->n_steps);
          first = FALSE;
        }
      g_array_set_size (live, 0);
      guint k = sl_memory_live_at (trace, i, t, live);
      g_string_append_printf (out, "],\n     \"live\": %u, \"allocations\": [", k);
      for (guint j = 0; j < MIN (k, limit); j++)
        {
          g_string_append (out, j > 0 ? ",\n       " : "\n       ");
          json_alloc (out, trace, sl_memory_get_alloc (trace, g_array_index (live, guint32, j)));
        }
      g_string_append (out, "]}");
    }
  g_string_append (out, "\n  ],\n  \"never_freed\": [");
  guint shown = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace) && shown < limit; i++)
    {
      const SlMemAlloc *a = sl_memory_get_alloc (trace, i);
      if (a->alloc == SL_NO_LINK || a->free != SL_NO_LINK)
        continue;
      g_string_append (out, shown > 0 ? ",\n    " : "\n    ");
      json_alloc (out, trace, a);
      shown++;
    }
  g_string_append (out, "]\n}\n");
}

int
sl_cmd_memory (int    argc,
               char **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *at = NULL;
  g_autofree char *output = NULL;
  gint64 limit = 20;
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "at", 0, 0, G_OPTION_ARG_STRING, &at,
      "The instant to list live allocations at: peak (default: each GPU's own peak) or a time "
      "from the time 0 that `sightline info` and the viewer count from, with units: 1.5s, 250ms",
      "TIME|peak" },
    { "limit", 'n', 0, G_OPTION_ARG_INT64, &limit,
      "List at most N allocations per GPU (text and JSON; default 20; CSV lists all)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "text (default), csv or json", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output",
      "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context
    = g_option_context_new ("FILE — GPU memory in use, its peak and what was allocated then");
  g_autoptr (GError) error = NULL;
  Format fmt = FORMAT_TEXT;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
                                    "Reads CUDA_GPU_MEMORY_USAGE_EVENTS, which nsys writes when "
                                    "recording with --cuda-memory-usage=true (sightline record "
                                    "--cuda-memory-usage). Memory on a GPU is the Device, Array "
                                    "and Device Static kinds of every process; pinned and "
                                    "pageable host memory and managed memory are listed per "
                                    "process. See sightline-memory(1).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline memory: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      fprintf (stderr, "sightline memory: give exactly one trace FILE (see `sightline memory "
                       "--help`)\n");
      return 2;
    }
  if (format == NULL || strcmp (format, "text") == 0)
    fmt = FORMAT_TEXT;
  else if (strcmp (format, "csv") == 0)
    fmt = FORMAT_CSV;
  else if (strcmp (format, "json") == 0)
    fmt = FORMAT_JSON;
  else
    {
      fprintf (stderr, "sightline memory: unknown format '%s'; use text, csv or json\n", format);
      return 2;
    }
  if (limit < 0 || limit > G_MAXUINT32)
    {
      fprintf (stderr, "sightline memory: --limit takes a number from 0\n");
      return 2;
    }

  g_autoptr (SlTrace) trace = sl_trace_load (files[0], SL_LOAD_CUDA_API | SL_LOAD_MEMCPY, NULL,
                                             NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "sightline memory: cannot load %s: %s\n", files[0], error->message);
      return 1;
    }
  gboolean at_peak = at == NULL || strcmp (at, "peak") == 0;
  SlTime t = 0;
  if (!at_peak)
    {
      if (!sl_time_parse (at, &t, &error))
        {
          fprintf (stderr, "sightline memory: %s: --at: %s\n", files[0], error->message);
          return 2;
        }
      t += sl_trace_get_origin (trace);
    }
  if (sl_trace_get_n_mem_usage (trace) == 0)
    {
      fprintf (stderr, "sightline memory: %s: no GPU memory usage in this trace (nsys records it "
                       "with --cuda-memory-usage=true, sightline record with "
                       "--cuda-memory-usage)\n", files[0]);
      return 1;
    }

  g_autoptr (GString) out = g_string_new (NULL);
  if (fmt == FORMAT_JSON)
    write_json (out, trace, files[0], at_peak, t, (guint) limit);
  else if (fmt == FORMAT_CSV)
    write_csv (out, trace, at_peak, t);
  else
    write_text (out, trace, at_peak, t, (guint) limit);
  if (output != NULL)
    {
      if (!g_file_set_contents (output, out->str, (gssize) out->len, &error))
        {
          fprintf (stderr, "sightline memory: %s\n", error->message);
          return 2;
        }
    }
  else
    fwrite (out->str, 1, out->len, stdout);
  return 0;
}
