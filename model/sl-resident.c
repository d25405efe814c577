/* sl-resident.c: resident memory of this process, read from /proc/self/status. */
#include "sl-resident.h"

#include <string.h>

gsize
sl_resident_bytes (void)
{
  g_autofree char *status = NULL;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  const char *line = strstr (status, "VmRSS:");
  return line != NULL ? (gsize) g_ascii_strtoull (line + 6, NULL, 10) * 1024 : 0;
}
