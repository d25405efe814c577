/* test-daemon.c: sightlined under hostile and heavy use, end to end (issue 18): clients that send
 * garbage, oversized or partial messages or vanish mid-message, eight recordings at once through
 * one daemon, another user's connection refused, and the daemon killed and started again between
 * recordings.  Each test has its own runtime directory, so its own daemon. */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* the wire format before the model: both name an NVTX mark SL_NVTX_MARK (an enum value there, a
 * flag macro here), and only this order compiles */
#include "sl-wire.h"

#include "sl-control.h"
#include "sl-test-util.h"
#include "sl-trace.h"

/* A private runtime directory (mode 0700, as the daemon demands) for one test. */
static char *
runtime_dir (const char *name)
{
  char *dir = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  return dir;
}

static char *
socket_path (const char *dir)
{
  return g_build_filename (dir, "sightlined.sock", NULL);
}

/* The pid the daemon of `dir` wrote beside its socket, 0 when there is none. */
static GPid
daemon_pid (const char *dir)
{
  g_autofree char *pidfile = g_build_filename (dir, "sightlined.sock.pid", NULL);
  g_autofree char *text = NULL;

  if (!g_file_get_contents (pidfile, &text, NULL, NULL))
    return 0;
  return atoi (text) > 1 ? atoi (text) : 0;
}

static gboolean
alive (GPid pid)
{
  /* a child of ours that exited is a zombie until reaped: ask waitpid first */
  int status;
  if (waitpid (pid, &status, WNOHANG) == pid)
    return FALSE;
  return kill (pid, 0) == 0;
}

/* Starts sightlined on `dir` (as `sightline record` would, but as our child, to watch it). */
static GPid
start_daemon (const char *dir)
{
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", dir, TRUE);
  const char *argv[] = { SL_DAEMON_PATH, "--idle-exit", "600", NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  /* listening once it wrote its pid (a loaded machine or ASan: seconds) */
  for (int i = 0; i < 400 && daemon_pid (dir) != pid; i++)
    g_usleep (25000);
  g_assert_cmpint (daemon_pid (dir), ==, pid);
  return pid;
}

static void
stop_daemon (const char *dir,
             GPid        own)
{
  GPid pid = daemon_pid (dir);
  if (pid > 0)
    kill (pid, SIGTERM);
  if (own > 0)
    waitpid (own, NULL, 0);
  for (int i = 0; i < 200 && pid > 0 && kill (pid, 0) == 0; i++)
    g_usleep (25000);
}

/* `sightline record -o OUT -- sl-test-target ARGS…` against the daemon of `dir`, started
 * (not waited for): its pid. */
static GPid
spawn_record (const char *dir,
              const char *out,
              const char *mode,
              const char *arg)
{
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", dir, TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-o", out, "--", SL_TARGET_PATH, mode, arg,
                         NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;

  env = g_environ_setenv (env, "SIGHTLINE_DAEMON", SL_DAEMON_PATH, TRUE);
  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  return pid;
}

static int
wait_status (GPid pid)
{
  int status = -1;
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* A recording through the daemon of `dir` that must work: `sl-test-target spin MS`, read back. */
static void
check_recording (const char *dir,
                 const char *name,
                 const char *ms)
{
  g_autofree char *out = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (wait_status (spawn_record (dir, out, "spin", ms)), ==, 0);
  g_autoptr (SlTrace) trace = sl_trace_load (out, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_processes (trace), >=, 1);
  g_assert_cmpuint (sl_trace_get_n_events (trace), >, 0);
}

static int
connect_to (const char *dir)
{
  g_autofree char *path = socket_path (dir);
  int fd = sl_control_connect (path);
  g_assert_cmpint (fd, >=, 0);
  return fd;
}

static void
send_all (int         fd,
          const void *data,
          size_t      len)
{
  const char *p = data;
  while (len > 0)
    {
      ssize_t n = send (fd, p, len, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return; /* the daemon already closed it: what we are testing */
      p += n;
      len -= (size_t) n;
    }
}

/* Whether the daemon closes `fd` within `ms` (reading and dropping what it says). */
static gboolean
closed_by_daemon (int fd,
                  int ms)
{
  struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (int waited = 0; waited < ms; waited += 100)
    {
      char buf[4096];
      ssize_t n = recv (fd, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET))
        return TRUE;
    }
  return FALSE;
}

/* ---- garbage ------------------------------------------------------------------------------- */

static void
test_garbage_clients (void)
{
  g_autofree char *dir = runtime_dir ("garbage");
  GPid daemon = start_daemon (dir);
  guint8 junk[65536];
  guint32 seed = sl_test_seed ();
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < sizeof junk; i++)
    junk[i] = (guint8) g_rand_int (rand);
  g_rand_free (rand);

  /* bytes that are neither protocol: closed (as a target whose first record is no HELLO) */
  {
    int fd = connect_to (dir);
    junk[0] = 'x';
    send_all (fd, junk, sizeof junk);
    g_assert_true (closed_by_daemon (fd, 10000));
    close (fd);
  }
  /* a target HELLO with a wrong magic, and one naming a session that does not exist: closed */
  for (int k = 0; k < 2; k++)
    {
      SlWireHello h = { { SL_WIRE_HELLO, sizeof h, 1 }, k == 0 ? 0xdeadbeef : SL_WIRE_MAGIC,
                        SL_WIRE_VERSION, 4242, 1, 987654321, 1, 1 };
      int fd = connect_to (dir);
      send_all (fd, &h, sizeof h);
      g_assert_true (closed_by_daemon (fd, 10000));
      close (fd);
    }
  /* a control message claiming 4 GiB, then one that would fill the daemon's buffer (1 MiB) and
   * never end: the first is dropped, the second closes the connection */
  {
    int fd = connect_to (dir);
    guint8 head[8] = { 'S', 'L', 'C', '1', 0xff, 0xff, 0xff, 0xff };
    send_all (fd, head, sizeof head);
    guint32 body = SL_CONTROL_MAX;
    memcpy (head + 4, &body, 4);
    send_all (fd, head, sizeof head);
    for (int i = 0; i < 24; i++)
      send_all (fd, junk, sizeof junk);
    g_assert_true (closed_by_daemon (fd, 10000));
    close (fd);
  }
  /* a "record" that asks for nothing, and one of a program that does not exist: answered with an
   * error, not a crash */
  {
    int fd = connect_to (dir);
    g_assert_true (sl_control_sendv (fd, "record", "output=/nonexistent/x.sqlite", NULL, NULL));
    SlControlMsg msg;
    g_assert_cmpint (sl_control_recv (fd, &msg), ==, 0);
    g_assert_cmpstr (msg.argv[0], ==, "error");
    sl_control_msg_clear (&msg);
    close (fd);
  }
  /* half a message, and the client gone; 300 connections opened and dropped at once */
  {
    int fd = connect_to (dir);
    guint8 part[20] = { 'S', 'L', 'C', '1', 100, 0, 0, 0, 'r', 'e', 'c' };
    send_all (fd, part, sizeof part);
    close (fd);
    int many[300];
    for (int i = 0; i < 300; i++)
      many[i] = connect_to (dir);
    for (int i = 0; i < 300; i++)
      close (many[i]);
  }
  /* a slow client holding half a message open does not stop a real recording */
  int slow = connect_to (dir);
  guint8 part[12] = { 'S', 'L', 'C', '1', 200, 0, 0, 0, 'r', 'e', 'c', 'o' };
  send_all (slow, part, sizeof part);
  check_recording (dir, "after-garbage.sqlite", "200");
  close (slow);

  g_assert_true (alive (daemon));
  g_assert_cmpint (daemon_pid (dir), ==, daemon);
  stop_daemon (dir, daemon);
}

/* ---- load ----------------------------------------------------------------------------------- */

static void
test_eight_at_once (void)
{
  g_autofree char *dir = runtime_dir ("eight");
  GPid daemon = start_daemon (dir);
  GPid pids[8];
  char *outs[8];

  for (int i = 0; i < 8; i++)
    {
      g_autofree char *name = g_strdup_printf ("eight-%d.sqlite", i);
      outs[i] = g_build_filename (sl_test_tmpdir (), name, NULL);
      pids[i] = spawn_record (dir, outs[i], "spin", "400");
    }
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (wait_status (pids[i]), ==, 0);
  /* each file holds its own program, sampled, and nothing of the seven others */
  for (int i = 0; i < 8; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (outs[i], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (sl_trace_get_n_processes (trace), ==, 1);
      g_assert_cmpuint (sl_trace_get_n_events (trace), >, 0);
      g_free (outs[i]);
    }
  g_assert_true (alive (daemon));
  stop_daemon (dir, daemon);
}

/* ---- another user --------------------------------------------------------------------------- */

static void
test_other_user (void)
{
  if (getuid () != 0)
    {
      g_test_skip ("needs root, to connect as another user (CI runs as root)");
      return;
    }
  g_autofree char *dir = runtime_dir ("other-user");
  GPid daemon = start_daemon (dir);
  g_autofree char *path = socket_path (dir);
  g_autofree char *out = g_build_filename (dir, "stolen.sqlite", NULL);

  /* open the way to the socket, so that only the daemon's own check stands between */
  g_assert_cmpint (chmod (sl_test_tmpdir (), 0711), ==, 0);
  g_assert_cmpint (chmod (dir, 0777), ==, 0);
  g_assert_cmpint (chmod (path, 0777), ==, 0);
  pid_t child = fork ();
  if (child == 0)
    {
      /* nobody: a client of another uid asks for a recording */
      if (setgroups (0, NULL) != 0 || setresgid (65534, 65534, 65534) != 0
          || setresuid (65534, 65534, 65534) != 0)
        _exit (3);
      int fd = sl_control_connect (path);
      if (fd < 0)
        _exit (4);
      g_autofree char *output = g_strdup_printf ("output=%s", out);
      const char *msg[] = { "record", output, "--", "/bin/true" };
      sl_control_send (fd, msg, 4, NULL, 0);
      char buf[256];
      ssize_t n = recv (fd, buf, sizeof buf, 0);
      _exit (n <= 0 ? 0 : 5); /* closed without a word: refused */
    }
  g_assert_cmpint (child, >, 0);
  int status = wait_status (child);
  chmod (sl_test_tmpdir (), 0700);
  /* 3: could not become nobody, 4: could not connect, 5: the daemon answered */
  g_assert_cmpint (status, ==, 0);
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_assert_true (alive (daemon));
  stop_daemon (dir, daemon);
}

/* ---- restart -------------------------------------------------------------------------------- */

static void
test_restart (void)
{
  g_autofree char *dir = runtime_dir ("restart");

  /* `record` starts the daemon on demand; killed, it leaves its socket file behind */
  check_recording (dir, "restart-1.sqlite", "100");
  GPid first = daemon_pid (dir);
  g_assert_cmpint (first, >, 0);
  kill (first, SIGKILL);
  for (int i = 0; i < 200 && kill (first, 0) == 0; i++)
    g_usleep (25000);
  g_assert_cmpint (kill (first, 0), !=, 0);
  g_autofree char *sock = socket_path (dir);
  g_assert_true (g_file_test (sock, G_FILE_TEST_EXISTS));
  /* the next recording starts a new one over the stale socket */
  check_recording (dir, "restart-2.sqlite", "100");
  GPid second = daemon_pid (dir);
  g_assert_cmpint (second, >, 0);
  g_assert_cmpint (second, !=, first);
  stop_daemon (dir, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/daemon/garbage-clients", test_garbage_clients);
  g_test_add_func ("/collector/daemon/eight-at-once", test_eight_at_once);
  g_test_add_func ("/collector/daemon/other-user", test_other_user);
  g_test_add_func ("/collector/daemon/restart", test_restart);
  return g_test_run ();
}
