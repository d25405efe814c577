/* sightlined.c: the collector daemon's main().  Started on demand by `sightline record` (or the
 * GUI), it exits after a minute without recordings or clients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl-control.h"
#include "sl-daemon.h"

int
main (int   argc,
      char *argv[])
{
  char path[256], dir[256];
  int idle = 60;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0)
        {
          printf ("Usage: sightlined [--idle-exit SECONDS]\n\n"
                  "The Sightline collector daemon.  `sightline record` starts it when needed;\n"
                  "it listens on $SIGHTLINE_RUNTIME_DIR, $XDG_RUNTIME_DIR/sightline or\n"
                  "/tmp/sightline-UID, and exits after SECONDS (default 60) without work.\n");
          return 0;
        }
      if (strcmp (argv[i], "--idle-exit") == 0 && i + 1 < argc)
        idle = atoi (argv[++i]);
    }
  if (!sl_control_socket_path (path, sizeof path, dir, sizeof dir))
    {
      perror (dir);
      return 1;
    }
  return sl_daemon_run (path, idle);
}
