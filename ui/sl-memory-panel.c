/* sl-memory-panel.c: the Memory tab: for one GPU, the allocations live at its peak or at the
 * cursor, those never freed, or all of them largest first (sl-memory-panel.h).  The rows are
 * allocation indices (sl-memory-rows.c), listed anew when the GPU, the view, the instant or the
 * trace changes and the tab is on screen: a live set is one pass over the allocations by start
 * (10^6: ~20 ms) and a sort of what is live; "Largest" sorts them all (10^6: ~0.15 s). */
#include "sl-memory-panel-private.h"

#include <stdlib.h>
#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-memory.h"
#include "sl-timeline-view.h"
#include "sl-viewport.h"

typedef enum
{
  COL_SIZE,
  COL_KIND,
  COL_ADDRESS,
  COL_NAME,
  COL_ALLOCATED,
  COL_FREED,
  COL_LIFETIME,
  COL_CALL,
  N_COLS
} Column;

struct _SlMemoryPanel
{
  GtkWidget       parent_instance;

  GtkWidget      *stack;         /* "memory", or "none" (a trace without memory usage) */
  GtkWidget      *none;
  GtkWidget      *gpu;           /* GtkDropDown: the GPUs with memory usage */
  GtkWidget      *views[SL_MEMORY_N_VIEWS];
  GtkWidget      *at_peak;
  GtkWidget      *at_cursor;
  GtkWidget      *summary;
  GtkWidget      *view;          /* GtkColumnView */
  SlMemoryRows   *rows;

  SlTimelineView *timeline;      /* weak */
  SlViewport     *viewport;
  gulong          handlers[2];   /* viewport selection, bounds */
  SlTrace        *trace;
  GArray         *gpu_series;    /* gint per dropdown item: its GPU's series */
  SlMemoryView    mode;
  gboolean        cursor;        /* live at the cursor, not at the peak */
  SlTime          instant;
  char           *summary_text;
  gboolean        dirty;         /* to list anew when next on screen */
};

G_DEFINE_FINAL_TYPE (SlMemoryPanel, sl_memory_panel, GTK_TYPE_WIDGET)

enum
{
  GO_TO_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- the rows ----------------------------------------------------------------------------- */

/* Largest first, then oldest (by index), as sl_memory_live_at lists them. */
typedef struct
{
  guint64 bytes;
  guint32 index;
} Item;

static gint
item_order (gconstpointer a,
            gconstpointer b)
{
  const Item *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* The allocations of series `s` with an allocation row, those never freed only when `never`,
 * largest first. */
static GArray *
collect (SlTrace           *trace,
         const SlMemSeries *s,
         gboolean           never)
{
  guint n = sl_memory_get_n_allocs (trace);
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (Item));
  GArray *out;

  for (guint i = 0; i < n; i++)
    {
      const SlMemAlloc *a = sl_memory_get_alloc (trace, i);
      if (a->alloc == SL_NO_LINK || (never && a->free != SL_NO_LINK)
          || !sl_mem_series_holds (s, a))
        continue;
      Item item = { a->bytes, i };
      g_array_append_val (items, item);
    }
  if (items->len > 1)
    qsort (items->data, items->len, sizeof (Item), item_order);
  out = g_array_sized_new (FALSE, FALSE, sizeof (guint32), items->len);
  for (guint k = 0; k < items->len; k++)
    g_array_append_val (out, g_array_index (items, Item, k).index);
  return out;
}

/* The end of the timeline's selected range: the cursor.  FALSE without a selection. */
static gboolean
cursor_time (SlMemoryPanel *self,
             SlTime        *t)
{
  SlTime t0, t1;

  if (self->viewport == NULL || !sl_viewport_get_selection (self->viewport, &t0, &t1))
    return FALSE;
  *t = t1;
  return TRUE;
}

static void
set_summary (SlMemoryPanel *self,
             char          *text)
{
  g_free (self->summary_text);
  self->summary_text = text;
  gtk_label_set_text (GTK_LABEL (self->summary), text);
}

static void
list_rows (SlMemoryPanel *self)
{
  guint item = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->gpu));
  SlTime cursor = 0;

  self->dirty = FALSE;
  if (self->trace == NULL || self->gpu_series == NULL || item >= self->gpu_series->len)
    {
      _sl_memory_rows_set (self->rows, NULL);
      set_summary (self, g_strdup (""));
      return;
    }
  guint series = (guint) g_array_index (self->gpu_series, gint, item);
  const SlMemSeries *s = sl_memory_get_series (self->trace, series);
  guint32 device = sl_trace_get_gpu (self->trace, (guint) s->gpu)->device_id;
  GArray *allocs = NULL;
  char *text = NULL;

  switch (self->mode)
    {
    case SL_MEMORY_VIEW_LIVE:
      {
        gboolean at_cursor = self->cursor && cursor_time (self, &cursor);
        self->instant = at_cursor ? cursor : s->peak_time;
        allocs = g_array_new (FALSE, FALSE, sizeof (guint32));
        guint n = sl_memory_live_at (self->trace, series, self->instant, allocs);
        g_autofree char *bytes = sl_format_bytes ((guint64) MAX (
          sl_mem_series_bytes_at (s, self->instant), 0));
        g_autofree char *when = sl_format_offset (self->instant
                                                  - sl_trace_get_origin (self->trace));
        text = g_strdup_printf ("GPU %u: %s in use at %s (%s) in %u allocation%s", device, bytes,
                                when, at_cursor ? "the end of the selection" : "its peak", n,
                                n == 1 ? "" : "s");
        break;
      }
    case SL_MEMORY_VIEW_NEVER_FREED:
    case SL_MEMORY_VIEW_LARGEST:
      {
        gboolean never = self->mode == SL_MEMORY_VIEW_NEVER_FREED;
        guint64 sum = 0;
        allocs = collect (self->trace, s, never);
        for (guint k = 0; k < allocs->len; k++)
          sum += sl_memory_get_alloc (self->trace, g_array_index (allocs, guint32, k))->bytes;
        g_autofree char *bytes = sl_format_bytes (sum);
        text = g_strdup_printf (never ? "GPU %u: %u allocation%s never freed within the trace, "
                                        "%s, the largest first"
                                      : "GPU %u: %u allocation%s, %s in all, the largest first",
                                device, allocs->len, allocs->len == 1 ? "" : "s", bytes);
        break;
      }
    default:
      g_assert_not_reached ();
    }
  _sl_memory_rows_set (self->rows, allocs);
  set_summary (self, text);
}

/* Lists anew now when on screen, else when next shown. */
static void
refresh (SlMemoryPanel *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    list_rows (self);
  else
    self->dirty = TRUE;
}

/* ---- the table ---------------------------------------------------------------------------- */

static char *
cell_text (SlMemoryPanel    *self,
           const SlMemAlloc *a,
           Column            column)
{
  SlTime origin = sl_trace_get_origin (self->trace);

  switch (column)
    {
    case COL_SIZE: return sl_format_bytes (a->bytes);
    case COL_KIND: return g_strdup (sl_mem_kind_label (self->trace, a->mem_kind));
    case COL_ADDRESS: return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", a->address);
    case COL_NAME: return g_strdup (sl_memory_alloc_name (self->trace, a));
    case COL_ALLOCATED:
      /* times within ±2^61 (a damaged file): their differences fit */
      return a->alloc != SL_NO_LINK ? sl_format_offset (a->start - origin)
                                    : g_strdup ("before the trace");
    case COL_FREED:
      return a->free != SL_NO_LINK ? sl_format_offset (a->end - origin) : g_strdup ("never");
    case COL_LIFETIME:
      if (a->alloc == SL_NO_LINK || a->free == SL_NO_LINK)
        return g_strdup ("—");
      return sl_format_duration (a->end - a->start);
    case COL_CALL: return g_strdup (sl_memory_row_call_name (self->trace, a->alloc));
    case N_COLS:
    default: g_assert_not_reached ();
    }
}

static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  column)
{
  GtkWidget *label = gtk_label_new (NULL);
  Column c = GPOINTER_TO_UINT (column);

  (void) factory;
  gtk_label_set_xalign (GTK_LABEL (label), c == COL_SIZE || c == COL_LIFETIME ? 1.0f : 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (c == COL_ADDRESS)
    gtk_widget_add_css_class (label, "monospace");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  column)
{
  SlMemoryPanel *self = g_object_get_data (G_OBJECT (factory), "sl-panel");
  SlMemoryRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  guint32 index = _sl_memory_row_get_alloc (row);

  if (self->trace == NULL || index >= sl_memory_get_n_allocs (self->trace))
    {
      gtk_label_set_text (GTK_LABEL (label), "");
      return;
    }
  g_autofree char *text = cell_text (self, sl_memory_get_alloc (self->trace, index),
                                     GPOINTER_TO_UINT (column));
  /* a size reads "762.94 MiB" in its cell (the column stays narrow), its bytes in the tooltip */
  char *paren = GPOINTER_TO_UINT (column) == COL_SIZE ? strstr (text, " (") : NULL;
  gtk_widget_set_tooltip_text (label, GPOINTER_TO_UINT (column) == COL_NAME || paren != NULL
                                        ? text : NULL);
  if (paren != NULL)
    *paren = '\0';
  gtk_label_set_text (GTK_LABEL (label), text);
}

/* A row activated: the CUDA call that made the allocation (or, allocated before the trace,
 * the one that freed it), in the timeline. */
static void
row_activated_cb (GtkColumnView *view,
                  guint          position,
                  SlMemoryPanel *self)
{
  g_autoptr (SlMemoryRow) row = g_list_model_get_item (G_LIST_MODEL (self->rows), position);
  const SlLane *lane;
  gsize index;

  (void) view;
  if (row == NULL || self->trace == NULL)
    return;
  guint32 k = _sl_memory_row_get_alloc (row);
  if (k >= sl_memory_get_n_allocs (self->trace))
    return;
  const SlMemAlloc *a = sl_memory_get_alloc (self->trace, k);
  guint32 call = sl_memory_get_row_call (self->trace, a->alloc != SL_NO_LINK ? a->alloc : a->free);
  if (call != SL_NO_LINK && sl_trace_resolve (self->trace, call, &lane, &index))
    g_signal_emit (self, signals[GO_TO_EVENT], 0, (gint) lane->index, (guint64) index);
}

static GtkWidget *
make_view (SlMemoryPanel *self)
{
  static const char *const titles[N_COLS] = { "Size", "Kind", "Address", "Name", "Allocated",
                                              "Freed", "Lifetime", "Call" };
  static const int widths[N_COLS] = { 110, 110, 130, 160, 100, 100, 90, 140 };
  GtkNoSelection *selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->rows)));
  GtkWidget *view = gtk_column_view_new (GTK_SELECTION_MODEL (selection));

  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_column_view_set_single_click_activate (GTK_COLUMN_VIEW (view), FALSE);
  for (guint c = 0; c < N_COLS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_object_set_data (G_OBJECT (factory), "sl-panel", self);
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), GUINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), GUINT_TO_POINTER (c));
      GtkColumnViewColumn *column = gtk_column_view_column_new (titles[c], factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_fixed_width (column, widths[c]);
      gtk_column_view_column_set_expand (column, c == COL_NAME || c == COL_CALL);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (column);
    }
  g_signal_connect (view, "activate", G_CALLBACK (row_activated_cb), self);
  return view;
}

/* ---- following the timeline --------------------------------------------------------------- */

/* The tab's label, greyed when the trace has no memory usage. */
static void
set_tab_sensitive (SlMemoryPanel *self,
                   gboolean       sensitive)
{
  GtkWidget *notebook = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_NOTEBOOK);
  GtkWidget *tab = notebook != NULL ? gtk_notebook_get_tab_label (GTK_NOTEBOOK (notebook),
                                                                  GTK_WIDGET (self))
                                    : NULL;
  if (tab != NULL)
    gtk_widget_set_sensitive (tab, sensitive);
}

/* The selection made or cleared: "At cursor" with one, "At peak" without. */
static void
selection_changed_cb (SlMemoryPanel *self)
{
  SlTime t;
  gboolean has = cursor_time (self, &t);

  gtk_widget_set_sensitive (self->at_cursor, has);
  if (has != self->cursor)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (has ? self->at_cursor : self->at_peak),
                                  TRUE);   /* its handler lists anew */
  else if (has && self->mode == SL_MEMORY_VIEW_LIVE)
    refresh (self);
}

/* A new trace in the timeline (its bounds change with it): its GPUs anew. */
static void
bounds_changed_cb (SlMemoryPanel *self)
{
  SlTrace *trace = self->timeline != NULL ? sl_timeline_view_get_trace (self->timeline) : NULL;
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);

  if (trace == self->trace)
    return;
  g_clear_pointer (&self->trace, sl_trace_unref);
  self->trace = trace != NULL ? sl_trace_ref (trace) : NULL;
  g_array_set_size (self->gpu_series, 0);
  for (guint i = 0; self->trace != NULL && i < sl_memory_get_n_series (self->trace); i++)
    {
      const SlMemSeries *s = sl_memory_get_series (self->trace, i);
      if (s->kind != SL_MEM_SERIES_GPU)
        continue;
      const SlGpu *gpu = sl_trace_get_gpu (self->trace, (guint) s->gpu);
      g_autofree char *name = g_strdup_printf ("GPU %u · %s", gpu->device_id,
                                               sl_trace_str (self->trace, gpu->name));
      gint series = (gint) i;
      g_array_append_val (self->gpu_series, series);
      gtk_string_list_append (names, name);
    }
  g_signal_handlers_block_matched (self->gpu, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->gpu), G_LIST_MODEL (names));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->gpu), 0);
  g_signal_handlers_unblock_matched (self->gpu, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);

  gboolean has = self->trace != NULL && sl_trace_get_n_mem_usage (self->trace) > 0;
  gtk_label_set_text (GTK_LABEL (self->none),
                      self->trace == NULL
                        ? ""
                        : "This trace has no GPU memory usage (CUDA_GPU_MEMORY_USAGE_EVENTS).\n"
                          "Record it with sightline record --cuda-memory-usage (nsys profile "
                          "--cuda-memory-usage=true).");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), has ? "memory" : "none");
  set_tab_sensitive (self, has);
  selection_changed_cb (self);
  refresh (self);
}

static void
disconnect_timeline (SlMemoryPanel *self)
{
  if (self->viewport != NULL)
    {
      g_clear_signal_handler (&self->handlers[0], self->viewport);
      g_clear_signal_handler (&self->handlers[1], self->viewport);
    }
  if (self->timeline != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = NULL;
    }
  g_clear_object (&self->viewport);
}

/* ---- the controls ------------------------------------------------------------------------- */

static void
view_toggled_cb (GtkToggleButton *button,
                 SlMemoryPanel   *self)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  for (guint v = 0; v < SL_MEMORY_N_VIEWS; v++)
    if (self->views[v] == GTK_WIDGET (button))
      self->mode = (SlMemoryView) v;
  gtk_widget_set_sensitive (self->at_peak, self->mode == SL_MEMORY_VIEW_LIVE);
  gtk_widget_set_visible (self->at_peak, self->mode == SL_MEMORY_VIEW_LIVE);
  gtk_widget_set_visible (self->at_cursor, self->mode == SL_MEMORY_VIEW_LIVE);
  refresh (self);
}

static void
instant_toggled_cb (GtkToggleButton *button,
                    SlMemoryPanel   *self)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  self->cursor = GTK_WIDGET (button) == self->at_cursor;
  if (self->mode == SL_MEMORY_VIEW_LIVE)
    refresh (self);
}

static GtkWidget *
toggle_group (GtkWidget   *bar,
              const char  *label,
              const char  *tooltip,
              GtkWidget   *group)
{
  GtkWidget *button = gtk_toggle_button_new_with_label (label);

  gtk_widget_set_tooltip_text (button, tooltip);
  if (group != NULL)
    gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), GTK_TOGGLE_BUTTON (group));
  gtk_box_append (GTK_BOX (bar), button);
  return button;
}

/* ---- GObject ------------------------------------------------------------------------------ */

static void
sl_memory_panel_map (GtkWidget *widget)
{
  SlMemoryPanel *self = SL_MEMORY_PANEL (widget);

  GTK_WIDGET_CLASS (sl_memory_panel_parent_class)->map (widget);
  if (self->dirty)
    list_rows (self);
}

static void
sl_memory_panel_dispose (GObject *object)
{
  SlMemoryPanel *self = SL_MEMORY_PANEL (object);

  disconnect_timeline (self);
  g_clear_pointer (&self->stack, gtk_widget_unparent);
  G_OBJECT_CLASS (sl_memory_panel_parent_class)->dispose (object);
}

static void
sl_memory_panel_finalize (GObject *object)
{
  SlMemoryPanel *self = SL_MEMORY_PANEL (object);

  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_pointer (&self->gpu_series, g_array_unref);
  g_clear_object (&self->rows);
  g_free (self->summary_text);
  G_OBJECT_CLASS (sl_memory_panel_parent_class)->finalize (object);
}

static void
sl_memory_panel_class_init (SlMemoryPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_memory_panel_dispose;
  object_class->finalize = sl_memory_panel_finalize;
  widget_class->map = sl_memory_panel_map;
  signals[GO_TO_EVENT] = g_signal_new ("go-to-event", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                       G_TYPE_INT, G_TYPE_UINT64);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
sl_memory_panel_init (SlMemoryPanel *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *views = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *instants = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->gpu_series = g_array_new (FALSE, FALSE, sizeof (gint));
  self->rows = _sl_memory_rows_new ();
  self->mode = SL_MEMORY_VIEW_LIVE;

  self->stack = gtk_stack_new ();
  gtk_widget_set_parent (self->stack, GTK_WIDGET (self));
  gtk_stack_add_named (GTK_STACK (self->stack), box, "memory");
  self->none = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->none), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->none), TRUE);
  gtk_label_set_justify (GTK_LABEL (self->none), GTK_JUSTIFY_CENTER);
  gtk_widget_add_css_class (self->none, "dim-label");
  gtk_stack_add_named (GTK_STACK (self->stack), self->none, "none");

  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 4);
  gtk_widget_set_margin_bottom (bar, 4);
  gtk_box_append (GTK_BOX (box), bar);

  self->gpu = gtk_drop_down_new (NULL, NULL);
  gtk_widget_set_tooltip_text (self->gpu, "Whose memory: a GPU's device, array and static "
                                          "allocations, every process");
  g_signal_connect_swapped (self->gpu, "notify::selected", G_CALLBACK (refresh), self);
  gtk_box_append (GTK_BOX (bar), self->gpu);

  gtk_widget_add_css_class (views, "linked");
  self->views[SL_MEMORY_VIEW_LIVE]
    = toggle_group (views, "Live", "The allocations live at an instant", NULL);
  self->views[SL_MEMORY_VIEW_NEVER_FREED]
    = toggle_group (views, "Never Freed", "The allocations not freed within the trace",
                    self->views[SL_MEMORY_VIEW_LIVE]);
  self->views[SL_MEMORY_VIEW_LARGEST]
    = toggle_group (views, "Largest", "Every allocation, the largest first",
                    self->views[SL_MEMORY_VIEW_LIVE]);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->views[SL_MEMORY_VIEW_LIVE]), TRUE);
  for (guint v = 0; v < SL_MEMORY_N_VIEWS; v++)
    g_signal_connect (self->views[v], "toggled", G_CALLBACK (view_toggled_cb), self);
  gtk_box_append (GTK_BOX (bar), views);

  gtk_widget_add_css_class (instants, "linked");
  self->at_peak = toggle_group (instants, "At Peak", "Live when the GPU's memory in use peaked",
                                NULL);
  self->at_cursor = toggle_group (instants, "At Cursor",
                                  "Live at the end of the timeline's selected range "
                                  "(Shift+drag; chosen when a range is selected)",
                                  self->at_peak);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->at_peak), TRUE);
  gtk_widget_set_sensitive (self->at_cursor, FALSE);
  g_signal_connect (self->at_peak, "toggled", G_CALLBACK (instant_toggled_cb), self);
  g_signal_connect (self->at_cursor, "toggled", G_CALLBACK (instant_toggled_cb), self);
  gtk_box_append (GTK_BOX (bar), instants);

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_box_append (GTK_BOX (bar), self->summary);

  self->view = make_view (self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), self->view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "none");
}

/* ---- public API --------------------------------------------------------------------------- */

GtkWidget *
sl_memory_panel_new (void)
{
  return g_object_new (SL_TYPE_MEMORY_PANEL, NULL);
}

void
sl_memory_panel_set_timeline (SlMemoryPanel  *self,
                              SlTimelineView *timeline)
{
  g_return_if_fail (SL_IS_MEMORY_PANEL (self));
  g_return_if_fail (timeline == NULL || SL_IS_TIMELINE_VIEW (timeline));

  disconnect_timeline (self);
  if (timeline != NULL)
    {
      self->timeline = timeline;
      g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
      self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
      self->handlers[0] = g_signal_connect_swapped (self->viewport, "notify::selection",
                                                    G_CALLBACK (selection_changed_cb), self);
      self->handlers[1] = g_signal_connect_swapped (self->viewport, "notify::bounds",
                                                    G_CALLBACK (bounds_changed_cb), self);
    }
  g_clear_pointer (&self->trace, sl_trace_unref);
  g_array_set_size (self->gpu_series, 0);
  bounds_changed_cb (self);
}

void
sl_memory_panel_set_view (SlMemoryPanel *self,
                          SlMemoryView   view)
{
  g_return_if_fail (SL_IS_MEMORY_PANEL (self));
  g_return_if_fail (view < SL_MEMORY_N_VIEWS);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->views[view]), TRUE);
}

void
sl_memory_panel_set_at_cursor (SlMemoryPanel *self,
                               gboolean       at_cursor)
{
  g_return_if_fail (SL_IS_MEMORY_PANEL (self));
  if (at_cursor && !gtk_widget_get_sensitive (self->at_cursor))
    return;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (at_cursor ? self->at_cursor : self->at_peak),
                                TRUE);
}

/* ---- for tests ---------------------------------------------------------------------------- */

guint
sl_memory_panel_get_n_rows (SlMemoryPanel *self)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (self->rows));
}

guint32
sl_memory_panel_get_row_alloc (SlMemoryPanel *self,
                               guint          row)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), SL_NO_LINK);
  g_autoptr (SlMemoryRow) item = g_list_model_get_item (G_LIST_MODEL (self->rows), row);
  return item != NULL ? _sl_memory_row_get_alloc (item) : SL_NO_LINK;
}

gboolean
sl_memory_panel_get_at_cursor (SlMemoryPanel *self)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), FALSE);
  return self->cursor;
}

gint
sl_memory_panel_get_series (SlMemoryPanel *self)
{
  guint item;

  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), -1);
  item = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->gpu));
  return item < self->gpu_series->len ? g_array_index (self->gpu_series, gint, item) : -1;
}

SlTime
sl_memory_panel_get_instant (SlMemoryPanel *self)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), 0);
  return self->instant;
}

const char *
sl_memory_panel_get_summary (SlMemoryPanel *self)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), "");
  return self->summary_text != NULL ? self->summary_text : "";
}

GtkWidget *
sl_memory_panel_get_view (SlMemoryPanel *self)
{
  g_return_val_if_fail (SL_IS_MEMORY_PANEL (self), NULL);
  return self->view;
}
