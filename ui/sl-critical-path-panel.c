/* sl-critical-path-panel.c: the critical path of a range: computed on a thread, summed by kind as
 * a bar, its segments as a list whose rows are made for the screenful shown; Clear. */
#include "sl-critical-path-panel-private.h"

#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"

#define N_CELLS 5   /* start, duration, kind, where, event */
#define ROW_KEY "sl-cp-row"  /* a row's box: its position + 1 */

/* ---- the list's rows: an object per row on screen, never one per segment ------------------ */

#define SL_TYPE_CP_ROW (sl_cp_row_get_type ())
G_DECLARE_FINAL_TYPE (SlCpRow, sl_cp_row, SL, CP_ROW, GObject)

struct _SlCpRow
{
  GObject parent_instance;
  guint   position;
};

G_DEFINE_FINAL_TYPE (SlCpRow, sl_cp_row, G_TYPE_OBJECT)

static void
sl_cp_row_class_init (SlCpRowClass *klass)
{
  (void) klass;
}

static void
sl_cp_row_init (SlCpRow *self)
{
  (void) self;
}

#define SL_TYPE_CP_ROWS (sl_cp_rows_get_type ())
G_DECLARE_FINAL_TYPE (SlCpRows, sl_cp_rows, SL, CP_ROWS, GObject)

struct _SlCpRows
{
  GObject parent_instance;
  guint   n;
};

static GType
sl_cp_rows_get_item_type (GListModel *model)
{
  (void) model;
  return SL_TYPE_CP_ROW;
}

static guint
sl_cp_rows_get_n_items (GListModel *model)
{
  return SL_CP_ROWS (model)->n;
}

static gpointer
sl_cp_rows_get_item (GListModel *model,
                     guint       position)
{
  SlCpRow *row;

  if (position >= SL_CP_ROWS (model)->n)
    return NULL;
  row = g_object_new (SL_TYPE_CP_ROW, NULL);
  row->position = position;
  return row;
}

static void
sl_cp_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = sl_cp_rows_get_item_type;
  iface->get_n_items = sl_cp_rows_get_n_items;
  iface->get_item = sl_cp_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SlCpRows, sl_cp_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      sl_cp_rows_list_model_init))

static void
sl_cp_rows_class_init (SlCpRowsClass *klass)
{
  (void) klass;
}

static void
sl_cp_rows_init (SlCpRows *self)
{
  (void) self;
}

static GListModel *
cp_rows_new (guint n)
{
  SlCpRows *rows = g_object_new (SL_TYPE_CP_ROWS, NULL);

  rows->n = n;
  return G_LIST_MODEL (rows);
}

/* ---- the panel ------------------------------------------------------------------------------ */

struct _SlCriticalPathPanel
{
  GtkWidget       parent_instance;
  GtkWidget      *box;
  GtkWidget      *summary;    /* "Critical path of step 3 [1.2 s, 1.3 s): 81.4 ms, 212 segments" */
  GtkWidget      *spinner;
  GtkWidget      *clear;
  GtkWidget      *bar;        /* GtkDrawingArea: the kinds' shares, end to end */
  GtkWidget      *shares;     /* GtkLabel: the legend of the bar, with times */
  GtkWidget      *list;       /* GtkListView */
  GtkSingleSelection *selection;
  SlTimelineView *timeline;
  SlViewport     *viewport;   /* the timeline's, reffed to disconnect from it */
  gulong          bounds_id;
  SlTrace        *trace;      /* the path's trace */
  SlCriticalPath *path;
  char           *what;
  GCancellable   *cancel;     /* the computation under way, NULL when none */
};

enum
{
  GO_TO_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SlCriticalPathPanel, sl_critical_path_panel, GTK_TYPE_WIDGET)

GtkWidget *
sl_critical_path_panel_new (void)
{
  return g_object_new (SL_TYPE_CRITICAL_PATH_PANEL, NULL);
}

static const SlCpSegment *
segments (SlCriticalPathPanel *self,
          gsize               *n)
{
  *n = 0;
  return self->path != NULL ? sl_critical_path_get_segments (self->path, n) : NULL;
}

/* Where a segment's time passed, as `sightline critical-path` says it: "python3 [1234]",
 * "GPU 0 stream 7". */
static char *
place_text (SlTrace           *trace,
            const SlCpSegment *s)
{
  if (s->gpu >= 0 && (guint) s->gpu < sl_trace_get_n_gpus (trace))
    return g_strdup_printf ("GPU %u stream %u", sl_trace_get_gpu (trace, (guint) s->gpu)->device_id,
                            s->stream_id);
  if (s->thread >= 0 && (guint) s->thread < sl_trace_get_n_threads (trace))
    {
      const SlThread *t = sl_trace_get_thread (trace, (guint) s->thread);
      const char *name = sl_trace_str (trace, t->name);
      return g_strdup_printf ("%s [%u]", *name != '\0' ? name : "thread", t->tid);
    }
  return g_strdup ("—");
}

/* Row i's cells, as shown and as the test reads them. */
static void
row_cells (SlCriticalPathPanel *self,
           guint                i,
           char                *cells[N_CELLS])
{
  gsize n;
  const SlCpSegment *segs = segments (self, &n), *s;

  memset (cells, 0, N_CELLS * sizeof (char *));
  if (i >= n)
    return;
  s = &segs[i];
  cells[0] = sl_format_offset (s->start - sl_critical_path_get_start (self->path));
  cells[1] = sl_format_duration (s->end - s->start);
  cells[2] = g_strdup (sl_cp_kind_name (s->kind));
  cells[3] = place_text (self->trace, s);
  if (s->event.lane >= 0 && (guint) s->event.lane < sl_trace_get_n_lanes (self->trace))
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, (guint) s->event.lane);
      cells[4] = g_strdup (s->event.index < lane->n_events
                           ? sl_trace_display_name (self->trace, lane->kind,
                                                    lane->events[s->event.index].name)
                           : "");
    }
  else
    cells[4] = g_strdup (s->kind == SL_CP_IDLE ? "(nothing traced)" : "");
}

static char *
kind_markup (SlCpKind    kind,
             const char *text)
{
  GdkRGBA c;

  sl_critical_path_kind_color (kind, &c);
  return g_markup_printf_escaped ("<span foreground=\"#%02x%02x%02x\">■</span> %s",
                                  (guint) (c.red * 255 + 0.5), (guint) (c.green * 255 + 0.5),
                                  (guint) (c.blue * 255 + 0.5), text);
}

/* The cells' labels: widths in characters, so that the header lines up with the rows. */
static const int cell_chars[N_CELLS] = { 12, 11, 9, 24, -1 };

static GtkWidget *
cells_box (gboolean header)
{
  static const char *const titles[N_CELLS] = { "From start", "Duration", "Kind", "Where",
                                               "Event" };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);

  for (guint c = 0; c < N_CELLS; c++)
    {
      GtkWidget *l = gtk_label_new (header ? titles[c] : NULL);
      gtk_label_set_xalign (GTK_LABEL (l), c < 2 ? 1 : 0);
      if (cell_chars[c] > 0)
        gtk_label_set_width_chars (GTK_LABEL (l), cell_chars[c]);
      else
        gtk_widget_set_hexpand (l, TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (l), c == N_CELLS - 1 ? PANGO_ELLIPSIZE_MIDDLE
                                                               : PANGO_ELLIPSIZE_END);
      if (c >= 3)
        gtk_label_set_max_width_chars (GTK_LABEL (l), cell_chars[c] > 0 ? cell_chars[c] : 80);
      if (header)
        gtk_widget_add_css_class (l, "dim-label");
      else if (c < 2)
        gtk_widget_add_css_class (l, "numeric");
      gtk_box_append (GTK_BOX (box), l);
    }
  g_object_set (box, "margin-start", 8, "margin-end", 8, NULL);
  return box;
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  data)
{
  (void) factory;
  (void) data;
  gtk_list_item_set_child (item, cells_box (FALSE));
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         SlCriticalPathPanel      *self)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  SlCpRow *row = gtk_list_item_get_item (item);
  char *cells[N_CELLS];
  guint c = 0;
  gsize n;
  const SlCpSegment *segs = segments (self, &n);

  (void) factory;
  row_cells (self, row->position, cells);
  for (GtkWidget *l = gtk_widget_get_first_child (box); l != NULL && c < N_CELLS;
       l = gtk_widget_get_next_sibling (l), c++)
    {
      if (c == 2 && row->position < n)
        {
          g_autofree char *markup = kind_markup (segs[row->position].kind, cells[c]);
          gtk_label_set_markup (GTK_LABEL (l), markup);
        }
      else
        gtk_label_set_text (GTK_LABEL (l), cells[c] != NULL ? cells[c] : "");
      if (c == N_CELLS - 1)
        gtk_widget_set_tooltip_text (l, cells[c]);
      g_free (cells[c]);
    }
  g_object_set_data (G_OBJECT (box), ROW_KEY, GUINT_TO_POINTER (row->position + 1));
}

static void
bar_draw_cb (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        data)
{
  SlCriticalPathPanel *self = data;
  double x = 0;

  (void) area;
  if (self->path == NULL)
    return;
  SlTime span = MAX (sl_critical_path_get_end (self->path)
                     - sl_critical_path_get_start (self->path), 1);
  for (SlCpKind k = 0; k < SL_CP_N_KINDS; k++)
    {
      double w = width * (double) sl_critical_path_get_time (self->path, k) / (double) span;
      GdkRGBA c;
      sl_critical_path_kind_color (k, &c);
      gdk_cairo_set_source_rgba (cr, &c);
      cairo_rectangle (cr, x, 0, w, height);
      cairo_fill (cr);
      x += w;
    }
}

/* The summary, the bar and its legend, the list: for the path shown (none: how to ask). */
static void
show_path (SlCriticalPathPanel *self)
{
  gsize n;
  g_autoptr (GListModel) rows = NULL;

  segments (self, &n);
  rows = cp_rows_new ((guint) MIN (n, G_MAXUINT));
  gtk_single_selection_set_model (self->selection, rows);
  gtk_widget_queue_draw (self->bar);
  gtk_widget_set_visible (self->bar, self->path != NULL);
  gtk_widget_set_visible (self->shares, self->path != NULL);
  gtk_widget_set_sensitive (self->clear, self->path != NULL || self->cancel != NULL);
  if (self->path == NULL)
    {
      if (self->cancel == NULL)
        gtk_label_set_text (GTK_LABEL (self->summary),
                            "No critical path: right-click an NVTX range or a ProfilerStep and "
                            "choose Critical Path of This Range, or select a time range and press "
                            "Ctrl+Shift+P.");
      gtk_label_set_text (GTK_LABEL (self->shares), "");
      return;
    }

  SlTime t0 = sl_critical_path_get_start (self->path), t1 = sl_critical_path_get_end (self->path);
  SlTime origin = sl_trace_get_origin (self->trace);
  g_autofree char *span = sl_format_duration (t1 - t0);
  g_autofree char *from = sl_format_offset (t0 - origin), *to = sl_format_offset (t1 - origin);
  g_autofree char *summary = g_markup_printf_escaped ("Critical path of <b>%s</b> [%s, %s): "
                                                      "<b>%s</b>, %zu segments",
                                                      self->what, from, to, span, n);
  g_autoptr (GString) shares = g_string_new (NULL);

  gtk_label_set_markup (GTK_LABEL (self->summary), summary);
  for (SlCpKind k = 0; k < SL_CP_N_KINDS; k++)
    {
      SlTime t = sl_critical_path_get_time (self->path, k);
      g_autofree char *d = sl_format_duration (t);
      g_autofree char *text = g_strdup_printf ("%s %.1f %% (%s)", sl_cp_kind_name (k),
                                               100.0 * (double) t / (double) MAX (t1 - t0, 1), d);
      g_autofree char *markup = kind_markup (k, text);
      g_string_append_printf (shares, "%s%s", k > 0 ? "    " : "", markup);
    }
  gtk_label_set_markup (GTK_LABEL (self->shares), shares->str);
}

static void
set_path (SlCriticalPathPanel *self,
          SlCriticalPath      *path,
          SlTrace             *trace)
{
  gsize n = 0;
  const SlCpSegment *segs;

  g_clear_pointer (&self->path, sl_critical_path_free);
  g_clear_pointer (&self->trace, sl_trace_unref);
  self->path = path;
  self->trace = path != NULL ? sl_trace_ref (trace) : NULL;
  segs = segments (self, &n);
  if (self->timeline != NULL)
    sl_timeline_view_set_critical_path (self->timeline, segs, n);
  show_path (self);
}

void
sl_critical_path_panel_clear (SlCriticalPathPanel *self)
{
  g_return_if_fail (SL_IS_CRITICAL_PATH_PANEL (self));

  if (self->cancel != NULL)
    g_cancellable_cancel (self->cancel);
  g_clear_object (&self->cancel);
  gtk_spinner_stop (GTK_SPINNER (self->spinner));
  gtk_widget_set_visible (self->spinner, FALSE);
  set_path (self, NULL, NULL);
}

/* ---- computing on a thread ------------------------------------------------------------------ */

typedef struct
{
  SlTrace *trace;
  SlTime   t0, t1;
} Job;

static void
job_free (Job *job)
{
  sl_trace_unref (job->trace);
  g_free (job);
}

static void
compute_thread_cb (GTask        *task,
                   gpointer      source,
                   gpointer      data,
                   GCancellable *cancellable)
{
  Job *job = data;
  GError *error = NULL;
  SlCriticalPath *path;

  (void) source;
  (void) cancellable;
  /* one sweep over the range's events: ~10^6 events a second; not cancellable midway */
  path = sl_critical_path_compute (job->trace, job->t0, job->t1, NULL, NULL, &error);
  if (path == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, path, (GDestroyNotify) sl_critical_path_free);
}

static void
compute_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  SlCriticalPathPanel *self = SL_CRITICAL_PATH_PANEL (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  SlCriticalPath *path = g_task_propagate_pointer (G_TASK (result), &error);

  (void) data;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* another request, a Clear or the panel's end came meanwhile */
  g_clear_object (&self->cancel);
  gtk_spinner_stop (GTK_SPINNER (self->spinner));
  gtk_widget_set_visible (self->spinner, FALSE);
  if (self->timeline == NULL || sl_timeline_view_get_trace (self->timeline) != job->trace)
    {
      g_clear_pointer (&path, sl_critical_path_free);  /* its trace is no longer shown */
      set_path (self, NULL, NULL);
      return;
    }
  if (path == NULL)
    {
      g_autofree char *text = g_strdup_printf ("No critical path of %s: %s", self->what,
                                               error->message);
      set_path (self, NULL, NULL);
      gtk_label_set_text (GTK_LABEL (self->summary), text);
      return;
    }
  set_path (self, path, job->trace);
}

void
sl_critical_path_panel_compute (SlCriticalPathPanel *self,
                                SlTime               t0,
                                SlTime               t1,
                                const char          *what)
{
  SlTrace *trace;
  Job *job;

  g_return_if_fail (SL_IS_CRITICAL_PATH_PANEL (self));

  sl_critical_path_panel_clear (self);
  trace = self->timeline != NULL ? sl_timeline_view_get_trace (self->timeline) : NULL;
  if (trace == NULL)
    return;
  g_free (self->what);
  self->what = g_strdup (what != NULL ? what : "the range");
  job = g_new0 (Job, 1);
  job->trace = sl_trace_ref (trace);
  job->t0 = t0;
  job->t1 = t1;
  self->cancel = g_cancellable_new ();

  g_autofree char *text = g_strdup_printf ("Computing the critical path of %s…", self->what);
  gtk_label_set_text (GTK_LABEL (self->summary), text);
  gtk_widget_set_visible (self->spinner, TRUE);
  gtk_spinner_start (GTK_SPINNER (self->spinner));
  gtk_widget_set_sensitive (self->clear, TRUE);

  g_autoptr (GTask) task = g_task_new (self, self->cancel, compute_done_cb, NULL);
  g_task_set_source_tag (task, sl_critical_path_panel_compute);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, compute_thread_cb);
}

/* ---- following the timeline ------------------------------------------------------------------ */

/* A click on segment i: its event selected and shown (by the window), or its time brought into
 * view when it has none. */
static void
activate_cb (GtkListView         *list,
             guint                position,
             SlCriticalPathPanel *self)
{
  gsize n;
  const SlCpSegment *segs = segments (self, &n);

  (void) list;
  if (position >= n || self->timeline == NULL)
    return;
  if (segs[position].event.lane >= 0)
    g_signal_emit (self, signals[GO_TO_EVENT], 0, segs[position].event.lane,
                   (guint64) segs[position].event.index);
  else
    {
      SlTime d = MAX (segs[position].end - segs[position].start, 1000);
      sl_viewport_set_visible (sl_timeline_view_get_viewport (self->timeline),
                               segs[position].start - d, segs[position].end + d, TRUE);
    }
}

/* A new trace in the timeline (its bounds change with it): the path was of the old one. */
static void
bounds_changed_cb (SlCriticalPathPanel *self)
{
  if (self->timeline != NULL && (self->path != NULL || self->cancel != NULL)
      && sl_timeline_view_get_trace (self->timeline) != self->trace)
    sl_critical_path_panel_clear (self);
}

static void
disconnect_timeline (SlCriticalPathPanel *self)
{
  if (self->viewport != NULL)
    g_clear_signal_handler (&self->bounds_id, self->viewport);
  g_clear_object (&self->viewport);
  if (self->timeline != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
  self->timeline = NULL;
}

void
sl_critical_path_panel_set_timeline (SlCriticalPathPanel *self,
                                     SlTimelineView      *timeline)
{
  g_return_if_fail (SL_IS_CRITICAL_PATH_PANEL (self));

  disconnect_timeline (self);
  self->timeline = timeline;
  if (timeline == NULL)
    return;
  g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
  self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
  self->bounds_id = g_signal_connect_swapped (self->viewport, "notify::bounds",
                                              G_CALLBACK (bounds_changed_cb), self);
}

/* ---- GObject -------------------------------------------------------------------------------- */

static void
sl_critical_path_panel_dispose (GObject *object)
{
  SlCriticalPathPanel *self = SL_CRITICAL_PATH_PANEL (object);

  if (self->cancel != NULL)
    g_cancellable_cancel (self->cancel);
  g_clear_object (&self->cancel);
  disconnect_timeline (self);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->path, sl_critical_path_free);
  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_pointer (&self->what, g_free);
  G_OBJECT_CLASS (sl_critical_path_panel_parent_class)->dispose (object);
}

static void
sl_critical_path_panel_class_init (SlCriticalPathPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sl_critical_path_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "sl-critical-path-panel");
  signals[GO_TO_EVENT] = g_signal_new ("go-to-event", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                       G_TYPE_INT, G_TYPE_UINT64);
}

static void
sl_critical_path_panel_init (SlCriticalPathPanel *self)
{
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *scroll = gtk_scrolled_window_new ();
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  g_autoptr (GListModel) rows = cp_rows_new (0);

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  g_object_set (self->box, "margin-top", 4, "margin-bottom", 4, NULL);

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_wrap (GTK_LABEL (self->summary), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->summary), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (self->summary), TRUE);
  gtk_widget_set_hexpand (self->summary, TRUE);
  self->spinner = gtk_spinner_new ();
  gtk_widget_set_visible (self->spinner, FALSE);
  self->clear = gtk_button_new_with_mnemonic ("C_lear");
  gtk_widget_set_tooltip_text (self->clear, "Remove the critical path from the timeline");
  gtk_widget_set_valign (self->clear, GTK_ALIGN_CENTER);
  g_signal_connect_swapped (self->clear, "clicked", G_CALLBACK (sl_critical_path_panel_clear),
                            self);
  gtk_box_append (GTK_BOX (top), self->spinner);
  gtk_box_append (GTK_BOX (top), self->summary);
  gtk_box_append (GTK_BOX (top), self->clear);
  g_object_set (top, "margin-start", 8, "margin-end", 8, NULL);

  self->bar = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->bar), 10);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->bar), bar_draw_cb, self, NULL);
  g_object_set (self->bar, "margin-start", 8, "margin-end", 8, NULL);
  self->shares = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->shares), 0);
  gtk_label_set_wrap (GTK_LABEL (self->shares), TRUE);
  g_object_set (self->shares, "margin-start", 8, "margin-end", 8, NULL);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), self);
  self->selection = gtk_single_selection_new (g_object_ref (rows));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  self->list = gtk_list_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)), factory);
  g_object_unref (self->selection);  /* the list's reference keeps it */
  gtk_list_view_set_single_click_activate (GTK_LIST_VIEW (self->list), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Critical path segments", -1);
  g_signal_connect (self->list, "activate", G_CALLBACK (activate_cb), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), self->list);
  gtk_widget_set_vexpand (scroll, TRUE);

  gtk_box_append (GTK_BOX (self->box), top);
  gtk_box_append (GTK_BOX (self->box), self->bar);
  gtk_box_append (GTK_BOX (self->box), self->shares);
  gtk_box_append (GTK_BOX (self->box), cells_box (TRUE));
  gtk_box_append (GTK_BOX (self->box), scroll);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  show_path (self);
}

/* ---- test hooks ------------------------------------------------------------------------------ */

gboolean
_sl_critical_path_panel_is_busy (SlCriticalPathPanel *self)
{
  return self->cancel != NULL;
}

SlCriticalPath *
_sl_critical_path_panel_get_path (SlCriticalPathPanel *self)
{
  return self->path;
}

const char *
_sl_critical_path_panel_get_summary (SlCriticalPathPanel *self)
{
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

const char *
_sl_critical_path_panel_get_shares (SlCriticalPathPanel *self)
{
  return gtk_label_get_text (GTK_LABEL (self->shares));
}

guint
_sl_critical_path_panel_get_n_rows (SlCriticalPathPanel *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->selection));
}

char *
_sl_critical_path_panel_dup_row_text (SlCriticalPathPanel *self,
                                      guint                i)
{
  char *cells[N_CELLS + 1];

  row_cells (self, i, cells);
  cells[N_CELLS] = NULL;
  char *text = g_strjoinv ("\t", cells);
  for (guint c = 0; c < N_CELLS; c++)
    g_free (cells[c]);
  return text;
}

static GtkWidget *
find_row (GtkWidget *root,
          guint      i)
{
  if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (root), ROW_KEY)) == i + 1
      && gtk_widget_get_mapped (root))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_row (c, i);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
_sl_critical_path_panel_get_row_widget (SlCriticalPathPanel *self,
                                        guint                i)
{
  if (i >= _sl_critical_path_panel_get_n_rows (self))
    return NULL;
  gtk_widget_activate_action (self->list, "list.scroll-to-item", "u", i);
  return find_row (self->list, i);
}

GtkWidget *
_sl_critical_path_panel_get_clear_button (SlCriticalPathPanel *self)
{
  return self->clear;
}
