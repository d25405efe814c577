/* sl-python.c: Python code objects by (pid, address) and 3.11 location tables to lines. */
#include "sl-python.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  int32_t  pid;
  uint64_t code;
  char    *name;
  char    *file;
  uint8_t *table;
  size_t   table_len;
  int      firstlineno;
  uint16_t version;
} SlPyCode;

struct _SlPyCodes
{
  SlPyCode *slots; /* open addressing; code == 0: empty */
  size_t    cap, n;
};

SlPyCodes *
sl_py_codes_new (void)
{
  return calloc (1, sizeof (SlPyCodes));
}

void
sl_py_codes_free (SlPyCodes *c)
{
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->cap; i++)
    {
      free (c->slots[i].name);
      free (c->slots[i].file);
      free (c->slots[i].table);
    }
  free (c->slots);
  free (c);
}

static size_t
slot_of (const SlPyCodes *c,
         int32_t          pid,
         uint64_t         code)
{
  uint64_t h = (code ^ ((uint64_t) (uint32_t) pid << 40)) * 0x9e3779b97f4a7c15u;
  size_t i = (size_t) (h >> 20) & (c->cap - 1);

  while (c->slots[i].code != 0 && (c->slots[i].code != code || c->slots[i].pid != pid))
    i = (i + 1) & (c->cap - 1);
  return i;
}

static bool
grow (SlPyCodes *c)
{
  size_t cap = c->cap ? c->cap * 2 : 256;
  SlPyCodes bigger = { calloc (cap, sizeof (SlPyCode)), cap, c->n };

  if (bigger.slots == NULL)
    return false;
  for (size_t i = 0; i < c->cap; i++)
    if (c->slots[i].code != 0)
      bigger.slots[slot_of (&bigger, c->slots[i].pid, c->slots[i].code)] = c->slots[i];
  free (c->slots);
  *c = bigger;
  return true;
}

bool
sl_py_codes_add (SlPyCodes          *c,
                 int32_t             pid,
                 const SlWireHeader *h)
{
  const SlWirePyCode *r = (const SlWirePyCode *) h;
  size_t need = sizeof *r + (size_t) r->name_len + 1 + r->file_len + 1 + r->table_len;
  const char *name = (const char *) (r + 1);
  const char *file = name + r->name_len + 1;

  if (h->size < sizeof *r || need > h->size || name[r->name_len] != '\0'
      || file[r->file_len] != '\0' || r->code == 0 || (r->code & ~SL_WIRE_PYFRAME_CODE) != 0)
    return false;
  if ((c->n + 1) * 2 > c->cap && !grow (c))
    return false;
  SlPyCode *e = &c->slots[slot_of (c, pid, r->code)];
  SlPyCode fresh = { pid, r->code, strdup (name), strdup (file), malloc (r->table_len + 1u),
                     r->table_len, r->firstlineno, r->version };
  if (fresh.name == NULL || fresh.file == NULL || fresh.table == NULL)
    {
      free (fresh.name);
      free (fresh.file);
      free (fresh.table);
      return false;
    }
  memcpy (fresh.table, file + r->file_len + 1, r->table_len);
  if (e->code != 0)
    {
      free (e->name);
      free (e->file);
      free (e->table);
    }
  else
    c->n++;
  *e = fresh;
  return true;
}

bool
sl_py_codes_lookup (SlPyCodes   *c,
                    int32_t      pid,
                    uint64_t     frame,
                    const char **name,
                    const char **file,
                    int         *line)
{
  uint64_t code = frame & SL_WIRE_PYFRAME_CODE;
  const SlPyCode *e = c != NULL && c->cap > 0 ? &c->slots[slot_of (c, pid, code)] : NULL;

  if (e == NULL || e->code == 0)
    {
      *name = "<python>";
      *file = "?";
      *line = 0;
      return false;
    }
  *name = e->name;
  *file = e->file;
  *line = sl_py_line_for (e->version, e->table, e->table_len, e->firstlineno,
                          SL_WIRE_PYFRAME_LASTI (frame));
  return true;
}

static unsigned
varint (const uint8_t *t,
        size_t         len,
        size_t        *i)
{
  unsigned v = 0, shift = 0;

  while (*i < len && shift < 32)
    {
      uint8_t b = t[(*i)++];
      v |= (unsigned) (b & 63) << shift;
      shift += 6;
      if ((b & 64) == 0)
        break;
    }
  return v;
}

static int
svarint (const uint8_t *t,
         size_t         len,
         size_t        *i)
{
  unsigned u = varint (t, len, i);

  return (u & 1) ? -(int) (u >> 1) : (int) (u >> 1);
}

/* Entries: a first byte with bit 7 set, bits 3-6 a code, bits 0-2 the code units covered - 1;
 * code 15: no location, 14: long form (line delta, end line, columns), 13: line delta only,
 * 10-12: line delta code - 10 and two column bytes, 0-9: same line, one column byte. */
int
sl_py_line (const uint8_t *t,
            size_t         len,
            int            firstlineno,
            uint32_t       unit)
{
  int line = firstlineno;
  uint32_t addr = 0;
  size_t i = 0;

  while (i < len)
    {
      uint8_t b = t[i++];
      if ((b & 128) == 0)
        return firstlineno; /* not an entry's start: a table cut short or not 3.11's */
      unsigned code = (b >> 3) & 15, units = (b & 7) + 1u;
      int delta = 0;
      bool has_line = true;
      if (code == 15)
        has_line = false;
      else if (code == 14)
        {
          delta = svarint (t, len, &i);
          varint (t, len, &i);
          varint (t, len, &i);
          varint (t, len, &i);
        }
      else if (code == 13)
        delta = svarint (t, len, &i);
      else if (code >= 10)
        {
          delta = (int) code - 10;
          i += 2;
        }
      else
        i += 1;
      line += delta;
      if (unit < addr + units)
        return has_line ? line : firstlineno;
      addr += units;
    }
  return firstlineno;
}

/* 3.10's co_linetable: (bytes covered, line delta) byte pairs, -128 for no line. */
static int
line_310 (const uint8_t *t,
          size_t         len,
          int            firstlineno,
          uint32_t       byte)
{
  int line = firstlineno;
  uint32_t addr = 0;

  for (size_t i = 0; i + 1 < len; i += 2)
    {
      int delta = (int8_t) t[i + 1];
      if (delta != -128)
        line += delta;
      if (byte < addr + t[i])
        return delta == -128 ? firstlineno : line;
      addr += t[i];
    }
  return firstlineno;
}

/* 3.8 and 3.9's co_lnotab: (bytes advanced, line delta) pairs, as PyCode_Addr2Line reads them. */
static int
line_lnotab (const uint8_t *t,
             size_t         len,
             int            firstlineno,
             uint32_t       byte)
{
  int line = firstlineno;
  uint32_t addr = 0;

  for (size_t i = 0; i + 1 < len; i += 2)
    {
      addr += t[i];
      if (addr > byte)
        break;
      line += (int8_t) t[i + 1];
    }
  return line;
}

int
sl_py_line_for (uint16_t       version,
                const uint8_t *table,
                size_t         len,
                int            firstlineno,
                uint32_t       unit)
{
  if (version >= 0x030b)
    return sl_py_line (table, len, firstlineno, unit);
  if (version == 0x030a)
    return line_310 (table, len, firstlineno, unit * 2);
  return line_lnotab (table, len, firstlineno, unit * 2);
}
