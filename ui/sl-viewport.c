/* sl-viewport.c: the visible and selected time ranges, with a zoom history (Back/Forward). */
#include "sl-viewport.h"

#define MIN_SPAN    100      /* ns: the narrowest window one can zoom to */
#define MAX_HISTORY 64

struct _SlViewport
{
  GObject  parent_instance;

  SlTime   start, end;         /* bounds: the whole trace */
  SlTime   t0, t1;             /* visible */
  gboolean has_selection;
  SlTime   sel0, sel1;
  GArray  *back;               /* SlTime pairs */
  GArray  *forward;
  gboolean unsaved;            /* the view shown is one to come back to (the first view, one
                                * gone to) and not in `back`: the first of a run of changes
                                * not remembered (wheel zoom, W/S, pan) saves it there */
};

G_DEFINE_FINAL_TYPE (SlViewport, sl_viewport, G_TYPE_OBJECT)

static SlTimeRange *
sl_time_range_copy (const SlTimeRange *range)
{
  return g_memdup2 (range, sizeof *range);
}

G_DEFINE_BOXED_TYPE (SlTimeRange, sl_time_range, sl_time_range_copy, g_free)

enum
{
  PROP_0,
  PROP_BOUNDS,
  PROP_VISIBLE,
  PROP_SELECTION,
  PROP_HAS_SELECTION,
  PROP_CAN_GO_BACK,
  PROP_CAN_GO_FORWARD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

SlViewport *
sl_viewport_new (void)
{
  return g_object_new (SL_TYPE_VIEWPORT, NULL);
}

static void
sl_viewport_finalize (GObject *object)
{
  SlViewport *self = SL_VIEWPORT (object);

  g_array_unref (self->back);
  g_array_unref (self->forward);
  G_OBJECT_CLASS (sl_viewport_parent_class)->finalize (object);
}

static void
sl_viewport_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  SlViewport *self = SL_VIEWPORT (object);

  switch (prop_id)
    {
    case PROP_BOUNDS:
      g_value_set_boxed (value, &(SlTimeRange) { self->start, self->end });
      break;
    case PROP_VISIBLE:
      g_value_set_boxed (value, &(SlTimeRange) { self->t0, self->t1 });
      break;
    case PROP_SELECTION:
      g_value_set_boxed (value, self->has_selection ? &(SlTimeRange) { self->sel0, self->sel1 }
                                                    : NULL);
      break;
    case PROP_HAS_SELECTION:
      g_value_set_boolean (value, self->has_selection);
      break;
    case PROP_CAN_GO_BACK:
      g_value_set_boolean (value, self->back->len > 0);
      break;
    case PROP_CAN_GO_FORWARD:
      g_value_set_boolean (value, self->forward->len > 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_viewport_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  SlViewport *self = SL_VIEWPORT (object);
  const SlTimeRange *range;

  switch (prop_id)
    {
    case PROP_VISIBLE:
      range = g_value_get_boxed (value);
      if (range != NULL)
        sl_viewport_set_visible (self, range->start, range->end, FALSE);
      break;
    case PROP_SELECTION:
      range = g_value_get_boxed (value);
      if (range != NULL)
        sl_viewport_set_selection (self, range->start, range->end);
      else
        sl_viewport_clear_selection (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_viewport_class_init (SlViewportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sl_viewport_finalize;
  object_class->get_property = sl_viewport_get_property;
  object_class->set_property = sl_viewport_set_property;

  properties[PROP_BOUNDS] =
    g_param_spec_boxed ("bounds", NULL, NULL, SL_TYPE_TIME_RANGE,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Set through the property, the visible range is not remembered in the history. */
  properties[PROP_VISIBLE] =
    g_param_spec_boxed ("visible", NULL, NULL, SL_TYPE_TIME_RANGE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* NULL when nothing is selected; setting NULL clears the selection. */
  properties[PROP_SELECTION] =
    g_param_spec_boxed ("selection", NULL, NULL, SL_TYPE_TIME_RANGE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_SELECTION] =
    g_param_spec_boolean ("has-selection", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_GO_BACK] =
    g_param_spec_boolean ("can-go-back", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_GO_FORWARD] =
    g_param_spec_boolean ("can-go-forward", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sl_viewport_init (SlViewport *self)
{
  self->end = self->t1 = 1000;
  self->back = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);
  self->forward = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);
}

/* Keeps [t0, t1) at least MIN_SPAN wide and inside the bounds plus 5% on each side. */
static void
clamp_range (SlViewport *self,
             SlTime     *t0,
             SlTime     *t1)
{
  SlTime span = self->end - self->start;
  SlTime margin = MAX (span / 20, MIN_SPAN);
  SlTime lo = self->start - margin, hi = self->end + margin;

  if (*t1 - *t0 < MIN_SPAN)
    {
      SlTime mid = *t0 / 2 + *t1 / 2;
      *t0 = mid - MIN_SPAN / 2;
      *t1 = *t0 + MIN_SPAN;
    }
  if (*t1 - *t0 > hi - lo)
    {
      *t0 = lo;
      *t1 = hi;
    }
  if (*t0 < lo)
    {
      *t1 += lo - *t0;
      *t0 = lo;
    }
  if (*t1 > hi)
    {
      *t0 -= *t1 - hi;
      *t1 = hi;
    }
}

/* Notifies "visible", and "can-go-back"/"can-go-forward" where the history's emptiness changed
 * (the caller passes what they were before). */
static void
notify_visible (SlViewport *self,
                gboolean    could_go_back,
                gboolean    could_go_forward)
{
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE]);
  if (could_go_back != (self->back->len > 0))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_GO_BACK]);
  if (could_go_forward != (self->forward->len > 0))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_GO_FORWARD]);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
push (GArray *stack,
      SlTime  t0,
      SlTime  t1)
{
  SlTime pair[2] = { t0, t1 };

  if (stack->len >= MAX_HISTORY)
    g_array_remove_index (stack, 0);
  g_array_append_vals (stack, pair, 1);
}

void
sl_viewport_set_bounds (SlViewport *self,
                        SlTime      start,
                        SlTime      end)
{
  gboolean could_go_back, could_go_forward;

  g_return_if_fail (SL_IS_VIEWPORT (self));
  if (end <= start)
    end = start + MIN_SPAN;
  could_go_back = self->back->len > 0;
  could_go_forward = self->forward->len > 0;
  self->start = start;
  self->end = end;
  g_array_set_size (self->back, 0);
  g_array_set_size (self->forward, 0);
  self->t0 = start;
  self->t1 = end;
  self->unsaved = TRUE;
  /* The one setter that notifies when nothing changed, on purpose: a new trace (a live
   * recording's reload) often has the same bounds, and what follows the viewport must redraw
   * and re-enable Back/Forward for it (the "changed" signal this replaced did the same). */
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BOUNDS]);
  notify_visible (self, could_go_back, could_go_forward);
  g_object_thaw_notify (G_OBJECT (self));
}

void
sl_viewport_get_bounds (SlViewport *self,
                        SlTime     *start,
                        SlTime     *end)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  if (start != NULL)
    *start = self->start;
  if (end != NULL)
    *end = self->end;
}

void
sl_viewport_get_visible (SlViewport *self,
                         SlTime     *t0,
                         SlTime     *t1)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  if (t0 != NULL)
    *t0 = self->t0;
  if (t1 != NULL)
    *t1 = self->t1;
}

void
sl_viewport_set_visible (SlViewport *self,
                         SlTime      t0,
                         SlTime      t1,
                         gboolean    remember)
{
  gboolean could_go_back, could_go_forward;

  g_return_if_fail (SL_IS_VIEWPORT (self));
  clamp_range (self, &t0, &t1);
  if (t0 == self->t0 && t1 == self->t1)
    return;
  could_go_back = self->back->len > 0;
  could_go_forward = self->forward->len > 0;
  if (remember || self->unsaved)
    {
      push (self->back, self->t0, self->t1);
      g_array_set_size (self->forward, 0);
    }
  /* a view remembered is one to come back to; the steps of a zoom or a pan are not */
  self->unsaved = remember;
  self->t0 = t0;
  self->t1 = t1;
  notify_visible (self, could_go_back, could_go_forward);
}

void
sl_viewport_zoom (SlViewport *self,
                  double      factor,
                  SlTime      anchor)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  g_return_if_fail (factor > 0);
  double left = (double) (anchor - self->t0) / factor;
  double right = (double) (self->t1 - anchor) / factor;
  sl_viewport_set_visible (self, anchor - (SlTime) left, anchor + (SlTime) right, FALSE);
}

void
sl_viewport_pan (SlViewport *self,
                 SlTime      delta)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  sl_viewport_set_visible (self, self->t0 + delta, self->t1 + delta, FALSE);
}

void
sl_viewport_show_all (SlViewport *self)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  sl_viewport_set_visible (self, self->start, self->end, TRUE);
}

static gboolean
step_history (SlViewport *self,
              GArray     *from,
              GArray     *to)
{
  gboolean could_go_back = self->back->len > 0, could_go_forward = self->forward->len > 0;

  if (from->len == 0)
    return FALSE;
  SlTime *pair = &g_array_index (from, SlTime, (from->len - 1) * 2);
  SlTime t0 = pair[0], t1 = pair[1];
  g_array_set_size (from, from->len - 1);
  push (to, self->t0, self->t1);
  self->t0 = t0;
  self->t1 = t1;
  /* the view gone to is in neither stack now: a zoom from it saves it, as a new step would */
  self->unsaved = TRUE;
  notify_visible (self, could_go_back, could_go_forward);
  return TRUE;
}

gboolean
sl_viewport_back (SlViewport *self)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), FALSE);
  return step_history (self, self->back, self->forward);
}

gboolean
sl_viewport_forward (SlViewport *self)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), FALSE);
  return step_history (self, self->forward, self->back);
}

gboolean
sl_viewport_can_go_back (SlViewport *self)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), FALSE);
  return self->back->len > 0;
}

gboolean
sl_viewport_can_go_forward (SlViewport *self)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), FALSE);
  return self->forward->len > 0;
}

gboolean
sl_viewport_get_selection (SlViewport *self,
                           SlTime     *t0,
                           SlTime     *t1)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), FALSE);
  if (self->has_selection)
    {
      if (t0 != NULL)
        *t0 = self->sel0;
      if (t1 != NULL)
        *t1 = self->sel1;
    }
  return self->has_selection;
}

void
sl_viewport_set_selection (SlViewport *self,
                           SlTime      t0,
                           SlTime      t1)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  if (t1 < t0)
    {
      SlTime tmp = t0;
      t0 = t1;
      t1 = tmp;
    }
  gboolean had_selection = self->has_selection;

  if (self->has_selection && self->sel0 == t0 && self->sel1 == t1)
    return;
  self->has_selection = TRUE;
  self->sel0 = t0;
  self->sel1 = t1;
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTION]);
  if (!had_selection)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_SELECTION]);
  g_object_thaw_notify (G_OBJECT (self));
}

void
sl_viewport_clear_selection (SlViewport *self)
{
  g_return_if_fail (SL_IS_VIEWPORT (self));
  if (!self->has_selection)
    return;
  self->has_selection = FALSE;
  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_SELECTION]);
  g_object_thaw_notify (G_OBJECT (self));
}

double
sl_viewport_time_to_x (SlViewport *self,
                       SlTime      t,
                       double      width)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), 0);
  return (double) (t - self->t0) * width / (double) (self->t1 - self->t0);
}

SlTime
sl_viewport_x_to_time (SlViewport *self,
                       double      x,
                       double      width)
{
  g_return_val_if_fail (SL_IS_VIEWPORT (self), 0);
  if (width <= 0)
    return self->t0;
  return self->t0 + (SlTime) (x * (double) (self->t1 - self->t0) / width);
}
