/* sl-sched.h: scheduling of every thread of a recorded program's tree (context switches in and
 * out, CPU, state), gathered by the daemon from outside the target; C11 + POSIX, no GLib. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum
{
  SL_SCHED_OFF,
  SL_SCHED_AUTO, /* perf when the system allows it, else /proc */
  SL_SCHED_PERF, /* perf context-switch records only */
  SL_SCHED_PROC, /* /proc polling only (the fallback, forced) */
} SlSchedMethod;

#define SL_SCHED_PROC_HZ 1000 /* the /proc fallback's polling rate */

typedef struct _SlSched SlSched;

/* Receives `len` bytes of whole wire records (SL_WIRE_SCHED, SL_WIRE_DROPPED); called from the
 * collector's own thread. */
typedef void (*SlSchedSink) (const void *records, size_t len, void *user_data);

/* "perf", "proc", "auto" (also "on") or "off"; anything else is -1. */
int sl_sched_method_parse (const char *s);

/*
 * Starts recording the scheduling of `root` and of every thread and process it makes.  With
 * perf, `root` must not have run its program yet (it waits before exec): the events are attached
 * to it and inherited by what it creates.  NULL when nothing can be recorded (method OFF, or PERF
 * refused), with a message in *error (malloc'd) for the latter.  *error may also be set with a
 * non-NULL result: the reason for the fallback.
 */
SlSched *sl_sched_start (pid_t root, SlSchedMethod method, SlSchedSink sink, void *user_data,
                         char **error);

/* How it records ("perf context-switch records" / "/proc polling at 1000 Hz ..."). */
const char *sl_sched_describe (const SlSched *s);

/* Sends what is left and stops; frees `s`.  Call once the tree is gone (or detached). */
void sl_sched_stop (SlSched *s);
