/* sl-calltree-panel.c: the CPU samples of the selection as a call tree and a flame graph; or,
 * where the trace has CUDA backtraces (nsys --cudabacktrace), its CUDA API calls by count or time.
 *
 * The tree is the model's (sl_calltree_build): the selected range (the whole trace without one)
 * × the threads picked, built on a thread when the selection settles and only while the panel is
 * on screen (1 M samples take ~0.1 s, a selection's in proportion); the next selection cancels a
 * build under way, and the tree shown stays until the new one arrives.
 */
#include "sl-calltree-panel-private.h"

#include "sl-flame-graph-private.h"
#include "sl-format.h"
#include "sl-timeline-view.h"

#include <string.h>

#define BUILD_DELAY_MS 120   /* a Shift+drag notifies on every motion: build when it settles */

enum
{
  COL_FUNCTION,
  COL_SELF,
  COL_SELF_PCT,
  COL_TOTAL,
  COL_TOTAL_PCT,
  COL_MODULE,
  N_COLS
};

struct _SlCalltreePanel
{
  GtkWidget        parent_instance;

  GtkWidget       *box;
  GtkWidget       *source;       /* GtkDropDown: CPU samples, CUDA API calls by count, by time;
                                  * shown where the trace has CUDA backtraces */
  GtkWidget       *scope;        /* GtkDropDown: all threads, a process's, a thread's */
  GtkWidget       *top_down;     /* GtkToggleButton, grouped with bottom_up */
  GtkWidget       *bottom_up;
  GtkWidget       *stack;        /* "tree" | "flame-graph" */
  GtkWidget       *search;       /* GtkSearchEntry */
  GtkWidget       *reset;        /* Reset Zoom */
  GtkWidget       *summary;
  GtkWidget       *view;         /* GtkColumnView */
  GtkWidget       *flame;        /* SlFlameGraph */

  SlTimelineView  *timeline;     /* weak */
  SlViewport      *viewport;
  gulong           handlers[3];  /* viewport selection, bounds; timeline event-selected */
  SlTrace         *trace;
  GArray          *scope_items;  /* gint per dropdown item: -1 all, t thread, -2 - p process */
  SlCalltree      *tree;
  SlCalltreeOrder  order;
  gboolean         ranged;       /* the tree shown is of [r0, r1) */
  SlTime           r0, r1;
  guint            build_source;
  GCancellable    *build_cancel; /* non-NULL while a build runs */
  gboolean         dirty;        /* the selection changed while the panel was not shown */
  char            *needle;
  GPtrArray       *name_labels;  /* the Function column's labels, to mark matches anew */
};

G_DEFINE_FINAL_TYPE (SlCalltreePanel, sl_calltree_panel, GTK_TYPE_WIDGET)

GtkWidget *
sl_calltree_panel_new (void)
{
  return g_object_new (SL_TYPE_CALLTREE_PANEL, NULL);
}

/* ---- the summary line --------------------------------------------------------------------- */

static gint
scope_item (SlCalltreePanel *self)
{
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->scope));

  if (self->scope_items == NULL || i >= self->scope_items->len)
    return -1;
  return g_array_index (self->scope_items, gint, i);
}

static void
update_summary (SlCalltreePanel *self)
{
  g_autoptr (GString) text = g_string_new (NULL);

  if (self->trace == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->summary), "");
      return;
    }
  if (self->tree != NULL)
    {
      guint64 n = sl_calltree_get_n_samples (self->tree);
      gboolean api = sl_calltree_get_source (self->tree) == SL_CALLTREE_FROM_CUDA_API;
      gboolean ranges = !api && sl_calltree_get_unit (self->tree) == SL_CALLTREE_NANOSECONDS;
      g_autofree char *count = sl_calltree_format_value (self->tree, n, TRUE);
      if (api)
        g_string_append_printf (text, "CUDA API calls with a backtrace: %s", count);
      else if (ranges)
        g_string_append_printf (text, "No CPU samples: nested ranges by time, %s", count);
      else
        g_string_append (text, count);
      if (self->ranged)
        {
          g_autofree char *d = sl_format_duration (self->r1 - self->r0);
          g_string_append_printf (text, " in the selected %s", d);
        }
      else
        g_string_append (text, " in the whole trace");
      if (n == 0 && api)
        g_string_append (text, ": none here, select a wider range or other threads");
      else if (n == 0)
        g_string_append (text, self->ranged ? ": none here, select a wider range or other threads"
                                            : ": this trace has no CPU samples or ranges on these "
                                              "threads");
      guint64 matched = sl_flame_graph_get_matched (SL_FLAME_GRAPH (self->flame));
      if (self->needle != NULL && n > 0)
        {
          g_autofree char *m = sl_calltree_format_value (self->tree, matched, FALSE);
          g_string_append_printf (text, " · “%s”: %s (%.1f%%)", self->needle, m,
                                  100.0 * (double) matched / (double) n);
        }
    }
  if (self->build_cancel != NULL || self->build_source != 0)
    g_string_append (text, text->len > 0 ? " · computing…" : "Computing…");
  gtk_label_set_text (GTK_LABEL (self->summary), text->str);
}

/* ---- building ----------------------------------------------------------------------------- */

typedef struct
{
  SlTrace        *trace;
  SlCalltreeScope scope;
  GArray         *threads;   /* guint, NULL for every thread */
} BuildJob;

static void
build_job_free (BuildJob *job)
{
  sl_trace_unref (job->trace);
  if (job->threads != NULL)
    g_array_unref (job->threads);
  g_free (job);
}

static void
build_thread_cb (GTask        *task,
                 gpointer      source,
                 gpointer      data,
                 GCancellable *cancellable)
{
  BuildJob *job = data;
  GError *error = NULL;

  (void) source;
  SlCalltree *tree = sl_calltree_build (job->trace, &job->scope, cancellable, &error);
  if (tree == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, tree, (GDestroyNotify) sl_calltree_unref);
}

static void
show_tree (SlCalltreePanel *self)
{
  GtkTreeListModel *rows = self->tree != NULL ? _sl_calltree_rows_new (self->tree, self->order)
                                              : NULL;
  GtkSingleSelection *selection = gtk_single_selection_new (G_LIST_MODEL (rows));

  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->view), GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  /* the hottest path open, as far as it holds a tenth of the samples */
  if (rows != NULL && self->tree != NULL)
    {
      guint64 tenth = sl_calltree_get_n_samples (self->tree) / 10;
      for (guint i = 0; i < 64; i++)
        {
          g_autoptr (GtkTreeListRow) row = gtk_tree_list_model_get_row (rows, i);
          if (row == NULL)
            break;
          g_autoptr (_SlCalltreeRow) item = gtk_tree_list_row_get_item (row);
          if (_sl_calltree_row_get_data (item)->total <= tenth)
            break;
          gtk_tree_list_row_set_expanded (row, TRUE);
        }
    }
  sl_flame_graph_set_tree (SL_FLAME_GRAPH (self->flame), self->tree, self->order);
  update_summary (self);
}

static void
build_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  SlCalltreePanel *self = SL_CALLTREE_PANEL (source);
  BuildJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  SlCalltree *tree = g_task_propagate_pointer (G_TASK (result), &error);

  (void) data;
  if (tree == NULL)
    return;  /* cancelled: another selection or trace came meanwhile */
  g_clear_object (&self->build_cancel);
  g_clear_pointer (&self->tree, sl_calltree_unref);
  self->tree = tree;
  self->ranged = job->scope.t0 != G_MININT64;
  self->r0 = job->scope.t0;
  self->r1 = job->scope.t1;
  show_tree (self);
}

/* The threads of the scope picked: NULL for every thread. */
static GArray *
scope_threads (SlCalltreePanel *self)
{
  gint item = scope_item (self);

  if (item == -1)
    return NULL;
  GArray *threads = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint t = 0; t < sl_trace_get_n_threads (self->trace); t++)
    if ((item >= 0 && (guint) item == t)
        || (item <= -2 && sl_trace_get_thread (self->trace, t)->process == (guint) (-2 - item)))
      g_array_append_val (threads, t);
  return threads;
}

static void
build_now (SlCalltreePanel *self)
{
  g_clear_handle_id (&self->build_source, g_source_remove);
  if (self->build_cancel != NULL)
    g_cancellable_cancel (self->build_cancel);
  g_clear_object (&self->build_cancel);
  self->dirty = FALSE;
  if (self->trace == NULL)
    return;

  BuildJob *job = g_new0 (BuildJob, 1);
  job->trace = sl_trace_ref (self->trace);
  sl_calltree_scope_init (&job->scope);
  SlTime t0, t1;
  if (self->viewport != NULL && sl_viewport_get_selection (self->viewport, &t0, &t1) && t1 > t0)
    {
      job->scope.t0 = t0;
      job->scope.t1 = t1;
    }
  /* the source dropdown's items: CPU samples, CUDA API calls by count, by time */
  guint source = gtk_widget_get_visible (self->source)
                 ? gtk_drop_down_get_selected (GTK_DROP_DOWN (self->source)) : 0;
  if (source == 1 || source == 2)
    {
      job->scope.source = SL_CALLTREE_FROM_CUDA_API;
      job->scope.weight = source == 2 ? SL_CALLTREE_BY_TIME : SL_CALLTREE_BY_COUNT;
    }
  job->threads = scope_threads (self);
  if (job->threads != NULL)
    {
      job->scope.threads = (const guint *) job->threads->data;
      job->scope.n_threads = job->threads->len;
    }
  self->build_cancel = g_cancellable_new ();
  g_autoptr (GTask) task = g_task_new (self, self->build_cancel, build_done_cb, NULL);
  g_task_set_source_tag (task, build_now);
  g_task_set_task_data (task, job, (GDestroyNotify) build_job_free);
  g_task_run_in_thread (task, build_thread_cb);
  update_summary (self);
}

static gboolean
build_timeout_cb (gpointer data)
{
  SlCalltreePanel *self = data;

  self->build_source = 0;
  build_now (self);
  return G_SOURCE_REMOVE;
}

/* Builds when the selection settles, or when the panel is next shown. */
static void
schedule_build (SlCalltreePanel *self)
{
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->dirty = TRUE;
      return;
    }
  g_clear_handle_id (&self->build_source, g_source_remove);
  self->build_source = g_timeout_add (BUILD_DELAY_MS, build_timeout_cb, self);
  update_summary (self);
}

/* ---- following the timeline -------------------------------------------------------------- */

/* The dropdown's items: every thread, then each process with samples and its threads. */
static void
fill_scope (SlCalltreePanel *self)
{
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);
  g_autofree gsize *per_thread = NULL;
  guint n_threads = self->trace != NULL ? sl_trace_get_n_threads (self->trace) : 0;

  g_clear_pointer (&self->scope_items, g_array_unref);
  self->scope_items = g_array_new (FALSE, FALSE, sizeof (gint));
  gtk_string_list_append (names, "All threads");
  g_array_append_val (self->scope_items, (gint) { -1 });
  per_thread = g_new0 (gsize, MAX (n_threads, 1));
  for (guint l = 0; self->trace != NULL && l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      /* threads with samples, or with CUDA calls where some have a backtrace */
      gboolean counts = lane->kind == SL_LANE_SAMPLES
                        || (lane->kind == SL_LANE_CUDA_API
                            && sl_trace_get_n_cuda_callchains (self->trace) > 0);
      if (counts && lane->thread >= 0 && (guint) lane->thread < n_threads)
        per_thread[lane->thread] += lane->n_events;
    }
  for (guint p = 0; self->trace != NULL && p < sl_trace_get_n_processes (self->trace); p++)
    {
      const SlProcess *process = sl_trace_get_process (self->trace, p);
      gboolean listed = FALSE;
      for (guint t = 0; t < n_threads; t++)
        {
          const SlThread *thread = sl_trace_get_thread (self->trace, t);
          if (thread->process != p || per_thread[t] == 0)
            continue;
          if (!listed)
            {
              g_autofree char *s = g_strdup_printf ("Process %s (%u)",
                                                    sl_trace_str (self->trace, process->name),
                                                    process->pid);
              gtk_string_list_append (names, s);
              g_array_append_val (self->scope_items, (gint) { -2 - (gint) p });
              listed = TRUE;
            }
          const char *name = sl_trace_str (self->trace, thread->name);
          g_autofree char *s = g_strdup_printf ("    %s (%u)", name != NULL && *name != '\0'
                                                                ? name : "Thread", thread->tid);
          gtk_string_list_append (names, s);
          g_array_append_val (self->scope_items, (gint) { (gint) t });
        }
    }
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->scope), G_LIST_MODEL (names));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->scope), 0);
  gtk_widget_set_visible (self->source, self->trace != NULL
                                        && sl_trace_get_n_cuda_callchains (self->trace) > 0);
}

/* A new trace in the timeline (its bounds change with it): the scope list anew. */
static void
bounds_changed_cb (SlCalltreePanel *self)
{
  SlTrace *trace = self->timeline != NULL ? sl_timeline_view_get_trace (self->timeline) : NULL;
  gint keep = -1;

  if (trace == self->trace)
    return;
  /* a live reload of the same file keeps the threads picked */
  if (trace != NULL && self->trace != NULL
      && g_strcmp0 (sl_trace_get_path (trace), sl_trace_get_path (self->trace)) == 0)
    keep = scope_item (self);
  g_clear_pointer (&self->trace, sl_trace_unref);
  self->trace = trace != NULL ? sl_trace_ref (trace) : NULL;
  g_signal_handlers_block_matched (self->scope, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  fill_scope (self);
  for (guint i = 0; keep != -1 && i < self->scope_items->len; i++)
    if (g_array_index (self->scope_items, gint, i) == keep)
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->scope), i);
  g_signal_handlers_unblock_matched (self->scope, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  if (self->trace == NULL)
    {
      g_clear_pointer (&self->tree, sl_calltree_unref);
      show_tree (self);
      return;
    }
  schedule_build (self);
}

/* An event clicked in a thread's lane picks that thread, when it has samples. */
static void
event_selected_cb (SlCalltreePanel *self)
{
  SlEventRef ref = sl_timeline_view_get_selected_event (self->timeline);

  if (self->trace == NULL || ref.lane < 0 || (guint) ref.lane >= sl_trace_get_n_lanes (self->trace))
    return;
  const SlLane *lane = sl_trace_get_lane (self->trace, (guint) ref.lane);
  if (lane->thread >= 0)
    sl_calltree_panel_set_thread (self, lane->thread);
}

static void
disconnect_timeline (SlCalltreePanel *self)
{
  if (self->viewport != NULL)
    {
      g_clear_signal_handler (&self->handlers[0], self->viewport);
      g_clear_signal_handler (&self->handlers[1], self->viewport);
    }
  if (self->timeline != NULL)
    {
      g_clear_signal_handler (&self->handlers[2], self->timeline);
      g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = NULL;
    }
  g_clear_object (&self->viewport);
  g_clear_handle_id (&self->build_source, g_source_remove);
  if (self->build_cancel != NULL)
    g_cancellable_cancel (self->build_cancel);
  g_clear_object (&self->build_cancel);
}

/* ---- the controls ------------------------------------------------------------------------- */

static void
order_toggled_cb (GtkToggleButton *button,
                  SlCalltreePanel *self)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  sl_calltree_panel_set_order (self, button == GTK_TOGGLE_BUTTON (self->top_down)
                                         ? SL_CALLTREE_TOP_DOWN : SL_CALLTREE_BOTTOM_UP);
}

static void
scope_changed_cb (SlCalltreePanel *self)
{
  if (self->trace == NULL)
    return;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    build_now (self);
  else
    self->dirty = TRUE;
}

static void
search_changed_cb (GtkSearchEntry  *entry,
                   SlCalltreePanel *self)
{
  _sl_calltree_panel_set_search (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
zoom_changed_cb (SlCalltreePanel *self)
{
  gtk_widget_set_sensitive (self->reset,
                            sl_flame_graph_get_zoom (SL_FLAME_GRAPH (self->flame)) != 0);
}

static void
reset_clicked_cb (SlCalltreePanel *self)
{
  sl_flame_graph_set_zoom (SL_FLAME_GRAPH (self->flame), 0);
}

/* A row activated (double-click, Enter): the flame graph, zoomed into it. */
static void
row_activated_cb (GtkColumnView   *view,
                  guint            position,
                  SlCalltreePanel *self)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_autoptr (GtkTreeListRow) row = g_list_model_get_item (model, position);
  if (row == NULL)
    return;
  g_autoptr (_SlCalltreeRow) item = gtk_tree_list_row_get_item (row);
  sl_calltree_panel_set_view (self, "flame-graph");
  sl_flame_graph_set_zoom (SL_FLAME_GRAPH (self->flame), _sl_calltree_row_get_node (item));
}

/* ---- the table's cells -------------------------------------------------------------------- */

#define LABEL_NAME "sl-name"   /* a Function label's name (the trace's string) */

static void
show_name (SlCalltreePanel *self,
           GtkWidget       *label)
{
  const char *name = g_object_get_data (G_OBJECT (label), LABEL_NAME);

  if (name == NULL)
    return;
  if (self->needle != NULL && strcasestr (name, self->needle) != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (name, -1);
      g_autofree char *markup = g_strdup_printf ("<b><span foreground=\"#c000c0\">%s</span></b>",
                                                 escaped);
      gtk_label_set_markup (GTK_LABEL (label), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), name);
}

static void
label_gone_cb (gpointer  data,
               GObject  *where_the_object_was)
{
  SlCalltreePanel *self = data;

  g_ptr_array_remove_fast (self->name_labels, where_the_object_was);
}

static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  data)
{
  guint col = GPOINTER_TO_UINT (data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  if (col == COL_FUNCTION || col == COL_MODULE)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1);
      gtk_widget_add_css_class (label, "numeric");
    }
  if (col == COL_FUNCTION)
    {
      SlCalltreePanel *self = g_object_get_data (G_OBJECT (factory), "sl-panel");
      GtkWidget *expander = gtk_tree_expander_new ();
      gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), label);
      g_ptr_array_add (self->name_labels, label);
      g_object_weak_ref (G_OBJECT (label), label_gone_cb, self);
      gtk_list_item_set_child (item, expander);
    }
  else
    gtk_list_item_set_child (item, label);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  data)
{
  guint col = GPOINTER_TO_UINT (data);
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  GtkWidget *child = gtk_list_item_get_child (item);
  g_autoptr (_SlCalltreeRow) node = gtk_tree_list_row_get_item (row);
  SlCalltree *tree = _sl_calltree_row_get_tree (node);
  const SlCalltreeNode *n = _sl_calltree_row_get_data (node);
  double all = (double) MAX (sl_calltree_get_n_samples (tree), 1);
  g_autofree char *text = NULL;
  GtkWidget *label = child;

  (void) factory;
  switch (col)
    {
    case COL_FUNCTION:
      {
        SlCalltreePanel *self = g_object_get_data (G_OBJECT (factory), "sl-panel");
        const char *name = sl_calltree_symbol_name (tree, n->symbol);
        gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), row);
        label = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
        g_object_set_data (G_OBJECT (label), LABEL_NAME, (gpointer) name);
        show_name (self, label);
        gtk_widget_set_tooltip_text (label, name);
        return;
      }
    case COL_SELF: text = sl_calltree_format_value (tree, n->self, FALSE); break;
    case COL_TOTAL: text = sl_calltree_format_value (tree, n->total, FALSE); break;
    case COL_SELF_PCT: text = g_strdup_printf ("%.1f%%", 100.0 * (double) n->self / all); break;
    case COL_TOTAL_PCT: text = g_strdup_printf ("%.1f%%", 100.0 * (double) n->total / all); break;
    case COL_MODULE:
      text = g_strdup (n->module != SL_NO_STR ? sl_trace_str (sl_calltree_get_trace (tree),
                                                              n->module) : "");
      break;
    default: g_assert_not_reached ();
    }
  gtk_label_set_text (GTK_LABEL (label), text);
}

static GtkWidget *
make_view (SlCalltreePanel *self)
{
  static const char *const titles[N_COLS] = { "Function", "Self", "Self %", "Total", "Total %",
                                              "Module" };
  GtkWidget *view = gtk_column_view_new (NULL);

  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  for (guint c = 0; c < N_COLS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_object_set_data (G_OBJECT (factory), "sl-panel", self);
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), GUINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), GUINT_TO_POINTER (c));
      GtkColumnViewColumn *column = gtk_column_view_column_new (titles[c], factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (c == COL_FUNCTION)
        {
          gtk_column_view_column_set_expand (column, TRUE);
          gtk_column_view_column_set_fixed_width (column, 420);
        }
      else if (c != COL_MODULE)
        gtk_column_view_column_set_fixed_width (column, 80);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (column);
    }
  g_signal_connect (view, "activate", G_CALLBACK (row_activated_cb), self);
  return view;
}

/* ---- GObject ------------------------------------------------------------------------------ */

static void
sl_calltree_panel_map (GtkWidget *widget)
{
  SlCalltreePanel *self = SL_CALLTREE_PANEL (widget);

  GTK_WIDGET_CLASS (sl_calltree_panel_parent_class)->map (widget);
  if (self->dirty || (self->tree == NULL && self->trace != NULL && self->build_cancel == NULL))
    build_now (self);
}

static void
sl_calltree_panel_dispose (GObject *object)
{
  SlCalltreePanel *self = SL_CALLTREE_PANEL (object);

  disconnect_timeline (self);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  for (guint i = 0; self->name_labels != NULL && i < self->name_labels->len; i++)
    g_object_weak_unref (self->name_labels->pdata[i], label_gone_cb, self);
  g_clear_pointer (&self->name_labels, g_ptr_array_unref);
  G_OBJECT_CLASS (sl_calltree_panel_parent_class)->dispose (object);
}

static void
sl_calltree_panel_finalize (GObject *object)
{
  SlCalltreePanel *self = SL_CALLTREE_PANEL (object);

  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_pointer (&self->tree, sl_calltree_unref);
  g_clear_pointer (&self->scope_items, g_array_unref);
  g_free (self->needle);
  G_OBJECT_CLASS (sl_calltree_panel_parent_class)->finalize (object);
}

static void
sl_calltree_panel_class_init (SlCalltreePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_calltree_panel_dispose;
  object_class->finalize = sl_calltree_panel_finalize;
  widget_class->map = sl_calltree_panel_map;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
sl_calltree_panel_init (SlCalltreePanel *self)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scrolled;

  self->name_labels = g_ptr_array_new ();

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 4);
  gtk_widget_set_margin_bottom (bar, 4);
  gtk_box_append (GTK_BOX (self->box), bar);

  static const char *const sources[] = { "CPU Samples", "CUDA API Calls", "CUDA API Time", NULL };
  self->source = gtk_drop_down_new_from_strings (sources);
  gtk_widget_set_tooltip_text (self->source, "What the stacks are: CPU samples, or the CUDA API "
                                             "calls with a backtrace (nsys --cudabacktrace), "
                                             "each under its name, counted or by time");
  gtk_widget_set_visible (self->source, FALSE);
  g_signal_connect_swapped (self->source, "notify::selected", G_CALLBACK (scope_changed_cb),
                            self);
  gtk_box_append (GTK_BOX (bar), self->source);

  self->scope = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->scope, "Whose samples: every thread, a process's or a "
                                            "thread's (a click on a thread's event picks it)");
  fill_scope (self);
  g_signal_connect_swapped (self->scope, "notify::selected", G_CALLBACK (scope_changed_cb), self);
  gtk_box_append (GTK_BOX (bar), self->scope);

  GtkWidget *orders = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (orders, "linked");
  self->top_down = gtk_toggle_button_new_with_label ("Top Down");
  self->bottom_up = gtk_toggle_button_new_with_label ("Bottom Up");
  gtk_widget_set_tooltip_text (self->top_down,
                               "From the outermost caller to the functions it calls");
  gtk_widget_set_tooltip_text (self->bottom_up, "From the functions the samples were taken in to "
                                                "their callers");
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (self->bottom_up),
                               GTK_TOGGLE_BUTTON (self->top_down));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->top_down), TRUE);
  g_signal_connect (self->top_down, "toggled", G_CALLBACK (order_toggled_cb), self);
  g_signal_connect (self->bottom_up, "toggled", G_CALLBACK (order_toggled_cb), self);
  gtk_box_append (GTK_BOX (orders), self->top_down);
  gtk_box_append (GTK_BOX (orders), self->bottom_up);
  gtk_box_append (GTK_BOX (bar), orders);

  self->stack = gtk_stack_new ();
  GtkWidget *switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->stack));
  gtk_box_append (GTK_BOX (bar), switcher);

  self->search = gtk_search_entry_new ();
  gtk_widget_set_tooltip_text (self->search, "Mark the functions whose name holds this");
  g_object_set (self->search, "placeholder-text", "Find function", NULL);
  g_signal_connect (self->search, "search-changed", G_CALLBACK (search_changed_cb), self);
  gtk_box_append (GTK_BOX (bar), self->search);

  self->reset = gtk_button_new_with_mnemonic ("_Reset Zoom");
  gtk_widget_set_sensitive (self->reset, FALSE);
  g_signal_connect_swapped (self->reset, "clicked", G_CALLBACK (reset_clicked_cb), self);
  gtk_box_append (GTK_BOX (bar), self->reset);

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_box_append (GTK_BOX (bar), self->summary);

  self->view = make_view (self);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->view);
  gtk_stack_add_titled (GTK_STACK (self->stack), scrolled, "tree", "Tree");

  self->flame = sl_flame_graph_new ();
  g_signal_connect_swapped (self->flame, "notify::zoom", G_CALLBACK (zoom_changed_cb), self);
  g_signal_connect_swapped (self->flame, "notify::matched", G_CALLBACK (update_summary), self);
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->flame);
  gtk_stack_add_titled (GTK_STACK (self->stack), scrolled, "flame-graph", "Flame Graph");
  gtk_widget_set_vexpand (self->stack, TRUE);
  gtk_box_append (GTK_BOX (self->box), self->stack);
}

/* ---- public API --------------------------------------------------------------------------- */

void
sl_calltree_panel_set_timeline (SlCalltreePanel *self,
                                SlTimelineView  *timeline)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));
  g_return_if_fail (timeline == NULL || SL_IS_TIMELINE_VIEW (timeline));

  disconnect_timeline (self);
  if (timeline != NULL)
    {
      self->timeline = timeline;
      g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
      self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
      self->handlers[0] = g_signal_connect_swapped (self->viewport, "notify::selection",
                                                    G_CALLBACK (schedule_build), self);
      self->handlers[1] = g_signal_connect_swapped (self->viewport, "notify::bounds",
                                                    G_CALLBACK (bounds_changed_cb), self);
      self->handlers[2] = g_signal_connect_swapped (timeline, "event-selected",
                                                    G_CALLBACK (event_selected_cb), self);
    }
  bounds_changed_cb (self);
}

void
sl_calltree_panel_set_order (SlCalltreePanel *self,
                             SlCalltreeOrder  order)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));
  g_return_if_fail (order < SL_CALLTREE_N_ORDERS);

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (order == SL_CALLTREE_TOP_DOWN
                                                       ? self->top_down : self->bottom_up), TRUE);
  if (order == self->order)
    return;
  self->order = order;
  show_tree (self);
}

void
sl_calltree_panel_set_view (SlCalltreePanel *self,
                            const char      *view)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));
  g_return_if_fail (g_strcmp0 (view, "tree") == 0 || g_strcmp0 (view, "flame-graph") == 0);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), view);
}

void
sl_calltree_panel_set_thread (SlCalltreePanel *self,
                              gint             thread)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));

  for (guint i = 0; self->scope_items != NULL && i < self->scope_items->len; i++)
    if (g_array_index (self->scope_items, gint, i) == MAX (thread, -1))
      {
        gtk_drop_down_set_selected (GTK_DROP_DOWN (self->scope), i);
        return;
      }
}

/* ---- for tests (sl-calltree-panel-private.h) ---------------------------------------------- */

SlCalltree *
_sl_calltree_panel_get_tree (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), NULL);
  return self->tree;
}

gboolean
_sl_calltree_panel_is_busy (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), FALSE);
  return self->build_cancel != NULL || self->build_source != 0 || self->dirty;
}

GtkWidget *
_sl_calltree_panel_get_flame_graph (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), NULL);
  return self->flame;
}

void
_sl_calltree_panel_set_search (SlCalltreePanel *self,
                               const char      *text)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));

  if (text != NULL && *text == '\0')
    text = NULL;
  if (g_strcmp0 (text != NULL ? text : "", gtk_editable_get_text (GTK_EDITABLE (self->search)))
      != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->search), text != NULL ? text : "");
  if (g_strcmp0 (text, self->needle) == 0)
    return;
  g_free (self->needle);
  self->needle = g_strdup (text);
  sl_flame_graph_set_search (SL_FLAME_GRAPH (self->flame), text);
  for (guint i = 0; i < self->name_labels->len; i++)
    show_name (self, self->name_labels->pdata[i]);
  update_summary (self);
}

void
_sl_calltree_panel_set_source (SlCalltreePanel  *self,
                               SlCalltreeSource  source,
                               SlCalltreeWeight  weight)
{
  g_return_if_fail (SL_IS_CALLTREE_PANEL (self));
  guint item = source != SL_CALLTREE_FROM_CUDA_API ? 0 : weight == SL_CALLTREE_BY_TIME ? 2 : 1;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->source), item);
}

gboolean
_sl_calltree_panel_has_sources (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), FALSE);
  return gtk_widget_get_visible (self->source);
}

const char *
_sl_calltree_panel_get_summary (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

guint
_sl_calltree_panel_get_n_rows (SlCalltreePanel *self)
{
  g_return_val_if_fail (SL_IS_CALLTREE_PANEL (self), 0);
  GtkSelectionModel *model = gtk_column_view_get_model (GTK_COLUMN_VIEW (self->view));
  return model != NULL ? g_list_model_get_n_items (G_LIST_MODEL (model)) : 0;
}
