/* sl-findings-panel.c: a list of findings, costliest first, and the details of the selected one;
 * a group of findings of one cause is a row that expands into its instances. */
#include "sl-findings-panel-private.h"

#include "sl-format.h"

/* a GtkListBox row a finding; beyond this many the list says how many it leaves out */
#define MAX_ROWS 500

struct _SlFindingsPanel
{
  GtkWidget       parent_instance;
  GtkWidget      *paned;
  GtkWidget      *header;     /* "N findings, costliest first" */
  GtkWidget      *list;       /* GtkListBox */
  GtkWidget      *details;    /* GtkBox: the three below */
  GtkWidget      *title;      /* GtkLabel: the summary and the rule */
  GtkWidget      *grid;       /* GtkGrid: key | value, a row each (when, cost, blame, evidence) */
  GtkWidget      *advice;     /* GtkLabel */
  guint           n_grid_rows;
  int             rule_width; /* px: the rule column, as wide as its widest name */
  guint           first_evidence_row; /* the grid's rows from here on are the evidence */
  SlTimelineView *timeline;
  SlAnalysis     *analysis;
  GPtrArray      *rows;       /* GtkListBoxRow of each finding listed, in order (not reffed) */
  gboolean        opening;    /* mapped just now: the tab is being opened */
};

/* What a row holds: its finding; a group's row also its instances' rows and its toggle. */
#define ROW_FINDING   "sl-finding"
#define ROW_INSTANCES "sl-instance-rows"
#define ROW_TOGGLE    "sl-toggle"

G_DEFINE_FINAL_TYPE (SlFindingsPanel, sl_findings_panel, GTK_TYPE_WIDGET)

GtkWidget *
sl_findings_panel_new (void)
{
  return g_object_new (SL_TYPE_FINDINGS_PANEL, NULL);
}

static SlTrace *
panel_trace (SlFindingsPanel *self)
{
  return self->timeline != NULL ? sl_timeline_view_get_trace (self->timeline) : NULL;
}

/* "python3 [144] in the NVTX range aten::rsqrt for 1.577 ms, 98% of the idle span": what covers
 * most of the finding's idle span on the threads that launch its work, as `analyze` judged it. */
static char *
blame_text (SlTrace         *trace,
            const SlFinding *f)
{
  static const char *const kinds[] = {
    [SL_BLAME_NVTX] = "the NVTX range",
    [SL_BLAME_CUDA_API] = "the CUDA call",
    [SL_BLAME_OSRT] = "the OS runtime call",
    [SL_BLAME_SAMPLE] = "the function (CPU samples)",
    [SL_BLAME_STATE] = "the thread state",
  };
  const SlBlame *b = f->blame;
  SlTime span = MAX (f->end - f->start, 1);
  g_autofree char *d = sl_format_duration (b->overlap);
  g_autofree char *who = NULL;

  if (b->kind == SL_BLAME_NONE || b->kind >= G_N_ELEMENTS (kinds) || b->name == NULL)
    return g_strdup ("no single cause: nothing the launching threads did covers half of it");
  if (trace != NULL && b->thread >= 0 && (guint) b->thread < sl_trace_get_n_threads (trace))
    {
      const SlThread *t = sl_trace_get_thread (trace, b->thread);
      who = g_strdup_printf ("%s [%u]", t->name != SL_NO_STR ? sl_trace_str (trace, t->name)
                                                              : "thread", t->tid);
    }
  return g_strdup_printf ("%s in %s %s for %s, %.0f%% of the idle span",
                          who != NULL ? who : "A launching thread", kinds[b->kind], b->name, d,
                          100.0 * (double) b->overlap / (double) span);
}

/* A key and its value in the details' grid.  The value wraps in a column of its own, so that a
 * long one (a 200-character kernel name, a byte count with its units) does not run back under
 * the keys, and the values of ~20 keys of different widths line up. */
static void
details_add_row (SlFindingsPanel *self,
                 const char      *key,
                 const char      *value,
                 gboolean         head)
{
  GtkWidget *k = gtk_label_new (NULL);
  GtkWidget *v = gtk_label_new (value);
  int row = (int) self->n_grid_rows++;

  if (head)
    {
      g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", key);
      gtk_label_set_markup (GTK_LABEL (k), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (k), key);
  /* evidence keys run to ~40 characters ("Of its busy time, copying (no kernel)"): they wrap
   * before they take the values' room */
  gtk_label_set_wrap (GTK_LABEL (k), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (k), 28);
  gtk_label_set_xalign (GTK_LABEL (k), 0);
  gtk_label_set_yalign (GTK_LABEL (k), 0);
  gtk_widget_set_valign (k, GTK_ALIGN_START);
  gtk_label_set_wrap (GTK_LABEL (v), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (v), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (v), TRUE);
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  gtk_widget_set_valign (v, GTK_ALIGN_START);
  gtk_widget_set_hexpand (v, TRUE);
  /* a blank line between the finding's own figures and its evidence */
  if (!head && self->first_evidence_row == G_MAXUINT)
    {
      self->first_evidence_row = (guint) row;
      gtk_widget_set_margin_top (k, 10);
      gtk_widget_set_margin_top (v, 10);
    }
  gtk_grid_attach (GTK_GRID (self->grid), k, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), v, 1, row, 1, 1);
}

/* The details' title and advice: selectable, wrapped anywhere a summary's long names need it. */
static GtkWidget *
text_label (void)
{
  GtkWidget *l = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (l), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  return l;
}

static void
details_clear (SlFindingsPanel *self)
{
  GtkWidget *child;

  gtk_label_set_text (GTK_LABEL (self->title), "");
  gtk_label_set_text (GTK_LABEL (self->advice), "");
  while ((child = gtk_widget_get_first_child (self->grid)) != NULL)
    gtk_grid_remove (GTK_GRID (self->grid), child);
  self->n_grid_rows = 0;
  self->first_evidence_row = G_MAXUINT;
}

static void
details_fill (SlFindingsPanel *self,
              const SlFinding *f)
{
  SlTrace *trace = panel_trace (self);
  SlTime t0 = trace != NULL ? sl_trace_get_origin (trace) : 0;
  g_autofree char *a = sl_format_offset (f->start - t0), *b = sl_format_offset (f->end - t0);
  g_autofree char *when = g_strdup_printf ("%s … %s", a, b);
  g_autofree char *cost = sl_format_duration (f->cost);
  g_autofree char *title = g_markup_printf_escaped ("<b>%s</b>\n<small>%s · %s</small>",
                                                    f->summary, f->rule->title, f->rule->name);

  details_clear (self);
  gtk_label_set_markup (GTK_LABEL (self->title), title);
  details_add_row (self, "When", when, TRUE);
  /* an idle finding's cost is its share of the GPU's idle time: no other finding counts it */
  if (f->idle_view)
    {
      g_autofree char *c = g_strdup_printf ("%s of GPU idle time, counted in no other finding",
                                            cost);
      details_add_row (self, "Costs", c, TRUE);
    }
  else
    details_add_row (self, "Costs", cost, TRUE);
  if (f->blame != NULL)
    {
      g_autofree char *blame = blame_text (trace, f);
      details_add_row (self, "Blame", blame, TRUE);
    }
  if (f->instances != NULL)
    {
      g_autofree char *n = g_strdup_printf ("%u (expand the row to go through them)",
                                            f->instances->len);
      details_add_row (self, "Instances", n, TRUE);
    }
  if (f->gpu >= 0)
    {
      g_autofree char *gpu = g_strdup_printf ("%d", f->gpu);
      details_add_row (self, "GPU", gpu, TRUE);
    }
  if (f->stream != 0)
    {
      g_autofree char *stream = g_strdup_printf ("%u", f->stream);
      details_add_row (self, "Stream", stream, TRUE);
    }
  if (f->thread >= 0 && trace != NULL)
    {
      const SlThread *t = sl_trace_get_thread (trace, f->thread);
      g_autofree char *thread = g_strdup_printf ("%s (pid %u, tid %u)",
                                                 sl_trace_str (trace, t->name), t->pid, t->tid);
      details_add_row (self, "Thread", thread, TRUE);
    }
  for (guint k = 0; k < f->evidence->len; k++)
    {
      const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
      details_add_row (self, e->label, e->text, FALSE);
    }
  if (f->advice != NULL)
    {
      g_autofree char *advice = g_markup_printf_escaped ("<b>Advice</b>\n%s", f->advice);
      gtk_label_set_markup (GTK_LABEL (self->advice), advice);
    }
}

/* The timeline's tint of finding f's lanes, events and time (NULL: none).  Only while the
 * Findings tab is on screen: it is the tab's, not the trace's, and a PNG export of the timeline
 * after leaving the tab does not carry it. */
static void
tint_finding (SlFindingsPanel *self,
              const SlFinding *f)
{
  g_autofree SlEventRef *events = NULL;

  if (self->timeline == NULL)
    return;
  if (f == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      sl_timeline_view_set_focus (self->timeline, 0, 0, NULL, 0, NULL, 0);
      return;
    }
  events = g_new (SlEventRef, MAX (f->events->len, 1));
  for (guint i = 0; i < f->events->len; i++)
    {
      const SlFindingEvent *e = &g_array_index (f->events, SlFindingEvent, i);
      events[i] = (SlEventRef) { (gint) e->lane, e->index };
    }
  sl_timeline_view_set_focus (self->timeline, f->start, f->end, (const guint32 *) f->lanes->data,
                              f->lanes->len, events, f->events->len);
}

static const SlFinding *
selected_finding (SlFindingsPanel *self)
{
  GtkListBoxRow *row = gtk_list_box_get_selected_row (GTK_LIST_BOX (self->list));

  return row != NULL && self->analysis != NULL ? g_object_get_data (G_OBJECT (row), ROW_FINDING)
                                               : NULL;
}

static void
show_finding (SlFindingsPanel *self,
              const SlFinding *f)
{
  if (f == NULL)
    {
      details_clear (self);
      tint_finding (self, NULL);
      return;
    }
  details_fill (self, f);
  tint_finding (self, f);
  if (self->timeline != NULL)
    {
      SlViewport *vp = sl_timeline_view_get_viewport (self->timeline);
      SlTime len = MAX (f->end - f->start, 1), pad = MAX (len / 10, 1000);
      sl_viewport_set_visible (vp, f->start - pad, f->end + pad, TRUE);
    }
}

static gboolean
opened_cb (gpointer data)
{
  SL_FINDINGS_PANEL (data)->opening = FALSE;
  return G_SOURCE_REMOVE;
}

/* Back on the tab: the finding selected there is tinted again, where the view is now. */
static void
sl_findings_panel_map (GtkWidget *widget)
{
  SlFindingsPanel *self = SL_FINDINGS_PANEL (widget);

  self->opening = TRUE;
  GTK_WIDGET_CLASS (sl_findings_panel_parent_class)->map (widget);
  tint_finding (self, selected_finding (self));
  g_idle_add_full (G_PRIORITY_HIGH, opened_cb, g_object_ref (self), g_object_unref);
}

static void
sl_findings_panel_unmap (GtkWidget *widget)
{
  SlFindingsPanel *self = SL_FINDINGS_PANEL (widget);

  GTK_WIDGET_CLASS (sl_findings_panel_parent_class)->unmap (widget);
  tint_finding (self, NULL);
}

static void
row_selected_cb (GtkListBox      *box,
                 GtkListBoxRow   *row,
                 SlFindingsPanel *self)
{
  (void) box;
  if (row != NULL && self->opening)
    {
      /* A list box selects the row the focus enters, and the notebook moves the focus into the
       * tab it opens when its last tab held it: opening Findings selected finding 1 and zoomed
       * the timeline to it unasked.  The focus stays; a click, Enter or an arrow selects. */
      gtk_list_box_unselect_all (box);
      return;
    }
  if (row == NULL || self->analysis == NULL)
    {
      show_finding (self, NULL);
      return;
    }
  show_finding (self, g_object_get_data (G_OBJECT (row), ROW_FINDING));
}

static void
set_expanded (GtkWidget *row,
              gboolean   expanded)
{
  GPtrArray *instances = g_object_get_data (G_OBJECT (row), ROW_INSTANCES);
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), ROW_TOGGLE);

  if (instances == NULL)
    return;
  for (guint k = 0; k < instances->len; k++)
    gtk_widget_set_visible (g_ptr_array_index (instances, k), expanded);
  gtk_button_set_icon_name (GTK_BUTTON (toggle), expanded ? "pan-down-symbolic"
                                                          : "pan-end-symbolic");
  gtk_accessible_update_state (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_STATE_EXPANDED, expanded,
                               -1);
  if (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (toggle)) != expanded)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), expanded);
}

static void
toggle_cb (GtkToggleButton *toggle,
           GtkWidget       *row)
{
  set_expanded (row, gtk_toggle_button_get_active (toggle));
}

/* Enter or a double click on a group's row opens or closes it. */
static void
row_activated_cb (GtkListBox      *box,
                  GtkListBoxRow   *row,
                  SlFindingsPanel *self)
{
  GtkWidget *toggle = g_object_get_data (G_OBJECT (row), ROW_TOGGLE);

  (void) box;
  (void) self;
  if (toggle != NULL)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle),
                                  !gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (toggle)));
}

/* A row: the rule, the cost and the summary; a group's with a toggle that shows its instances,
 * an instance's indented under it. */
static GtkWidget *
finding_row (SlFindingsPanel *self,
             const SlFinding *f,
             guint            instance)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  g_autofree char *nth = instance > 0 ? g_strdup_printf ("#%u", instance) : NULL;
  GtkWidget *rule = gtk_label_new (instance > 0 ? nth : f->rule->name);
  GtkWidget *slot = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *cost = gtk_label_new (NULL);
  GtkWidget *summary = gtk_label_new (f->summary);
  g_autofree char *c = sl_format_duration (f->cost);

  gtk_label_set_text (GTK_LABEL (cost), c);
  gtk_widget_add_css_class (rule, "dim-label");
  gtk_widget_set_size_request (rule, self->rule_width, -1);
  gtk_label_set_xalign (GTK_LABEL (rule), 0);
  gtk_widget_set_size_request (cost, 90, -1);
  gtk_label_set_xalign (GTK_LABEL (cost), 1);
  gtk_widget_add_css_class (cost, "numeric");
  gtk_label_set_xalign (GTK_LABEL (summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (summary, TRUE);
  gtk_widget_set_tooltip_text (summary, f->summary);
  g_object_set (box, "margin-start", 6, "margin-end", 6, "margin-top", 2, "margin-bottom", 2,
                NULL);
  if (instance > 0)
    gtk_label_set_xalign (GTK_LABEL (rule), 1);
  if (f->instances != NULL)
    {
      GtkWidget *toggle = gtk_toggle_button_new ();
      g_autofree char *tip = g_strdup_printf ("Show the %u instances", f->instances->len);
      gtk_button_set_icon_name (GTK_BUTTON (toggle), "pan-end-symbolic");
      gtk_widget_add_css_class (toggle, "flat");
      gtk_widget_add_css_class (toggle, "sl-findings-expander");
      gtk_widget_set_tooltip_text (toggle, tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, tip,
                                      -1);
      g_signal_connect (toggle, "toggled", G_CALLBACK (toggle_cb), row);
      g_object_set_data (G_OBJECT (row), ROW_TOGGLE, toggle);
      gtk_box_append (GTK_BOX (slot), toggle);
    }
  /* the same width in every row, so that the columns line up */
  gtk_widget_set_size_request (slot, 40, -1);
  gtk_box_append (GTK_BOX (box), slot);
  gtk_box_append (GTK_BOX (box), rule);
  gtk_box_append (GTK_BOX (box), cost);
  gtk_box_append (GTK_BOX (box), summary);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_object_set_data (G_OBJECT (row), ROW_FINDING, (gpointer) f);
  return row;
}

/* The rule column's width: the widest rule name listed, 120 px at least.  A fixed 120 px was
 * narrower than "pageable_memcpy", which pushed that row's cost and summary out of line. */
static int
rule_column_width (SlFindingsPanel *self,
                   SlAnalysis      *analysis)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (self->list, NULL);
  int width = 120;

  for (guint i = 0; i < MIN (analysis->findings->len, MAX_ROWS); i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      int w;
      pango_layout_set_text (layout, f->rule->name, -1);
      pango_layout_get_pixel_size (layout, &w, NULL);
      width = MAX (width, w);
    }
  return width;
}

/* Appends finding f's row, and a group's instances' rows (hidden until it is expanded). */
static void
append_finding (SlFindingsPanel *self,
                const SlFinding *f)
{
  GtkWidget *row = finding_row (self, f, 0);

  gtk_list_box_append (GTK_LIST_BOX (self->list), row);
  g_ptr_array_add (self->rows, row);
  if (f->instances != NULL)
    {
      GPtrArray *instances = g_ptr_array_new ();
      for (guint k = 0; k < f->instances->len; k++)
        {
          GtkWidget *r = finding_row (self, g_ptr_array_index (f->instances, k), k + 1);
          gtk_widget_set_visible (r, FALSE);
          gtk_list_box_append (GTK_LIST_BOX (self->list), r);
          g_ptr_array_add (instances, r);
        }
      g_object_set_data_full (G_OBJECT (row), ROW_INSTANCES, instances,
                              (GDestroyNotify) g_ptr_array_unref);
    }
}

void
sl_findings_panel_set_analysis (SlFindingsPanel *self,
                                SlTimelineView  *timeline,
                                SlAnalysis      *analysis)
{
  GtkWidget *child;
  guint n;

  g_return_if_fail (SL_IS_FINDINGS_PANEL (self));
  g_clear_pointer (&self->analysis, sl_analysis_free);
  self->analysis = analysis;
  if (self->timeline != timeline)
    {
      /* the window owns the timeline; it may go before this panel does */
      if (self->timeline != NULL)
        g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = timeline;
      if (timeline != NULL)
        g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
    }
  g_ptr_array_set_size (self->rows, 0);
  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  details_clear (self);
  if (analysis == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->header), "No analysis yet");
      if (timeline != NULL)
        sl_timeline_view_set_ruler_marks (timeline, NULL, NULL, 0);
      return;
    }
  n = analysis->findings->len;
  self->rule_width = rule_column_width (self, analysis);
  {
    g_autofree SlTime *marks = g_new (SlTime, 2 * MAX (n, 1));
    g_autoptr (GPtrArray) texts = g_ptr_array_new_full (n, g_free);
    g_autofree char *head = NULL;
    for (guint i = 0; i < n; i++)
      {
        const SlFinding *f = g_ptr_array_index (analysis->findings, i);
        g_autofree char *cost = sl_format_duration (f->cost);
        marks[2 * i] = f->start;
        marks[2 * i + 1] = f->end;
        /* what a hover on its mark along the ruler says: the rule as the list names it, its
         * cost, its summary */
        g_ptr_array_add (texts, g_strdup_printf ("%s (%s), costs %s: %s", f->rule->title,
                                                 f->rule->name, cost, f->summary));
        if (i < MAX_ROWS)
          append_finding (self, f);
      }
    if (timeline != NULL)
      sl_timeline_view_set_ruler_marks (timeline, marks, (const char *const *) texts->pdata, n);
    if (n == 0 && analysis->lacks != NULL)
      head = g_strdup_printf ("No findings: the trace has %s.", analysis->lacks);
    else if (n == 0)
      head = g_strdup ("No findings: no rule found a problem in this trace.");
    else
      head = g_strdup_printf ("%u finding%s, most costly first%s", n, n == 1 ? "" : "s",
                              n > MAX_ROWS ? " (the first 500 listed)" : "");
    gtk_label_set_text (GTK_LABEL (self->header), head);
  }
}

guint
sl_findings_panel_get_n_findings (SlFindingsPanel *self)
{
  g_return_val_if_fail (SL_IS_FINDINGS_PANEL (self), 0);
  return self->analysis != NULL ? self->analysis->findings->len : 0;
}

const SlFinding *
sl_findings_panel_get_finding (SlFindingsPanel *self,
                               guint            i)
{
  g_return_val_if_fail (SL_IS_FINDINGS_PANEL (self), NULL);
  if (self->analysis == NULL || i >= self->analysis->findings->len)
    return NULL;
  return g_ptr_array_index (self->analysis->findings, i);
}

void
sl_findings_panel_select (SlFindingsPanel *self,
                          guint            i)
{
  g_return_if_fail (SL_IS_FINDINGS_PANEL (self));
  self->opening = FALSE;  /* asked for: not the focus entering */
  if (i < self->rows->len)
    gtk_list_box_select_row (GTK_LIST_BOX (self->list), g_ptr_array_index (self->rows, i));
}

void
sl_findings_panel_set_expanded (SlFindingsPanel *self,
                                guint            i,
                                gboolean         expanded)
{
  g_return_if_fail (SL_IS_FINDINGS_PANEL (self));
  if (i < self->rows->len)
    set_expanded (g_ptr_array_index (self->rows, i), expanded);
}

gboolean
sl_findings_panel_get_expanded (SlFindingsPanel *self,
                                guint            i)
{
  GPtrArray *instances;

  g_return_val_if_fail (SL_IS_FINDINGS_PANEL (self), FALSE);
  if (i >= self->rows->len)
    return FALSE;
  instances = g_object_get_data (g_ptr_array_index (self->rows, i), ROW_INSTANCES);
  return instances != NULL && instances->len > 0
         && gtk_widget_get_visible (g_ptr_array_index (instances, 0));
}

void
sl_findings_panel_select_instance (SlFindingsPanel *self,
                                   guint            i,
                                   guint            k)
{
  GPtrArray *instances;

  g_return_if_fail (SL_IS_FINDINGS_PANEL (self));
  self->opening = FALSE;  /* asked for: not the focus entering */
  if (i >= self->rows->len)
    return;
  instances = g_object_get_data (g_ptr_array_index (self->rows, i), ROW_INSTANCES);
  if (instances == NULL || k >= instances->len)
    return;
  set_expanded (g_ptr_array_index (self->rows, i), TRUE);
  gtk_list_box_select_row (GTK_LIST_BOX (self->list), g_ptr_array_index (instances, k));
}

char *
sl_findings_panel_get_details (SlFindingsPanel *self)
{
  GString *s;

  g_return_val_if_fail (SL_IS_FINDINGS_PANEL (self), NULL);
  s = g_string_new (gtk_label_get_text (GTK_LABEL (self->title)));
  if (s->len == 0)
    return g_string_free (s, FALSE);
  g_string_append (s, "\n\n");
  for (guint r = 0; r < self->n_grid_rows; r++)
    {
      GtkWidget *k = gtk_grid_get_child_at (GTK_GRID (self->grid), 0, (int) r);
      GtkWidget *v = gtk_grid_get_child_at (GTK_GRID (self->grid), 1, (int) r);
      if (r == self->first_evidence_row)
        g_string_append_c (s, '\n');
      g_string_append_printf (s, "%s\t%s\n", gtk_label_get_text (GTK_LABEL (k)),
                              gtk_label_get_text (GTK_LABEL (v)));
    }
  g_string_append_printf (s, "\n%s", gtk_label_get_text (GTK_LABEL (self->advice)));
  return g_string_free (s, FALSE);
}

static void
sl_findings_panel_dispose (GObject *object)
{
  SlFindingsPanel *self = SL_FINDINGS_PANEL (object);

  if (self->list != NULL)
    g_signal_handlers_disconnect_by_data (self->list, self);
  if (self->timeline != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = NULL;
    }
  self->list = NULL;
  g_clear_pointer (&self->paned, gtk_widget_unparent);
  g_clear_pointer (&self->analysis, sl_analysis_free);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  G_OBJECT_CLASS (sl_findings_panel_parent_class)->dispose (object);
}

/* A group's toggle as high as the text of its row: GTK's button (34 px high) made a group's row
 * half as high again as the others, and the ~250 px list showed two rows fewer. */
static void
install_css (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();
      GdkDisplay *display = gdk_display_get_default ();

      gtk_css_provider_load_from_data (css,
                                       "sl-findings-panel button.sl-findings-expander {"
                                       " min-height: 0; min-width: 0; padding: 0 4px; margin: 0; }",
                                       -1);
      if (display != NULL)
        gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (css),
                                                    GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_once_init_leave (&done, 1);
    }
}

static void
sl_findings_panel_class_init (SlFindingsPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sl_findings_panel_dispose;
  GTK_WIDGET_CLASS (klass)->map = sl_findings_panel_map;
  GTK_WIDGET_CLASS (klass)->unmap = sl_findings_panel_unmap;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "sl-findings-panel");
}

static void
sl_findings_panel_init (SlFindingsPanel *self)
{
  GtkWidget *left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *list_scroll = gtk_scrolled_window_new ();
  GtkWidget *details_scroll = gtk_scrolled_window_new ();

  install_css ();

  self->header = gtk_label_new ("No analysis yet");
  gtk_label_set_xalign (GTK_LABEL (self->header), 0);
  /* "No findings: the trace has …; it holds …" runs to ~140 characters, wider than the list's
   * pane: on one line GTK clipped it at both ends (issue 28, item 8) */
  gtk_label_set_wrap (GTK_LABEL (self->header), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->header), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (self->header, "dim-label");
  g_object_set (self->header, "margin-start", 8, "margin-end", 8, "margin-top", 4,
                "margin-bottom", 4, NULL);
  self->list = gtk_list_box_new ();
  /* SINGLE, not BROWSE: nothing need be selected (see row_selected_cb) */
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->list), GTK_SELECTION_SINGLE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  "Findings", -1);
  g_signal_connect (self->list, "row-selected", G_CALLBACK (row_selected_cb), self);
  g_signal_connect (self->list, "row-activated", G_CALLBACK (row_activated_cb), self);
  self->rows = g_ptr_array_new ();
  self->rule_width = 120;
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (list_scroll), self->list);
  gtk_widget_set_vexpand (list_scroll, TRUE);
  gtk_box_append (GTK_BOX (left), self->header);
  gtk_box_append (GTK_BOX (left), list_scroll);

  self->details = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  g_object_set (self->details, "margin-start", 10, "margin-end", 10, "margin-top", 6,
                "margin-bottom", 10, NULL);
  self->title = text_label ();
  self->advice = text_label ();
  self->grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 2);
  self->first_evidence_row = G_MAXUINT;
  gtk_box_append (GTK_BOX (self->details), self->title);
  gtk_box_append (GTK_BOX (self->details), self->grid);
  gtk_box_append (GTK_BOX (self->details), self->advice);
  /* wrap at the pane's width rather than scroll sideways */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (details_scroll), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (details_scroll), self->details);

  self->paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (self->paned), left);
  gtk_paned_set_end_child (GTK_PANED (self->paned), details_scroll);
  gtk_paned_set_position (GTK_PANED (self->paned), 760);
  gtk_widget_set_parent (self->paned, GTK_WIDGET (self));
}
