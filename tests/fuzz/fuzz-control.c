/* fuzz-control.c: the control protocol as the daemon reads it from a client (sl_control_parse
 * over a buffer, message after message, as client_message() does), and the output-name patterns
 * a "record" carries (sl_control_expand_output). */
#include <stdlib.h>
#include <string.h>

#include "sl-control.h"
#include "sl-fuzz.h"

SL_FUZZ_DEFINE_INITIALIZE ()

/* every other variable is set: the value is its name backwards, empty for "EMPTY" */
static const char *
lookup (const char *name,
        void       *data)
{
  static char value[256];
  (void) data;
  size_t n = strlen (name);
  if (n % 2 == 1 || n >= sizeof value)
    return NULL;
  for (size_t i = 0; i < n; i++)
    value[i] = name[n - 1 - i];
  value[n] = '\0';
  return value;
}

static void
expand (const char *pattern)
{
  char err[256] = "";
  char *out = sl_control_expand_output (pattern, lookup, NULL, "host", 1234, err, sizeof err);
  /* either a name or a reason, never neither */
  if (out == NULL && err[0] == '\0')
    abort ();
  free (out);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  SlControlMsg msg;
  size_t off = 0;
  long used;

  while ((used = sl_control_parse (data + off, size - off, &msg)) > 0)
    {
      if ((size_t) used > size - off || (msg.n > 0 && (msg.argv == NULL || msg.argv[msg.n] != NULL)))
        abort ();
      for (size_t i = 0; i < msg.n; i++)
        expand (msg.argv[i]);
      sl_control_msg_clear (&msg);
      off += (size_t) used;
    }

  /* the whole input as one pattern */
  char *pattern = malloc (size + 1);
  if (pattern == NULL)
    return 0;
  memcpy (pattern, data, size);
  pattern[size] = '\0';
  expand (pattern);
  free (pattern);
  return 0;
}
