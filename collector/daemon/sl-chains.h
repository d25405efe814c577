/* sl-chains.h: what lets the trace writer name a frame once per process and address, and write
 * each distinct call chain once: a cache of frame names and a table of chains by their hash;
 * C11, no GLib.
 *
 * Why: a CPU sample of a PyTorch program has ~40 frames, and writing each as its own
 * SAMPLING_CALLCHAINS row (symbol lookup, two string lookups, an insert) cost the daemon
 * ≈ 80 µs a sample, CPU taken from the target on a busy machine.  Of 4,238 samples of
 * bench-pytorch, 745 stacks were distinct and 3,571 (process, address) pairs: looking up and
 * writing those once is what remains.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- frame names: (process, address, leaf) → StringIds ids ---- */

typedef struct
{
  uint64_t    addr;
  int32_t     pid;
  uint32_t    gen;      /* the generation it was looked up at */
  int64_t     symbol;   /* StringIds ids */
  int64_t     module;
  bool        used;
  bool        leaf;
  bool        found;    /* resolved: SAMPLING_CALLCHAINS.unresolved = 0 */
  bool        python;   /* a Python frame: py_name and py_file say what it is */
  const char *py_name;  /* owned by the writer's SlPyCodes: valid until the process's next
                         * generation (a code object described again may free them) */
  const char *py_file;
} SlFrameName;

typedef struct
{
  SlFrameName *slots;     /* open addressing */
  size_t       cap, n;
  size_t       max_slots; /* past it the cache starts again empty (0: SL_FRAME_NAMES_MAX_SLOTS) */
} SlFrameNames;

/* 2^20 slots, 56 MiB: half a million (process, address) pairs, a thousand forked workers of
 * 500 distinct frames each; past that, names are looked up again. */
#define SL_FRAME_NAMES_MAX_SLOTS ((size_t) 1 << 20)

/* The entry of frame `addr` of process `pid` (`is_leaf`: frame 0, looked up as it is, not as a
 * return address) at generation `gen` (the process's count of module records for a native
 * frame, of code-object records for a Python one: a name looked up before one of those may be
 * stale).  *fresh is true when it has to be filled
 * (then its key and generation are set and the rest is the caller's to fill); NULL when out of
 * memory. */
SlFrameName *sl_frame_names_get (SlFrameNames *c,
                                 int32_t       pid,
                                 uint64_t      addr,
                                 bool          is_leaf,
                                 uint32_t      gen,
                                 bool         *fresh);

void sl_frame_names_clear (SlFrameNames *c);

/* ---- chains: the hash of a chain's frames → its id ---- */

/* 128 bits of MurmurHash3 (x64) over a chain's frames, each frame as (address, symbol id,
 * module id × 2 + unresolved): two chains of a recording share a hash by chance with odds about
 * n² / 2^129, 10^-25 for 10^7 distinct chains, so the frames themselves are not kept (an hour at
 * 1 kHz of a few threads: ~10^6 distinct stacks, 40 frames each, would be gigabytes). */
typedef struct
{
  uint64_t h1, h2;
  uint32_t n;
} SlChainHash;

void sl_chain_hash_init  (SlChainHash *h);
void sl_chain_hash_frame (SlChainHash *h,
                          uint64_t     addr,
                          int64_t      symbol,
                          int64_t      module,
                          bool         unresolved);
void sl_chain_hash_end   (SlChainHash *h);

typedef struct
{
  uint64_t h1, h2;
  int64_t  id;   /* 0: empty slot */
  char    *role; /* what the chain's Python frames say its process runs, or NULL */
} SlChain;

typedef struct
{
  SlChain *slots;
  size_t   cap, n;
  size_t   max_slots; /* past it the table starts again empty (0: SL_CHAINS_MAX_SLOTS) */
} SlChains;

/* 2^21 slots, 64 MiB: a million distinct chains (hours at 1 kHz of a Python program); past that,
 * a chain met again is written again under a new id: more rows, the same stacks. */
#define SL_CHAINS_MAX_SLOTS ((size_t) 1 << 21)

/* The chain with hash `h` (ended), or (*fresh) a new one with its key set, whose id (not 0) and
 * role the caller sets at once; NULL when out of memory. */
SlChain *sl_chains_get (SlChains          *t,
                        const SlChainHash *h,
                        bool              *fresh);

void sl_chains_clear (SlChains *t);
