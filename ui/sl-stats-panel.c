/* sl-stats-panel.c: the `sightline stats` reports as sortable tables that follow the selection.
 *
 * One page per report (sl-stats-page.c).  The tables are the model's reports: the whole trace's,
 * computed while loading, or those over the selected range when a selection settles (the events
 * that start in it; O(log n) per lane plus what the range holds), on a thread: a range over most
 * of a 10^7-event trace takes seconds, its cuda_gpu_trace alone up to a million rows.  The tables
 * shown stay until the range's arrive.  A merged trace's are rank by rank behind a Rank column,
 * as `sightline stats --merge` prints them (sl_report_compute_sources).
 */
#include "sl-stats-panel.h"

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-stats-panel-private.h"
#include "sl-timeline-view.h"

#define RANGE_DELAY_MS 120   /* a Shift+drag notifies on every motion: recompute when it settles */

struct _SlStatsPanel
{
  GtkWidget       parent_instance;

  GtkWidget      *notebook;
  GtkWidget      *placeholder; /* said instead of the notebook while there are no tables */
  GPtrArray      *pages;       /* _SlStatsPage *, one per report name */
  SlTimelineView *timeline;    /* weak */
  SlTrace        *trace;
  SlViewport     *viewport;
  gulong          selection_handler;
  guint           range_source;
  GCancellable   *range_cancel; /* the range's reports being computed, NULL when none */
  gboolean        ranged;       /* the tables shown are over [r0, r1) */
  SlTime          r0, r1;
  GHashTable     *kernel_ids;  /* demangled name -> string id, of the kernels in the trace */
};

G_DEFINE_FINAL_TYPE (SlStatsPanel, sl_stats_panel, GTK_TYPE_WIDGET)

GtkWidget *
sl_stats_panel_new (void)
{
  return g_object_new (SL_TYPE_STATS_PANEL, NULL);
}

/* The per-event reports (cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_trace,
 * nvtx_gpu_proj_trace) have a row per event, ~200 bytes of cells each: past a million the table
 * would cost the viewer more than the whole trace, so the panel leaves them to the CLI. */
#define PER_EVENT_MAX_ROWS 1000000

/* The events a per-event report has a row for, at most: the lanes of the kinds it lists. */
static gsize
per_event_rows (SlTrace    *trace,
                const char *name)
{
  gboolean api = g_str_equal (name, "cuda_api_trace");
  gboolean kernels = g_str_equal (name, "cuda_kern_exec_trace");
  gboolean nvtx = g_str_equal (name, "nvtx_gpu_proj_trace");
  gsize n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      gboolean counts = api ? lane->kind == SL_LANE_CUDA_API
                      : kernels ? lane->kind == SL_LANE_KERNELS
                      : nvtx ? lane->kind == SL_LANE_NVTX
                      : lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
                          || lane->kind == SL_LANE_MEMSET;
      if (counts)
        n += lane->n_events;
    }
  return n;
}

static gboolean
too_many_rows (SlTrace    *trace,
               const char *name)
{
  return sl_report_is_per_event (name) && per_event_rows (trace, name) > PER_EVENT_MAX_ROWS;
}

GPtrArray *
sl_stats_panel_compute_reports (SlTrace *trace)
{
  GPtrArray *reports = g_ptr_array_new ();

  g_return_val_if_fail (trace != NULL, reports);

  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      if (too_many_rows (trace, *n))
        g_ptr_array_add (reports, NULL);
      else
        g_ptr_array_add (reports, sl_report_compute_sources (trace, *n, G_MININT64, G_MAXINT64,
                                                             &error));
    }
  return reports;
}

static guint32
kernel_id_for_row (SlStatsPanel *self,
                   _SlStatsPage *page,
                   SlStatsRow   *row)
{
  gint name_col = _sl_stats_table_find (page->shown, "Name");
  const SlCell *cell;

  if (row == NULL || name_col < 0 || self->kernel_ids == NULL)
    return SL_NO_STR;
  cell = _sl_stats_table_cell (_sl_stats_row_get_table (row), _sl_stats_row_get_row (row),
                               (guint) name_col);
  if (cell->type != SL_CELL_TEXT)
    return SL_NO_STR;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->kernel_ids, cell->v.s));
}

static void
selection_changed_cb (GtkSingleSelection *selection,
                      GParamSpec         *pspec,
                      _SlStatsPage       *page)
{
  SlStatsPanel *self = page->owner;
  guint32 id;

  (void) selection;
  (void) pspec;
  if (page->longest == NULL || self->timeline == NULL)
    return;
  id = kernel_id_for_row (self, page, _sl_stats_page_selected_row (page));
  sl_timeline_view_set_highlight_name (self->timeline, id);
  gtk_widget_set_sensitive (page->longest, id != SL_NO_STR);
}

static void
longest_clicked_cb (GtkButton    *button,
                    SlStatsPanel *self)
{
  (void) button;
  sl_stats_panel_go_to_longest (self);
}

static void
update_info (SlStatsPanel *self,
             _SlStatsPage *page)
{
  g_autofree char *text = NULL;
  gsize n = page->shown != NULL ? page->shown->n_rows : 0;
  const char *rows = n == 1 ? "row" : "rows";

  if (page->full == NULL && too_many_rows (self->trace, page->name))
    text = g_strdup_printf ("This report has a row for each of %" G_GSIZE_FORMAT " events, too "
                            "many to list here; `sightline stats --report %s %s` prints them all.",
                            per_event_rows (self->trace, page->name), page->name,
                            sl_trace_get_path (self->trace));
  else if (page->full == NULL)
    text = g_strdup ("This trace has no data for this report.");
  else if (!self->ranged && sl_trace_get_n_sources (self->trace) > 1)
    text = g_strdup_printf ("Whole trace, rank by rank (%u ranks): %" G_GSIZE_FORMAT " %s. Select "
                            "a time range (Shift+drag) to see the events that start in it.",
                            sl_trace_get_n_sources (self->trace), n, rows);
  else if (!self->ranged)
    text = g_strdup_printf ("Whole trace: %" G_GSIZE_FORMAT " %s. Select a time range (Shift+drag) "
                            "to see the events that start in it.", n, rows);
  else
    {
      SlTime origin = sl_trace_get_origin (self->trace);
      g_autofree char *a = sl_format_offset (self->r0 - origin);
      g_autofree char *b = sl_format_offset (self->r1 - origin);
      g_autofree char *d = sl_format_duration (self->r1 - self->r0);
      text = g_strdup_printf ("Selected range %s … %s (%s): %" G_GSIZE_FORMAT " %s, from the "
                              "events that start in it.", a, b, d, n, rows);
    }
  _sl_stats_page_set_info (page, text);
}

static void
add_page (SlStatsPanel *self,
          const char   *name,
          SlReport     *report)
{
  _SlStatsPage *page = _sl_stats_page_new (name, report);
  GtkWidget *tab = gtk_label_new (sl_report_name_get_title (name));

  page->owner = self;
  gtk_widget_set_tooltip_text (tab, name);
  if (page->selection != NULL)
    g_signal_connect (page->selection, "notify::selected", G_CALLBACK (selection_changed_cb), page);
  if (page->longest != NULL)
    g_signal_connect (page->longest, "clicked", G_CALLBACK (longest_clicked_cb), self);
  update_info (self, page);
  gtk_notebook_append_page (GTK_NOTEBOOK (self->notebook), page->box, tab);
  g_ptr_array_add (self->pages, page);
}

/* One computation of the reports over a range, for the pages that have a whole-trace table. */
typedef struct
{
  SlTrace   *trace;
  SlTime     r0, r1;
  GPtrArray *names;     /* the pages' report names (borrowed: static strings of sl-stats) */
} RangeJob;

static void
range_job_free (RangeJob *job)
{
  sl_trace_unref (job->trace);
  g_ptr_array_unref (job->names);
  g_free (job);
}

static void
range_thread_cb (GTask        *task,
                 gpointer      source,
                 gpointer      data,
                 GCancellable *cancellable)
{
  RangeJob *job = data;
  GPtrArray *reports = g_ptr_array_new_with_free_func ((GDestroyNotify) sl_report_free);

  (void) source;
  for (guint i = 0; i < job->names->len && !g_cancellable_is_cancelled (cancellable); i++)
    g_ptr_array_add (reports, sl_report_compute_sources (job->trace, job->names->pdata[i], job->r0,
                                                         job->r1, NULL));
  g_task_return_pointer (task, reports, (GDestroyNotify) g_ptr_array_unref);
}

static void
range_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  SlStatsPanel *self = SL_STATS_PANEL (source);
  RangeJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GPtrArray) reports = g_task_propagate_pointer (G_TASK (result), NULL);
  guint k = 0;

  (void) data;
  if (reports == NULL)
    return;  /* cancelled: another range, none, or another trace came meanwhile */
  g_clear_object (&self->range_cancel);
  self->ranged = TRUE;
  self->r0 = job->r0;
  self->r1 = job->r1;
  for (guint i = 0; i < self->pages->len && k < reports->len; i++)
    {
      _SlStatsPage *page = self->pages->pdata[i];
      g_autoptr (_SlStatsTable) table = NULL;

      if (page->full == NULL)
        continue;
      g_assert (g_str_equal (page->name, job->names->pdata[k]));
      /* the whole trace has data for it, so a range never lacks the report */
      g_assert (reports->pdata[k] != NULL);
      table = _sl_stats_table_new (g_steal_pointer (&reports->pdata[k]), page->full);
      k++;
      _sl_stats_page_show (page, table);
      update_info (self, page);
    }
}

/* Shows the whole trace's tables now, or starts computing the range's. */
static void
recompute (SlStatsPanel *self,
           gboolean      ranged,
           SlTime        r0,
           SlTime        r1)
{
  g_autoptr (GTask) task = NULL;
  RangeJob *job;

  if (self->range_cancel != NULL)
    g_cancellable_cancel (self->range_cancel);
  g_clear_object (&self->range_cancel);
  if (!ranged)
    {
      self->ranged = FALSE;
      for (guint i = 0; i < self->pages->len; i++)
        {
          _SlStatsPage *page = self->pages->pdata[i];
          if (page->full == NULL)
            continue;
          _sl_stats_page_show (page, page->full);
          update_info (self, page);
        }
      return;
    }
  job = g_new0 (RangeJob, 1);
  job->trace = sl_trace_ref (self->trace);
  job->r0 = r0;
  job->r1 = r1;
  job->names = g_ptr_array_new ();
  for (guint i = 0; i < self->pages->len; i++)
    {
      _SlStatsPage *page = self->pages->pdata[i];
      if (page->full != NULL)
        g_ptr_array_add (job->names, (gpointer) page->name);
    }
  self->range_cancel = g_cancellable_new ();
  task = g_task_new (self, self->range_cancel, range_done_cb, NULL);
  g_task_set_source_tag (task, recompute);
  g_task_set_task_data (task, job, (GDestroyNotify) range_job_free);
  g_task_run_in_thread (task, range_thread_cb);
}

static gboolean
range_timeout_cb (gpointer data)
{
  SlStatsPanel *self = data;

  SlTime r0 = 0, r1 = 0;
  gboolean ranged;

  self->range_source = 0;
  ranged = self->viewport != NULL && sl_viewport_get_selection (self->viewport, &r0, &r1)
           && r1 > r0;
  recompute (self, ranged, r0, r1);
  return G_SOURCE_REMOVE;
}

static void
viewport_selection_changed_cb (SlViewport   *viewport,
                               GParamSpec   *pspec,
                               SlStatsPanel *self)
{
  (void) viewport;
  (void) pspec;
  if (self->range_source != 0)
    g_source_remove (self->range_source);
  self->range_source = g_timeout_add (RANGE_DELAY_MS, range_timeout_cb, self);
}

static void
clear_pages (SlStatsPanel *self)
{
  while (gtk_notebook_get_n_pages (GTK_NOTEBOOK (self->notebook)) > 0)
    gtk_notebook_remove_page (GTK_NOTEBOOK (self->notebook), -1);
  g_ptr_array_set_size (self->pages, 0);
  gtk_widget_set_visible (self->notebook, FALSE);
  gtk_widget_set_visible (self->placeholder, TRUE);
}

static void
disconnect_viewport (SlStatsPanel *self)
{
  if (self->viewport != NULL && self->selection_handler != 0)
    g_signal_handler_disconnect (self->viewport, self->selection_handler);
  self->selection_handler = 0;
  g_clear_object (&self->viewport);
  g_clear_handle_id (&self->range_source, g_source_remove);
  if (self->range_cancel != NULL)
    g_cancellable_cancel (self->range_cancel);
  g_clear_object (&self->range_cancel);
}

static void
sl_stats_panel_dispose (GObject *object)
{
  SlStatsPanel *self = SL_STATS_PANEL (object);

  disconnect_viewport (self);
  g_clear_pointer (&self->notebook, gtk_widget_unparent);
  g_clear_pointer (&self->placeholder, gtk_widget_unparent);
  g_clear_pointer (&self->pages, g_ptr_array_unref);
  g_clear_pointer (&self->kernel_ids, g_hash_table_unref);
  g_clear_pointer (&self->trace, sl_trace_unref);
  if (self->timeline != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
  self->timeline = NULL;
  G_OBJECT_CLASS (sl_stats_panel_parent_class)->dispose (object);
}

static void
sl_stats_panel_class_init (SlStatsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_stats_panel_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sl-stats-panel");
}

static void
sl_stats_panel_init (SlStatsPanel *self)
{
  self->pages = g_ptr_array_new_with_free_func ((GDestroyNotify) _sl_stats_page_free);
  self->notebook = gtk_notebook_new ();
  gtk_notebook_set_scrollable (GTK_NOTEBOOK (self->notebook), TRUE);
  gtk_widget_set_parent (self->notebook, GTK_WIDGET (self));
  gtk_widget_set_visible (self->notebook, FALSE);
  /* the reports of a big trace take seconds after it is on screen (and a first look has none):
   * an empty pane would look broken, or, worse, keep the last trace's tables */
  self->placeholder = gtk_label_new ("The statistics are computed once the whole trace is loaded.");
  gtk_widget_add_css_class (self->placeholder, "dim-label");
  gtk_widget_set_parent (self->placeholder, GTK_WIDGET (self));
}

/* Kernels first, they are what a person looks at first; on a trace without kernels the first
 * report that has rows, not an empty table. */
static void
show_first_with_data (SlStatsPanel *self)
{
  gint first = -1;

  for (guint i = 0; i < self->pages->len; i++)
    {
      const _SlStatsPage *page = self->pages->pdata[i];
      if (page->full == NULL || page->full->n_rows == 0)
        continue;
      if (g_str_equal (page->name, "cuda_gpu_kern_sum"))
        {
          first = (gint) i;
          break;
        }
      if (first < 0)
        first = (gint) i;
    }
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), MAX (first, 0));
}

void
sl_stats_panel_set_timeline (SlStatsPanel   *self,
                             SlTimelineView *timeline,
                             GPtrArray      *reports)
{
  g_autoptr (GPtrArray) owned = reports;
  guint i = 0;

  g_return_if_fail (SL_IS_STATS_PANEL (self));

  disconnect_viewport (self);
  clear_pages (self);
  g_clear_pointer (&self->kernel_ids, g_hash_table_unref);
  g_clear_pointer (&self->trace, sl_trace_unref);
  if (self->timeline != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
  self->timeline = timeline;
  self->ranged = FALSE;
  if (timeline == NULL || sl_timeline_view_get_trace (timeline) == NULL)
    {
      self->timeline = NULL;
      for (guint k = 0; owned != NULL && k < owned->len; k++)
        g_clear_pointer (&owned->pdata[k], sl_report_free);
      return;
    }
  g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
  self->trace = sl_trace_ref (sl_timeline_view_get_trace (timeline));
  self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
  self->selection_handler = g_signal_connect (self->viewport, "notify::selection",
                                              G_CALLBACK (viewport_selection_changed_cb), self);
  if (owned == NULL)
    owned = sl_stats_panel_compute_reports (self->trace);

  /* Kernel rows name kernels by demangled name; the timeline highlights by string id. */
  self->kernel_ids = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      guint32 last = SL_NO_STR;

      if (lane->kind != SL_LANE_KERNELS)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          guint32 id = lane->events[e].name;
          if (id == last)
            continue;
          last = id;
          g_hash_table_insert (self->kernel_ids, (gpointer) sl_trace_str (self->trace, id),
                               GUINT_TO_POINTER (id));
        }
    }

  for (const char *const *n = sl_report_names (); *n != NULL; n++, i++)
    {
      SlReport *report = i < owned->len ? g_steal_pointer (&owned->pdata[i]) : NULL;
      add_page (self, *n, report);
    }
  for (; i < owned->len; i++)
    g_clear_pointer (&owned->pdata[i], sl_report_free);
  gtk_widget_set_visible (self->placeholder, FALSE);
  gtk_widget_set_visible (self->notebook, TRUE);
  show_first_with_data (self);
  /* A selection made before the tables existed applies too. */
  viewport_selection_changed_cb (self->viewport, NULL, self);
}

static _SlStatsPage *
current_page (SlStatsPanel *self)
{
  gint n = gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook));

  if (n < 0 || (guint) n >= self->pages->len)
    return NULL;
  return self->pages->pdata[n];
}

const char *
sl_stats_panel_get_report (SlStatsPanel *self)
{
  _SlStatsPage *page;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), NULL);
  page = current_page (self);
  return page != NULL ? page->name : NULL;
}

gboolean
sl_stats_panel_show_report (SlStatsPanel *self,
                            const char   *name)
{
  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);

  for (guint i = 0; i < self->pages->len; i++)
    if (g_strcmp0 (((_SlStatsPage *) self->pages->pdata[i])->name, name) == 0)
      {
        gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), (gint) i);
        return TRUE;
      }
  return FALSE;
}

guint
sl_stats_panel_get_n_rows (SlStatsPanel *self)
{
  _SlStatsPage *page;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), 0);
  page = current_page (self);
  return page != NULL && page->sort != NULL ? g_list_model_get_n_items (G_LIST_MODEL (page->sort))
                                            : 0;
}

char *
sl_stats_panel_get_cell_text (SlStatsPanel *self,
                              guint         row,
                              const char   *column)
{
  _SlStatsPage *page;
  g_autoptr (SlStatsRow) item = NULL;
  gint c;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), NULL);
  page = current_page (self);
  if (page == NULL || page->sort == NULL || (c = _sl_stats_table_find (page->shown, column)) < 0)
    return NULL;
  item = g_list_model_get_item (G_LIST_MODEL (page->sort), row);
  if (item == NULL)
    return NULL;
  return _sl_stats_table_cell_text (_sl_stats_row_get_table (item), _sl_stats_row_get_row (item),
                                    (guint) c);
}

void
sl_stats_panel_select_row (SlStatsPanel *self,
                           guint         row)
{
  _SlStatsPage *page;

  g_return_if_fail (SL_IS_STATS_PANEL (self));
  page = current_page (self);
  if (page != NULL && page->selection != NULL)
    gtk_single_selection_set_selected (page->selection, row);
}

gboolean
sl_stats_panel_go_to_longest (SlStatsPanel *self)
{
  _SlStatsPage *page = NULL;
  guint32 id;
  SlEventRef best = SL_EVENT_REF_NONE;
  SlTime best_dur = -1;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);

  for (guint i = 0; i < self->pages->len; i++)
    if (((_SlStatsPage *) self->pages->pdata[i])->longest != NULL)
      page = self->pages->pdata[i];
  if (page == NULL || self->timeline == NULL)
    return FALSE;
  id = kernel_id_for_row (self, page, _sl_stats_page_selected_row (page));
  if (id == SL_NO_STR)
    return FALSE;
  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      gsize e = self->ranged ? sl_lane_lower_bound (lane, self->r0) : 0;

      if (lane->kind != SL_LANE_KERNELS)
        continue;
      for (; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          if (self->ranged && ev->start >= self->r1)
            break;
          if (ev->name == id && ev->end - ev->start > best_dur)
            {
              best_dur = ev->end - ev->start;
              best = (SlEventRef) { (gint) l, e };
            }
        }
    }
  if (best.lane < 0)
    return FALSE;
  sl_timeline_view_select_event (self->timeline, best, TRUE);
  /* as a click on it: the detail pane and the events table show it too */
  g_signal_emit_by_name (self->timeline, "event-selected", &best);
  return TRUE;
}

gboolean
sl_stats_panel_is_ranged (SlStatsPanel *self)
{
  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);
  return self->ranged;
}
