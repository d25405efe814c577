/* sl-daemon-private.h: what the daemon's files share; C11, no GLib. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Makes room for `need` elements of `elem` bytes in the array *p of capacity *cap (doubling;
 * sl-trace-writer.c).  false when out of memory, the array unchanged. */
bool _sl_grow (void **p, size_t *cap, size_t need, size_t elem);

/* Lowers the calling thread's priority by `by` nice steps (at most to 19): daemon threads whose
 * work can wait a little (the writer, the perf scheduling reader) take mostly the CPU time the
 * recorded program leaves (sl-daemon.c). */
void _sl_thread_lower_priority (int by);
