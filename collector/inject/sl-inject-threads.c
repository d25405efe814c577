/* sl-inject-threads.c: thread creation and names.  pthread_create is interposed so that every new
 * thread starts with its ring, its name record and its sampling timer before the program's code;
 * pthread_setname_np and prctl(PR_SET_NAME) send the names the program gives. */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct
{
  void *(*start) (void *);
  void *arg;
  unsigned slot;
} Trampoline;

static __typeof__ (pthread_create) *real_pthread_create;
static __typeof__ (pthread_setname_np) *real_pthread_setname_np;
static int (*real_prctl) (int, unsigned long, unsigned long, unsigned long, unsigned long);

/* pthread_t → kernel tid of the threads started through us, for naming a thread from another
 * one (the usual pattern: create, then pthread_setname_np(t, "worker")); glibc has no
 * pthread_gettid_np before 2.42.  The creator takes a slot before the thread exists and fills
 * in its pthread_t; the thread fills in its tid.  4096 slots, reused round robin. */
#define N_TIDS 4096
static struct
{
  _Atomic unsigned long thread;
  _Atomic uint32_t      tid;
} tids[N_TIDS];
static _Atomic unsigned next_tid;

static uint32_t
tid_of (pthread_t thread)
{
  for (unsigned i = 0; i < N_TIDS; i++)
    if (atomic_load (&tids[i].thread) == (unsigned long) thread)
      {
        /* named right after creation: the thread may not have run yet (≤ 20 ms) */
        _sl_enter_library ();
        for (int k = 0; k < 2000 && atomic_load (&tids[i].tid) == 0; k++)
          usleep (10);
        _sl_leave_library ();
        return atomic_load (&tids[i].tid);
      }
  return 0;
}

static void *
trampoline_main (void *data)
{
  Trampoline t = *(Trampoline *) data;

  free (data);
  atomic_store (&tids[t.slot].tid, _sl_tid ());
  _sl_thread_started ();
  return t.start (t.arg);
}

SL_EXPORT int
pthread_create (pthread_t            *thread,
                const pthread_attr_t *attr,
                void *(*start) (void *),
                void *arg)
{
  if (real_pthread_create == NULL)
    real_pthread_create = (__typeof__ (real_pthread_create)) dlsym (RTLD_NEXT, "pthread_create");
  if (_sl_in_library ())
    return real_pthread_create (thread, attr, start, arg);
  /* one small allocation per thread created: not a hot path */
  Trampoline *t = malloc (sizeof *t);
  if (t == NULL)
    return real_pthread_create (thread, attr, start, arg);
  t->start = start;
  t->arg = arg;
  t->slot = atomic_fetch_add (&next_tid, 1) % N_TIDS;
  atomic_store (&tids[t->slot].thread, 0);
  atomic_store (&tids[t->slot].tid, 0);
  int r = real_pthread_create (thread, attr, trampoline_main, t);
  if (r != 0)
    free (t);
  else
    atomic_store (&tids[t->slot].thread, (unsigned long) *thread);
  return r;
}

SL_EXPORT int
pthread_setname_np (pthread_t   thread,
                    const char *name)
{
  if (real_pthread_setname_np == NULL)
    real_pthread_setname_np = (__typeof__ (real_pthread_setname_np)) dlsym (RTLD_NEXT,
                                                                           "pthread_setname_np");
  int r = real_pthread_setname_np (thread, name);
  if (r == 0 && !_sl_in_library ())
    {
      uint32_t tid = pthread_equal (thread, pthread_self ()) ? _sl_tid () : tid_of (thread);
      if (tid != 0)
        _sl_emit_thread_name (tid, name);
    }
  return r;
}

SL_EXPORT int
prctl (int option,
       ...)
{
  va_list ap;
  unsigned long a2, a3, a4, a5;

  va_start (ap, option);
  a2 = va_arg (ap, unsigned long);
  a3 = va_arg (ap, unsigned long);
  a4 = va_arg (ap, unsigned long);
  a5 = va_arg (ap, unsigned long);
  va_end (ap);
  if (real_prctl == NULL)
    real_prctl = (__typeof__ (real_prctl)) dlsym (RTLD_NEXT, "prctl");
  int r = real_prctl (option, a2, a3, a4, a5);
  if (r == 0 && option == PR_SET_NAME && !_sl_in_library ())
    {
      char name[17];
      strncpy (name, (const char *) a2, 16);
      name[16] = '\0';
      _sl_emit_thread_name (_sl_tid (), name);
    }
  return r;
}
