/* sl-inject-exec.c: the exec family, interposed so that what the rings hold is sent before the
 * process image (and with it up to SL_FLUSH_MS of records) is replaced; C11 + POSIX, no GLib.
 *
 * glibc's execv, execvp and execvpe call execve internally (not through the PLT), so each is
 * interposed on its own; execl* build an argument vector and call those internals too: they are
 * left alone (rare in programs that matter here: Python's os.exec* use execv/execve).  The calling
 * thread's sampler is stopped first (its signal must not land between the flush and the exec)
 * and started again if the exec fails.
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <unistd.h>

/* Not in a vfork child: it shares our memory (the sampler's registry) but not our connection. */
static bool
before_exec (void)
{
  if (!_sl_owns_process ())
    return false;
  _sl_sample_thread_stop ();
  _sl_flush_now ();
  return true;
}

static void
after_failed_exec (bool stopped)
{
  if (stopped)
    _sl_sample_thread_start ();
}

#define SL_REAL(name) ((__typeof__ (&name)) dlsym (RTLD_NEXT, #name))

SL_EXPORT int
execve (const char  *path,
        char *const  argv[],
        char *const  envp[])
{
  __typeof__ (&execve) real = SL_REAL (execve);

  bool stopped = before_exec ();
  int r = real (path, argv, envp);
  after_failed_exec (stopped);
  return r;
}

SL_EXPORT int
execv (const char  *path,
       char *const  argv[])
{
  __typeof__ (&execv) real = SL_REAL (execv);

  bool stopped = before_exec ();
  int r = real (path, argv);
  after_failed_exec (stopped);
  return r;
}

SL_EXPORT int
execvp (const char  *file,
        char *const  argv[])
{
  __typeof__ (&execvp) real = SL_REAL (execvp);

  bool stopped = before_exec ();
  int r = real (file, argv);
  after_failed_exec (stopped);
  return r;
}

SL_EXPORT int
execvpe (const char  *file,
         char *const  argv[],
         char *const  envp[])
{
  __typeof__ (&execvpe) real = SL_REAL (execvpe);

  bool stopped = before_exec ();
  int r = real (file, argv, envp);
  after_failed_exec (stopped);
  return r;
}

SL_EXPORT int
fexecve (int          fd,
         char *const  argv[],
         char *const  envp[])
{
  __typeof__ (&fexecve) real = SL_REAL (fexecve);

  bool stopped = before_exec ();
  int r = real (fd, argv, envp);
  after_failed_exec (stopped);
  return r;
}
