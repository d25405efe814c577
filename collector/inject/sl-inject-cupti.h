/* sl-inject-cupti.h: the CUPTI part's internals, driven by tests with hand-built records. */
#pragma once

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#include "sl-inject-private.h"

/* libcuda's entry point (CUDA_INJECTION64_PATH): starts the library and CUPTI. */
SL_EXPORT int InitializeInjection (void);

/* One CUPTI activity record as wire records (SL_WIRE_KERNEL, _MEMCPY, _MEMSET, _SYNC,
 * _CUDA_EVENT, _GRAPH, _CUDA_API, _GPU, _CONTEXT, _STREAM, _CUDA_MEMORY, _UM; other kinds are
 * ignored), emitted from the calling thread
 * with waiting for room (it is CUPTI's thread, not the application's).  Times become
 * CLOCK_MONOTONIC ns; CUPTI's enums become nsys's ENUM_* values. */
SL_HIDDEN void _sl_cupti_emit_record (const CUpti_Activity *record);

/* A completed buffer of @valid_size bytes: every record through _sl_cupti_emit_record(), walked
 * with cuptiActivityGetNextRecord(), and @dropped (CUPTI's count of records it had no room for)
 * counted as SL_DROP_CUPTI.  Returns the records walked. */
SL_HIDDEN size_t _sl_cupti_walk_buffer (uint8_t *buffer, size_t valid_size, size_t dropped);

/* Where the NVIDIA driver lists its GPUs ("/proc/driver/nvidia/gpus"): the PCI location of a
 * device, which CUPTI's device record lacks, is looked up there by UUID.  Tests point it at a
 * directory of their own; NULL restores the default. */
SL_HIDDEN void _sl_cupti_set_proc_root (const char *root);

/* A warning said on stderr ("sightline: TEXT") and in the trace's DIAGNOSTIC_EVENT: for the
 * CUPTI parts in files of their own. */
SL_HIDDEN void _sl_cupti_warn (const char *text);
/* A periodic thread's wait: on `cond` (`lock` held) until signalled or `ms` from now. */
SL_HIDDEN void _sl_cupti_wait_ms (pthread_cond_t  *cond,
                                  pthread_mutex_t *lock,
                                  long             ms);

/* GPU metrics by PM sampling (sl-inject-cupti-pm.c; SIGHTLINE_GPU_METRICS=HZ): started with the
 * activity, once kernels are traced; stopped before it, its last samples sent. */
SL_HIDDEN void _sl_cupti_pm_start (void);
SL_HIDDEN void _sl_cupti_pm_stop (void);
