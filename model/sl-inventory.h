/* sl-inventory.h: what a trace file holds: every table with its rows, how many were loaded and
 * why the rest were not, nsys's diagnostics and the records a recording lost. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

typedef enum
{
  SL_TABLE_LOADED,       /* read, row by row: `loaded` of `rows`, the rest skipped for `why` */
  SL_TABLE_METADATA,     /* read whole: names, enum labels, diagnostics, the schema version */
  SL_TABLE_NOT_LOADED,   /* Sightline reads it, but this load did not (see `why`) */
  SL_TABLE_UNKNOWN,      /* not read by Sightline yet */
} SlTableState;

typedef struct
{
  char         *name;
  SlTableState  state;
  gint64        rows;      /* -1 when the table cannot be counted (damaged) */
  gint64        loaded;    /* rows that became events, names, …; repaired ones included */
  gint64        skipped;   /* rows - loaded */
  gint64        repaired;  /* loaded, but with a time clamped or an end moved to the start */
  char         *why;       /* why rows were skipped or repaired, or why the table was not read;
                            * "" when there is nothing to say */
} SlTableInfo;

typedef struct
{
  SlTime  time;            /* ns, as the file has it */
  char   *severity;        /* "Info", "Warning", "Error" … (ENUM_DIAGNOSTIC_SEVERITY_LEVEL) */
  char   *source;          /* "Injection", "Analysis" … (ENUM_DIAGNOSTIC_SOURCE_TYPE) */
  char   *text;
} SlInventoryDiagnostic;

typedef struct
{
  char   *source;          /* "ring buffer full", "CUPTI", "samples" */
  gint64  count;
} SlLostRecords;

typedef struct _SlInventory SlInventory;

/* Reads the inventory of the file `trace` was loaded from: the tables of the file (counted with
 * SQL where the loader did not read them), what the loader recorded for each, DIAGNOSTIC_EVENT
 * and SIGHTLINE_DROPPED_RECORDS.  NULL and `error` set when the file cannot be opened. */
SlInventory        *sl_inventory_new             (SlTrace     *trace,
                                                  GError     **error);
void                sl_inventory_free            (SlInventory *inv);

guint               sl_inventory_get_n_tables    (SlInventory *inv);
/* Tables in name order. */
const SlTableInfo  *sl_inventory_get_table       (SlInventory *inv,
                                                  guint        i);
/* The table of that name, or NULL. */
const SlTableInfo  *sl_inventory_find_table      (SlInventory *inv,
                                                  const char  *name);
guint               sl_inventory_get_n_diagnostics (SlInventory *inv);
const SlInventoryDiagnostic *sl_inventory_get_diagnostic  (SlInventory *inv,
                                                  guint        i);
/* Lost records summed by source (SIGHTLINE_DROPPED_RECORDS, written by `sightline record`). */
guint               sl_inventory_get_n_lost      (SlInventory *inv);
const SlLostRecords *sl_inventory_get_lost       (SlInventory *inv,
                                                  guint        i);
/* A state as people read it: "loaded", "metadata", "not loaded", "not read by Sightline yet". */
const char         *sl_table_state_label         (SlTableState state);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlInventory, sl_inventory_free)

G_END_DECLS
