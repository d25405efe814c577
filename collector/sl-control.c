/* sl-control.c: the control protocol's framing, socket location, daemon start-up and the
 * handshake that makes sure a client records through its own daemon. */
#include "sl-control.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool
sl_control_socket_path (char   *path,
                        size_t  size,
                        char   *dir,
                        size_t  dir_size)
{
  const char *d = getenv ("SIGHTLINE_RUNTIME_DIR");
  struct stat st;

  if (d != NULL && *d != '\0')
    snprintf (dir, dir_size, "%s", d);
  else if ((d = getenv ("XDG_RUNTIME_DIR")) != NULL && *d != '\0')
    snprintf (dir, dir_size, "%s/sightline", d);
  else
    snprintf (dir, dir_size, "/tmp/sightline-%u", (unsigned) getuid ());
  if (mkdir (dir, 0700) != 0 && errno != EEXIST)
    return false;
  /* a directory someone else made (in /tmp) must not be trusted */
  if (lstat (dir, &st) != 0)
    return false;
  if (!S_ISDIR (st.st_mode) || st.st_uid != getuid () || (st.st_mode & 077) != 0)
    {
      errno = EPERM;
      return false;
    }
  if ((size_t) snprintf (path, size, "%s/sightlined.sock", dir) >= size
      || strlen (path) >= sizeof ((struct sockaddr_un *) 0)->sun_path)
    {
      errno = ENAMETOOLONG;
      return false;
    }
  return true;
}

#ifndef SL_CONTROL_VERSION
#define SL_CONTROL_VERSION "unknown"
#endif
#ifndef SL_CONTROL_BUILD_ID
#define SL_CONTROL_BUILD_ID "unknown"
#endif

const char *
sl_control_version (void)
{
  return SL_CONTROL_VERSION;
}

const char *
sl_control_build_id (void)
{
  return SL_CONTROL_BUILD_ID;
}

bool
sl_control_find_inject (const char *daemon_exe,
                        char       *out,
                        size_t      size)
{
  static const char *const beside[] = { "libsightline-inject.so",
                                        "../lib/sightline/libsightline-inject.so" };
  const char *env = getenv ("SIGHTLINE_INJECT");
  const char *slash = strrchr (daemon_exe, '/');
  int dir_len = slash != NULL ? (int) (slash - daemon_exe) : 1;
  const char *dir = slash != NULL ? daemon_exe : ".";

  if (env != NULL && *env != '\0')
    {
      snprintf (out, size, "%s", env);
      return access (out, R_OK) == 0;
    }
  for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++)
    {
      if ((size_t) snprintf (out, size, "%.*s/%s", dir_len, dir, beside[i]) >= size)
        return false;
      if (access (out, R_OK) == 0)
        return true;
    }
  return false;
}

void
sl_control_file_id (const char *path,
                    char       *out,
                    size_t      size)
{
  struct stat st;

  if (stat (path, &st) != 0)
    snprintf (out, size, "%s", "");
  else
    snprintf (out, size, "%llu:%llu", (unsigned long long) st.st_dev,
              (unsigned long long) st.st_ino);
}

bool
sl_control_hello_answer (int         fd,
                         const char *inject_path)
{
  char pid[32], exe[PATH_MAX], exe_id[64], inject_id[64];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);

  exe[n > 0 ? n : 0] = '\0';
  snprintf (pid, sizeof pid, "%d", (int) getpid ());
  /* the running file, even when its path was deleted or replaced since */
  sl_control_file_id ("/proc/self/exe", exe_id, sizeof exe_id);
  sl_control_file_id (inject_path, inject_id, sizeof inject_id);
  const char *answer[] = { "hello", SL_CONTROL_HANDSHAKE, SL_CONTROL_VERSION, SL_CONTROL_BUILD_ID,
                           pid, exe, exe_id, inject_path, inject_id };
  return sl_control_send (fd, answer, sizeof answer / sizeof answer[0], NULL, 0);
}

/* Who listens on `fd`, as the kernel says (SO_PEERCRED, /proc/PID/exe): true, with `why`, when
 * it runs another file than `daemon_path`.  A daemon from before the handshake ignores "hello"
 * and says nothing at all until a "record" (which it would run without our library), so its
 * answer cannot tell; without this it was known only when the wait for one ran out.  false when
 * it is `daemon_path`, or the kernel does not say (then the answer decides). */
static bool
peer_runs_other (int         fd,
                 const char *daemon_path,
                 char       *why,
                 size_t      why_size)
{
  struct ucred cred;
  socklen_t len = sizeof cred;
  char proc[64], exe[PATH_MAX], exe_id[64], want_id[64];

  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0)
    return false;
  snprintf (proc, sizeof proc, "/proc/%d/exe", (int) cred.pid);
  /* the running file, even when its path was deleted or replaced since */
  sl_control_file_id (proc, exe_id, sizeof exe_id);
  sl_control_file_id (daemon_path, want_id, sizeof want_id);
  if (exe_id[0] == '\0' || want_id[0] == '\0' || strcmp (exe_id, want_id) == 0)
    return false;
  ssize_t n = readlink (proc, exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  snprintf (why, why_size, "it runs %.1024s (pid %d), not %.1024s%s", exe, (int) cred.pid,
            daemon_path,
            strstr (exe, " (deleted)") != NULL ? ": a file deleted or replaced since it started"
                                               : "");
  return true;
}

bool
sl_control_handshake (int         fd,
                      const char *daemon_path,
                      int         timeout_ms,
                      char       *why,
                      size_t      why_size)
{
  const char *hello[] = { "hello", SL_CONTROL_HANDSHAKE, SL_CONTROL_VERSION, SL_CONTROL_BUILD_ID };
  struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 }, none = { 0, 0 };
  char want_id[64], inject[PATH_MAX], inject_id[64];
  SlControlMsg m;
  bool ok = false;

  if (peer_runs_other (fd, daemon_path, why, why_size))
    return false;
  if (!sl_control_send (fd, hello, sizeof hello / sizeof hello[0], NULL, 0))
    {
      snprintf (why, why_size, "it closed the connection (%s)", strerror (errno));
      return false;
    }
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int r = sl_control_recv (fd, &m);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  if (r != 0)
    {
      /* one that runs our daemon's file and says nothing: a stuck one (or the kernel did not
       * say who it is, and it is one from before the handshake, which ignores "hello") */
      snprintf (why, why_size, "it did not answer the handshake in %d ms: a sightlined older than "
                               "this sightline, or a stuck one", timeout_ms);
      return false;
    }
  /* hello HANDSHAKE VERSION BUILD PID EXE EXE_ID INJECT INJECT_ID */
  const char *const *a = (const char *const *) m.argv;
  sl_control_file_id (daemon_path, want_id, sizeof want_id);
  bool have_inject = sl_control_find_inject (daemon_path, inject, sizeof inject);
  sl_control_file_id (inject, inject_id, sizeof inject_id);
  if (m.n < 9 || strcmp (a[0], "hello") != 0)
    snprintf (why, why_size, "it answered the handshake with '%.64s', not 'hello'",
              m.n > 0 ? a[0] : "");
  else if (strcmp (a[1], SL_CONTROL_HANDSHAKE) != 0 || strcmp (a[2], SL_CONTROL_VERSION) != 0
           || strcmp (a[3], SL_CONTROL_BUILD_ID) != 0)
    snprintf (why, why_size, "it is sightlined %.64s (build %.64s, pid %.32s, %.512s); this is "
                             "sightline %s (build %s)",
              a[2], a[3], a[4], a[5], SL_CONTROL_VERSION, SL_CONTROL_BUILD_ID);
  else if (want_id[0] != '\0' && strcmp (a[6], want_id) != 0)
    snprintf (why, why_size, "it runs %.1024s (pid %.32s), not %.1024s%s", a[5], a[4], daemon_path,
              strstr (a[5], " (deleted)") != NULL ? ": a file deleted or replaced since it started"
                                                  : "");
  else if (a[8][0] == '\0')
    snprintf (why, why_size, "its injection library %.1024s is gone (pid %.32s)", a[7], a[4]);
  else if (have_inject && strcmp (a[8], inject_id) != 0)
    snprintf (why, why_size, "it preloads %.1024s (pid %.32s), not %.1024s", a[7], a[4], inject);
  else
    ok = true;
  sl_control_msg_clear (&m);
  return ok;
}

int
sl_control_connect_own (const char *path,
                        const char *daemon_path,
                        int         timeout_ms,
                        char       *note,
                        size_t      note_size)
{
  char first[2048], second[2048], alt[PATH_MAX];
  const char *slash = strrchr (path, '/');
  uint32_t hash = 2166136261u;
  int fd = sl_control_connect_or_spawn (path, daemon_path, timeout_ms);

  note[0] = '\0';
  if (fd < 0)
    {
      int e = errno;
      snprintf (note, note_size, "cannot reach the collector daemon on %s (%s)", path,
                strerror (e));
      errno = e;
      return -1;
    }
  if (sl_control_handshake (fd, daemon_path, SL_CONTROL_HANDSHAKE_MS, first, sizeof first))
    return fd;
  close (fd);

  /* a socket of this build's own, beside the other one: FNV-1a of who we are, so that the same
   * build (and the same files) finds the same daemon again, and another build another one */
  char daemon_id[64], inject[PATH_MAX], inject_id[64];
  sl_control_file_id (daemon_path, daemon_id, sizeof daemon_id);
  sl_control_find_inject (daemon_path, inject, sizeof inject);
  sl_control_file_id (inject, inject_id, sizeof inject_id);
  const char *parts[] = { SL_CONTROL_VERSION, SL_CONTROL_BUILD_ID, daemon_id, inject_id };
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    {
      for (const char *c = parts[i]; *c != '\0'; c++)
        hash = (hash ^ (uint8_t) *c) * 16777619u;
      hash = (hash ^ 0xffu) * 16777619u;
    }
  if ((size_t) snprintf (alt, sizeof alt, "%.*s/sightlined-%08x.sock",
                         slash != NULL ? (int) (slash - path) : 1, slash != NULL ? path : ".",
                         (unsigned) hash)
        >= sizeof ((struct sockaddr_un *) 0)->sun_path)
    {
      snprintf (note, note_size, "the collector daemon on %s is not this sightline's (%s), and a "
                                 "socket of its own beside it would have too long a path",
                path, first);
      errno = ENAMETOOLONG;
      return -1;
    }
  fd = sl_control_connect_or_spawn (alt, daemon_path, timeout_ms);
  if (fd < 0)
    {
      int e = errno;
      snprintf (note, note_size, "the collector daemon on %s is not this sightline's (%s), and "
                                 "one of its own on %s could not be started (%s)",
                path, first, alt, strerror (e));
      errno = e;
      return -1;
    }
  if (!sl_control_handshake (fd, daemon_path, SL_CONTROL_HANDSHAKE_MS, second, sizeof second))
    {
      close (fd);
      snprintf (note, note_size, "the collector daemons on %s (%s) and on %s (%s) are not this "
                                 "sightline's; end them, or wait a minute for them to exit",
                path, first, alt, second);
      errno = EPROTO;
      return -1;
    }
  snprintf (note, note_size, "the collector daemon on %s is not this sightline's (%s): "
                             "recording through its own, on %s",
            path, first, alt);
  return fd;
}

int
sl_control_connect (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      int e = errno;
      close (fd);
      errno = e;
      return -1;
    }
  return fd;
}

int
sl_control_connect_or_spawn (const char *path,
                             const char *daemon_path,
                             int         timeout_ms)
{
  int fd = sl_control_connect (path);
  pid_t pid;

  if (fd >= 0)
    return fd;
  if (access (daemon_path, X_OK) != 0)
    return -1;
  /* double fork: the daemon is nobody's child and has no terminal */
  pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      setsid ();
      if (fork () != 0)
        _exit (0);
      /* nothing of ours stays open in the daemon (a pipe held open would keep whoever reads
       * our output waiting); its messages go to sightlined.log beside the socket */
      char log[PATH_MAX];
      const char *slash = strrchr (path, '/');
      int null = open ("/dev/null", O_RDWR);
      snprintf (log, sizeof log, "%.*s/sightlined.log", slash != NULL ? (int) (slash - path) : 1,
                slash != NULL ? path : ".");
      int logfd = open (log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (null >= 0)
        {
          dup2 (null, 0);
          dup2 (null, 1);
          dup2 (logfd >= 0 ? logfd : null, 2);
        }
      close_range (3, ~0u, 0);
      execl (daemon_path, daemon_path, "--socket", path, (char *) NULL);
      _exit (127);
    }
  waitpid (pid, NULL, 0);
  for (int waited = 0; waited < timeout_ms; waited += 10)
    {
      struct timespec ts = { 0, 10 * 1000000 };
      fd = sl_control_connect (path);
      if (fd >= 0)
        return fd;
      nanosleep (&ts, NULL);
    }
  errno = ETIMEDOUT;
  return -1;
}

bool
sl_control_send (int                fd,
                 const char *const *strings,
                 size_t             n,
                 const int         *fds,
                 size_t             n_fds)
{
  size_t len = 0, off = 8;
  uint8_t *buf;
  uint32_t len32;

  for (size_t i = 0; i < n; i++)
    len += strlen (strings[i]) + 1;
  if (len > SL_CONTROL_MAX || n_fds > SL_CONTROL_MAX_FDS)
    {
      errno = EMSGSIZE;
      return false;
    }
  buf = malloc (len + 8);
  if (buf == NULL)
    return false;
  memcpy (buf, SL_CONTROL_MAGIC, 4);
  len32 = (uint32_t) len;
  memcpy (buf + 4, &len32, 4);
  for (size_t i = 0; i < n; i++)
    {
      size_t l = strlen (strings[i]) + 1;
      memcpy (buf + off, strings[i], l);
      off += l;
    }

  /* the descriptors go with the first bytes */
  size_t sent = 0;
  while (sent < off)
    {
      struct iovec iov = { buf + sent, off - sent };
      struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
      union
      {
        char buf[CMSG_SPACE (sizeof (int) * SL_CONTROL_MAX_FDS)];
        struct cmsghdr align;
      } cbuf;
      if (sent == 0 && n_fds > 0)
        {
          memset (&cbuf, 0, sizeof cbuf);
          mh.msg_control = cbuf.buf;
          mh.msg_controllen = CMSG_SPACE (sizeof (int) * n_fds);
          struct cmsghdr *c = CMSG_FIRSTHDR (&mh);
          c->cmsg_level = SOL_SOCKET;
          c->cmsg_type = SCM_RIGHTS;
          c->cmsg_len = CMSG_LEN (sizeof (int) * n_fds);
          memcpy (CMSG_DATA (c), fds, sizeof (int) * n_fds);
        }
      ssize_t r = sendmsg (fd, &mh, MSG_NOSIGNAL);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          free (buf);
          return false;
        }
      sent += (size_t) r;
    }
  free (buf);
  return true;
}

bool
sl_control_sendv (int         fd,
                  const char *verb,
                  const char *a,
                  const char *b,
                  const char *c)
{
  const char *s[4] = { verb, a, b, c };
  size_t n = 1;

  while (n < 4 && s[n] != NULL)
    n++;
  return sl_control_send (fd, s, n, NULL, 0);
}

void
sl_control_msg_clear (SlControlMsg *msg)
{
  if (msg->argv != NULL)
    {
      free (msg->argv[0]); /* one block: argv[0] is the start of the strings */
      free (msg->argv);
    }
  for (size_t i = 0; i < msg->n_fds; i++)
    close (msg->fds[i]);
  memset (msg, 0, sizeof *msg);
}

long
sl_control_parse (const uint8_t *buf,
                  size_t         len,
                  SlControlMsg  *msg)
{
  uint32_t body;
  size_t n = 0;
  char *strings;

  memset (msg, 0, sizeof *msg);
  if (len < 8)
    return 0;
  if (memcmp (buf, SL_CONTROL_MAGIC, 4) != 0)
    return -1;
  memcpy (&body, buf + 4, 4);
  if (body == 0 || body > SL_CONTROL_MAX)
    return -1;
  if (len < 8 + (size_t) body)
    return 0;
  if (buf[8 + body - 1] != '\0')
    return -1;
  for (uint32_t i = 0; i < body; i++)
    n += buf[8 + i] == '\0';
  strings = malloc (body);
  msg->argv = calloc (n + 1, sizeof (char *));
  if (strings == NULL || msg->argv == NULL)
    {
      free (strings);
      free (msg->argv);
      msg->argv = NULL;
      return -1;
    }
  memcpy (strings, buf + 8, body);
  for (size_t i = 0, off = 0; i < n; i++)
    {
      msg->argv[i] = strings + off;
      off += strlen (strings + off) + 1;
    }
  msg->n = n;
  return 8 + (long) body;
}

long
sl_control_read (int     fd,
                 void   *buf,
                 size_t  len,
                 int     flags,
                 int    *fds,
                 size_t *n_fds)
{
  struct iovec iov = { buf, len };
  union
  {
    char buf[CMSG_SPACE (sizeof (int) * SL_CONTROL_MAX_FDS)];
    struct cmsghdr align;
  } cbuf;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
                       .msg_controllen = sizeof cbuf.buf };
  ssize_t r = recvmsg (fd, &mh, flags | MSG_CMSG_CLOEXEC);

  if (r <= 0)
    return r;
  for (struct cmsghdr *c = CMSG_FIRSTHDR (&mh); c != NULL; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        size_t k = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        int *p = (int *) CMSG_DATA (c);
        for (size_t i = 0; i < k; i++)
          {
            if (*n_fds < SL_CONTROL_MAX_FDS)
              fds[(*n_fds)++] = p[i];
            else
              close (p[i]);
          }
      }
  return r;
}

int
sl_control_recv (int           fd,
                 SlControlMsg *msg)
{
  uint8_t head[8];
  size_t got = 0, want = 8;
  uint8_t *buf = head;
  int fds[SL_CONTROL_MAX_FDS];
  size_t n_fds = 0;

  memset (msg, 0, sizeof *msg);
  for (int phase = 0; phase < 2; phase++)
    {
      while (got < want)
        {
          long r = sl_control_read (fd, buf + got, want - got, 0, fds, &n_fds);
          if (r < 0 && errno == EINTR)
            continue;
          if (r <= 0)
            goto fail;
          got += (size_t) r;
        }
      if (phase == 0)
        {
          uint32_t body;
          if (memcmp (head, SL_CONTROL_MAGIC, 4) != 0)
            goto fail;
          memcpy (&body, head + 4, 4);
          if (body == 0 || body > SL_CONTROL_MAX)
            goto fail;
          buf = malloc (8 + body);
          if (buf == NULL)
            goto fail;
          memcpy (buf, head, 8);
          want = 8 + body;
        }
    }
  long r = sl_control_parse (buf, want, msg);
  free (buf);
  if (r <= 0)
    goto fail_nobuf;
  memcpy (msg->fds, fds, n_fds * sizeof (int));
  msg->n_fds = n_fds;
  return 0;

fail:
  if (buf != head)
    free (buf);
fail_nobuf:
  for (size_t i = 0; i < n_fds; i++)
    close (fds[i]);
  errno = EPROTO;
  return -1;
}

/* A growing string for sl_control_expand_output(); false when out of memory. */
typedef struct
{
  char  *s;
  size_t len, cap;
} Buf;

static bool
buf_add (Buf        *b,
         const char *s,
         size_t      n)
{
  if (b->len + n + 1 > b->cap)
    {
      size_t cap = (b->len + n + 1) * 2;
      char *p = realloc (b->s, cap);
      if (p == NULL)
        return false;
      b->s = p;
      b->cap = cap;
    }
  memcpy (b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
  return true;
}

char *
sl_control_expand_output (const char *pattern,
                          const char *(*lookup) (const char *name, void *data),
                          void       *data,
                          const char *host,
                          long        pid,
                          char       *err,
                          size_t      err_size)
{
  return sl_control_expand_pattern (pattern, lookup, data, host, pid, false, err, err_size);
}

char *
sl_control_expand_number (const char *pattern,
                          const char *n)
{
  Buf b = { NULL, 0, 0 };
  bool ok = buf_add (&b, "", 0);

  for (const char *p = pattern; ok && *p != '\0'; p++)
    {
      if (*p == '%' && p[1] == 'n')
        ok = buf_add (&b, n, strlen (n));
      else if (*p == '%' && p[1] == '%')
        ok = buf_add (&b, "%", 1);
      else
        {
          ok = buf_add (&b, p, 1);
          continue;
        }
      p++;
    }
  if (!ok)
    {
      free (b.s);
      return NULL;
    }
  return b.s;
}

char *
sl_control_expand_pattern (const char *pattern,
                           const char *(*lookup) (const char *name, void *data),
                           void       *data,
                           const char *host,
                           long        pid,
                           bool        keep_n,
                           char       *err,
                           size_t      err_size)
{
  Buf b = { NULL, 0, 0 };
  bool ok = buf_add (&b, "", 0);

  for (const char *p = pattern; ok && *p != '\0'; p++)
    {
      if (*p != '%')
        {
          ok = buf_add (&b, p, 1);
          continue;
        }
      p++;
      if (*p == '%')
        ok = buf_add (&b, keep_n ? "%%" : "%", keep_n ? 2 : 1);
      else if (*p == 'n' && keep_n)
        ok = buf_add (&b, "%n", 2);
      else if (*p == 'h')
        ok = buf_add (&b, host != NULL ? host : "", host != NULL ? strlen (host) : 0);
      else if (*p == 'p')
        {
          char num[32];
          int n = snprintf (num, sizeof num, "%ld", pid);
          ok = buf_add (&b, num, (size_t) n);
        }
      else if (*p == 'q' && p[1] == '{')
        {
          const char *name = p + 2;
          const char *close = strchr (name, '}');
          if (close == NULL || close == name)
            {
              snprintf (err, err_size, "%s: %%q{ wants a variable's name and a closing }",
                        pattern);
              free (b.s);
              return NULL;
            }
          char var[256];
          snprintf (var, sizeof var, "%.*s", (int) (close - name), name);
          const char *value = lookup (var, data);
          if (value == NULL)
            {
              snprintf (err, err_size, "%s: %%q{%s}: the environment variable %s is not set",
                        pattern, var, var);
              free (b.s);
              return NULL;
            }
          ok = buf_add (&b, value, strlen (value));
          p = close;
        }
      else
        {
          if (*p == 'n')
            snprintf (err, err_size, "%s: '%%n' numbers the files of a flight recorder: only with "
                                     "--keep-last", pattern);
          else
            snprintf (err, err_size, "%s: '%%%.1s' is not a pattern (%%q{VAR}, %%h, %%p, %%n; "
                                     "%%%% for a '%%')",
                      pattern, p);
          free (b.s);
          return NULL;
        }
    }
  if (!ok)
    {
      snprintf (err, err_size, "out of memory");
      free (b.s);
      return NULL;
    }
  return b.s;
}
