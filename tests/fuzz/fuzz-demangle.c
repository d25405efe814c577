/* fuzz-demangle.c: the kernel-name demangler (collector/daemon/sl-demangle.c) on any text: nsys's
 * two columns, or the name as it came, never a crash, a hang or unbounded output. */
#include <stdlib.h>
#include <string.h>

#include "sl-demangle.h"
#include "sl-fuzz.h"

SL_FUZZ_DEFINE_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* names come NUL-terminated from the wire; bound them as the wire does (64 KiB a record) */
  if (size > 65536)
    return 0;
  char *name = malloc (size + 1);
  if (name == NULL)
    return 0;
  memcpy (name, data, size);
  name[size] = '\0';

  char *base = NULL;
  char *full = sl_kernel_names (name, &base);
  if (full == NULL || base == NULL)
    abort (); /* only when memory runs out, which a 64 KiB name cannot make it */
  /* what is not a mangled name comes back as it is, in both columns */
  if (strncmp (name, "_Z", 2) != 0 && (strcmp (full, name) != 0 || strcmp (base, name) != 0))
    abort ();
  free (full);
  free (base);
  free (_sl_demangle_gnu_style (name));
  free (name);
  return 0;
}
