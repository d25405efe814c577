/* sl-chains.c: the frame-name cache and the chain table of the trace writer (open addressing,
 * grown at half full; typically 10^3 … 10^5 entries each). */
#include "sl-chains.h"

#include <stdlib.h>
#include <string.h>

/* ---- frame names ---- */

static size_t
frame_slot (const SlFrameNames *c,
            int32_t             pid,
            uint64_t            addr,
            bool                leaf)
{
  uint64_t h = (addr ^ ((uint64_t) (uint32_t) pid << 32) ^ (leaf ? 0x5bd1e995u : 0))
               * UINT64_C (0x9e3779b97f4a7c15);
  size_t i = (size_t) (h >> 24) & (c->cap - 1);

  while (c->slots[i].used
         && (c->slots[i].addr != addr || c->slots[i].pid != pid || c->slots[i].leaf != leaf))
    i = (i + 1) & (c->cap - 1);
  return i;
}

static bool
frame_grow (SlFrameNames *c)
{
  size_t max = c->max_slots ? c->max_slots : SL_FRAME_NAMES_MAX_SLOTS;
  size_t cap = c->cap ? c->cap * 2 : max < 4096 ? max : 4096;

  if (c->cap >= max)
    {
      memset (c->slots, 0, c->cap * sizeof (SlFrameName));
      c->n = 0;
      return true;
    }
  SlFrameNames bigger = { calloc (cap, sizeof (SlFrameName)), cap, c->n, c->max_slots };
  if (bigger.slots == NULL)
    return false;
  for (size_t i = 0; i < c->cap; i++)
    if (c->slots[i].used)
      bigger.slots[frame_slot (&bigger, c->slots[i].pid, c->slots[i].addr, c->slots[i].leaf)]
        = c->slots[i];
  free (c->slots);
  *c = bigger;
  return true;
}

SlFrameName *
sl_frame_names_get (SlFrameNames *c,
                    int32_t       pid,
                    uint64_t      addr,
                    bool          is_leaf,
                    uint32_t      gen,
                    bool         *fresh)
{
  if (c->cap == 0 && !frame_grow (c))
    return NULL;
  SlFrameName *e = &c->slots[frame_slot (c, pid, addr, is_leaf)];
  if (e->used && e->gen == gen)
    {
      *fresh = false;
      return e;
    }
  /* grown (or emptied) only to take a new key, so that a hit never loses its entry */
  if (!e->used && (c->n + 1) * 2 > c->cap)
    {
      if (!frame_grow (c))
        return NULL;
      e = &c->slots[frame_slot (c, pid, addr, is_leaf)];
    }
  if (!e->used)
    c->n++;
  *e = (SlFrameName) { .addr = addr, .pid = pid, .gen = gen, .used = true, .leaf = is_leaf };
  *fresh = true;
  return e;
}

void
sl_frame_names_clear (SlFrameNames *c)
{
  free (c->slots);
  *c = (SlFrameNames) { .max_slots = c->max_slots };
}

/* ---- chain hashes: MurmurHash3_x64_128's block step and finalizer (Austin Appleby, public
 * domain), each frame two 16-byte blocks ---- */

#define C1 UINT64_C (0x87c37b91114253d5)
#define C2 UINT64_C (0x4cf5ad432745937f)

static inline uint64_t
rotl (uint64_t x,
      int      r)
{
  return (x << r) | (x >> (64 - r));
}

static inline uint64_t
fmix (uint64_t k)
{
  k ^= k >> 33;
  k *= UINT64_C (0xff51afd7ed558ccd);
  k ^= k >> 33;
  k *= UINT64_C (0xc4ceb9fe1a85ec53);
  k ^= k >> 33;
  return k;
}

static inline void
block (SlChainHash *h,
       uint64_t     k1,
       uint64_t     k2)
{
  k1 *= C1;
  k1 = rotl (k1, 31);
  k1 *= C2;
  h->h1 ^= k1;
  h->h1 = rotl (h->h1, 27);
  h->h1 += h->h2;
  h->h1 = h->h1 * 5 + 0x52dce729;
  k2 *= C2;
  k2 = rotl (k2, 33);
  k2 *= C1;
  h->h2 ^= k2;
  h->h2 = rotl (h->h2, 31);
  h->h2 += h->h1;
  h->h2 = h->h2 * 5 + 0x38495ab5;
}

void
sl_chain_hash_init (SlChainHash *h)
{
  *h = (SlChainHash) { 0x5167687472616365u, 0x636861696e73u, 0 };
}

void
sl_chain_hash_frame (SlChainHash *h,
                     uint64_t     addr,
                     int64_t      symbol,
                     int64_t      module,
                     bool         unresolved)
{
  block (h, addr, (uint64_t) symbol);
  block (h, ((uint64_t) module << 1) | (unresolved ? 1u : 0u), 0);
  h->n++;
}

void
sl_chain_hash_end (SlChainHash *h)
{
  uint64_t len = (uint64_t) h->n * 32;

  h->h1 ^= len;
  h->h2 ^= len;
  h->h1 += h->h2;
  h->h2 += h->h1;
  h->h1 = fmix (h->h1);
  h->h2 = fmix (h->h2);
  h->h1 += h->h2;
  h->h2 += h->h1;
}

/* ---- chains ---- */

static size_t
chain_slot (const SlChains *t,
            uint64_t        h1,
            uint64_t        h2)
{
  size_t i = (size_t) h1 & (t->cap - 1);

  while (t->slots[i].id != 0 && (t->slots[i].h1 != h1 || t->slots[i].h2 != h2))
    i = (i + 1) & (t->cap - 1);
  return i;
}

static void
chains_empty (SlChains *t)
{
  if (t->slots == NULL)
    return;
  for (size_t i = 0; i < t->cap; i++)
    free (t->slots[i].role);
  memset (t->slots, 0, t->cap * sizeof (SlChain));
  t->n = 0;
}

static bool
chain_grow (SlChains *t)
{
  size_t max = t->max_slots ? t->max_slots : SL_CHAINS_MAX_SLOTS;
  size_t cap = t->cap ? t->cap * 2 : max < 4096 ? max : 4096;

  if (t->cap >= max)
    {
      chains_empty (t);
      return true;
    }
  SlChains bigger = { calloc (cap, sizeof (SlChain)), cap, t->n, t->max_slots };
  if (bigger.slots == NULL)
    return false;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slots[i].id != 0)
      bigger.slots[chain_slot (&bigger, t->slots[i].h1, t->slots[i].h2)] = t->slots[i];
  free (t->slots);
  *t = bigger;
  return true;
}

SlChain *
sl_chains_get (SlChains          *t,
               const SlChainHash *h,
               bool              *fresh)
{
  if (t->cap == 0 && !chain_grow (t))
    return NULL;
  SlChain *e = &t->slots[chain_slot (t, h->h1, h->h2)];
  if (e->id == 0 && (t->n + 1) * 2 > t->cap)
    {
      if (!chain_grow (t))
        return NULL;
      e = &t->slots[chain_slot (t, h->h1, h->h2)];
    }
  *fresh = e->id == 0;
  if (*fresh)
    {
      *e = (SlChain) { h->h1, h->h2, 0, NULL };
      t->n++;
    }
  return e;
}

void
sl_chains_clear (SlChains *t)
{
  chains_empty (t);
  free (t->slots);
  *t = (SlChains) { .max_slots = t->max_slots };
}
