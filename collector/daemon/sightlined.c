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
  const char *socket_arg = NULL;
  int idle = 60;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0)
        {
          printf ("Usage: sightlined [--idle-exit SECONDS] [--socket PATH]\n\n"
                  "The Sightline collector daemon.  `sightline record` starts it when needed;\n"
                  "it listens on $SIGHTLINE_RUNTIME_DIR, $XDG_RUNTIME_DIR/sightline or\n"
                  "/tmp/sightline-UID (or on PATH), and exits after SECONDS (default 60)\n"
                  "without work.\n");
          return 0;
        }
      if (strcmp (argv[i], "--idle-exit") == 0 && i + 1 < argc)
        idle = atoi (argv[++i]);
      else if (strcmp (argv[i], "--socket") == 0 && i + 1 < argc)
        socket_arg = argv[++i];
      else
        {
          fprintf (stderr, "sightlined: unknown argument '%s' (see --help)\n", argv[i]);
          return 2;
        }
    }
  /* the folder is made and checked (ours, 0700) even when the socket is given: a client gives
   * one beside the usual one (sightlined-HASH.sock, sl_control_connect_own()) */
  if (!sl_control_socket_path (path, sizeof path, dir, sizeof dir))
    {
      perror (dir);
      return 1;
    }
  return sl_daemon_run (socket_arg != NULL ? socket_arg : path, idle);
}
