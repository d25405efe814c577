/* sl-control.h: the control protocol between `sightline record` (or the GUI) and sightlined, and
 * where the daemon's socket lives; C11 + POSIX, no GLib.
 *
 * A control message is "SLC1", a 32-bit length, then that many bytes: NUL-terminated strings,
 * the first being the verb.  File descriptors (the program's stdin/stdout/stderr) ride along as
 * SCM_RIGHTS.  Verbs, client → daemon: "hello" HANDSHAKE VERSION BUILD, "record" KEY=VALUE… "--"
 * ARGV…, "stop", "kill", "detach"; daemon → client: "hello" HANDSHAKE VERSION BUILD PID EXE
 * EXE_ID INJECT INJECT_ID, "started" PID, "progress" ELAPSED_NS EVENTS, "exited" WAIT_STATUS,
 * "warning" TEXT, "error" TEXT EXIT_CODE, "done" EVENTS DROPPED REPORTED [WHY] (REPORTED: the
 * processes that reported from the injection library; WHY, when none did, says why).
 *
 * A flight recorder (keep_last_ms=, `record --keep-last`) and a bounded trace (max_size=):
 * client → daemon "snapshot" [PID|FILE]: on a recording's own connection, a copy of its trace
 * (as at its end) while the program goes on; on another, of every flight recorder of the daemon
 * (or the one of that program or file); SIGUSR1 to sightlined does the same for all.  Daemon →
 * client: "snapshots" N (on another connection: how many answers follow), then per file
 * "snapshot" PATH or "snapshot-error" TEXT; "stopped" TEXT when --max-size stopped the recording
 * (the program goes on); "output" PATH before "done" when the trace was renamed at the end (a
 * pattern with %n: recorded into %n = "live", then numbered).
 *
 * The handshake: a client uses only the daemon of its own build, with the injection library it
 * would preload itself (a daemon left running by another install, or by a build since replaced,
 * would run the program without it).  One whose executable is another file than the client's
 * daemon is known at once from the kernel (SO_PEERCRED, /proc/PID/exe), so a daemon older than
 * the handshake, which ignores "hello" and answers nothing, costs no wait; the client starts its
 * own beside it (sl_control_connect_own()).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define SL_CONTROL_MAGIC "SLC1"
#define SL_CONTROL_MAX   (1u << 20) /* a message (the whole environment fits) */
#define SL_CONTROL_MAX_FDS 3

  typedef struct
  {
    char **argv; /* the strings; argv[n] is NULL */
    size_t n;
    int fds[SL_CONTROL_MAX_FDS];
    size_t n_fds;
  } SlControlMsg;

  /* The daemon's socket: $SIGHTLINE_RUNTIME_DIR, else $XDG_RUNTIME_DIR/sightline, else
   * /tmp/sightline-UID; the directory is made mode 0700 and must belong to us.  Returns false
   * with errno set (and `dir` filled) when the directory is unusable. */
  bool sl_control_socket_path (char *path, size_t size, char *dir, size_t dir_size);

  /* Who speaks: the handshake's own version, Sightline's version, and the build's id: a hash of
   * the formats both ends share (sl-wire.h, sl-control.h), made by collector/CMakeLists.txt. */
#define SL_CONTROL_HANDSHAKE    "1"
#define SL_CONTROL_HANDSHAKE_MS 2000 /* an answer takes a poll turn (≤ 50 ms) on a busy daemon */
  const char *sl_control_version (void);
  const char *sl_control_build_id (void);

  /* The injection library the daemon at `daemon_exe` preloads: $SIGHTLINE_INJECT, else
   * libsightline-inject.so beside it, else ../lib/sightline/ from it (an installed prefix).
   * false when none is readable (`out` then holds the last place looked). */
  bool sl_control_find_inject (const char *daemon_exe, char *out, size_t size);

  /* A file's identity, "DEV:INO", for comparing two paths to one file (a daemon's executable, a
   * library); "" when it cannot be stat()ed. */
  void sl_control_file_id (const char *path, char *out, size_t size);

  /* The daemon's answer to "hello": who it is (its pid, executable and injection library). */
  bool sl_control_hello_answer (int fd, const char *inject_path);

  /* Says hello on `fd` and checks the answer, waiting up to `timeout_ms`: true when the daemon is
   * of this version and build, runs `daemon_path` (the same file) and preloads the library this
   * client would (sl_control_find_inject()), which is there.  false with `why` saying what it is
   * instead, for a person ("it runs /opt/p/lib/sightline/sightlined (deleted), pid 4242").  A
   * daemon that runs another file than `daemon_path` is refused before any hello, without
   * waiting: the wait is only for one that runs it and does not answer (a stuck one). */
  bool sl_control_handshake (int fd, const char *daemon_path, int timeout_ms, char *why,
                             size_t why_size);

  /* Connects to this client's own daemon: the one on `path` when it passes the handshake (started
   * when nobody listens there), else one on a socket of this build's own beside it
   * (sightlined-HASH.sock, the hash of the build and the files), started when needed.  Returns
   * the connection; `note` says why the daemon on `path` was passed over, and which socket is
   * used instead ("" when it was not).  -1 when neither can be used, `note` saying why. */
  int sl_control_connect_own (const char *path, const char *daemon_path, int timeout_ms,
                              char *note, size_t note_size);

  /* Connects to the daemon; -1 with errno when nobody listens. */
  int sl_control_connect (const char *path);

  /* Connects, starting `daemon_path --socket PATH` (detached, in its own session) when nobody
   * listens, and waits up to `timeout_ms` for it.  -1 with errno on failure. */
  int sl_control_connect_or_spawn (const char *path, const char *daemon_path, int timeout_ms);

  /* Sends one message of `n` strings (and `n_fds` descriptors).  false with errno. */
  bool sl_control_send (int fd, const char *const *strings, size_t n, const int *fds, size_t n_fds);

  /* Convenience: a message of up to 4 strings, NULL-terminated. */
  bool sl_control_sendv (int fd, const char *verb, const char *a, const char *b, const char *c);

  /* Receives one whole message (blocking).  0 on success, -1 on end of stream or a malformed
   * message (errno EPROTO), with the message freed by sl_control_msg_clear(). */
  int sl_control_recv (int fd, SlControlMsg *msg);
  void sl_control_msg_clear (SlControlMsg *msg);

  /* recvmsg() of up to `len` bytes that also takes the descriptors riding along (appended to
   * fds[*n_fds], at most SL_CONTROL_MAX_FDS; the rest are closed).  As recvmsg() returns. */
  long sl_control_read (int fd, void *buf, size_t len, int flags, int *fds, size_t *n_fds);

  /* Incremental parsing for a poll loop: if `buf` (len bytes) starts with a whole message, fills
   * `msg` (copying strings) and returns its length; 0 when more bytes are needed; -1 when it is
   * malformed. */
  long sl_control_parse (const uint8_t *buf, size_t len, SlControlMsg *msg);

  /* An output file name pattern, expanded as nsys's --output is: %q{VAR} the value of the
   * environment variable VAR (from `lookup`, getenv's shape; an empty value stays empty), %h the
   * host name, %p `pid`, %% a '%'.  `sightline record` gives %p its own pid: the file is made
   * before the program starts, and one `sightline record` runs per rank under srun/mpirun, so it
   * is as unique as nsys's (which names the program's process).  Returns a malloc'd string, or
   * NULL with `err` saying what is wrong: an unset variable (named), "%q{" without its "}", a
   * '%' followed by anything else. */
  char *sl_control_expand_output (const char *pattern,
                                  const char *(*lookup) (const char *name, void *data),
                                  void       *data,
                                  const char *host,
                                  long        pid,
                                  char       *err,
                                  size_t      err_size);

  /* The same, for a flight recorder's pattern (`record --keep-last`): with `keep_n`, "%n" (the
   * number of a file it writes: 1, 2, …) stays, and "%%" too, for the daemon's
   * sl_control_expand_number(); without, "%n" is an error that says so. */
  char *sl_control_expand_pattern (const char *pattern,
                                   const char *(*lookup) (const char *name, void *data),
                                   void       *data,
                                   const char *host,
                                   long        pid,
                                   bool        keep_n,
                                   char       *err,
                                   size_t      err_size);

  /* "%n" of what sl_control_expand_pattern() kept as `n`, "%%" a '%'; malloc'd, NULL when out
   * of memory. */
  char *sl_control_expand_number (const char *pattern, const char *n);

#ifdef __cplusplus
}
#endif
