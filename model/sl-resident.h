/* sl-resident.h: how much memory this process holds resident, for `sightline info` and
 * benchmarks. */
#pragma once

#include <glib.h>

/* VmRSS of this process in bytes, 0 where /proc does not tell. */
gsize sl_resident_bytes (void);
