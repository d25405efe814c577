/* sl-inject-cupti-api.h: CUPTI's functions as the library calls them: through pointers that
 * _sl_cupti_load() fills from libcupti.so, opened with dlopen when CUDA starts the library (a
 * library linked against it would fail the whole LD_PRELOAD where it cannot be found, and the
 * program would not start).  Include after <cupti.h>: the names below become the pointers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "sl-inject-cupti-host.h"

#include "sl-inject-private.h"

typedef struct
{
  __typeof__ (cuptiActivityConfigureUnifiedMemoryCounter) *ActivityConfigureUnifiedMemoryCounter;
  __typeof__ (cuptiActivityDisable)                  *ActivityDisable;
  __typeof__ (cuptiActivityEnable)                   *ActivityEnable;
  /* PM sampling (--gpu-metrics; CUPTI 12.6 and later): all optional */
  __typeof__ (cuptiDeviceGetChipName)                *DeviceGetChipName;
  __typeof__ (cuptiPmSamplingCounterDataGetSampleInfo) *PmSamplingCounterDataGetSampleInfo;
  __typeof__ (cuptiPmSamplingCounterDataImageInitialize) *PmSamplingCounterDataImageInitialize;
  __typeof__ (cuptiPmSamplingDecodeData)             *PmSamplingDecodeData;
  __typeof__ (cuptiPmSamplingDisable)                *PmSamplingDisable;
  __typeof__ (cuptiPmSamplingEnable)                 *PmSamplingEnable;
  __typeof__ (cuptiPmSamplingGetCounterAvailability) *PmSamplingGetCounterAvailability;
  __typeof__ (cuptiPmSamplingGetCounterDataInfo)     *PmSamplingGetCounterDataInfo;
  __typeof__ (cuptiPmSamplingGetCounterDataSize)     *PmSamplingGetCounterDataSize;
  __typeof__ (cuptiPmSamplingSetConfig)              *PmSamplingSetConfig;
  __typeof__ (cuptiPmSamplingStart)                  *PmSamplingStart;
  __typeof__ (cuptiPmSamplingStop)                   *PmSamplingStop;
  __typeof__ (cuptiProfilerDeInitialize)             *ProfilerDeInitialize;
  __typeof__ (cuptiProfilerHostConfigAddMetrics)     *ProfilerHostConfigAddMetrics;
  __typeof__ (cuptiProfilerHostDeinitialize)         *ProfilerHostDeinitialize;
  __typeof__ (cuptiProfilerHostEvaluateToGpuValues)  *ProfilerHostEvaluateToGpuValues;
  __typeof__ (cuptiProfilerHostGetConfigImage)       *ProfilerHostGetConfigImage;
  __typeof__ (cuptiProfilerHostGetConfigImageSize)   *ProfilerHostGetConfigImageSize;
  __typeof__ (cuptiProfilerHostInitialize)           *ProfilerHostInitialize;
  __typeof__ (cuptiProfilerInitialize)               *ProfilerInitialize;
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
 * cuptiActivityConfigureUnifiedMemoryCounter: no unified-memory counters; so may PM sampling's and
 * the profiler host's (CUPTI before 12.6): no GPU metrics; cuptiGetVersion, which every
 * CUPTI has, is looked up as optional all the same: without it, records are read as the
 * headers' version lays them out).  Not async-signal-safe;
 * thread-safe. */
SL_HIDDEN bool _sl_cupti_load (char *why, size_t len);

#define cuptiActivityConfigureUnifiedMemoryCounter                                               \
  (_sl_cupti_api.ActivityConfigureUnifiedMemoryCounter)
#define cuptiActivityDisable                   (_sl_cupti_api.ActivityDisable)
#define cuptiActivityEnable                    (_sl_cupti_api.ActivityEnable)
#define cuptiDeviceGetChipName                 (_sl_cupti_api.DeviceGetChipName)
#define cuptiPmSamplingCounterDataGetSampleInfo (_sl_cupti_api.PmSamplingCounterDataGetSampleInfo)
#define cuptiPmSamplingCounterDataImageInitialize                                                \
  (_sl_cupti_api.PmSamplingCounterDataImageInitialize)
#define cuptiPmSamplingDecodeData              (_sl_cupti_api.PmSamplingDecodeData)
#define cuptiPmSamplingDisable                 (_sl_cupti_api.PmSamplingDisable)
#define cuptiPmSamplingEnable                  (_sl_cupti_api.PmSamplingEnable)
#define cuptiPmSamplingGetCounterAvailability  (_sl_cupti_api.PmSamplingGetCounterAvailability)
#define cuptiPmSamplingGetCounterDataInfo      (_sl_cupti_api.PmSamplingGetCounterDataInfo)
#define cuptiPmSamplingGetCounterDataSize      (_sl_cupti_api.PmSamplingGetCounterDataSize)
#define cuptiPmSamplingSetConfig               (_sl_cupti_api.PmSamplingSetConfig)
#define cuptiPmSamplingStart                   (_sl_cupti_api.PmSamplingStart)
#define cuptiPmSamplingStop                    (_sl_cupti_api.PmSamplingStop)
#define cuptiProfilerDeInitialize              (_sl_cupti_api.ProfilerDeInitialize)
#define cuptiProfilerHostConfigAddMetrics      (_sl_cupti_api.ProfilerHostConfigAddMetrics)
#define cuptiProfilerHostDeinitialize          (_sl_cupti_api.ProfilerHostDeinitialize)
#define cuptiProfilerHostEvaluateToGpuValues   (_sl_cupti_api.ProfilerHostEvaluateToGpuValues)
#define cuptiProfilerHostGetConfigImage        (_sl_cupti_api.ProfilerHostGetConfigImage)
#define cuptiProfilerHostGetConfigImageSize    (_sl_cupti_api.ProfilerHostGetConfigImageSize)
#define cuptiProfilerHostInitialize            (_sl_cupti_api.ProfilerHostInitialize)
#define cuptiProfilerInitialize                (_sl_cupti_api.ProfilerInitialize)
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
