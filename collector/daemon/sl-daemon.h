/* sl-daemon.h: sightlined, the collector daemon: one per user, listening on a Unix socket, it
 * launches programs with the injection library in place, gathers the records of every process of
 * their trees and writes each recording with its own writer thread. */
#pragma once

#include <stdbool.h>

/* Runs the daemon on the socket `path` until it has been idle (no recording, no client) for
 * `idle_exit_s` seconds (0: forever).  Returns the process exit status. */
int sl_daemon_run (const char *path, int idle_exit_s);
