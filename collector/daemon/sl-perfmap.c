/* sl-perfmap.c: perf maps (see sl-perfmap.h).  Each process's map is an array of entries sorted
 * by start when a lookup needs it; the names live in blocks that are never moved or freed before
 * the maps, so the pointers handed out stay valid. */
#include "sl-perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RETRY_NS   1000000000u /* a map that was not there is looked for again after 1 s */
#define NEAR_SCAN  16          /* entries before the found one checked for overlaps */
#define BLOCK_SIZE 65536

typedef struct
{
  uint64_t    start, end;
  uint32_t    seq;      /* order in the file: a later line wins where two overlap */
  const char *symbol;
  const char *module;
} Entry;

typedef struct
{
  int32_t  pid;
  int      fd;          /* -1: not open */
  bool     refused;     /* not a file this daemon trusts: never read */
  uint64_t next_try;    /* CLOCK_MONOTONIC ns before which a missing map is not looked for */
  uint64_t consumed;    /* bytes read up to the last complete line */
  char    *path;
  Entry   *entries;
  size_t   n, cap;
  bool     sorted;
} Map;

typedef struct Block
{
  struct Block *next;
  size_t        used, cap;
  char          data[];
} Block;

struct _SlPerfMaps
{
  char  *dir;
  Map   *maps;
  size_t n_maps, cap_maps;
  Block *blocks;
};

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* A copy of s[0, len) that lives as long as the maps. */
static const char *
keep (SlPerfMaps *m,
      const char *s,
      size_t      len)
{
  if (m->blocks == NULL || m->blocks->cap - m->blocks->used < len + 1)
    {
      size_t cap = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;
      Block *b = malloc (sizeof *b + cap);
      if (b == NULL)
        return NULL;
      b->next = m->blocks;
      b->used = 0;
      b->cap = cap;
      m->blocks = b;
    }
  char *out = m->blocks->data + m->blocks->used;
  memcpy (out, s, len);
  out[len] = '\0';
  m->blocks->used += len + 1;
  return out;
}

SlPerfMaps *
sl_perf_maps_new (const char *dir)
{
  SlPerfMaps *m = calloc (1, sizeof *m);

  if (m != NULL && (m->dir = strdup (dir != NULL ? dir : "/tmp")) == NULL)
    {
      free (m);
      return NULL;
    }
  return m;
}

void
sl_perf_maps_free (SlPerfMaps *m)
{
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->n_maps; i++)
    {
      if (m->maps[i].fd >= 0)
        close (m->maps[i].fd);
      free (m->maps[i].path);
      free (m->maps[i].entries);
    }
  while (m->blocks != NULL)
    {
      Block *next = m->blocks->next;
      free (m->blocks);
      m->blocks = next;
    }
  free (m->maps);
  free (m->dir);
  free (m);
}

static Map *
map_get (SlPerfMaps *m,
         int32_t     pid)
{
  for (size_t i = 0; i < m->n_maps; i++)
    if (m->maps[i].pid == pid)
      return &m->maps[i];
  if (m->n_maps == m->cap_maps)
    {
      size_t cap = m->cap_maps > 0 ? 2 * m->cap_maps : 8;
      Map *maps = realloc (m->maps, cap * sizeof *maps);
      if (maps == NULL)
        return NULL;
      m->maps = maps;
      m->cap_maps = cap;
    }
  Map *map = &m->maps[m->n_maps];
  char path[4096];
  snprintf (path, sizeof path, "%s/perf-%d.map", m->dir, (int) pid);
  *map = (Map) { .pid = pid, .fd = -1, .path = strdup (path) };
  if (map->path == NULL)
    return NULL;
  m->n_maps++;
  return map;
}

/* One "START SIZE name" line (hex, no 0x needed) into an entry; false for anything else. */
static bool
parse_line (SlPerfMaps *m,
            Map        *map,
            const char *line,
            size_t      len)
{
  char *end;
  char text[4096];

  if (len == 0 || len >= sizeof text)
    return false;
  memcpy (text, line, len);
  text[len] = '\0';
  errno = 0;
  uint64_t start = strtoull (text, &end, 16);
  if (end == text || *end != ' ' || errno != 0)
    return false;
  const char *p = end + 1;
  uint64_t size = strtoull (p, &end, 16);
  if (end == p || *end != ' ' || errno != 0 || size == 0 || start + size < start)
    return false;
  const char *name = end + 1;
  size_t name_len = strlen (name);
  while (name_len > 0 && (name[name_len - 1] == '\r' || name[name_len - 1] == ' '))
    name_len--;
  if (name_len == 0)
    return false;

  Entry e = { start, start + size, (uint32_t) map->n, NULL, NULL };
  const char *colon = name_len > 4 && strncmp (name, "py::", 4) == 0
                        ? memchr (name + 4, ':', name_len - 4) : NULL;
  if (colon != NULL && colon > name + 4 && (size_t) (colon - name) + 1 < name_len)
    {
      /* Python's trampoline: py::qualname:file */
      e.symbol = keep (m, name + 4, (size_t) (colon - name) - 4);
      e.module = keep (m, colon + 1, name_len - (size_t) (colon - name) - 1);
    }
  else
    {
      e.symbol = keep (m, name, name_len);
      e.module = map->path;
    }
  if (e.symbol == NULL || e.module == NULL)
    return false;
  if (map->n == map->cap)
    {
      size_t cap = map->cap > 0 ? 2 * map->cap : 256;
      Entry *entries = realloc (map->entries, cap * sizeof *entries);
      if (entries == NULL)
        return false;
      map->entries = entries;
      map->cap = cap;
    }
  map->entries[map->n++] = e;
  map->sorted = false;
  return true;
}

/* Opens the map if it is there and trusted: a regular file (no link followed) of this daemon's
 * user that nobody else may write. */
static void
map_open (Map *map)
{
  uint64_t now = now_ns ();

  if (map->refused || map->fd >= 0 || now < map->next_try)
    return;
  int fd = open (map->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    {
      /* not there (yet: Python writes it when -X perf starts), or a link */
      map->refused = errno == ELOOP;
      map->next_try = now + RETRY_NS;
      return;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid ()
      || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      close (fd);
      map->refused = true;
      return;
    }
  map->fd = fd;
}

/* Reads the complete lines appended since the last read, up to SL_PERF_MAP_MAX_BYTES in all. */
static void
map_read (SlPerfMaps *m,
          Map        *map)
{
  struct stat st;
  char buf[65536];

  map_open (map);
  if (map->fd < 0 || fstat (map->fd, &st) != 0 || (uint64_t) st.st_size <= map->consumed)
    return;
  uint64_t limit = (uint64_t) st.st_size < SL_PERF_MAP_MAX_BYTES ? (uint64_t) st.st_size
                                                                 : SL_PERF_MAP_MAX_BYTES;
  while (map->consumed < limit)
    {
      size_t want = limit - map->consumed < sizeof buf ? (size_t) (limit - map->consumed)
                                                       : sizeof buf;
      ssize_t got = pread (map->fd, buf, want, (off_t) map->consumed);
      if (got <= 0)
        break;
      size_t line = 0, used = 0;
      for (size_t i = 0; i < (size_t) got; i++)
        if (buf[i] == '\n')
          {
            parse_line (m, map, buf + line, i - line);
            line = used = i + 1;
          }
      if (used == 0)
        {
          /* a line longer than the buffer, or one not finished yet */
          if ((size_t) got == sizeof buf)
            map->consumed += (uint64_t) got;   /* too long: skipped */
          break;
        }
      map->consumed += used;
    }
}

static int
compare_entries (const void *a,
                 const void *b)
{
  const Entry *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const Entry *
map_find (Map     *map,
          uint64_t addr)
{
  if (map->n == 0)
    return NULL;
  if (!map->sorted)
    {
      qsort (map->entries, map->n, sizeof *map->entries, compare_entries);
      map->sorted = true;
    }
  /* the last entry starting at or before addr, then the latest of those near it covering it */
  size_t lo = 0, hi = map->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (map->entries[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  const Entry *best = NULL;
  for (size_t k = lo, seen = 0; k > 0 && seen < NEAR_SCAN; k--, seen++)
    {
      const Entry *e = &map->entries[k - 1];
      if (addr < e->end && (best == NULL || e->seq > best->seq))
        best = e;
    }
  return best;
}

bool
sl_perf_maps_lookup (SlPerfMaps  *m,
                     int32_t      pid,
                     uint64_t     addr,
                     const char **symbol,
                     const char **module)
{
  if (m == NULL)
    return false;
  Map *map = map_get (m, pid);
  if (map == NULL || map->refused)
    return false;
  const Entry *e = map_find (map, addr);
  if (e == NULL)
    {
      map_read (m, map);
      e = map_find (map, addr);
    }
  if (e == NULL)
    return false;
  *symbol = e->symbol;
  *module = e->module;
  return true;
}
