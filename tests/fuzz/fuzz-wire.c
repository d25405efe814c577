/* fuzz-wire.c: one target connection's byte stream, framed as the daemon frames it
 * (sl_wire_frame), into the trace writer (every record type, with its checks), committed and
 * finished; the file the writer made is then read back by the model and exercised: whatever a
 * process sends, the daemon writes a trace that Sightline opens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl-fuzz.h"
#include "sl-trace-writer.h"
#include "sl-wire.h"

SL_FUZZ_DEFINE_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = sl_fuzz_path ("wire.sqlite");
  char *error = NULL;

  /* as the daemon's target_consume(): the first record must be a HELLO, which names the pid;
   * the session check is the daemon's and left out */
  long first = sl_wire_frame (data, size);
  if (first < (long) sizeof (SlWireHello))
    return 0;
  const SlWireHello *hello = (const SlWireHello *) data;
  if (hello->h.type != SL_WIRE_HELLO || hello->magic != SL_WIRE_MAGIC
      || hello->version != SL_WIRE_VERSION)
    return 0;

  /* records are read in place, as from the daemon's buffer: 8-byte aligned */
  uint64_t *copy = malloc (size + 8);
  if (copy == NULL)
    return 0;
  memcpy (copy, data, size);
  const uint8_t *buf = (const uint8_t *) copy;

  SlTraceWriter *w = sl_trace_writer_open (path, true, &error);
  if (w == NULL)
    {
      fprintf (stderr, "fuzz-wire: %s\n", error);
      abort ();
    }
  sl_trace_writer_add_meta (w, "PROCESS_0:COMMAND", "fuzz");
  size_t off = 0, n = 0;
  long len;
  while ((len = sl_wire_frame (buf + off, size - off)) > 0)
    {
      sl_trace_writer_add (w, hello->pid, (const SlWireHeader *) (buf + off));
      off += (size_t) len;
      /* a commit now and then, as the daemon's every 200 ms: state carried across commits */
      if (++n % 16 == 0 && !sl_trace_writer_commit (w, &error))
        {
          fprintf (stderr, "fuzz-wire: commit: %s\n", error);
          abort ();
        }
    }
  sl_trace_writer_process_ended (w, hello->pid, 0, true);
  if (!sl_trace_writer_finish (w, &error))
    {
      fprintf (stderr, "fuzz-wire: finish: %s\n", error);
      abort ();
    }
  free (copy);

  /* what the writer made, the model reads (a trace with no events too: with a warning) */
  g_autofree char *load_error = NULL;
  if (!sl_fuzz_load (path, &load_error))
    {
      fprintf (stderr, "fuzz-wire: the writer's trace does not load: %s\n", load_error);
      abort ();
    }
  return 0;
}
