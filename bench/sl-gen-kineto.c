/* sl-gen-kineto.c: sightline-gen --format kineto: the generated nsys trace loaded into the model
 * and written as Kineto-shaped Chrome trace JSON (model/sl-export-chrome.c), so that both formats
 * of one seed hold the same events. */
#include "sl-gen-kineto.h"

#include "sl-export.h"
#include "sl-trace.h"

bool
sl_gen_to_kineto (const char *sqlite_path,
                  const char *json_path,
                  char      **error)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (sqlite_path, SL_LOAD_ALL, NULL, NULL, NULL, &err);

  if (trace == NULL
      || !sl_export_chrome (trace, json_path, G_MININT64, G_MAXINT64, &err))
    {
      *error = g_strdup (err != NULL ? err->message : "?");
      return false;
    }
  return true;
}
