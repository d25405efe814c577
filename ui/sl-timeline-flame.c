/* sl-timeline-flame.c: a thread's CPU samples as a flame chart by stack depth (as Tracy and
 * Perfetto draw them): the boxes of each depth built once per lane, drawn as runs, hit tests. */
#include "sl-timeline-view-private.h"
#include "sl-format.h"

/*
 * One box: consecutive samples [first, first + n) whose stacks share the frames from the root
 * down to this depth.  With its start and end (kept apart, in arrays of their own: a frame
 * searches them a pixel column at a time) 32 bytes: a lane of 10^6 samples 24 deep would cost
 * ~770 MB in the worst case of a leaf that changes every sample and nothing above it merging,
 * and in practice a small fraction of that: frames near the root merge into a few long boxes.
 */
typedef struct
{
  guint32 first;
  guint32 n;
  guint32 symbol;   /* string id of the frame's function */
  guint32 slot;     /* index of the symbol in the lane's colour table */
} FlameBox;

struct _SlFlame
{
  gint       ref;        /* the view's, a build's that extends it (flame_extend) */
  guint      max_depth;  /* deepest stack of the lane's samples */
  gsize      n_samples;  /* built: the samples it was built over */
  SlTime     first_start, last_start;  /* built: its first and last samples' starts and the */
  guint32    last_aux;   /*   last one's chain, to tell a lane that goes on from these samples */
  gboolean   extended;   /* built by going on from the flame of a live update's previous trace */
  gboolean   built;
  gboolean   building;   /* a thread is building it (flame_ready_async) */
  SlTime     cap;        /* a sample stands for at most this long: 1.5 × the median interval */
  guint      n_depths;   /* built: MIN (max_depth, FLAME_ROWS_MAX) */
  GArray   **boxes;      /* per depth, FlameBox sorted by time, disjoint */
  SlTime   **starts;     /* per depth, per box: its first sample's time */
  SlTime   **ends;       /* per depth, per box: the end of its last sample (flame_sample_end) */
  GArray    *slot_sym;   /* guint32: symbol of each colour slot */
  guint32   *slot_key;   /* rgb_key of each slot for colors_epoch slot_epoch */
  guint      slot_epoch;
  GHashTable *labels;    /* label_key () -> GskRenderNode of the label, or none (see label_node) */
};

static SlFlame *
flame_new (void)
{
  SlFlame *fl = g_new0 (SlFlame, 1);

  fl->ref = 1;
  return fl;
}

static SlFlame *
flame_ref (SlFlame *fl)
{
  g_atomic_int_inc (&fl->ref);
  return fl;
}

static void
flame_free (SlFlame *fl)
{
  if (fl == NULL || !g_atomic_int_dec_and_test (&fl->ref))
    return;
  for (guint d = 0; d < fl->n_depths; d++)
    {
      g_array_unref (fl->boxes[d]);
      g_free (fl->starts[d]);
      g_free (fl->ends[d]);
    }
  g_free (fl->boxes);
  g_free (fl->starts);
  g_free (fl->ends);
  if (fl->slot_sym != NULL)
    g_array_unref (fl->slot_sym);
  g_free (fl->slot_key);
  if (fl->labels != NULL)
    g_hash_table_unref (fl->labels);
  g_free (fl);
}

void
_sl_timeline_flame_clear (SlTimelineView *self)
{
  self->flame_gen++;   /* builds under way are for flames that go now */
  for (guint i = 0; i < self->n_flames; i++)
    flame_free (self->flames[i]);
  g_clear_pointer (&self->flames, g_free);
  self->n_flames = 0;
  for (guint i = 0; i < self->n_flames_stale; i++)
    flame_free (self->flames_stale[i]);
  g_clear_pointer (&self->flames_stale, g_free);
  self->n_flames_stale = 0;
}

GPtrArray *
_sl_timeline_flame_take_built (SlTimelineView *self)
{
  GPtrArray *taken = g_ptr_array_new_with_free_func ((GDestroyNotify) flame_free);

  for (guint i = 0; i < self->n_flames; i++)
    {
      SlFlame *fl = self->flames[i];
      gboolean built = fl != NULL && fl->built && fl->max_depth > 0;
      g_ptr_array_add (taken, built ? fl : NULL);
      if (built)
        self->flames[i] = NULL;
    }
  return taken;
}

/*
 * A live update would otherwise show each samples lane as ticks until its flame is built again
 * (a thread's work, ~0.5 s a lane at 10^6 samples): the old flame is drawn meanwhile.  It holds
 * times and string ids, no event index that drawing reads, so it shows the old samples exactly;
 * its functions' names are checked to be the same strings in the new trace (an append keeps the
 * ids; a fresh load, after a first look, may number them otherwise: then it is dropped).
 */
void
_sl_timeline_flame_give_stale (SlTimelineView *self,
                               SlTrace        *old,
                               GPtrArray      *taken)
{
  guint n_lanes = self->trace != NULL ? sl_trace_get_n_lanes (self->trace) : 0;
  guint n_strs = self->trace != NULL ? sl_trace_get_n_strs (self->trace) : 0;

  for (guint i = 0; i < taken->len; i++)
    {
      SlFlame *fl = g_ptr_array_index (taken, i);
      gint lane = fl != NULL ? sl_trace_find_same_lane (old, i, self->trace) : -1;
      gboolean same = lane >= 0;
      for (guint s = 0; same && s < fl->slot_sym->len; s++)
        {
          guint32 sym = g_array_index (fl->slot_sym, guint32, s);
          same = sym < n_strs
                 && g_strcmp0 (sl_trace_str (old, sym), sl_trace_str (self->trace, sym)) == 0;
        }
      if (!same)
        continue;
      if (self->flames_stale == NULL)
        {
          self->flames_stale = g_new0 (SlFlame *, MAX (n_lanes, 1));
          self->n_flames_stale = n_lanes;
        }
      flame_free (self->flames_stale[lane]);
      self->flames_stale[lane] = fl;
      taken->pdata[i] = NULL;
    }
}

/* Whether `lane` begins with the samples `fl` was built over (a live update: an append keeps a
 * lane's samples and adds later ones after them; a first and last sample the same, and as many
 * or more, tell it at no cost). */
static gboolean
flame_goes_on (const SlFlame *fl,
               const SlLane  *lane)
{
  return fl->built && fl->n_samples > 0 && lane->n_events >= fl->n_samples
         && lane->events[0].start == fl->first_start
         && lane->events[fl->n_samples - 1].start == fl->last_start
         && lane->events[fl->n_samples - 1].aux == fl->last_aux;
}

/* The flame of a samples lane, its depth counted on first call (O(samples), or the samples after
 * those of a live update's old flame); NULL for others. */
static SlFlame *
flame_get (SlTimelineView *self,
           const SlLane   *lane)
{
  guint n_lanes = sl_trace_get_n_lanes (self->trace);
  SlFlame *fl;

  if (lane->kind != SL_LANE_SAMPLES)
    return NULL;
  if (self->flames == NULL)
    {
      self->flames = g_new0 (SlFlame *, MAX (n_lanes, 1));
      self->n_flames = n_lanes;
    }
  if (lane->index >= self->n_flames)
    return NULL;
  fl = self->flames[lane->index];
  if (fl != NULL)
    return fl;
  fl = self->flames[lane->index] = flame_new ();
  /* a live update's lane goes on from the old flame's samples: only the new ones are looked at */
  const SlFlame *stale = lane->index < self->n_flames_stale ? self->flames_stale[lane->index]
                                                           : NULL;
  gsize from = 0;
  if (stale != NULL && flame_goes_on (stale, lane))
    {
      fl->max_depth = stale->max_depth;
      from = stale->n_samples;
    }
  for (gsize i = from; i < lane->n_events; i++)
    {
      const guint32 *syms, *mods;
      fl->max_depth = MAX (fl->max_depth,
                           sl_trace_get_callchain (self->trace, lane->events[i].aux, &syms,
                                                   &mods));
    }
  return fl;
}

static int
compare_time (gconstpointer a,
              gconstpointer b)
{
  SlTime x = *(const SlTime *) a, y = *(const SlTime *) b;
  return x < y ? -1 : x > y;
}

/* The typical time between two samples of the lane: the median of up to 4 k gaps, evenly
 * picked.  A sample stands for the time to the next one, but never for more than 1.5 times
 * this: a thread that stopped being sampled (asleep, blocked) shows a gap, not a wide box. */
static SlTime
flame_cap (const SlLane *lane)
{
  gsize n = lane->n_events, step = MAX ((n - 1) / 4096, 1), k = 0;
  g_autofree SlTime *gaps = NULL;

  if (n < 2)
    return 1000000;   /* a lone sample: 1 ms */
  gaps = g_new (SlTime, (n - 1) / step + 1);
  for (gsize i = 1; i < n; i += step)
    {
      SlTime gap = lane->events[i].start - lane->events[i - 1].start;
      if (gap > 0)
        gaps[k++] = gap;
    }
  if (k == 0)
    return 1000000;
  qsort (gaps, k, sizeof *gaps, compare_time);
  return MAX (gaps[k / 2] + gaps[k / 2] / 2, 1);
}

static inline SlTime
flame_sample_end (const SlLane *lane,
                  const SlFlame *fl,
                  gsize          i)
{
  SlTime t = lane->events[i].start;

  if (i + 1 < lane->n_events && lane->events[i + 1].start - t < fl->cap)
    return lane->events[i + 1].start;
  return t + fl->cap;
}

#define BOX(fl, d, i) (&g_array_index ((fl)->boxes[d], FlameBox, (i)))

/* Frame `d` from the root of a leaf-first chain of `len` frames. */
#define ROOT_AT(chain, len, d) ((chain)[(len) - 1 - (d)])

/*
 * The boxes of every depth, in one pass over the samples: two neighbours (no further apart than
 * the cap) share the boxes of the depths their stacks agree on from the root; below that each
 * opens its own.  O(samples × depth), once per lane when it is first drawn or hit.
 *
 * With `base`, the flame of a live update's previous trace over this lane's first samples: its
 * boxes copied (O(boxes)) and the pass goes on from its last sample, so an update costs its new
 * samples (a lane of 10^6 samples took ~0.5 s to build again).  What a build from scratch with
 * the same cap gives (the pass is the same; _sl_timeline_flame_check checks it): the cap is
 * base's while the lane's own is within an eighth of it, as a lane's levels of detail keep their
 * width (a sampling rate's median gap barely moves; one that changed builds anew).
 */
static void
flame_build (SlTrace       *trace,
             const SlLane  *lane,
             SlFlame       *fl,
             const SlFlame *base,
             SlTime         cap)
{
  /* string id -> colour slot + 1: an array, not a hash table (a lookup per box made) */
  guint n_strs = sl_trace_get_n_strs (trace);
  g_autofree guint32 *slot_of = g_new0 (guint32, MAX (n_strs, 1));
  const guint32 *psyms = NULL, *pmods = NULL;
  guint plen = 0;
  guint32 paux = G_MAXUINT32;
  gsize from = 0;

  if (cap <= 0)
    cap = flame_cap (lane);
  if (base != NULL && (!flame_goes_on (base, lane) || cap > base->cap + base->cap / 8
                       || cap < base->cap - base->cap / 8))
    base = NULL;
  fl->built = TRUE;
  fl->extended = base != NULL;
  fl->cap = base != NULL ? base->cap : cap;
  fl->n_depths = MIN (fl->max_depth, FLAME_ROWS_MAX);
  fl->boxes = g_new (GArray *, MAX (fl->n_depths, 1));
  for (guint d = 0; d < fl->n_depths; d++)
    fl->boxes[d] = base != NULL && d < base->n_depths ? g_array_copy (base->boxes[d])
                                                      : g_array_new (FALSE, FALSE,
                                                                     sizeof (FlameBox));
  fl->slot_sym = base != NULL ? g_array_copy (base->slot_sym)
                              : g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint k = 0; k < fl->slot_sym->len; k++)
    {
      guint32 sym = g_array_index (fl->slot_sym, guint32, k);
      if (sym < n_strs)
        slot_of[sym] = k + 1;
    }
  if (base != NULL)
    {
      from = base->n_samples;
      paux = lane->events[from - 1].aux;
      plen = sl_trace_get_callchain (trace, paux, &psyms, &pmods);
    }
  for (gsize i = from; i < lane->n_events && i < G_MAXUINT32; i++)
    {
      const SlEvent *ev = &lane->events[i];
      const guint32 *syms, *mods;
      guint len = sl_trace_get_callchain (trace, ev->aux, &syms, &mods), same = 0;
      guint depth = MIN (len, fl->n_depths);

      if (i > 0 && ev->start - lane->events[i - 1].start < fl->cap)
        {
          if (ev->aux == paux)
            same = len;
          else
            while (same < len && same < plen && ROOT_AT (syms, len, same) ==
                   ROOT_AT (psyms, plen, same) && ROOT_AT (mods, len, same) ==
                   ROOT_AT (pmods, plen, same))
              same++;
        }
      for (guint d = 0; d < depth; d++)
        {
          GArray *a = fl->boxes[d];
          if (d < same)
            {
              g_array_index (a, FlameBox, a->len - 1).n++;
              continue;
            }
          guint32 sym = ROOT_AT (syms, len, d);
          guint32 slot = sym < n_strs ? slot_of[sym] : 0;
          if (slot == 0)
            {
              g_array_append_val (fl->slot_sym, sym);
              slot = fl->slot_sym->len;
              if (sym < n_strs)
                slot_of[sym] = slot;
            }
          FlameBox b = { (guint32) i, 1, sym, slot - 1 };
          g_array_append_val (a, b);
        }
      psyms = syms;
      pmods = mods;
      plen = len;
      paux = ev->aux;
    }
  fl->starts = g_new (SlTime *, MAX (fl->n_depths, 1));
  fl->ends = g_new (SlTime *, MAX (fl->n_depths, 1));
  for (guint d = 0; d < fl->n_depths; d++)
    {
      GArray *a = fl->boxes[d];
      /* base's boxes but its last keep their times (the last one's end was a sampling
       * interval past base's last sample; a new sample may follow it now) */
      guint kept = base != NULL && d < base->n_depths && base->boxes[d]->len > 0
                   ? base->boxes[d]->len - 1 : 0;
      fl->starts[d] = g_new (SlTime, MAX (a->len, 1));
      fl->ends[d] = g_new (SlTime, MAX (a->len, 1));
      if (kept > 0)
        {
          memcpy (fl->starts[d], base->starts[d], kept * sizeof (SlTime));
          memcpy (fl->ends[d], base->ends[d], kept * sizeof (SlTime));
        }
      for (guint k = kept; k < a->len; k++)
        {
          const FlameBox *b = &g_array_index (a, FlameBox, k);
          fl->starts[d][k] = lane->events[b->first].start;
          fl->ends[d][k] = flame_sample_end (lane, fl, (gsize) b->first + b->n - 1);
        }
    }
  fl->n_samples = MIN (lane->n_events, (gsize) G_MAXUINT32);
  if (fl->n_samples > 0)
    {
      fl->first_start = lane->events[0].start;
      fl->last_start = lane->events[fl->n_samples - 1].start;
      fl->last_aux = lane->events[fl->n_samples - 1].aux;
    }
}

/* The old flame of a lane a live update replaced, which its build can go on from; or NULL. */
static SlFlame *
flame_stale_of (SlTimelineView *self,
                const SlLane   *lane)
{
  SlFlame *fl = self->flames != NULL && lane->index < self->n_flames ? self->flames[lane->index]
                                                                     : NULL;
  SlFlame *stale = lane->index < self->n_flames_stale ? self->flames_stale[lane->index] : NULL;

  return stale != NULL && fl != NULL && stale->max_depth <= fl->max_depth
         && flame_goes_on (stale, lane) ? stale : NULL;
}

/* The flame of a lane with stacks, built now if it is not yet (hit tests, tooltips: rare). */
static SlFlame *
flame_ready (SlTimelineView *self,
             const SlLane   *lane)
{
  SlFlame *fl = flame_get (self, lane);

  if (fl != NULL && fl->max_depth > 0 && !fl->built)
    {
      flame_build (self->trace, lane, fl, flame_stale_of (self, lane), 0);
      if (lane->index < self->n_flames_stale)
        g_clear_pointer (&self->flames_stale[lane->index], flame_free);
    }
  return fl != NULL && fl->max_depth > 0 ? fl : NULL;
}

/* A build on a thread of its own: into a flame of its own, handed to the view when done. */
typedef struct
{
  SlTrace      *trace;
  const SlLane *lane;
  guint         generation;   /* the view's flame_gen when it started */
  SlFlame      *target;       /* the view's flame it is for */
  SlFlame      *base;         /* the stale flame it goes on from (a reference), or NULL */
  SlFlame      *result;
} FlameJob;

static void
flame_job_free (gpointer data)
{
  FlameJob *job = data;

  flame_free (job->result);
  flame_free (job->base);
  sl_trace_unref (job->trace);
  g_free (job);
}

static void
flame_job_run (GTask        *task,
               gpointer      source G_GNUC_UNUSED,
               gpointer      data,
               GCancellable *cancellable G_GNUC_UNUSED)
{
  FlameJob *job = data;

  flame_build (job->trace, job->lane, job->result, job->base, 0);
  g_task_return_boolean (task, TRUE);
}

static void
flame_job_done (GObject      *source,
                GAsyncResult *res,
                gpointer      data G_GNUC_UNUSED)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (source);
  FlameJob *job = g_task_get_task_data (G_TASK (res));
  guint i = job->lane->index;

  /* the view still has the flame it was for, unbuilt (not cleared, nor built by a hit test) */
  if (self->flames != NULL && self->flame_gen == job->generation && i < self->n_flames
      && self->flames[i] == job->target && !job->target->built)
    {
      flame_free (self->flames[i]);
      self->flames[i] = g_steal_pointer (&job->result);
      if (i < self->n_flames_stale)
        g_clear_pointer (&self->flames_stale[i], flame_free);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/*
 * The flame of a lane for drawing: built on a thread the first time it is asked for (a lane of
 * 70 k samples takes ~30 ms, one of 10^6 about half a second: too long for a frame), NULL until
 * then; the row shows the samples as ticks meanwhile.
 */
static SlFlame *
flame_ready_async (SlTimelineView *self,
                   const SlLane   *lane)
{
  SlFlame *fl = flame_get (self, lane);
  FlameJob *job;
  GTask *task;

  if (fl == NULL || fl->max_depth == 0)
    return NULL;
  if (fl->built)
    return fl;
  if (fl->building)
    return NULL;
  fl->building = TRUE;
  job = g_new0 (FlameJob, 1);
  job->trace = sl_trace_ref (self->trace);
  job->lane = lane;
  job->generation = self->flame_gen;
  job->target = fl;
  SlFlame *base = flame_stale_of (self, lane);
  job->base = base != NULL ? flame_ref (base) : NULL;
  job->result = flame_new ();
  job->result->max_depth = fl->max_depth;
  task = g_task_new (self, NULL, flame_job_done, NULL);
  g_task_set_task_data (task, job, flame_job_free);
  g_task_run_in_thread (task, flame_job_run);
  g_object_unref (task);
  return NULL;
}

/* Test hook: whether the lane's built flame went on from the old one of a live update. */
gboolean
_sl_timeline_flame_extended (SlTimelineView *self,
                             gint            lane)
{
  return _sl_timeline_flame_built (self, lane) && self->flames[lane]->extended;
}

/* Test hook: the lane's built flame against one built from scratch with the same cap: the same
 * boxes, times and colour slots. */
gboolean
_sl_timeline_flame_check (SlTimelineView *self,
                          gint            lane)
{
  g_return_val_if_fail (_sl_timeline_flame_built (self, lane), FALSE);
  const SlFlame *fl = self->flames[lane];
  const SlLane *l = sl_trace_get_lane (self->trace, lane);
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func ((GDestroyNotify) flame_free);
  SlFlame *fresh = flame_new ();

  g_ptr_array_add (keep, fresh);
  fresh->max_depth = fl->max_depth;
  flame_build (self->trace, l, fresh, NULL, fl->cap);
  if (fresh->n_depths != fl->n_depths || fresh->n_samples != fl->n_samples
      || fresh->slot_sym->len != fl->slot_sym->len
      || memcmp (fresh->slot_sym->data, fl->slot_sym->data,
                 fl->slot_sym->len * sizeof (guint32)) != 0)
    return FALSE;
  for (guint d = 0; d < fl->n_depths; d++)
    {
      guint n = fl->boxes[d]->len;
      if (fresh->boxes[d]->len != n
          || memcmp (fresh->boxes[d]->data, fl->boxes[d]->data, n * sizeof (FlameBox)) != 0
          || memcmp (fresh->starts[d], fl->starts[d], n * sizeof (SlTime)) != 0
          || memcmp (fresh->ends[d], fl->ends[d], n * sizeof (SlTime)) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Test hook: whether the lane's flame chart is built (without building it). */
gboolean
_sl_timeline_flame_built (SlTimelineView *self,
                          gint            lane)
{
  return self->flames != NULL && lane >= 0 && (guint) lane < self->n_flames
         && self->flames[lane] != NULL && self->flames[lane]->built;
}

/* Test hook: whether the lane has a stale flame (the one before a live update) to draw. */
gboolean
_sl_timeline_flame_stale (SlTimelineView *self,
                          gint            lane)
{
  return lane >= 0 && (guint) lane < self->n_flames_stale && self->flames_stale[lane] != NULL;
}

/* Whether the lane is drawn as a flame chart (a samples lane with at least one stack). */
gboolean
_sl_timeline_flame_wants (SlTimelineView *self,
                          gint            lane)
{
  SlFlame *fl;

  if (self->trace == NULL || lane < 0 || (guint) lane >= sl_trace_get_n_lanes (self->trace))
    return FALSE;
  fl = flame_get (self, sl_trace_get_lane (self->trace, lane));
  return fl != NULL && fl->max_depth > 0;
}

static char *
expand_key (const SlLane *lane)
{
  return g_strdup_printf ("F:%u", lane->index);
}

static gboolean
flame_expanded (SlTimelineView *self,
                const SlLane   *lane)
{
  g_autofree char *key = expand_key (lane);
  return g_hash_table_contains (self->collapsed, key);
}

/* Depth rows shown: a few by default, up to FLAME_ROWS_MAX when the lane is expanded. */
static guint
flame_rows (SlTimelineView *self,
            const SlLane   *lane,
            SlFlame        *fl)
{
  guint rows = flame_expanded (self, lane) ? FLAME_ROWS_MAX : FLAME_ROWS_COLLAPSED;
  return MAX (MIN (fl->max_depth, rows), 1);
}

double
_sl_timeline_flame_row_h (SlTimelineView *self,
                          const SlLane   *lane)
{
  SlFlame *fl = flame_get (self, lane);

  if (fl == NULL || fl->max_depth == 0)
    return ROW_SAMPLE_H;
  return flame_rows (self, lane, fl) * FLAME_ROW_H + 2;
}

/* "CPU samples", and how many levels of how many when the stacks are cut. */
char *
_sl_timeline_flame_title (SlTimelineView *self,
                          const SlLane   *lane)
{
  SlFlame *fl = flame_get (self, lane);
  guint rows;

  if (fl == NULL || fl->max_depth == 0)
    return g_strdup ("CPU samples");
  rows = flame_rows (self, lane, fl);
  if (rows >= fl->max_depth)
    return g_strdup_printf ("CPU samples · %u levels", fl->max_depth);
  return g_strdup_printf ("CPU samples · %u of %u levels %s", rows, fl->max_depth,
                          flame_expanded (self, lane) ? "▾" : "▸");
}

/* A click on the lane's header: all levels (up to FLAME_ROWS_MAX) or a few. */
gboolean
_sl_timeline_flame_toggle (SlTimelineView *self,
                           gint            lane)
{
  const SlLane *l;
  g_autofree char *key = NULL;

  if (!_sl_timeline_flame_wants (self, lane))
    return FALSE;
  l = sl_trace_get_lane (self->trace, lane);
  key = expand_key (l);
  if (!g_hash_table_remove (self->collapsed, key))
    g_hash_table_add (self->collapsed, g_steal_pointer (&key));
  _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

/* First box of depth `d` from `from` on that ends after t (boxes are disjoint and sorted):
 * galloping from `from`, since a frame walks forward a pixel column at a time and the answer is
 * usually a few boxes on, then a binary search in the last stride. */
static guint
boxes_after (const SlFlame *fl,
             guint          d,
             guint          from,
             SlTime         t)
{
  const SlTime *ends = fl->ends[d];
  guint n = fl->boxes[d]->len, lo = from, hi, step = 1;

  if (lo >= n || ends[lo] > t)
    return lo;
  /* ends[lo] <= t: gallop until ends[hi] > t */
  hi = lo + 1;
  while (hi < n && ends[hi] <= t)
    {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
  hi = MIN (hi, n);
  lo++;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ends[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* A function's colour: its name's hash, mixed (names in a stack often differ by a letter, and
 * g_str_hash of those differs in its low bits only), to a hue and a saturation. */
GdkRGBA
_sl_timeline_flame_color (SlTimelineView *self,
                          guint32         symbol)
{
  guint32 h = g_str_hash (sl_trace_str (self->trace, symbol)) * 2654435761u;
  double hue = (h >> 16) / 65536.0, s = 0.45 + ((h >> 8) & 0xFF) / 255.0 * 0.25;
  double v = self->dark ? 0.78 : 0.74;
  float r, g, b;

  gtk_hsv_to_rgb ((float) hue, (float) s, (float) v, &r, &g, &b);
  return (GdkRGBA) { r, g, b, 1 };
}

static void
slot_keys_ensure (SlTimelineView *self,
                  SlFlame        *fl)
{
  if (fl->slot_key != NULL && fl->slot_epoch == self->colors_epoch)
    return;
  g_free (fl->slot_key);
  fl->slot_key = g_new (guint32, MAX (fl->slot_sym->len, 1));
  for (guint s = 0; s < fl->slot_sym->len; s++)
    {
      GdkRGBA c = _sl_timeline_flame_color (self, g_array_index (fl->slot_sym, guint32, s));
      fl->slot_key[s] = rgb_key (&c);
    }
  fl->slot_epoch = self->colors_epoch;
}

typedef struct
{
  double  x0, x1;
  guint32 symbol;
  guint32 key;
} FlameLabel;

static void
run_add (Run     *runs,
         guint   *n_runs,
         guint    n,
         double   x0,
         double   x1,
         guint32  key)
{
  guint from = (guint) CLAMP (floor_fast (x0), 0, n), to = (guint) CLAMP (ceil (x1), 0, n);

  if (*n_runs > 0 && from < runs[*n_runs - 1].to)
    from = runs[*n_runs - 1].to;
  if (to <= from)
    return;
  runs[(*n_runs)++] = (Run) { from, to, key, 1, 0xFF000000u | (key >> 8) };
}

/*
 * A fold of narrow boxes from x0 to x1, a pixel column at a time: each column in the colour of
 * the function sampled at its middle (one galloping search, from the box before), the fold's
 * grey where none is.  Zoomed out, a function that runs long stays a band of its colour and a
 * thread's phases show, where one grey fold a depth made the chart a solid grey block.  Columns
 * of one colour are one run.
 */
static void
fold_columns (const Frame   *f,
              SlFlame       *fl,
              guint          d,
              guint          n,
              guint          i,
              double         x0,
              double         x1,
              guint32        fold_key,
              Run           *runs,
              guint         *n_runs)
{
  const SlTime *starts = fl->starts[d];
  guint n_boxes = fl->boxes[d]->len;
  gint c0 = (gint) CLAMP (floor_fast (x0), 0, n), c1 = (gint) CLAMP (ceil (x1), 0, n);

  if (*n_runs > 0 && c0 < (gint) runs[*n_runs - 1].to)
    c0 = (gint) runs[*n_runs - 1].to;
  for (gint c = c0; c < c1; c++)
    {
      SlTime mid = f->t0 + (SlTime) ((c + 0.5) / f->scale);
      guint32 key = fold_key;

      i = boxes_after (fl, d, i, mid);
      if (i < n_boxes && starts[i] <= mid)
        key = fl->slot_key[BOX (fl, d, i)->slot];
      if (*n_runs > 0 && runs[*n_runs - 1].key == key && runs[*n_runs - 1].to == (guint) c)
        runs[*n_runs - 1].to = (guint) c + 1;
      else
        runs[(*n_runs)++] = (Run) { (guint) c, (guint) c + 1, key, 1, 0xFF000000u | (key >> 8) };
    }
}

/*
 * One depth of the chart as runs of pixel columns: a box of at least MIN_PX its own run (a pixel
 * short at its right when wide, so that neighbours of one colour stay apart), narrower ones a
 * fold (fold_columns), found a pixel column at a time by binary search: a row costs
 * O(width × log boxes), not O(boxes).
 */
static guint
depth_runs (const Frame    *f,
            SlFlame        *fl,
            guint           d,
            guint           n,
            guint32         fold_key,
            Run            *runs,
            GArray         *labels)
{
  const SlTime *starts = fl->starts[d], *ends = fl->ends[d];
  guint n_boxes = fl->boxes[d]->len, n_runs = 0, i = boxes_after (fl, d, 0, f->t0);

  while (i < n_boxes && starts[i] < f->t1)
    {
      double x0 = (double) (starts[i] - f->t0) * f->scale;
      double x1 = (double) (ends[i] - f->t0) * f->scale;

      if (x1 - x0 >= MIN_PX)
        {
          const FlameBox *b = BOX (fl, d, i);
          guint32 key = fl->slot_key[b->slot];
          run_add (runs, &n_runs, n, x0, x1 - (x1 - x0 >= 4 ? 1 : 0), key);
          if (x1 - x0 >= TEXT_MIN_W && labels != NULL)
            g_array_append_val (labels, ((FlameLabel) { x0, x1, b->symbol, key }));
          i++;
          continue;
        }
      /* narrow boxes from here on: one fold while they follow each other, a pixel column a
       * step */
      guint first = i;
      double fx1 = x1;
      for (;;)
        {
          SlTime next = f->t0 + (SlTime) ((floor_fast (fx1) + 1) / f->scale);
          guint j = boxes_after (fl, d, i + 1, MAX (next, ends[i]));
          fx1 = MAX (fx1, (double) (ends[j - 1] - f->t0) * f->scale);
          i = j;
          if (i >= n_boxes || starts[i] >= f->t1
              || (double) (starts[i] - f->t0) * f->scale > fx1 + 1
              || (double) (ends[i] - starts[i]) * f->scale >= MIN_PX)
            break;
        }
      fold_columns (f, fl, d, n, first, x0, MAX (fx1, x0 + 1), fold_key, runs, &n_runs);
    }
  return n_runs;
}

static void
node_free (gpointer node)
{
  if (node != NULL)
    gsk_render_node_unref (node);
}

/*
 * A box's label as a render node, made once per function, width (to 8 px) and text colour: a
 * zoomed-in chart has ~40 labels a depth, and laying each out with Pango every frame (ellipsized
 * to its box) was ~10 µs apiece, most of such a frame.  NULL when no label fits.  At most 8 k are
 * kept.
 */
static GskRenderNode *
label_node (SlTimelineView *self,
            SlFlame        *fl,
            guint32         symbol,
            double          max_w,
            const GdkRGBA  *tc)
{
  guint64 key, *k;
  int w = (int) MIN (max_w, 4095.0) & ~7;
  gpointer node;

  key = ((guint64) symbol << 13) | ((guint64) w << 1) | (tc->red > 0.5f);
  if (fl->labels == NULL)
    fl->labels = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, node_free);
  if (g_hash_table_lookup_extended (fl->labels, &key, NULL, &node))
    return node;
  if (g_hash_table_size (fl->labels) >= 8192)
    g_hash_table_remove_all (fl->labels);
  {
    GtkSnapshot *snapshot = gtk_snapshot_new ();
    _sl_timeline_draw_text (self, snapshot, symbol, sl_trace_str (self->trace, symbol), 0, 0, w,
                            tc);
    node = gtk_snapshot_free_to_node (snapshot);
  }
  k = g_memdup2 (&key, sizeof key);
  g_hash_table_insert (fl->labels, k, node);
  return node;
}

/* Draws the lane as a flame chart in its row; FALSE when it is no flame (no stacks). */
gboolean
_sl_timeline_flame_draw (SlTimelineView *self,
                         GtkSnapshot    *snapshot,
                         const Frame    *f,
                         const SlLane   *lane,
                         double          y,
                         double          h,
                         gboolean        dim,
                         const guint32  *under)
{
  SlFlame *fl = flame_ready_async (self, lane);
  guint n = (guint) ceil (f->width), rows;

  if (fl == NULL && lane->index < self->n_flames_stale)
    fl = self->flames_stale[lane->index];   /* the one before a live update, until this is built */
  g_autoptr (GArray) labels = NULL;
  GdkRGBA fold = self->pal.dim_fg;
  float bg[4] = { 0, 0, 0, 0 };
  Run *runs;

  if (fl == NULL)
    return FALSE;
  slot_keys_ensure (self, fl);
  rows = MIN (MIN (flame_rows (self, lane, fl), fl->n_depths),
              (guint) MAX ((h - 2) / FLAME_ROW_H, 0));
  _sl_timeline_columns_get (self, n);
  runs = self->runs;
  labels = g_array_new (FALSE, FALSE, sizeof (FlameLabel));
  /* folds: the text colour half over the background, opaque */
  pixel_over (bg, &self->pal.bg, 1);
  fold.alpha = 0.45f;
  pixel_over (bg, &fold, 1);
  guint32 fold_key = (pixel_pack (bg) & 0xFFFFFF) << 8;
  for (guint d = 0; d < rows; d++)
    {
      double dy = y + 1 + d * FLAME_ROW_H;
      guint n_runs;

      if (dy + FLAME_ROW_H < RULER_H)
        continue;
      g_array_set_size (labels, 0);
      n_runs = depth_runs (f, fl, d, n, fold_key, runs, dim ? NULL : labels);
      _sl_timeline_runs_emit (self, snapshot, runs, n_runs, n, dy, FLAME_ROW_H - 1, dim, under);
      for (guint k = 0; k < labels->len && FLAME_ROW_H - 1 >= self->text_h; k++)
        {
          const FlameLabel *l = &g_array_index (labels, FlameLabel, k);
          double x0 = MAX (HEADER_W + l->x0, HEADER_W - 1), x1 = MIN (HEADER_W + l->x1, f->right);
          GdkRGBA c, tc;
          if (x1 - x0 < TEXT_MIN_W)
            continue;
          GskRenderNode *node;
          _sl_rgba_set (&c, l->key >> 8, 1);
          tc = _sl_timeline_text_on (&c);
          node = label_node (self, fl, l->symbol, x1 - x0 - 6, &tc);
          if (node == NULL)
            continue;
          gtk_snapshot_save (snapshot);
          gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (
                                              floor (x0 + 3),
                                              floor (dy + (FLAME_ROW_H - 1 - self->text_h) / 2)));
          gtk_snapshot_append_node (snapshot, node);
          gtk_snapshot_restore (snapshot);
        }
    }
  return TRUE;
}

/* The box at lanes-area x and `dy` px below the top of the lane's row (within 2 px the nearest
 * one); its index, and its depth in `depth`; -1 when none. */
static gint
flame_box_at (SlTimelineView *self,
              const SlLane   *lane,
              SlFlame        *fl,
              double          x,
              double          dy,
              guint          *depth)
{
  gint d = (gint) floor ((dy - 1) / FLAME_ROW_H);
  SlTime t0, t1, t, slack;
  double width = lanes_width (self);
  guint i, n;

  if (d < 0 || (guint) d >= MIN (flame_rows (self, lane, fl), fl->n_depths))
    return -1;
  n = fl->boxes[d]->len;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  t = x_to_time (self, x);
  slack = (SlTime) (2 * (double) (t1 - t0) / width);   /* 2 px */
  i = boxes_after (fl, (guint) d, 0, t - slack);
  if (i >= n || fl->starts[d][i] > t + slack)
    return -1;
  /* the next one when this one ends before t and that one is closer */
  if (i + 1 < n && fl->ends[d][i] <= t && fl->starts[d][i + 1] - t < t - fl->ends[d][i])
    i++;
  *depth = (guint) d;
  return (gint) i;
}

/* The sample of a box whose span holds time t: the last one starting at or before it. */
static gsize
box_sample_at (const SlLane   *lane,
               const FlameBox *b,
               SlTime          t)
{
  gsize after = sl_lane_lower_bound (lane, t < G_MAXINT64 ? t + 1 : t);

  return CLAMP (after, (gsize) b->first + 1, (gsize) b->first + b->n) - 1;
}

/* Hit test of a flame lane: the sample of the box under (x, dy) whose span holds x, and the
 * box's span as a one-event item (a click selects the sample, a double click fits the box). */
gboolean
_sl_timeline_flame_hit (SlTimelineView *self,
                        const SlLane   *lane,
                        double          x,
                        double          dy,
                        SlEventRef     *ref,
                        SlLodItem      *item)
{
  SlFlame *fl = flame_ready (self, lane);
  guint depth;
  gint k;
  gsize i;

  if (fl == NULL || (k = flame_box_at (self, lane, fl, x, dy, &depth)) < 0)
    return FALSE;
  i = box_sample_at (lane, BOX (fl, depth, k), x_to_time (self, x));
  *ref = (SlEventRef) { (gint) lane->index, i };
  *item = (SlLodItem) { fl->starts[depth][k], fl->ends[depth][k], i, 1,
                        fl->ends[depth][k] - fl->starts[depth][k] };
  {
    SlTime t0, t1, px;
    sl_viewport_get_visible (self->viewport, &t0, &t1);
    px = MAX ((SlTime) ((double) (t1 - t0) / lanes_width (self)), 1);
    /* a box under MIN_PX is drawn inside a grey fold: as a fold, a click zooms to where it is */
    if (item->end - item->start < MIN_PX * px)
      {
        item->start = x_to_time (self, x) - 4 * px;
        item->end = item->start + 8 * px;
        item->count = 2;
      }
  }
  return TRUE;
}

/* The tooltip of the box under (x, dy): function, module, samples and span; NULL when none. */
char *
_sl_timeline_flame_tooltip (SlTimelineView *self,
                            const SlLane   *lane,
                            double          x,
                            double          dy)
{
  SlFlame *fl = flame_ready (self, lane);
  const FlameBox *b;
  const guint32 *syms, *mods;
  guint depth, len;
  gint k;
  const char *module = "";

  if (fl == NULL || (k = flame_box_at (self, lane, fl, x, dy, &depth)) < 0)
    return NULL;
  b = BOX (fl, depth, k);
  len = sl_trace_get_callchain (self->trace, lane->events[b->first].aux, &syms, &mods);
  if (depth < len)
    module = sl_trace_str (self->trace, ROOT_AT (mods, len, depth));
  {
    g_autofree char *n = sl_format_int (b->n);
    g_autofree char *span = sl_format_duration (fl->ends[depth][k] - fl->starts[depth][k]);
    g_autofree char *off = sl_format_offset (fl->starts[depth][k]
                                             - sl_trace_get_origin (self->trace));
    return g_strdup_printf ("%s\n%s%sDepth %u · %s %s over %s\nStart %s",
                            sl_trace_str (self->trace, b->symbol), module,
                            *module != '\0' ? "\n" : "", depth, n,
                            b->n == 1 ? "sample" : "samples", span, off);
  }
}

/* Test hook: the span of the box of depth `depth` (0 = root) that holds sample `index`. */
gboolean
sl_timeline_view_get_flame_box (SlTimelineView *self,
                                guint           lane,
                                guint           depth,
                                gsize           index,
                                SlTime         *start,
                                SlTime         *end,
                                guint          *n_samples)
{
  const SlLane *l;
  SlFlame *fl;
  GArray *a;
  guint lo = 0, hi;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL || lane >= sl_trace_get_n_lanes (self->trace))
    return FALSE;
  l = sl_trace_get_lane (self->trace, lane);
  fl = flame_ready (self, l);
  if (fl == NULL || depth >= fl->n_depths)
    return FALSE;
  a = fl->boxes[depth];
  hi = a->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const FlameBox *b = &g_array_index (a, FlameBox, mid);
      if ((gsize) b->first + b->n <= index)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo >= a->len || g_array_index (a, FlameBox, lo).first > index)
    return FALSE;
  *start = fl->starts[depth][lo];
  *end = fl->ends[depth][lo];
  *n_samples = g_array_index (a, FlameBox, lo).n;
  return TRUE;
}
