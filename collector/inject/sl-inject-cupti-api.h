/* sl-inject-cupti-api.h: CUPTI's functions as the library calls them: through pointers that
 * _sl_cupti_load() fills from libcupti.so, opened with dlopen when CUDA starts the library (a
 * library linked against it would fail the whole LD_PRELOAD where it cannot be found, and the
 * program would not start).  Include after <cupti.h>: the names below become the pointers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <cupti.h>

#include "sl-inject-private.h"

typedef struct
{
  __typeof__ (cuptiActivityConfigureUnifiedMemoryCounter) *ActivityConfigureUnifiedMemoryCounter;
  __typeof__ (cuptiActivityDisable)                  *ActivityDisable;
  __typeof__ (cuptiActivityEnable)                   *ActivityEnable;
  __typeof__ (cuptiActivityFlushAll)                 *ActivityFlushAll;
  __typeof__ (cuptiActivityGetNextRecord)            *ActivityGetNextRecord;
  __typeof__ (cuptiActivityGetNumDroppedRecords)     *ActivityGetNumDroppedRecords;
  __typeof__ (cuptiActivityRegisterCallbacks)        *ActivityRegisterCallbacks;
  __typeof__ (cuptiActivityRegisterTimestampCallback) *ActivityRegisterTimestampCallback;
  __typeof__ (cuptiActivitySetAttribute)             *ActivitySetAttribute;
  __typeof__ (cuptiEnableCallback)                   *EnableCallback;
  __typeof__ (cuptiGetCallbackName)                  *GetCallbackName;
  __typeof__ (cuptiGetResultString)                  *GetResultString;
  __typeof__ (cuptiGetGraphExecId)                   *GetGraphExecId;
  __typeof__ (cuptiGetTimestamp)                     *GetTimestamp;
  __typeof__ (cuptiGetVersion)                       *GetVersion;
  __typeof__ (cuptiSetThreadIdType)                  *SetThreadIdType;
  __typeof__ (cuptiSubscribe)                        *Subscribe;
} SlCuptiApi;

SL_HIDDEN extern SlCuptiApi _sl_cupti_api;

/* Opens CUPTI once: $SIGHTLINE_CUPTI when set (a path to libcupti.so), else libcupti.so.13 as the
 * dynamic linker finds it (LD_LIBRARY_PATH, the system's paths), else in the CUDA this library
 * was built with and in /usr/local/cuda.  FALSE, with the reason in `why`, when it cannot be
 * opened or lacks a function the library needs (cuptiActivityRegisterTimestampCallback may be
 * missing: an older CUPTI; the callback API's cuptiSubscribe, cuptiEnableCallback and
 * cuptiGetGraphExecId too: graph launches then have no graphExecId; so may
 * cuptiActivityConfigureUnifiedMemoryCounter: no unified-memory counters; cuptiGetVersion, which every
 * CUPTI has, is looked up as optional all the same: without it, records are read as the
 * headers' version lays them out).  Not async-signal-safe;
 * thread-safe. */
SL_HIDDEN bool _sl_cupti_load (char *why, size_t len);

#define cuptiActivityConfigureUnifiedMemoryCounter                                               \
  (_sl_cupti_api.ActivityConfigureUnifiedMemoryCounter)
#define cuptiActivityDisable                   (_sl_cupti_api.ActivityDisable)
#define cuptiActivityEnable                    (_sl_cupti_api.ActivityEnable)
#define cuptiActivityFlushAll                  (_sl_cupti_api.ActivityFlushAll)
#define cuptiActivityGetNextRecord             (_sl_cupti_api.ActivityGetNextRecord)
#define cuptiActivityGetNumDroppedRecords      (_sl_cupti_api.ActivityGetNumDroppedRecords)
#define cuptiActivityRegisterCallbacks         (_sl_cupti_api.ActivityRegisterCallbacks)
#define cuptiActivityRegisterTimestampCallback (_sl_cupti_api.ActivityRegisterTimestampCallback)
#define cuptiActivitySetAttribute              (_sl_cupti_api.ActivitySetAttribute)
#define cuptiEnableCallback                    (_sl_cupti_api.EnableCallback)
#define cuptiGetCallbackName                   (_sl_cupti_api.GetCallbackName)
#define cuptiGetResultString                   (_sl_cupti_api.GetResultString)
#define cuptiGetGraphExecId                    (_sl_cupti_api.GetGraphExecId)
#define cuptiGetTimestamp                      (_sl_cupti_api.GetTimestamp)
#define cuptiGetVersion                        (_sl_cupti_api.GetVersion)
#define cuptiSetThreadIdType                   (_sl_cupti_api.SetThreadIdType)
#define cuptiSubscribe                         (_sl_cupti_api.Subscribe)
