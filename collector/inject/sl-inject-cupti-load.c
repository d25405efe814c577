/* sl-inject-cupti-load.c: libcupti.so opened at run time (dlopen), its functions looked up once
 * (see sl-inject-cupti-api.h). */
#include "sl-inject-cupti-api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SL_CUPTI_DIR
#define SL_CUPTI_DIR "/usr/local/cuda/lib64"
#endif

SlCuptiApi _sl_cupti_api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool           loaded;
static char           load_error[256];

static void *
open_cupti (void)
{
  static const char *const paths[] = {
    "libcupti.so.13",
    SL_CUPTI_DIR "/libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
    "libcupti.so",
  };
  const char *given = getenv ("SIGHTLINE_CUPTI");
  void *handle = NULL;

  if (given != NULL && *given != '\0')
    {
      handle = dlopen (given, RTLD_NOW | RTLD_LOCAL);
      if (handle == NULL)
        snprintf (load_error, sizeof load_error, "SIGHTLINE_CUPTI=%s cannot be opened: %s", given,
                  dlerror ());
      return handle;
    }
  for (size_t i = 0; i < sizeof paths / sizeof paths[0] && handle == NULL; i++)
    handle = dlopen (paths[i], RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    snprintf (load_error, sizeof load_error,
              "CUPTI (libcupti.so.13) was not found: put its folder in LD_LIBRARY_PATH or its "
              "path in SIGHTLINE_CUPTI");
  return handle;
}

static void
load (void)
{
  static const struct
  {
    const char *name;
    size_t      offset;
    bool        optional;
  } functions[] = {
#define F(field, optional) { "cupti" #field, offsetof (SlCuptiApi, field), optional }
    F (ActivityConfigureUnifiedMemoryCounter, true),
    F (ActivityDisable, false),
    F (ActivityEnable, false),
    F (DeviceGetChipName, true),
    F (PmSamplingCounterDataGetSampleInfo, true),
    F (PmSamplingCounterDataImageInitialize, true),
    F (PmSamplingDecodeData, true),
    F (PmSamplingDisable, true),
    F (PmSamplingEnable, true),
    F (PmSamplingGetCounterAvailability, true),
    F (PmSamplingGetCounterDataInfo, true),
    F (PmSamplingGetCounterDataSize, true),
    F (PmSamplingSetConfig, true),
    F (PmSamplingStart, true),
    F (PmSamplingStop, true),
    F (ProfilerDeInitialize, true),
    F (ProfilerHostConfigAddMetrics, true),
    F (ProfilerHostDeinitialize, true),
    F (ProfilerHostEvaluateToGpuValues, true),
    F (ProfilerHostGetConfigImage, true),
    F (ProfilerHostGetConfigImageSize, true),
    F (ProfilerHostInitialize, true),
    F (ProfilerInitialize, true),
    F (ActivityFlushAll, false),
    F (ActivityGetNextRecord, false),
    F (ActivityGetNumDroppedRecords, false),
    F (ActivityRegisterCallbacks, false),
    F (ActivityRegisterTimestampCallback, true),
    F (ActivitySetAttribute, false),
    F (EnableCallback, true),
    F (GetCallbackName, false),
    F (GetGraphExecId, true),
    F (GetResultString, false),
    F (GetTimestamp, false),
    F (GetVersion, true),
    F (SetThreadIdType, false),
    F (Subscribe, true),
#undef F
  };
  SlCuptiApi api;
  void *handle = open_cupti ();

  if (handle == NULL)
    return;
  memset (&api, 0, sizeof api);
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
    {
      void *f = dlsym (handle, functions[i].name);
      if (f == NULL && !functions[i].optional)
        {
          snprintf (load_error, sizeof load_error, "CUPTI lacks %s (too old a CUPTI?)",
                    functions[i].name);
          dlclose (handle);
          return;
        }
      memcpy ((char *) &api + functions[i].offset, &f, sizeof f);
    }
  _sl_cupti_api = api;
  loaded = true;
}

bool
_sl_cupti_load (char  *why,
                size_t len)
{
  pthread_once (&load_once, load);
  if (!loaded && why != NULL && len > 0)
    snprintf (why, len, "%s", load_error);
  return loaded;
}
