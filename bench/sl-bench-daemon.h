/* sl-bench-daemon.h: finding the collector daemon a benchmark's recordings went to (the
 * benchmarks that measure its CPU and memory). */
#pragma once

#include <glib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The pid of the daemon listening in `run_dir` (SO_PEERCRED of a connection), 0 if none. */
static inline pid_t
sl_bench_daemon_pid (const char *run_dir)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct ucred cred = { 0 };
  socklen_t len = sizeof cred;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_snprintf (addr.sun_path, sizeof addr.sun_path, "%s/sightlined.sock", run_dir);
  if (fd < 0)
    return 0;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0
      || getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    cred.pid = 0;
  close (fd);
  return cred.pid;
}
