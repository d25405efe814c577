/* sl-info-set.c: the reader's deduplication of kernel and copy descriptions, by index.
 *
 * A trace keeps each distinct description once (SlTrace.kernel_infos, .copy_infos) and an event
 * holds its index.  Copies of varying size make one description almost each: ~33 k per million
 * events of sightline-gen, 62 k in its 2M trace.  A GHashTable keyed by a copy of each
 * description cost a malloc and ~90 bytes an entry, and a live append had to build it again from
 * the previous trace's descriptions (~7 ns for every event already loaded).  This set holds only
 * the index and hash of each (8 bytes a slot, half full at most) and compares against the
 * trace's own array, so a live trace keeps it and hands it to the next append
 * (SlTrace.info_sets) at no cost.
 */
#include "sl-reader-private.h"

#include <string.h>

typedef struct
{
  guint32 index1;   /* index + 1; 0: empty */
  guint32 hash;
} Slot;

struct _SlInfoSet
{
  gsize      size;     /* bytes of a description */
  GHashFunc  hash;
  GEqualFunc equal;
  Slot      *slots;
  gsize      mask;     /* slots - 1 (a power of two) */
  gsize      n;
};

SlInfoSet *
_sl_info_set_new (gsize      size,
                  GHashFunc  hash,
                  GEqualFunc equal)
{
  SlInfoSet *set = g_new0 (SlInfoSet, 1);

  set->size = size;
  set->hash = hash;
  set->equal = equal;
  set->mask = 63;
  set->slots = g_new0 (Slot, set->mask + 1);
  return set;
}

void
_sl_info_set_free (SlInfoSet *set)
{
  if (set == NULL)
    return;
  g_free (set->slots);
  g_free (set);
}

static void
place (Slot  *slots,
       gsize  mask,
       Slot   slot)
{
  gsize at = slot.hash & mask;

  while (slots[at].index1 != 0)
    at = (at + 1) & mask;
  slots[at] = slot;
}

static void
grow (SlInfoSet *set)
{
  gsize mask = set->mask * 2 + 1;
  Slot *slots = g_new0 (Slot, mask + 1);

  for (gsize i = 0; i <= set->mask; i++)
    if (set->slots[i].index1 != 0)
      place (slots, mask, set->slots[i]);
  g_free (set->slots);
  set->slots = slots;
  set->mask = mask;
}

guint32
_sl_info_set_intern (SlInfoSet    *set,
                     GArray       *infos,
                     gconstpointer info)
{
  guint32 h = set->hash (info);
  gsize at = h & set->mask;

  g_assert (g_array_get_element_size (infos) == set->size);
  for (; set->slots[at].index1 != 0; at = (at + 1) & set->mask)
    {
      const Slot *s = &set->slots[at];
      /* an index past the array: a set handed on by a trace whose descriptions came later
       * (never: the append that takes it starts from that trace's array) */
      g_assert (s->index1 <= infos->len);
      if (s->hash == h && set->equal (infos->data + (gsize) (s->index1 - 1) * set->size, info))
        return s->index1 - 1;
    }
  g_array_append_vals (infos, info, 1);
  set->slots[at] = (Slot) { infos->len, h };
  if (++set->n * 2 > set->mask + 1)
    grow (set);
  return infos->len - 1;
}

void
_sl_info_set_fill (SlInfoSet *set,
                   GArray    *infos)
{
  g_assert (set->n == 0);
  while ((set->mask + 1) < 2 * (gsize) infos->len)
    grow (set);
  for (guint i = 0; i < infos->len; i++)
    place (set->slots, set->mask,
           (Slot) { i + 1, set->hash (infos->data + (gsize) i * set->size) });
  set->n = infos->len;
}

gsize
_sl_info_set_len (const SlInfoSet *set)
{
  return set->n;
}

gsize
_sl_info_set_size (const SlInfoSet *set)
{
  return set != NULL ? sizeof *set + (set->mask + 1) * sizeof (Slot) : 0;
}
