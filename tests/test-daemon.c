/* test-daemon.c: sightlined under hostile and heavy use, end to end (issue 18): clients that send
 * garbage, oversized or partial messages or vanish mid-message, eight recordings at once through
 * one daemon, another user's connection refused, and the daemon killed and started again between
 * recordings.  Each test has its own runtime directory, so its own daemon. */
#include <errno.h>
#include <glob.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* the wire format before the model: both name an NVTX mark SL_NVTX_MARK (an enum value there, a
 * flag macro here), and only this order compiles */
#include "sl-wire.h"

#include <sqlite3.h>

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

/* Programs that end at once, eight at a time: the daemon may reap one in the poll turn that
 * accepts its connection, or before accepting it; what it sent before it exited (its HELLO, its
 * thread names) must still be taken, not turned away from a session already judged over. */
static void
test_short_programs (void)
{
  g_autofree char *dir = runtime_dir ("short");
  GPid daemon = start_daemon (dir);

  for (int round = 0; round < 3; round++)
    {
      GPid pids[8];
      char *outs[8];
      for (int i = 0; i < 8; i++)
        {
          g_autofree char *name = g_strdup_printf ("short-%d-%d.sqlite", round, i);
          outs[i] = g_build_filename (sl_test_tmpdir (), name, NULL);
          pids[i] = spawn_record (dir, outs[i], "exit", "0");
        }
      for (int i = 0; i < 8; i++)
        g_assert_cmpint (wait_status (pids[i]), ==, 0);
      for (int i = 0; i < 8; i++)
        {
          sqlite3 *db = sl_test_open_db (outs[i]);
          g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM ThreadNames t JOIN StringIds s "
                                                "ON s.id = t.nameId WHERE s.value = 'sl-test-target'"),
                           ==, 1);
          sqlite3_close (db);
          g_free (outs[i]);
        }
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

/* ---- a daemon that is not the client's own (issue 29, item 1) ------------------------------- */

/* Ends every daemon of `dir`: the usual socket's and those beside it (sightlined-HASH.sock). */
static void
stop_all_daemons (const char *dir)
{
  g_autofree char *pattern = g_build_filename (dir, "sightlined*.sock.pid", NULL);
  glob_t g;

  if (glob (pattern, 0, NULL, &g) != 0)
    return;
  for (size_t i = 0; i < g.gl_pathc; i++)
    {
      g_autofree char *text = NULL;
      if (g_file_get_contents (g.gl_pathv[i], &text, NULL, NULL) && atoi (text) > 1)
        {
          GPid pid = atoi (text);
          kill (pid, SIGTERM);
          for (int k = 0; k < 200 && kill (pid, 0) == 0; k++)
            g_usleep (25000);
        }
    }
  globfree (&g);
}

/* `sightline record -o OUT -- sl-test-target spin 300` through the daemon of `dir`, as a person
 * runs it (the daemon found beside the program, none named by the environment): its status, its
 * stderr in *err. */
static int
record_spin (const char *dir,
             const char *out,
             char      **err)
{
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", dir, TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-s", "1000", "-o", out, "--",
                         SL_TARGET_PATH, "spin", "300", NULL };
  g_autoptr (GError) error = NULL;
  int status = -1;

  env = g_environ_unsetenv (env, "SIGHTLINE_DAEMON");
  env = g_environ_unsetenv (env, "SIGHTLINE_INJECT");
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, NULL, err,
                               &status, &error));
  g_assert_no_error (error);
  g_test_message ("record stderr: %s", *err);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* What a recording through a daemon that is not the client's own must never be: "N events
 * written" without the program's events.  Either it holds them (samples and thread names come
 * only from the injection library inside the program), or `record` failed naming the cause. */
static void
check_not_silently_empty (int         code,
                          const char *err,
                          const char *out)
{
  if (code != 0)
    {
      g_assert_null (strstr (err, "events written"));
      g_assert_nonnull (strstr (err, "not this sightline's"));
      return;
    }
  g_assert_nonnull (strstr (err, "events written"));
  sqlite3 *db = sl_test_open_db (out);
  gint64 samples = sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS");
  gint64 names = sl_test_sql_int (db, "SELECT count(*) FROM ThreadNames t JOIN StringIds s "
                                      "ON s.id = t.nameId WHERE s.value = 'sl-test-target'");
  sqlite3_close (db);
  g_assert_cmpint (samples, >, 0);
  g_assert_cmpint (names, >, 0);
}

/* Copies `from` to `to`, executable. */
static void
copy_file (const char *from,
           const char *to)
{
  g_autofree char *data = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (from, &data, &len, &error));
  g_assert_true (g_file_set_contents (to, data, (gssize) len, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (to, 0755), ==, 0);
}

/* The case: a daemon of another install (a prefix, since removed) holds the socket; the
 * next `record` of this build must not run the program through it without the library. */
static void
test_stale_install (void)
{
  g_autofree char *dir = runtime_dir ("stale-install");
  g_autofree char *prefix = g_build_filename (sl_test_tmpdir (), "stale-prefix", NULL);
  g_autofree char *libdir = g_build_filename (prefix, "lib", "sightline", NULL);
  g_autofree char *daemon = g_build_filename (libdir, "sightlined", NULL);
  g_autofree char *inject = g_build_filename (libdir, "libsightline-inject.so", NULL);
  g_autofree char *out = g_build_filename (sl_test_tmpdir (), "stale-install.sqlite", NULL);
  g_autofree char *err = NULL;

  /* the other install's daemon, started as its `sightline record` starts it */
  g_assert_cmpint (g_mkdir_with_parents (libdir, 0755), ==, 0);
  copy_file (SL_DAEMON_PATH, daemon);
  copy_file (SL_INJECT_PATH, inject);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", dir, TRUE);
  env = g_environ_unsetenv (env, "SIGHTLINE_INJECT");
  const char *argv[] = { daemon, "--idle-exit", "60", NULL };
  g_autoptr (GError) error = NULL;
  GPid other;
  /* its output not ours: a failed test must not leave it holding the pipe ctest reads */
  g_assert_true (g_spawn_async (NULL, (char **) argv, env,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                                  | G_SPAWN_STDERR_TO_DEV_NULL,
                                NULL, NULL, &other, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 400 && daemon_pid (dir) != other; i++)
    g_usleep (25000);
  g_assert_cmpint (daemon_pid (dir), ==, other);
  /* the prefix removed, its daemon still running */
  g_assert_cmpint (g_unlink (inject), ==, 0);
  g_assert_cmpint (g_unlink (daemon), ==, 0);

  int code = record_spin (dir, out, &err);
  check_not_silently_empty (code, err, out);
  g_assert_true (alive (other)); /* left alone: it may be someone else's */
  stop_all_daemons (dir);
  waitpid (other, NULL, 0);
}

/* A daemon from before the handshake: it ignores "hello" (answers nothing at all) and would
 * answer a "record" with "started", "exited" and "done 320 0" (here without running anything: a
 * fake). */
static void
old_daemon_main (int listen_fd)
{
  /* gone with the test, also when an assertion ends it */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  for (;;)
    {
      int fd = accept (listen_fd, NULL, NULL);
      if (fd < 0)
        _exit (0);
      for (;;)
        {
          SlControlMsg m;
          if (sl_control_recv (fd, &m) != 0)
            break;
          if (m.n > 0 && strcmp (m.argv[0], "record") == 0)
            {
              sl_control_sendv (fd, "started", "1", "out.sqlite", NULL);
              sl_control_sendv (fd, "exited", "0", NULL, NULL);
              sl_control_sendv (fd, "done", "320", "0", NULL);
            }
          sl_control_msg_clear (&m);
        }
      close (fd);
    }
}

static void
test_old_handshake (void)
{
  g_autofree char *dir = runtime_dir ("old-handshake");
  g_autofree char *path = socket_path (dir);
  g_autofree char *out = g_build_filename (sl_test_tmpdir (), "old-handshake.sqlite", NULL);
  g_autofree char *err = NULL;
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int listen_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpuint (strlen (path), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, path);
  g_assert_cmpint (bind (listen_fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (listen_fd, 16), ==, 0);
  pid_t fake = fork ();
  if (fake == 0)
    old_daemon_main (listen_fd);
  close (listen_fd);

  int code = record_spin (dir, out, &err);
  g_assert_null (strstr (err, "320 events written"));
  check_not_silently_empty (code, err, out);
  /* passed over at once, for what it runs (it is no sightlined), not when the wait for the
   * answer to "hello" that it never gives (SL_CONTROL_HANDSHAKE_MS) ran out */
  g_assert_nonnull (strstr (err, "not this sightline's (it runs "));
  g_assert_null (strstr (err, "did not answer"));

  /* what the viewer's recording (sl_recording_start) and `record` call, our own daemon now
   * running beside it: no wait (2.0 s before the kernel was asked who listens) */
  char note[8192];
  gint64 began = g_get_monotonic_time ();
  int fd = sl_control_connect_own (path, SL_DAEMON_PATH, 5000, note, sizeof note);
  gint64 took = g_get_monotonic_time () - began;
  g_test_message ("sl_control_connect_own: %.1f ms: %s", (double) took / 1000, note);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_nonnull (strstr (note, "(it runs "));
  g_assert_nonnull (strstr (note, "recording through its own"));
  kill (fake, SIGKILL);
  waitpid (fake, NULL, 0);
  stop_all_daemons (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/daemon/garbage-clients", test_garbage_clients);
  g_test_add_func ("/collector/daemon/eight-at-once", test_eight_at_once);
  g_test_add_func ("/collector/daemon/short-programs", test_short_programs);
  g_test_add_func ("/collector/daemon/other-user", test_other_user);
  g_test_add_func ("/collector/daemon/restart", test_restart);
  g_test_add_func ("/collector/daemon/stale-install", test_stale_install);
  g_test_add_func ("/collector/daemon/old-handshake", test_old_handshake);
  return g_test_run ();
}
