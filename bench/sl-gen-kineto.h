/* sl-gen-kineto.h: sightline-gen's Kineto JSON output (sl-gen-kineto.c). */
#pragma once

#include <stdbool.h>

/* Writes the nsys trace at `sqlite_path` as Kineto JSON to `json_path` (gzip when it ends in
 * .gz).  False with a message in *error (free()able) when it cannot. */
bool sl_gen_to_kineto (const char *sqlite_path,
                       const char *json_path,
                       char      **error);
