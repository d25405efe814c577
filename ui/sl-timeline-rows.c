/* sl-timeline-rows.c: the timeline's rows: lane-header tree, collapse, vadjustment, headers. */
#include "sl-timeline-view-private.h"
#include "sl-memory.h"
#include "sl-um-faults.h"
#include "sl-metrics.h"
#include "sl-format.h"

gint
_sl_timeline_row_at (SlTimelineView *self,
                     double          y)
{
  double cy = y - RULER_H + scroll_y (self);
  guint lo = 0, hi = self->rows->len;

  if (y < RULER_H || self->rows->len == 0)
    return -1;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const Row *r = row_get (self, mid);
      if (cy < r->y)
        hi = mid;
      else if (cy >= r->y + r->h)
        lo = mid + 1;
      else
        return mid;
    }
  return -1;
}

/* ------------------------------------------------------------------------------------------- */
/* Rows: the header tree                                                                       */

void
_sl_timeline_row_clear (gpointer data)
{
  Row *r = data;

  g_free (r->key);
  g_free (r->label);
}

#define MAX_LEVELS 8

static gboolean
collapsed_by_default (const char *key)
{
  return key[0] == 'q' || key[0] == 'n' || key[0] == 'm';
}

typedef struct
{
  gint       collapsed_level;  /* -1, or the level of the collapsed group whose rows are skipped */
  gboolean   expand_all;       /* a lane filter is on: every group open */
  char      *anc[MAX_LEVELS];  /* the titles of the groups above the current row, by level */
  GArray    *pinned;           /* Row: the pinned lanes' rows, in any order */
  guint      base;             /* added to every row's level: 1 under a merged trace's group */
  gint       source;           /* the merged trace's source whose rows are built; -1: all */
} RowBuild;

/* A pinned lane's title names where it comes from: its thread, or its GPU and stream. */
static char *
pinned_title (RowBuild     *b,
              const SlLane *lane,
              guint         level,
              const char   *title)
{
  const char *parent = level >= 1 && level - 1 < MAX_LEVELS ? b->anc[level - 1] : NULL;
  const char *gpu = b->base < MAX_LEVELS ? b->anc[b->base] : NULL;

  if (lane->gpu >= 0 && level >= b->base + 2 && gpu != NULL)
    {
      /* "GPU 1", without the model: the header column is narrow */
      const char *colon = strchr (gpu, ':');
      int n = colon != NULL ? (int) (colon - gpu) : (int) strlen (gpu);
      return g_strdup_printf ("%.*s · %s · %s", n, gpu, parent != NULL ? parent : "", title);
    }
  return parent != NULL ? g_strdup_printf ("%s · %s", parent, title) : g_strdup (title);
}

static gboolean
add_row (SlTimelineView *self,
         RowBuild       *b,
         RowKind         kind,
         guint           level,
         gint            lane,
         gint            gpu,
         char           *key,
         char           *label)
{
  level += b->base;
  Row r = { kind, level, lane, gpu, key, label, 0, 0, FALSE, -1 };

  if (kind == ROW_GROUP && level < MAX_LEVELS)
    {
      g_free (b->anc[level]);
      b->anc[level] = g_strdup (label);
    }
  if (kind == ROW_LANE)
    {
      const SlLane *l = sl_trace_get_lane (self->trace, lane);
      r.h = l->kind == SL_LANE_SAMPLES ? _sl_timeline_flame_row_h (self, l)
            : l->kind == SL_LANE_NVTX  ? ROW_NVTX_H
                                       : ROW_LANE_H;
    }
  if (kind == ROW_LANE
      && (g_hash_table_contains (self->hidden, GINT_TO_POINTER (lane + 1))
          || _sl_timeline_lane_pinned (self, lane)))
    {
      /* hidden, or shown on top (whatever its groups' state) */
      if (!g_hash_table_contains (self->hidden, GINT_TO_POINTER (lane + 1)))
        {
          Row p = r;
          p.key = NULL;
          p.level = 1;
          p.label = pinned_title (b, sl_trace_get_lane (self->trace, lane), level, label);
          g_array_append_val (b->pinned, p);
        }
      g_free (key);
      g_free (label);
      return FALSE;
    }
  if (kind == ROW_GROUP && b->collapsed_level >= 0 && (gint) level <= b->collapsed_level)
    b->collapsed_level = -1;
  if (b->collapsed_level >= 0 && (gint) level > b->collapsed_level)
    {
      g_free (key);
      g_free (label);
      return FALSE;
    }
  if (kind == ROW_GROUP)
    {
      r.h = ROW_GROUP_H;
      /* under a filter every group is built open (its rows may match), and only those the user
       * collapsed are drawn so (rows_finish) */
      r.collapsed = b->expand_all ? !collapsed_by_default (key)
                                      && g_hash_table_contains (self->collapsed, key)
                                  : _sl_timeline_group_collapsed (self, key);
      if (r.collapsed && !b->expand_all)
        b->collapsed_level = level;
    }
  else if (kind == ROW_GPU_UTIL || kind == ROW_CPU_UTIL || kind == ROW_GPU_MEMORY
           || kind == ROW_GPU_METRIC || kind == ROW_UM_FAULTS)
    r.h = ROW_UTIL_H;
  else if (kind == ROW_NVTX_PROJ)
    r.h = ROW_NVTX_H;
  else if (kind != ROW_LANE)
    r.h = ROW_LANE_H;
  g_array_append_val (self->rows, r);
  return TRUE;
}

/* Which rows the lane filter keeps: those whose title or an ancestor's has the text, and the
 * ancestors of those (rows are in tree order: a row's ancestors are the nearest rows before it
 * of each lower level). */
static gboolean *
filter_rows (SlTimelineView *self)
{
  gboolean *keep = g_new0 (gboolean, MAX (self->rows->len, 1));
  gint stack[MAX_LEVELS] = { 0 };
  gboolean matched[MAX_LEVELS] = { FALSE };

  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      guint level = MIN (r->level, MAX_LEVELS - 1);
      g_autofree char *folded = g_utf8_casefold (r->label, -1);
      gboolean inherited = FALSE;

      for (guint k = 0; k < level; k++)
        inherited |= matched[k];
      matched[level] = strstr (folded, self->lane_filter) != NULL || inherited;
      stack[level] = (gint) i;
      keep[i] = matched[level];
      if (keep[i])
        for (guint k = 0; k < level; k++)
          keep[stack[k]] = TRUE;
    }
  return keep;
}

/* The rows as shown: the pinned lanes first (in the order pinned, under a "Pinned" group), then
 * the tree, less what the filter drops; each row's y and each lane's row. */
static void
rows_finish (SlTimelineView *self,
             RowBuild       *b)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Row),
                                   self->rows->len + b->pinned->len + 1);
  g_autofree gboolean *keep = self->lane_filter != NULL ? filter_rows (self) : NULL;
  guint next_level = 0;   /* of the next row kept, below; 0 past the last */

  /* an open group left with no rows (its lanes pinned or hidden) goes too, and so, bottom up,
   * the groups above it that it emptied */
  if (keep == NULL)
    {
      keep = g_new (gboolean, MAX (self->rows->len, 1));
      for (guint i = 0; i < self->rows->len; i++)
        keep[i] = TRUE;
    }
  for (guint i = self->rows->len; i-- > 0;)
    {
      const Row *r = row_get (self, i);
      if (keep[i] && r->kind == ROW_GROUP && !r->collapsed && next_level <= r->level)
        keep[i] = FALSE;
      if (keep[i])
        next_level = r->level;
    }

  g_array_set_clear_func (out, _sl_timeline_row_clear);
  if (b->pinned->len > 0)
    {
      Row g = { ROW_GROUP, 0, -1, -1, g_strdup ("*pinned"), NULL, 0, ROW_GROUP_H, FALSE, -1 };
      g.collapsed = _sl_timeline_group_collapsed (self, g.key);
      g.label = g_strdup_printf ("Pinned (%u)", b->pinned->len);
      g_array_append_val (out, g);
      for (guint k = 0; k < self->pinned->len; k++)
        for (guint i = 0; i < b->pinned->len; i++)
          {
            Row *p = &g_array_index (b->pinned, Row, i);
            if (p->label == NULL || p->lane != g_array_index (self->pinned, gint, k))
              continue;
            if (g.collapsed)
              g_free (p->label);
            else
              g_array_append_val (out, *p);
            p->label = NULL;
          }
    }
  for (guint i = 0, skip = G_MAXUINT; i < self->rows->len; i++)
    {
      Row *r = &g_array_index (self->rows, Row, i);
      if (!keep[i])
        continue;
      /* what the filter keeps inside a group collapsed by hand stays folded */
      if (skip != G_MAXUINT && r->level > skip)
        continue;
      skip = r->kind == ROW_GROUP && r->collapsed ? r->level : G_MAXUINT;
      g_array_append_val (out, *r);
      r->key = r->label = NULL;   /* moved */
    }
  for (guint i = 0; i < out->len; i++)
    {
      Row *r = &g_array_index (out, Row, i);
      r->y = self->content_h;
      self->content_h += r->h;
      if (r->kind == ROW_LANE)
        self->lane_row[r->lane] = (gint) i;
    }
  g_array_unref (self->rows);
  self->rows = out;
}

/* A depth's lane has its thread's title: its rows read as one that grows in depth, under one
 * header (_sl_timeline_row_continues), as nsys-ui shows them, not "NVTX 1 … NVTX 10"; the events
 * table calls it the same (sl_lane_display_title). */
static char *
lane_title (SlTrace      *trace,
            const SlLane *lane)
{
  return g_strdup (sl_lane_display_title (trace, lane));
}

/* The pid of a process as the trace's process table has it (global pids carry more bytes). */
static guint
pid_of (SlTimelineView *self,
        guint64         global_pid)
{
  for (guint i = 0; i < sl_trace_get_n_processes (self->trace); i++)
    if (sl_trace_get_process (self->trace, i)->global_pid == global_pid)
      return sl_trace_get_process (self->trace, i)->pid;
  return (guint) (global_pid >> 24) & 0xFFFFFF;
}

/* Ids at or above this are the JSON reader's for a text pid or tid (counted down from 2^24 - 1,
 * sl-reader-json.c map_id): no process or thread has them (Linux's pid_max is 2^22 at most). */
#define SYNTHETIC_ID(id) ((id) >= 0xF00000u)

/* Whether a thread's name holds its tid already ("thread 4037 (python3.8)", as Kineto writes
 * them): as a word of its own, not part of one ("worker_119" is a name, and keeps its tid). */
static gboolean
name_has_id (const char *name,
             guint       id)
{
  g_autofree char *digits = g_strdup_printf ("%u", id);
  gsize n = strlen (digits);

  for (const char *p = strstr (name, digits); p != NULL; p = strstr (p + 1, digits))
    if ((p == name || strchr (" ([#", p[-1]) != NULL) && strchr (" )]", p[n]) != NULL)
      return TRUE;   /* (strchr finds the terminating '\0' too: the name's end) */
  return FALSE;
}

/* "name [pid]", or "Process [pid]" when the trace has no name for it; then the command line's
 * arguments where the recording has it ("python3 [4242] train.py --workers 4"); first the rank
 * of a distributed job's process where it was recorded ("rank 3 · python3 [4242] train.py"). */
static char *
process_title (SlTimelineView  *self,
               const SlProcess *pr)
{
  const char *name = pr->name != SL_NO_STR ? sl_trace_str (self->trace, pr->name) : "";
  const char *args = pr->command_line != SL_NO_STR ? sl_trace_str (self->trace, pr->command_line)
                                                   : "";

  while (g_ascii_isspace (*name))
    name++;
  while (g_ascii_isspace (*args))
    args++;
  if (*args != '\0' && *name != '\0')
    {
      /* the program is in the name already: its arguments say which one this is */
      g_autofree char *prog = g_strndup (args, strcspn (args, " "));
      g_autofree char *base = g_path_get_basename (prog);
      if (g_str_equal (base, name) || g_str_equal (prog, name))
        args += strlen (prog);
      while (g_ascii_isspace (*args))
        args++;
    }
  g_autofree char *rank = pr->rank >= 0 ? g_strdup_printf ("rank %d · ", pr->rank) : g_strdup ("");
  /* Kineto's "Spans", "Traces": a name, no pid (the reader's made-up id is no one's to read) */
  g_autofree char *pid = SYNTHETIC_ID (pr->pid) ? g_strdup ("") : g_strdup_printf (" [%u]", pr->pid);
  if (*args != '\0')
    return g_strdup_printf ("%s%s%s %s", rank, *name != '\0' ? name : "Process", pid, args);
  return g_strdup_printf ("%s%s%s", rank, *name != '\0' ? name : "Process", pid);
}

/* A header row's tooltip: a process's whole command line and parent, when recorded; what a GPU
 * was busy with in the view, on its utilization row. */
char *
_sl_timeline_row_tooltip (SlTimelineView *self,
                          gint            row)
{
  const Row *r;
  guint64 gpid;
  GString *s;

  if (self->trace == NULL || row < 0 || (guint) row >= self->rows->len)
    return NULL;
  r = row_get (self, row);
  if (r->kind == ROW_GPU_UTIL)
    {
      g_autofree char *window = _sl_timeline_util_window_text (self, (guint) r->gpu);
      return g_strdup_printf ("%s%sShaded red where the GPU was busy less than %.0f%% of the "
                              "time: work there left it idle.",
                              window != NULL ? window : "", window != NULL ? "\n" : "",
                              100 * self->util_threshold);
    }
  if (r->kind == ROW_GPU_METRIC)
    return _sl_timeline_metrics_row_tooltip (self, r);
  if (r->kind != ROW_GROUP || r->key == NULL || !g_str_has_prefix (r->key, "p:"))
    return NULL;
  gpid = g_ascii_strtoull (r->key + 2, NULL, 10);
  for (guint i = 0; i < sl_trace_get_n_processes (self->trace); i++)
    {
      const SlProcess *pr = sl_trace_get_process (self->trace, i);
      if (pr->global_pid != gpid)
        continue;
      if (pr->command_line == SL_NO_STR && pr->parent_pid == 0 && pr->rank < 0)
        return NULL;
      s = g_string_new (NULL);
      g_string_append_printf (s, "%s (pid %u)", sl_trace_str (self->trace, pr->name), pr->pid);
      if (pr->rank >= 0)
        g_string_append_printf (s, "\nRank: %d", pr->rank);
      if (pr->command_line != SL_NO_STR)
        g_string_append_printf (s, "\n%s", sl_trace_str (self->trace, pr->command_line));
      if (pr->parent_pid != 0)
        g_string_append_printf (s, "\nParent: pid %u", pr->parent_pid);
      return g_string_free (s, FALSE);
    }
  return NULL;
}

void
_sl_timeline_configure_vadjustment (SlTimelineView *self)
{
  double page = MAX (gtk_widget_get_height (GTK_WIDGET (self)) - RULER_H, 1.0);
  double upper = MAX (self->content_h, page);

  if (self->vadjustment == NULL)
    return;
  gtk_adjustment_configure (self->vadjustment,
                            CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - page),
                            0, upper, ROW_LANE_H * 2, page * 0.9, page);
}

/* A thread with no CUDA call and at most this many events is "quiet": folded into one
 * collapsed group per process, so that idle workers do not push the busy threads off screen. */
#define QUIET_MAX_EVENTS 4

/* Groups whose key starts with 'q' (the quiet threads), 'n' (a GPU's projected NVTX) or 'm' (a
 * GPU's metrics other than SMs Active) are collapsed unless the set names them: the set holds
 * the groups whose state differs from their default. */
gboolean
_sl_timeline_group_collapsed (SlTimelineView *self,
                              const char     *key)
{
  return g_hash_table_contains (self->collapsed, key) != collapsed_by_default (key);
}

typedef struct
{
  gint   thread;
  guint  process;
  guint  first, n;          /* its lanes: [first, first + n) */
  gsize  cuda, events;
} ThreadRank;

typedef struct
{
  guint  process;
  gsize  cuda, events;
  guint  order;             /* first appearance */
} ProcessRank;

static gboolean
thread_quiet (const ThreadRank *t)
{
  return t->cuda == 0 && t->events <= QUIET_MAX_EVENTS;
}

/* Busy before quiet; threads that call CUDA first (most calls first), then by events. */
static int
compare_threads (gconstpointer a,
                 gconstpointer b)
{
  const ThreadRank *x = a, *y = b;

  if (thread_quiet (x) != thread_quiet (y))
    return thread_quiet (x) ? 1 : -1;
  if ((x->cuda > 0) != (y->cuda > 0))
    return x->cuda > 0 ? -1 : 1;
  if (x->cuda != y->cuda)
    return x->cuda > y->cuda ? -1 : 1;
  if (x->events != y->events)
    return x->events > y->events ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int
compare_processes (gconstpointer a,
                   gconstpointer b)
{
  const ProcessRank *x = a, *y = b;

  if ((x->cuda > 0) != (y->cuda > 0))
    return x->cuda > 0 ? -1 : 1;
  if (x->events != y->events)
    return x->events > y->events ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void
add_thread_rows (SlTimelineView   *self,
                 RowBuild         *b,
                 const ThreadRank *t,
                 guint             level)
{
  const SlThread *th = sl_trace_get_thread (self->trace, t->thread);
  const char *name = sl_trace_str (self->trace, th->name);

  add_row (self, b, ROW_GROUP, level, -1, -1,
           g_strdup_printf ("t:%" G_GUINT64_FORMAT, th->global_tid),
           *name != '\0' && (SYNTHETIC_ID (th->tid) || name_has_id (name, th->tid))
             ? g_strdup (name)
             : g_strdup_printf ("%s (%u)", *name != '\0' ? name : "thread", th->tid));
  for (guint k = 0; k < t->n; k++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, t->first + k);
      add_row (self, b, ROW_LANE, level + 1, (gint) (t->first + k), -1, NULL,
               lane->kind == SL_LANE_SAMPLES ? _sl_timeline_flame_title (self, lane)
                                             : lane_title (self->trace, lane));
    }
}

/* The processes shown, ranked, and where each goes in the tree of processes. */
typedef struct
{
  const ProcessRank *procs;
  guint              n;        /* shown ones first: those with order != G_MAXUINT */
  GArray            *threads;  /* ThreadRank, ranked */
  gint              *parent;   /* per rank: the rank of its parent's row, -1 at the top */
} ProcessTree;

#define MAX_PROCESS_NESTING 4   /* levels of child processes; deeper ones stay at that level */

/* A process goes under its parent (SL_PROCESS_INFO's parentPid) when the parent is shown too;
 * without that table (nsys exports) every process is at the top, as before.  Parents that loop
 * (a damaged file) are cut where the loop closes. */
static gint *
process_parents (SlTimelineView    *self,
                 const ProcessRank *procs,
                 guint              n)
{
  gint *parent = g_new (gint, MAX (n, 1));

  for (guint p = 0; p < n; p++)
    {
      const SlProcess *pr = sl_trace_get_process (self->trace, procs[p].process);
      parent[p] = -1;
      for (guint q = 0; pr->parent_pid != 0 && q < n && procs[q].order != G_MAXUINT; q++)
        if (q != p && sl_trace_get_process (self->trace, procs[q].process)->pid == pr->parent_pid)
          parent[p] = (gint) q;
    }
  for (guint p = 0; p < n; p++)
    {
      /* walk up n steps at most: a chain longer than that is a loop */
      gint at = parent[p];
      for (guint k = 0; at >= 0 && k <= n; k++)
        {
          if (at == (gint) p)
            {
              parent[p] = -1;
              break;
            }
          at = parent[at];
        }
    }
  return parent;
}

/* A process's CPU utilization row, when its threads have running time (sl-timeline-cpu.c). */
static void
add_cpu_util_row (SlTimelineView *self,
                  RowBuild       *b,
                  guint           process,
                  guint           level)
{
  gint index;
  char *title = _sl_timeline_cpu_util_title (self, process, &index);

  if (title != NULL)
    add_row (self, b, ROW_CPU_UTIL, level, -1, index,
             g_strdup_printf ("u:%u", process), title);
}

/* A process's group: its busy threads, its quiet ones folded, then its child processes' groups
 * (DataLoader workers under the training process). */
static void
add_process_rows (SlTimelineView    *self,
                  RowBuild          *b,
                  const ProcessTree *tree,
                  guint              p,
                  guint              level)
{
  const SlProcess *pr = sl_trace_get_process (self->trace, tree->procs[p].process);
  guint n_quiet = 0;

  add_row (self, b, ROW_GROUP, level, -1, -1,
           g_strdup_printf ("p:%" G_GUINT64_FORMAT, pr->global_pid), process_title (self, pr));
  add_cpu_util_row (self, b, tree->procs[p].process, level + 1);
  gint faults = sl_um_faults_find_series (self->trace, SL_UM_FAULT_CPU, -1, pr->global_pid);
  if (faults >= 0 && add_row (self, b, ROW_UM_FAULTS, level + 1, -1, -1, NULL,
                              g_strdup ("CPU page faults")))
    g_array_index (self->rows, Row, self->rows->len - 1).track = faults;
  for (guint i = 0; i < tree->threads->len; i++)
    {
      const ThreadRank *t = &g_array_index (tree->threads, ThreadRank, i);
      if (t->process != tree->procs[p].process)
        continue;
      if (thread_quiet (t))
        n_quiet++;
      else
        add_thread_rows (self, b, t, level + 1);
    }
  if (n_quiet > 0)
    {
      add_row (self, b, ROW_GROUP, level + 1, -1, -1,
               g_strdup_printf ("q:%" G_GUINT64_FORMAT, pr->global_pid),
               g_strdup_printf (n_quiet == 1 ? "%u quiet thread" : "%u quiet threads", n_quiet));
      for (guint i = 0; i < tree->threads->len; i++)
        {
          const ThreadRank *t = &g_array_index (tree->threads, ThreadRank, i);
          if (t->process == tree->procs[p].process && thread_quiet (t))
            add_thread_rows (self, b, t, level + 2);
        }
    }
  for (guint c = 0; c < tree->n && tree->procs[c].order != G_MAXUINT; c++)
    if (tree->parent[c] == (gint) p)
      add_process_rows (self, b, tree, c, MIN (level + 1, MAX_PROCESS_NESTING));
}

/* The "CPUs" group: a row per core that ran a thread of the trace; folded at first on machines of
 * more than 8 cores (a key starting with 'q'), so that the threads and GPUs stay in view. */
static void
add_cpu_core_rows (SlTimelineView *self,
                   RowBuild       *b)
{
  SlCpuUtil *u = _sl_timeline_cpu_util (self);
  guint n = u != NULL ? sl_cpu_util_get_n_cpus (u) : 0;

  if (n == 0)
    return;
  add_row (self, b, ROW_GROUP, 0, -1, -1, g_strdup (n > 8 ? "qcpus" : "cpus"),
           g_strdup_printf (n == 1 ? "CPUs (1 core)" : "CPUs (%u cores)", n));
  for (guint i = 0; i < n; i++)
    add_row (self, b, ROW_CPU_CORE, 1, -1, (gint) i, NULL,
             g_strdup_printf ("CPU %u", sl_cpu_util_get_cpu (u, i)));
}

/* CPU lanes come sorted by thread: per process (those calling CUDA first, then by events), its
 * threads by what they do, the quiet ones folded into one group at the end, its child processes
 * (when the recording says who started whom) below it. */
static void
add_cpu_rows (SlTimelineView *self,
              RowBuild       *b,
              guint           n_lanes)
{
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (ThreadRank));
  guint n_procs = sl_trace_get_n_processes (self->trace);
  g_autofree ProcessRank *procs = g_new0 (ProcessRank, MAX (n_procs, 1));
  guint order = 0;

  for (guint p = 0; p < n_procs; p++)
    {
      procs[p].process = p;
      procs[p].order = G_MAXUINT;
    }
  for (guint i = 0; i < n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, i);
      ThreadRank *t;

      if (lane->thread < 0 || lane->gpu >= 0)
        continue;
      t = threads->len > 0 ? &g_array_index (threads, ThreadRank, threads->len - 1) : NULL;
      if (t == NULL || t->thread != lane->thread)
        {
          ThreadRank nt = { lane->thread, sl_trace_get_thread (self->trace, lane->thread)->process,
                            i, 0, 0, 0 };
          g_array_append_val (threads, nt);
          t = &g_array_index (threads, ThreadRank, threads->len - 1);
        }
      t->n++;
      /* thread states tile its time: they say nothing of how busy a thread is */
      if (lane->kind != SL_LANE_SCHED)
        t->events += lane->n_events;
      if (lane->kind == SL_LANE_CUDA_API)
        t->cuda += lane->n_events;
    }
  for (guint i = 0; i < threads->len; i++)
    {
      const ThreadRank *t = &g_array_index (threads, ThreadRank, i);
      ProcessRank *pr = &procs[MIN (t->process, MAX (n_procs, 1) - 1)];
      pr->cuda += t->cuda;
      pr->events += t->events;
      if (pr->order == G_MAXUINT)
        pr->order = order++;
    }
  g_array_sort (threads, compare_threads);
  qsort (procs, n_procs, sizeof (ProcessRank), compare_processes);

  ProcessTree tree = { procs, n_procs, threads, process_parents (self, procs, n_procs) };
  for (guint p = 0; p < n_procs && procs[p].order != G_MAXUINT; p++)
    if (tree.parent[p] < 0
        && (b->source < 0
            || sl_trace_get_process (self->trace, procs[p].process)->source == (guint32) b->source))
      add_process_rows (self, b, &tree, p, 0);
  g_free (tree.parent);
}

/* Whether lanes [from, to) of one GPU hold GPU work (not only host waits) on `ref`'s stream. */
static gboolean
stream_has_work (SlTimelineView *self,
                 guint           from,
                 guint           to,
                 const SlLane   *ref)
{
  for (guint i = from; i < to; i++)
    {
      const SlLane *l = sl_trace_get_lane (self->trace, i);
      if (l->kind != SL_LANE_SYNC && l->global_pid == ref->global_pid
          && l->context_id == ref->context_id && l->green_context_id == ref->green_context_id
          && l->stream_id == ref->stream_id)
        return TRUE;
    }
  return FALSE;
}

/* A GPU in its groups' keys: its device id, after its source's index in a merged trace (two
 * ranks' GPU 0 are two GPUs). */
static char *
gpu_tag (SlTimelineView *self,
         const SlGpu    *gpu)
{
  if (sl_trace_get_n_sources (self->trace) > 1)
    return g_strdup_printf ("%u.%u", gpu->source, gpu->device_id);
  return g_strdup_printf ("%u", gpu->device_id);
}

/* "NVTX (projected)" under a GPU (sl-timeline-nvtxproj.c): a row per track of its projected
 * ranges, or one while they are computed (from the first time the group is open). */
static void
add_nvtxproj_rows (SlTimelineView *self,
                   RowBuild       *b,
                   guint           g)
{
  g_autofree char *tag = gpu_tag (self, sl_trace_get_gpu (self->trace, g));
  char *key = g_strdup_printf ("n:%s", tag);
  gint n = _sl_timeline_nvtxproj_tracks (self, g,
                                         b->expand_all || !_sl_timeline_group_collapsed (self, key));

  if (n < 0)
    {
      g_free (key);
      return;
    }
  add_row (self, b, ROW_GROUP, 1, -1, (gint) g, key, g_strdup ("NVTX (projected)"));
  for (gint k = n > 0 ? 0 : -1; k < MAX (n, 0); k++)
    if (add_row (self, b, ROW_NVTX_PROJ, 2, -1, (gint) g, NULL,
                 _sl_timeline_nvtxproj_track_title (self, g, k)))
      g_array_index (self->rows, Row, self->rows->len - 1).track = k;
}

/* "GPU metrics" under a GPU (sl-timeline-metrics.c): a row per metric series of the GPU in the
 * model's order, SMs Active on top and open, the others in a group of their own, folded. */
static void
add_metrics_rows (SlTimelineView *self,
                  RowBuild       *b,
                  guint           g,
                  const char     *tag)
{
  guint n = sl_metrics_get_n_series (self->trace), n_gpu = 0;
  gint sm = _sl_timeline_metrics_sm_active (self, g);

  for (guint i = 0; i < n; i++)
    n_gpu += sl_metrics_get_series (self->trace, i)->gpu == (gint) g;
  if (n_gpu == 0)
    return;
  add_row (self, b, ROW_GROUP, 1, -1, (gint) g, g_strdup_printf ("M:%s", tag),
           g_strdup ("GPU metrics"));
  if (sm >= 0 && add_row (self, b, ROW_GPU_METRIC, 2, -1, (gint) g, NULL,
                          _sl_timeline_metrics_title (self, (guint) sm)))
    g_array_index (self->rows, Row, self->rows->len - 1).track = sm;
  if (n_gpu == (sm >= 0 ? 1u : 0u))
    return;
  add_row (self, b, ROW_GROUP, 2, -1, (gint) g, g_strdup_printf ("m:%s", tag),
           g_strdup_printf (sm >= 0 ? "%u more metrics" : "%u metrics", n_gpu - (sm >= 0)));
  for (guint i = 0; i < n; i++)
    if (sl_metrics_get_series (self->trace, i)->gpu == (gint) g && (gint) i != sm
        && add_row (self, b, ROW_GPU_METRIC, 3, -1, (gint) g, NULL,
                    _sl_timeline_metrics_title (self, i)))
      g_array_index (self->rows, Row, self->rows->len - 1).track = (gint) i;
}

/* One GPU's lanes [from, to), sorted by process, context, stream, kind: a group per context and
 * per stream with GPU work.  Host-side synchronization is no GPU work: its lane goes with the
 * stream it waits for when that stream has work, else under the context as "Host waits", never
 * a stream group of its own. */
static void
add_gpu_rows (SlTimelineView *self,
              RowBuild       *b,
              guint           g,
              guint           from,
              guint           to)
{
  const SlGpu *gpu = sl_trace_get_gpu (self->trace, g);
  const char *gname = sl_trace_str (self->trace, gpu->name);
  g_autofree char *plain = g_strdup_printf ("GPU %u", gpu->device_id);
  g_autofree char *tag = gpu_tag (self, gpu);
  guint64 cur_pid = 0;
  guint32 cur_ctx = 0, cur_green = 0, cur_stream = 0;
  gboolean have_ctx = FALSE, have_stream = FALSE;

  /* a GPU the trace lists (TARGET_INFO_GPU, Kineto's deviceProperties) with no work on it is
   * shown too, said to be idle, as nsys-ui lists it: its absence would read as a GPU unseen */
  gboolean unnamed = g_str_equal (gname, plain) || *gname == '\0';
  char *title = from >= to ? unnamed ? g_strdup_printf ("GPU %u · idle", gpu->device_id)
                                     : g_strdup_printf ("GPU %u · idle · %s", gpu->device_id, gname)
                : unnamed  ? g_steal_pointer (&plain)
                           : g_strdup_printf ("GPU %u: %s", gpu->device_id, gname);
  add_row (self, b, ROW_GROUP, 0, -1, (gint) g, g_strdup_printf ("g:%s", tag), title);
  add_row (self, b, ROW_GPU_UTIL, 1, -1, (gint) g, NULL,
           g_strdup (_sl_timeline_util_sm_series (self, g) >= 0 ? "Utilization (SMs Active)"
                                                                 : "Utilization"));
  gint memory = sl_memory_find_gpu_series (self->trace, (gint) g);
  if (memory >= 0 && add_row (self, b, ROW_GPU_MEMORY, 1, -1, (gint) g, NULL, g_strdup ("Memory")))
    g_array_index (self->rows, Row, self->rows->len - 1).track = memory;
  gint faults = sl_um_faults_find_series (self->trace, SL_UM_FAULT_GPU, (gint) g, 0);
  if (faults >= 0
      && add_row (self, b, ROW_UM_FAULTS, 1, -1, (gint) g, NULL, g_strdup ("Page faults")))
    g_array_index (self->rows, Row, self->rows->len - 1).track = faults;
  add_metrics_rows (self, b, g, tag);
  if (from >= to)
    return;
  add_row (self, b, ROW_GPU_ALL, 1, -1, (gint) g, NULL, g_strdup ("All streams"));
  add_nvtxproj_rows (self, b, g);
  for (guint i = from; i < to; i++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, i);
      gboolean on_stream;

      if (!have_ctx || lane->global_pid != cur_pid || lane->context_id != cur_ctx
          || lane->green_context_id != cur_green)
        {
          have_ctx = TRUE;
          have_stream = FALSE;
          cur_pid = lane->global_pid;
          cur_ctx = lane->context_id;
          cur_green = lane->green_context_id;
          add_row (self, b, ROW_GROUP, 1, -1, (gint) g,
                   g_strdup_printf ("c:%s:%" G_GUINT64_FORMAT ":%u:%u", tag, cur_pid, cur_ctx,
                                    cur_green),
                   cur_green != 0
                     ? g_strdup_printf ("pid %u · context %u · green %u", pid_of (self, cur_pid),
                                        cur_ctx, cur_green)
                     : g_strdup_printf ("pid %u · context %u", pid_of (self, cur_pid), cur_ctx));
        }
      on_stream = lane->kind != SL_LANE_SYNC || stream_has_work (self, from, to, lane);
      if (!on_stream)
        {
          /* sorted by stream, the waits on streams without work end up among the streams:
           * under the context, beside them */
          add_row (self, b, ROW_LANE, 2, (gint) i, (gint) g, NULL,
                   lane->stream_id == G_MAXUINT32
                     ? g_strdup ("Host waits")
                     : g_strdup_printf ("Host waits · stream %u", lane->stream_id));
          have_stream = FALSE;
          continue;
        }
      if (!have_stream || lane->stream_id != cur_stream)
        {
          have_stream = TRUE;
          cur_stream = lane->stream_id;
          add_row (self, b, ROW_GROUP, 2, -1, (gint) g,
                   g_strdup_printf ("s:%s:%" G_GUINT64_FORMAT ":%u:%u:%u", tag, cur_pid, cur_ctx,
                                    cur_green, cur_stream),
                   cur_stream == G_MAXUINT32 ? g_strdup ("No stream")
                                             : g_strdup_printf ("Stream %u", cur_stream));
        }
      add_row (self, b, ROW_LANE, 3, (gint) i, (gint) g, NULL,
               lane_title (self->trace, lane));
      /* graph launches traced node by node: a box each, opened into their nodes beneath */
      const SlGraphGroup *groups;
      if (lane->kind == SL_LANE_KERNELS && sl_trace_get_graph_groups (self->trace, i, &groups) > 0
          && add_row (self, b, ROW_GRAPHS, 3, (gint) i, (gint) g, NULL, g_strdup ("CUDA graphs"))
          && _sl_timeline_graphs_any_open (self, i))
        add_row (self, b, ROW_GRAPH_NODES, 4, (gint) i, (gint) g, NULL, g_strdup ("Graph nodes"));
    }
}

static int
compare_gpus (gconstpointer a,
              gconstpointer b,
              gpointer      trace)
{
  guint32 x = sl_trace_get_gpu (trace, *(const guint *) a)->device_id;
  guint32 y = sl_trace_get_gpu (trace, *(const guint *) b)->device_id;

  if (x != y)
    return x < y ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : 1;
}

/* A merged trace's group: what the file says it is ("rank 3", else its name), its file when
 * that is not its name already, and when its first event is after the trace's first one. */
static char *
source_title (SlTrace *trace,
              guint    s)
{
  const SlSource *src = sl_trace_get_source (trace, s);
  g_autofree char *base = g_path_get_basename (src->path);
  GString *t = g_string_new (src->label);

  if (strstr (src->label, base) == NULL)
    g_string_append_printf (t, " · %s", base);
  if (src->n_events > 0 && src->start > sl_trace_get_start (trace))
    {
      g_autofree char *late = sl_format_duration (src->start - sl_trace_get_start (trace));
      g_string_append_printf (t, " (starts +%s)", late);
    }
  return g_string_free (t, FALSE);
}

/* CPU lanes come first, sorted by thread, then GPU lanes by GPU, process, context, stream, kind
 * (sl-trace.c): processes and threads are ranked here, GPUs listed by device id. */
void
_sl_timeline_rows_rebuild (SlTimelineView *self)
{
  RowBuild b = { -1, FALSE, { NULL }, NULL, 0, -1 };
  guint n_lanes;
  g_autofree guint *order = NULL, *first = NULL, *last = NULL;

  g_array_set_size (self->rows, 0);
  self->content_h = 0;
  g_clear_pointer (&self->lane_row, g_free);
  if (self->trace == NULL)
    {
      _sl_timeline_configure_vadjustment (self);
      return;
    }
  n_lanes = sl_trace_get_n_lanes (self->trace);
  self->lane_row = g_new (gint, MAX (n_lanes, 1));
  for (guint i = 0; i < n_lanes; i++)
    self->lane_row[i] = -1;
  b.expand_all = self->lane_filter != NULL;
  b.pinned = g_array_new (FALSE, FALSE, sizeof (Row));

  order = g_new (guint, MAX (self->n_gpus, 1));
  first = g_new (guint, MAX (self->n_gpus, 1));
  last = g_new0 (guint, MAX (self->n_gpus, 1));
  for (guint g = 0; g < self->n_gpus; g++)
    {
      order[g] = g;
      first[g] = G_MAXUINT;
    }
  for (guint i = 0; i < n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, i);
      if (lane->gpu < 0 || (guint) lane->gpu >= self->n_gpus)
        continue;
      first[lane->gpu] = MIN (first[lane->gpu], i);
      last[lane->gpu] = i + 1;
    }
  g_qsort_with_data (order, (gint) self->n_gpus, sizeof (guint), compare_gpus, self->trace);

  /* merged traces: a group per file (its processes, then its GPUs), the CPU cores after them */
  guint n_sources = sl_trace_get_n_sources (self->trace);
  for (guint s = 0; s < n_sources; s++)
    {
      if (n_sources > 1)
        {
          b.base = 0;
          add_row (self, &b, ROW_GROUP, 0, -1, -1, g_strdup_printf ("S:%u", s),
                   source_title (self->trace, s));
          b.base = 1;
          b.source = (gint) s;
        }
      add_cpu_rows (self, &b, n_lanes);
      for (guint k = 0; k < self->n_gpus; k++)
        if (n_sources == 1 || sl_trace_get_gpu (self->trace, order[k])->source == s)
          add_gpu_rows (self, &b, order[k], first[order[k]] != G_MAXUINT ? first[order[k]] : 0,
                        last[order[k]]);
      if (n_sources == 1)
        add_cpu_core_rows (self, &b);
    }
  b.base = 0;
  b.source = -1;
  if (n_sources > 1)
    add_cpu_core_rows (self, &b);
  rows_finish (self, &b);
  for (guint i = 0; i < MAX_LEVELS; i++)
    g_free (b.anc[i]);
  for (guint i = 0; i < b.pinned->len; i++)
    g_free (g_array_index (b.pinned, Row, i).label);   /* NULL once moved */
  g_array_unref (b.pinned);
  _sl_timeline_configure_vadjustment (self);
}

/* A utilization row's header: its title, the threshold below which it is shaded, and its scale
 * (ticks at 0, 50 and 100% where the bars reach, the ends labelled) along the right edge. */
static void
draw_util_header (SlTimelineView *self,
                  GtkSnapshot    *snapshot,
                  const Row      *r,
                  double          x,
                  double          y,
                  const GdkRGBA  *tc)
{
  double base = y + r->h - 2, gh = r->h - 6;
  /* what the red shading means, in words: "idle < 80%" read as a setting, not as a legend */
  g_autofree char *idle = g_strdup_printf ("red: < %.0f%% busy", 100 * self->util_threshold);
  static const char *const ends[] = { "0%", "100%" };

  _sl_timeline_draw_text_plain (self, snapshot, r->label, x, y + 3, tc);
  _sl_timeline_draw_text_plain (self, snapshot, idle, x, y + 3 + self->text_h, &self->pal.dim_fg);
  for (int k = 0; k <= 2; k++)
    gtk_snapshot_append_color (snapshot, &self->pal.dim_fg,
                               &GRAPHENE_RECT_INIT (HEADER_W - 6, floor (base - k * gh / 2), 5, 1));
  for (guint k = 0; k < G_N_ELEMENTS (ends); k++)
    {
      int w;
      double ty = k == 0 ? base - self->text_h + 2 : base - gh - 2;
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
      pango_layout_set_text (self->layout, ends[k], -1);
      pango_layout_get_pixel_size (self->layout, &w, NULL);
      _sl_timeline_draw_text_plain (self, snapshot, NULL, HEADER_W - 9 - w,
                                    CLAMP (ty, y + 1, y + r->h - self->text_h - 1),
                                    &self->pal.dim_fg);
    }
}

gboolean
_sl_timeline_row_continues (SlTimelineView *self,
                            guint           row)
{
  if (row == 0 || row >= self->rows->len)
    return FALSE;
  const Row *r = row_get (self, row), *p = row_get (self, row - 1);
  if (r->kind != p->kind || r->level != p->level || g_strcmp0 (r->label, p->label) != 0)
    return FALSE;
  if (r->kind == ROW_NVTX_PROJ)
    return r->gpu == p->gpu;
  if (r->kind != ROW_LANE)
    return FALSE;
  const SlLane *a = sl_trace_get_lane (self->trace, r->lane);
  const SlLane *b = sl_trace_get_lane (self->trace, p->lane);
  return a->kind == b->kind && a->thread == b->thread && a->gpu == b->gpu
         && a->stream_id == b->stream_id;
}

void
_sl_timeline_draw_headers (SlTimelineView *self,
                           GtkSnapshot    *snapshot,
                           double          height)
{
  double sy = scroll_y (self);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, RULER_H, HEADER_W, height - RULER_H));
  gtk_snapshot_append_color (snapshot, &self->pal.header_bg,
                             &GRAPHENE_RECT_INIT (0, RULER_H, HEADER_W, height - RULER_H));
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      double y = RULER_H + r->y - sy, x = 6 + r->level * INDENT;
      GdkRGBA *tc = r->kind == ROW_GROUP ? &self->pal.fg : &self->pal.dim_fg;

      if (y + r->h < RULER_H)
        continue;
      if (y > height)
        break;
      if (r->kind == ROW_LANE && self->focus_lanes != NULL && self->focus_lanes[r->lane])
        {
          GdkRGBA tint = self->pal.focus;
          tint.alpha = 0.22f;
          gtk_snapshot_append_color (snapshot, &tint, &GRAPHENE_RECT_INIT (0, y, HEADER_W, r->h));
          tc = &self->pal.fg;
        }
      if (r->kind == ROW_GROUP)
        {
          gboolean collapsed = r->collapsed;
          gtk_snapshot_append_color (snapshot, &self->pal.group_bg,
                                     &GRAPHENE_RECT_INIT (0, y, HEADER_W, r->h));
          _sl_timeline_draw_text (self, snapshot, SL_NO_STR, collapsed ? "▸" : "▾", x,
                                  y + (r->h - self->text_h) / 2, 12, tc);
          x += 12;
        }
      if (r->kind == ROW_GPU_UTIL)
        draw_util_header (self, snapshot, r, x, y, tc);
      else if (r->kind == ROW_CPU_UTIL)
        _sl_timeline_draw_text (self, snapshot, SL_NO_STR, r->label, x, y + 3, HEADER_W - x - 6,
                                tc);
      else if (r->kind == ROW_GPU_METRIC)
        _sl_timeline_metrics_header (self, snapshot, r, x, y, tc);
      else if (!_sl_timeline_row_continues (self, i))
        _sl_timeline_draw_text (self, snapshot, SL_NO_STR, r->label, x,
                                y + (r->h - self->text_h) / 2, HEADER_W - x - 6, tc);
      /* one header over the rows of one lane that grows in depth: no line inside it */
      if (!_sl_timeline_row_continues (self, i + 1))
        gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                   &GRAPHENE_RECT_INIT (0, y + r->h - 1, HEADER_W, 1));
    }
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W - 1, RULER_H, 1, height - RULER_H));
  gtk_snapshot_pop (snapshot);
}

/* Scrolls vertically so that a row is on screen, expanding the groups that hide it. */
void
_sl_timeline_reveal_lane (SlTimelineView *self,
                          gint            lane)
{
  const Row *r;
  double page, value;

  /* a hidden lane is shown again: its event was asked for */
  if (g_hash_table_remove (self->hidden, GINT_TO_POINTER (lane + 1)))
    _sl_timeline_rows_rebuild (self);
  if (self->lane_row[lane] < 0)
    {
      /* expand every group: simpler than finding its ancestors, and rare */
      const SlLane *l = sl_trace_get_lane (self->trace, lane);
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, self->collapsed);
      while (g_hash_table_iter_next (&it, &key, NULL))
        {
          const char *k = key;
          gboolean mine = l->gpu >= 0 ? (k[0] == 'g' || k[0] == 'c' || k[0] == 's')
                                      : (k[0] == 'p' || k[0] == 't');
          if (mine)
            g_hash_table_iter_remove (&it);
        }
      _sl_timeline_rows_rebuild (self);
      /* still hidden: a quiet thread's, whose group is collapsed unless named */
      if (self->lane_row[lane] < 0 && l->gpu < 0 && l->thread >= 0)
        {
          const SlThread *th = sl_trace_get_thread (self->trace, l->thread);
          const SlProcess *pr = sl_trace_get_process (self->trace, th->process);
          g_hash_table_add (self->collapsed,
                            g_strdup_printf ("q:%" G_GUINT64_FORMAT, pr->global_pid));
          _sl_timeline_rows_rebuild (self);
        }
    }
  if (self->lane_row[lane] < 0 || self->vadjustment == NULL)
    return;
  r = row_get (self, self->lane_row[lane]);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  value = gtk_adjustment_get_value (self->vadjustment);
  if (r->y < value || r->y + r->h > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (r->y - page / 3, 0));
}

static void
vadj_value_changed_cb (GtkAdjustment  *adj,
                       SlTimelineView *self)
{
  (void) adj;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
_sl_timeline_set_vadjustment (SlTimelineView *self,
                              GtkAdjustment  *adj)
{
  if (adj == NULL)
    adj = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  if (adj == self->vadjustment)
    return;
  if (self->vadjustment != NULL)
    {
      g_signal_handler_disconnect (self->vadjustment, self->vadj_changed_id);
      g_object_unref (self->vadjustment);
    }
  self->vadjustment = g_object_ref_sink (adj);
  self->vadj_changed_id = g_signal_connect (adj, "value-changed",
                                            G_CALLBACK (vadj_value_changed_cb), self);
  _sl_timeline_configure_vadjustment (self);
  g_object_notify (G_OBJECT (self), "vadjustment");
}
