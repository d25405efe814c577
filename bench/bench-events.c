/* bench-events.c: the Events tab on the largest lane of a trace: opening it, sorting it, and the
 * frame times of scrolling it, against the same table on a small lane measured in the same run.
 *
 * Usage: xvfb-run -a -s "-screen 0 1920x1080x24" bench-events TRACE [FRAMES]
 *
 *   build/bench/sightline-gen -o /tmp/evt-9m.sqlite -n 9M -k 1 -t 1   # one lane of ~4 M events
 *
 * The big table shows the trace's largest lane, the baseline one its smallest lane of at least
 * 1,000 events (or the largest below that); each in its own window.  A frame's cost is the time
 * from the frame clock's "before-paint" to its "after-paint" (update, layout and paint of the
 * scrolled table: the work of one frame, not the wait for the next tick).  Scrolling alternates
 * the two tables every ten frames (a slow stretch of a shared machine hits both alike): a jump to
 * a random row, then steps of a page.  The target: frames under 16 ms.  Prints, asserts
 * nothing. */
#include <gtk/gtk.h>
#include <stdlib.h>

#include "sl-events-table-private.h"
#include "sl-format.h"
#include "sl-sort.h"
#include "sl-timeline-view.h"

#define TURN 10

typedef struct
{
  const char *what;
  GtkWidget  *window, *table;
  guint       lane;
  double     *times;
  guint       n_times;
  gint64      frame_start;
  gboolean    measuring;
  double      open_ms, first_frame_ms, sort_ms;
} Table;


static void
before_paint_cb (GdkFrameClock *clock,
                 Table         *t)
{
  (void) clock;
  t->frame_start = g_get_monotonic_time ();
}

static void
after_paint_cb (GdkFrameClock *clock,
                Table         *t)
{
  (void) clock;
  if (t->measuring && t->frame_start > 0)
    {
      t->times[t->n_times++] = (g_get_monotonic_time () - t->frame_start) / 1e3;
      t->measuring = FALSE;
    }
}

static void
wait_frame (Table *t)
{
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  t->measuring = TRUE;
  gtk_widget_queue_draw (t->table);
  while (t->measuring && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (t->measuring)
    t->measuring = FALSE;  /* nothing to draw: no frame came */
}

static void
table_open (Table         *t,
            const char    *what,
            SlTimelineView *timeline,
            guint          lane,
            guint          frames)
{
  gint64 a, deadline;
  GdkFrameClock *clock;

  t->what = what;
  t->lane = lane;
  t->times = g_new (double, frames + 1);
  t->window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (t->window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (t->window), 1600, 900);
  t->table = sl_events_table_new ();
  gtk_window_set_child (GTK_WINDOW (t->window), t->table);
  sl_events_table_set_timeline (SL_EVENTS_TABLE (t->table), timeline);
  gtk_window_present (GTK_WINDOW (t->window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!gtk_widget_get_mapped (t->table) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  clock = gtk_widget_get_frame_clock (t->table);
  g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint_cb), t);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), t);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  /* open: the rows of the lane made (the index) and the first frame that shows them */
  a = g_get_monotonic_time ();
  sl_events_table_show_lane (SL_EVENTS_TABLE (t->table), lane);
  sl_events_table_get_n_rows (SL_EVENTS_TABLE (t->table));  /* made now, not after the pause */
  t->open_ms = (g_get_monotonic_time () - a) / 1e3;
  wait_frame (t);
  t->first_frame_ms = (g_get_monotonic_time () - a) / 1e3;
  t->n_times = 0;

  /* sort by duration, longest first, and back, through the column header's sorter */
  a = g_get_monotonic_time ();
  sl_events_table_sort_by (SL_EVENTS_TABLE (t->table), SL_EVENTS_COLUMN_DURATION, TRUE);
  wait_frame (t);
  t->sort_ms = (g_get_monotonic_time () - a) / 1e3;
  sl_events_table_sort_by (SL_EVENTS_TABLE (t->table), SL_EVENTS_COLUMN_START, FALSE);
  wait_frame (t);
  t->n_times = 0;
}

/* Frame `i`: every tenth a jump to a random row, else a page further down. */
static void
scroll_frame (Table *t,
              GRand *rand,
              guint  i)
{
  GtkWidget *sw = sl_events_table_get_scrolled (SL_EVENTS_TABLE (t->table));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw));
  double upper = gtk_adjustment_get_upper (adj), page = gtk_adjustment_get_page_size (adj);
  double v = gtk_adjustment_get_value (adj);

  if (i % 10 == 0 || v + 2 * page >= upper)
    v = g_rand_double (rand) * MAX (upper - page, 0);
  else
    v += page;
  gtk_adjustment_set_value (adj, v);
  wait_frame (t);
}

static void
report (Table *t)
{
  double *s = t->times;
  guint n = t->n_times;

  qsort (s, n, sizeof (double), sl_cmp_double);
  g_print ("%-9s lane %u: %u rows; open %.1f ms (first frame %.1f ms); sort by duration %.1f ms;"
           " scroll frames: median %.2f ms, p99 %.2f ms, max %.2f ms (%u frames)\n",
           t->what, t->lane, sl_events_table_get_n_rows (SL_EVENTS_TABLE (t->table)), t->open_ms,
           t->first_frame_ms, t->sort_ms, n ? s[n / 2] : 0, n ? s[MIN (n - 1, n * 99 / 100)] : 0,
           n ? s[n - 1] : 0, n);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  GtkWidget *timeline;
  guint frames, big = 0, small = G_MAXUINT;
  Table tables[2] = { { 0 } };
  gint64 t;

  if (argc < 2)
    {
      g_printerr ("usage: xvfb-run -a %s TRACE [FRAMES]\n", argv[0]);
      return 2;
    }
  frames = argc > 2 ? (guint) CLAMP (atoi (argv[2]), 20, 10000) : 300;
  gtk_init ();
  t = g_get_monotonic_time ();
  trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      g_printerr ("bench-events: %s\n", error->message);
      return 1;
    }
  g_print ("%s: %" G_GSIZE_FORMAT " events, loaded in %.1f s\n", argv[1],
           sl_trace_get_n_events (trace), (g_get_monotonic_time () - t) / 1e6);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      gsize n = sl_trace_get_lane (trace, l)->n_events;
      if (n > sl_trace_get_lane (trace, big)->n_events)
        big = l;
      if (n >= 1000 && (small == G_MAXUINT || n < sl_trace_get_lane (trace, small)->n_events))
        small = l;
    }
  if (small == G_MAXUINT)
    small = big;
  {
    /* the model alone: the index of the big lane and its sort */
    g_autoptr (SlEventsQuery) q = NULL;
    gint64 a = g_get_monotonic_time (), b, c;
    q = sl_events_query_new_lane (trace, big, 0, 0);
    b = g_get_monotonic_time ();
    sl_events_query_sort (q, SL_EVENTS_COLUMN_DURATION, TRUE);
    c = g_get_monotonic_time ();
    sl_events_query_sort (q, SL_EVENTS_COLUMN_NAME, FALSE);
    g_print ("model: index of lane %u (%" G_GSIZE_FORMAT " events) %.1f ms, sort by duration "
             "%.1f ms, by name %.1f ms\n", big, sl_events_query_get_n (q), (b - a) / 1e3,
             (c - b) / 1e3, (g_get_monotonic_time () - c) / 1e3);
  }
  timeline = g_object_ref_sink (sl_timeline_view_new ());
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (timeline), trace);

  table_open (&tables[0], "baseline", SL_TIMELINE_VIEW (timeline), small, frames);
  table_open (&tables[1], "big", SL_TIMELINE_VIEW (timeline), big, frames);
  for (guint i = 0; i < frames; i += TURN)
    for (guint k = 0; k < 2; k++)
      for (guint j = i; j < MIN (i + TURN, frames); j++)
        scroll_frame (&tables[k], rand, j);
  for (guint k = 0; k < 2; k++)
    report (&tables[k]);
  g_print ("ratio big / baseline: scroll median %.2f, p99 %.2f   (target: frames < 16 ms)\n",
           tables[1].times[tables[1].n_times / 2] / MAX (tables[0].times[tables[0].n_times / 2], 1e-3),
           tables[1].times[tables[1].n_times * 99 / 100]
             / MAX (tables[0].times[tables[0].n_times * 99 / 100], 1e-3));
  for (guint k = 0; k < 2; k++)
    {
      gtk_window_destroy (GTK_WINDOW (tables[k].window));
      g_free (tables[k].times);
    }
  g_object_unref (timeline);
  return 0;
}
