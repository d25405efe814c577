/* sl-calltree.c: CPU samples aggregated into top-down and bottom-up call trees and functions. */
#include "sl-calltree.h"

#include <stdlib.h>
#include <string.h>

#include "sl-lane.h"

struct _SlCalltree
{
  gint     ref_count;
  SlTrace *trace;
  GArray  *nodes[SL_CALLTREE_N_ORDERS];   /* SlCalltreeNode */
  GArray  *functions;                     /* SlCalltreeFunction */
};

/* ---- open-addressed sets of indices ------------------------------------------------------
 *
 * Nodes, functions and distinct stacks are found by hash in tables of indices into their own
 * arrays (the entry holds the key), so a table costs 4 bytes a slot and no allocation per item.
 */

typedef struct
{
  guint32 *slots;   /* index + 1; 0 = empty */
  guint32  mask;
  guint32  used;
} IndexSet;

static void
index_set_init (IndexSet *set,
                guint32   capacity)
{
  guint32 n = 64;
  while (n < capacity * 2)
    n <<= 1;
  set->slots = g_new0 (guint32, n);
  set->mask = n - 1;
  set->used = 0;
}

static void
index_set_clear (IndexSet *set)
{
  g_clear_pointer (&set->slots, g_free);
}

/* Doubles the table; `hash_of` gives an entry's hash again. */
static void
index_set_grow (IndexSet *set,
                guint32 (*hash_of) (gconstpointer data, guint32 index),
                gconstpointer data)
{
  guint32 *old = set->slots, old_n = set->mask + 1;

  set->slots = g_new0 (guint32, old_n * 2);
  set->mask = old_n * 2 - 1;
  for (guint32 i = 0; i < old_n; i++)
    if (old[i] != 0)
      {
        guint32 s = hash_of (data, old[i] - 1) & set->mask;
        while (set->slots[s] != 0)
          s = (s + 1) & set->mask;
        set->slots[s] = old[i];
      }
  g_free (old);
}

/* A 64-bit finalizer (Stafford's mix13) over the key's words: the table's index takes the low
 * bits, so every bit of every word must reach them (ids are small and consecutive). */
static inline guint32
mix3 (guint32 a,
      guint32 b,
      guint32 c)
{
  guint64 h = ((guint64) a << 32 | b) ^ ((guint64) c * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  h ^= h >> 30;
  h *= G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  h ^= h >> 27;
  h *= G_GUINT64_CONSTANT (0x94D049BB133111EB);
  h ^= h >> 31;
  return (guint32) h;
}

/* ---- nodes ------------------------------------------------------------------------------ */

typedef struct
{
  GArray  *nodes;
  IndexSet set;      /* children by (parent, symbol, module) */
} Tree;

static guint32
node_hash (guint32 parent,
           guint32 symbol,
           guint32 module)
{
  return mix3 (parent, symbol, module);
}

static guint32
node_hash_of (gconstpointer data,
              guint32       index)
{
  const SlCalltreeNode *n = &g_array_index ((GArray *) data, SlCalltreeNode, index);
  return node_hash (n->parent, n->symbol, n->module);
}

static void
tree_init (Tree *tree)
{
  SlCalltreeNode root = { SL_NO_STR, SL_NO_STR, SL_CALLTREE_NONE, SL_CALLTREE_NONE,
                          SL_CALLTREE_NONE, 0, 0, 0 };

  tree->nodes = g_array_new (FALSE, FALSE, sizeof (SlCalltreeNode));
  g_array_append_val (tree->nodes, root);
  index_set_init (&tree->set, 1024);
}

static guint32
tree_child (Tree   *tree,
            guint32 parent,
            guint32 symbol,
            guint32 module)
{
  guint32 h = node_hash (parent, symbol, module);
  guint32 s = h & tree->set.mask;
  SlCalltreeNode *nodes = (SlCalltreeNode *) tree->nodes->data;

  for (guint32 e; (e = tree->set.slots[s]) != 0; s = (s + 1) & tree->set.mask)
    {
      const SlCalltreeNode *n = &nodes[e - 1];
      if (n->parent == parent && n->symbol == symbol && n->module == module)
        return e - 1;
    }

  guint32 index = tree->nodes->len;
  SlCalltreeNode node = { symbol, module, parent, SL_CALLTREE_NONE, SL_CALLTREE_NONE,
                          nodes[parent].depth + 1, 0, 0 };
  g_array_append_val (tree->nodes, node);
  tree->set.slots[s] = index + 1;
  if (++tree->set.used * 2 > tree->set.mask)
    index_set_grow (&tree->set, node_hash_of, tree->nodes);
  return index;
}

static int
compare_siblings (const void *a,
                  const void *b,
                  void       *data)
{
  const SlCalltreeNode *nodes = data;
  const SlCalltreeNode *x = &nodes[*(const guint32 *) a], *y = &nodes[*(const guint32 *) b];

  if (x->parent != y->parent)
    return x->parent < y->parent ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->symbol != y->symbol)
    return x->symbol < y->symbol ? -1 : 1;
  return x->module < y->module ? -1 : x->module > y->module;
}

/* Links every node into its parent's list of children, largest total first. */
static GArray *
tree_finish (Tree *tree)
{
  SlCalltreeNode *nodes = (SlCalltreeNode *) tree->nodes->data;
  guint32 n = tree->nodes->len;

  index_set_clear (&tree->set);
  if (n > 1)
    {
      g_autofree guint32 *order = g_new (guint32, n - 1);
      for (guint32 i = 1; i < n; i++)
        order[i - 1] = i;
      g_qsort_with_data (order, n - 1, sizeof *order, compare_siblings, nodes);
      /* sorted by parent, then by total: walk backwards, pushing each at its list's head */
      for (guint32 k = n - 1; k-- > 0;)
        {
          SlCalltreeNode *node = &nodes[order[k]];
          node->next_sibling = nodes[node->parent].first_child;
          nodes[node->parent].first_child = order[k];
        }
    }
  return g_steal_pointer (&tree->nodes);
}

/* ---- distinct stacks -------------------------------------------------------------------- */

typedef struct
{
  guint32 chain;    /* call-chain index of the first sample with this stack */
  guint32 hash;
  guint64 count;
} Stack;

typedef struct
{
  SlTrace *trace;
  GArray  *stacks;  /* Stack */
  IndexSet set;
  guint64  no_stack;
  guint64  n_samples;
} Stacks;

static guint32
stack_hash_of (gconstpointer data,
               guint32       index)
{
  return g_array_index ((GArray *) data, Stack, index).hash;
}

static void
stacks_add (Stacks  *st,
            guint32  chain)
{
  const guint32 *syms, *mods;
  guint n = sl_trace_get_callchain (st->trace, chain, &syms, &mods);

  st->n_samples++;
  if (n == 0)
    {
      st->no_stack++;
      return;
    }

  guint32 h = 0x811C9DC5u ^ n;
  for (guint i = 0; i < n; i++)
    h = (h ^ syms[i]) * 0x01000193u;
  h = mix3 (h, n, 0);

  Stack *all = (Stack *) st->stacks->data;
  guint32 s = h & st->set.mask;
  for (guint32 e; (e = st->set.slots[s]) != 0; s = (s + 1) & st->set.mask)
    {
      Stack *k = &all[e - 1];
      if (k->hash != h)
        continue;
      const guint32 *ksyms, *kmods;
      if (sl_trace_get_callchain (st->trace, k->chain, &ksyms, &kmods) == n
          && memcmp (ksyms, syms, n * sizeof *syms) == 0
          && memcmp (kmods, mods, n * sizeof *mods) == 0)
        {
          k->count++;
          return;
        }
    }

  Stack stack = { chain, h, 1 };
  st->set.slots[s] = st->stacks->len + 1;
  g_array_append_val (st->stacks, stack);
  if (++st->set.used * 2 > st->set.mask)
    index_set_grow (&st->set, stack_hash_of, st->stacks);
}

/* Every sample of the scope, lane by lane; FALSE when cancelled. */
static gboolean
stacks_collect (Stacks                *st,
                const SlCalltreeScope *scope,
                GCancellable          *cancellable)
{
  guint n_threads = sl_trace_get_n_threads (st->trace);
  g_autofree gboolean *wanted = NULL;

  if (scope->threads != NULL)
    {
      wanted = g_new0 (gboolean, MAX (n_threads, 1));
      for (guint i = 0; i < scope->n_threads; i++)
        if (scope->threads[i] < n_threads)
          wanted[scope->threads[i]] = TRUE;
    }
  for (guint l = 0; l < sl_trace_get_n_lanes (st->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (st->trace, l);
      if (lane->kind != SL_LANE_SAMPLES || lane->thread < 0)
        continue;
      if (wanted != NULL && ((guint) lane->thread >= n_threads || !wanted[lane->thread]))
        continue;
      for (gsize i = sl_lane_lower_bound (lane, scope->t0); i < lane->n_events; i++)
        {
          if (lane->events[i].start >= scope->t1)
            break;
          if ((i & 0xFFFF) == 0 && g_cancellable_is_cancelled (cancellable))
            return FALSE;
          stacks_add (st, lane->events[i].aux);
        }
    }
  return TRUE;
}

/* ---- functions -------------------------------------------------------------------------- */

typedef struct
{
  GArray  *functions;  /* SlCalltreeFunction */
  GArray  *stamp;      /* guint32: the last stack that counted the function, + 1 */
  IndexSet set;
} Functions;

static guint32
function_hash (guint32 symbol,
               guint32 module)
{
  return mix3 (symbol, module, 0x811C9DC5u);
}

static guint32
function_hash_of (gconstpointer data,
                  guint32       index)
{
  const SlCalltreeFunction *f = &g_array_index ((GArray *) data, SlCalltreeFunction, index);
  return function_hash (f->symbol, f->module);
}

static guint32
function_find (Functions *fs,
               guint32    symbol,
               guint32    module)
{
  guint32 s = function_hash (symbol, module) & fs->set.mask;
  SlCalltreeFunction *all = (SlCalltreeFunction *) fs->functions->data;

  for (guint32 e; (e = fs->set.slots[s]) != 0; s = (s + 1) & fs->set.mask)
    if (all[e - 1].symbol == symbol && all[e - 1].module == module)
      return e - 1;

  guint32 index = fs->functions->len, zero = 0;
  SlCalltreeFunction f = { symbol, module, 0, 0 };
  g_array_append_val (fs->functions, f);
  g_array_append_val (fs->stamp, zero);
  fs->set.slots[s] = index + 1;
  if (++fs->set.used * 2 > fs->set.mask)
    index_set_grow (&fs->set, function_hash_of, fs->functions);
  return index;
}

/* Counts a stack once in each function it holds, and in its leaf's self. */
static void
functions_add (Functions     *fs,
               guint32        stack,
               const guint32 *syms,
               const guint32 *mods,
               guint          n,
               guint64        count)
{
  for (guint i = 0; i < n; i++)
    {
      guint32 f = function_find (fs, syms[i], mods[i]);
      SlCalltreeFunction *fn = &g_array_index (fs->functions, SlCalltreeFunction, f);
      guint32 *stamp = &g_array_index (fs->stamp, guint32, f);
      if (*stamp != stack + 1)
        {
          *stamp = stack + 1;
          fn->total += count;
        }
      if (i == 0)
        fn->self += count;
    }
}

static int
compare_functions (const void *a,
                   const void *b)
{
  const SlCalltreeFunction *x = a, *y = b;

  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->symbol != y->symbol)
    return x->symbol < y->symbol ? -1 : 1;
  return x->module < y->module ? -1 : x->module > y->module;
}

/* ---- building ---------------------------------------------------------------------------- */

void
sl_calltree_scope_init (SlCalltreeScope *scope)
{
  g_return_if_fail (scope != NULL);
  *scope = (SlCalltreeScope) { G_MININT64, G_MAXINT64, NULL, 0 };
}

SlCalltree *
sl_calltree_build (SlTrace               *trace,
                   const SlCalltreeScope *scope,
                   GCancellable          *cancellable,
                   GError               **error)
{
  SlCalltreeScope whole;
  Stacks st = { trace, g_array_new (FALSE, FALSE, sizeof (Stack)), { 0 }, 0, 0 };
  Tree td, bu;
  Functions fs = { g_array_new (FALSE, FALSE, sizeof (SlCalltreeFunction)),
                   g_array_new (FALSE, FALSE, sizeof (guint32)), { 0 } };

  g_return_val_if_fail (trace != NULL, NULL);
  if (scope == NULL)
    {
      sl_calltree_scope_init (&whole);
      scope = &whole;
    }

  index_set_init (&st.set, 4096);
  index_set_init (&fs.set, 1024);
  tree_init (&td);
  tree_init (&bu);
  gboolean ok = stacks_collect (&st, scope, cancellable);
  index_set_clear (&st.set);

  for (guint32 k = 0; ok && k < st.stacks->len; k++)
    {
      const Stack *stack = &g_array_index (st.stacks, Stack, k);
      const guint32 *syms, *mods;
      guint n = sl_trace_get_callchain (trace, stack->chain, &syms, &mods);
      guint64 c = stack->count;

      if ((k & 0xFFF) == 0 && g_cancellable_is_cancelled (cancellable))
        ok = FALSE;
      /* top-down: from the outermost frame (the chain's end) to the leaf */
      guint32 node = 0;
      for (guint i = n; i-- > 0;)
        {
          node = tree_child (&td, node, syms[i], mods[i]);
          g_array_index (td.nodes, SlCalltreeNode, node).total += c;
        }
      g_array_index (td.nodes, SlCalltreeNode, node).self += c;
      /* bottom-up: from the leaf outwards */
      node = 0;
      for (guint i = 0; i < n; i++)
        {
          node = tree_child (&bu, node, syms[i], mods[i]);
          SlCalltreeNode *b = &g_array_index (bu.nodes, SlCalltreeNode, node);
          b->total += c;
          if (i == 0)
            b->self += c;
        }
      functions_add (&fs, k, syms, mods, n, c);
    }
  if (ok && st.no_stack > 0)
    {
      guint32 none = SL_CALLTREE_NO_STACK, empty = SL_NO_STR;
      Tree *trees[] = { &td, &bu };
      for (guint t = 0; t < G_N_ELEMENTS (trees); t++)
        {
          guint32 i = tree_child (trees[t], 0, none, empty);   /* may move the array */
          SlCalltreeNode *n = &g_array_index (trees[t]->nodes, SlCalltreeNode, i);
          n->self += st.no_stack;
          n->total += st.no_stack;
        }
      functions_add (&fs, st.stacks->len, &none, &empty, 1, st.no_stack);
    }
  g_array_unref (st.stacks);
  index_set_clear (&fs.set);
  g_array_unref (fs.stamp);

  SlCalltree *tree = g_new0 (SlCalltree, 1);
  tree->ref_count = 1;
  tree->trace = sl_trace_ref (trace);
  tree->functions = fs.functions;
  g_array_index (td.nodes, SlCalltreeNode, 0).total = st.n_samples;
  g_array_index (bu.nodes, SlCalltreeNode, 0).total = st.n_samples;
  tree->nodes[SL_CALLTREE_TOP_DOWN] = tree_finish (&td);
  tree->nodes[SL_CALLTREE_BOTTOM_UP] = tree_finish (&bu);
  if (!ok)
    {
      sl_calltree_unref (tree);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return NULL;
    }
  qsort (tree->functions->data, tree->functions->len, sizeof (SlCalltreeFunction),
         compare_functions);
  return tree;
}

SlCalltree *
sl_calltree_ref (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_int_inc (&tree->ref_count);
  return tree;
}

void
sl_calltree_unref (SlCalltree *tree)
{
  if (tree == NULL || !g_atomic_int_dec_and_test (&tree->ref_count))
    return;
  for (guint i = 0; i < SL_CALLTREE_N_ORDERS; i++)
    g_array_unref (tree->nodes[i]);
  g_array_unref (tree->functions);
  sl_trace_unref (tree->trace);
  g_free (tree);
}

/* ---- reading ----------------------------------------------------------------------------- */

SlTrace *
sl_calltree_get_trace (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  return tree->trace;
}

guint64
sl_calltree_get_n_samples (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, 0);
  return g_array_index (tree->nodes[SL_CALLTREE_TOP_DOWN], SlCalltreeNode, 0).total;
}

guint
sl_calltree_get_n_nodes (SlCalltree      *tree,
                         SlCalltreeOrder  order)
{
  g_return_val_if_fail (tree != NULL && order < SL_CALLTREE_N_ORDERS, 0);
  return tree->nodes[order]->len;
}

const SlCalltreeNode *
sl_calltree_get_node (SlCalltree      *tree,
                      SlCalltreeOrder  order,
                      guint            i)
{
  g_return_val_if_fail (tree != NULL && order < SL_CALLTREE_N_ORDERS, NULL);
  g_return_val_if_fail (i < tree->nodes[order]->len, NULL);
  return &g_array_index (tree->nodes[order], SlCalltreeNode, i);
}

guint
sl_calltree_get_n_functions (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, 0);
  return tree->functions->len;
}

const SlCalltreeFunction *
sl_calltree_get_function (SlCalltree *tree,
                          guint       i)
{
  g_return_val_if_fail (tree != NULL && i < tree->functions->len, NULL);
  return &g_array_index (tree->functions, SlCalltreeFunction, i);
}

const char *
sl_calltree_symbol_name (SlCalltree *tree,
                         guint32     symbol)
{
  g_return_val_if_fail (tree != NULL, NULL);
  if (symbol == SL_CALLTREE_NO_STACK)
    return "[no stack]";
  const char *s = sl_trace_str (tree->trace, symbol);
  return s == NULL || *s == '\0' ? "[unknown]" : s;
}

/* ---- output ------------------------------------------------------------------------------ */

static void
append_folded_name (GString    *out,
                    const char *name)
{
  for (const char *c = name; *c != '\0'; c++)
    g_string_append_c (out, *c == ';' || *c == '\n' || *c == '\r' ? '_' : *c);
}

typedef struct
{
  char   *line;
  guint64 count;
} FoldedLine;

static int
compare_folded (const void *a,
                const void *b)
{
  return strcmp (((const FoldedLine *) a)->line, ((const FoldedLine *) b)->line);
}

void
sl_calltree_write_folded (SlCalltree *tree,
                          GString    *out)
{
  g_return_if_fail (tree != NULL && out != NULL);

  const SlCalltreeNode *nodes = (const SlCalltreeNode *) tree->nodes[SL_CALLTREE_TOP_DOWN]->data;
  /* stacks that differ only in modules print the same line: one line, their counts summed */
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GString) path = g_string_new (NULL);
  g_autoptr (GArray) offsets = g_array_new (FALSE, FALSE, sizeof (gsize));   /* path length per depth */
  guint32 node = nodes[0].first_child;

  /* depth-first, keeping the path to the current node in `path` */
  while (node != SL_CALLTREE_NONE)
    {
      const SlCalltreeNode *n = &nodes[node];
      g_array_set_size (offsets, n->depth);
      g_string_truncate (path, n->depth > 1 ? g_array_index (offsets, gsize, n->depth - 2) : 0);
      if (n->depth > 1)
        g_string_append_c (path, ';');
      append_folded_name (path, sl_calltree_symbol_name (tree, n->symbol));
      g_array_index (offsets, gsize, n->depth - 1) = path->len;
      if (n->self > 0)
        {
          gpointer old = NULL;
          if (g_hash_table_lookup_extended (lines, path->str, NULL, &old))
            g_hash_table_insert (lines, g_strdup (path->str),
                                 GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + n->self));
          else
            g_hash_table_insert (lines, g_strdup (path->str), GSIZE_TO_POINTER (n->self));
        }
      if (n->first_child != SL_CALLTREE_NONE)
        node = n->first_child;
      else
        {
          while (node != SL_CALLTREE_NONE && nodes[node].next_sibling == SL_CALLTREE_NONE)
            node = nodes[node].parent;
          if (node != SL_CALLTREE_NONE)
            node = node == 0 ? SL_CALLTREE_NONE : nodes[node].next_sibling;
        }
    }

  g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (FoldedLine),
                                                 g_hash_table_size (lines));
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, lines);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FoldedLine line = { key, GPOINTER_TO_SIZE (value) };
      g_array_append_val (sorted, line);
    }
  g_array_sort (sorted, compare_folded);
  for (guint i = 0; i < sorted->len; i++)
    {
      const FoldedLine *line = &g_array_index (sorted, FoldedLine, i);
      g_string_append_printf (out, "%s %" G_GUINT64_FORMAT "\n", line->line, line->count);
    }
}

void
sl_calltree_write_top (SlCalltree *tree,
                       GString    *out)
{
  g_return_if_fail (tree != NULL && out != NULL);

  guint64 n = sl_calltree_get_n_samples (tree);
  double scale = n > 0 ? 100.0 / (double) n : 0.0;

  g_string_append_printf (out, "%" G_GUINT64_FORMAT " samples\n\n", n);
  g_string_append_printf (out, "%10s %7s %10s %7s  %s\n", "Self", "Self%", "Total", "Total%",
                          "Function [module]");
  for (guint i = 0; i < tree->functions->len; i++)
    {
      const SlCalltreeFunction *f = &g_array_index (tree->functions, SlCalltreeFunction, i);
      const char *module = f->module != SL_NO_STR ? sl_trace_str (tree->trace, f->module) : "";
      g_string_append_printf (out, "%10" G_GUINT64_FORMAT " %6.2f%% %10" G_GUINT64_FORMAT
                              " %6.2f%%  %s", f->self, (double) f->self * scale, f->total,
                              (double) f->total * scale, sl_calltree_symbol_name (tree, f->symbol));
      if (module != NULL && *module != '\0')
        g_string_append_printf (out, " [%s]", module);
      g_string_append_c (out, '\n');
    }
}
