/* sl-python.h: the Python code objects the targets described (SL_WIRE_PYCODE), to name the
 * Python frames of their stacks: function, file and line; C11, no GLib. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sl-wire.h"

typedef struct _SlPyCodes SlPyCodes;

SlPyCodes *sl_py_codes_new  (void);
void       sl_py_codes_free (SlPyCodes *c);

/* Keeps what an SL_WIRE_PYCODE of process `pid` says (a later one for the same address, a code
 * object freed and another made there, replaces it); false when the record is malformed. */
bool sl_py_codes_add (SlPyCodes          *c,
                      int32_t             pid,
                      const SlWireHeader *h);

/* A frame with SL_WIRE_PYFRAME_BIT: its function's qualified name, file and line; false (and
 * "<python>" / "?" / 0) when the code object was never described. */
bool sl_py_codes_lookup (SlPyCodes   *c,
                         int32_t      pid,
                         uint64_t     frame,
                         const char **name,
                         const char **file,
                         int         *line);

/* The line of code unit `unit` in a 3.11 location table (co_linetable, PEP 657's format) of a code
 * object starting at `firstlineno`; `firstlineno` when the table does not say. */
int sl_py_line (const uint8_t *table,
                size_t         len,
                int            firstlineno,
                uint32_t       unit);

/* The same for the table of CPython `version` (PY_VERSION_HEX >> 16): 3.11+'s location table,
 * 3.10's co_linetable, 3.8 and 3.9's co_lnotab. */
int sl_py_line_for (uint16_t       version,
                    const uint8_t *table,
                    size_t         len,
                    int            firstlineno,
                    uint32_t       unit);
