/* sl-inject-cupti-host.h: the part of CUPTI's profiler host API (cupti_profiler_host.h, CUDA 12.6
 * and later) that PM sampling needs, declared for C: CUDA's own header includes the C++ <string>
 * and cannot be compiled as C.  Each struct is laid out as that header lays it out (the same
 * members in the same order; structSize tells CUPTI which of them a caller knows);
 * tests/cupti/cupti-host-layout.cpp compares the two with the C++ compiler. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <cupti_result.h>

#ifndef CUPTI_PROFILER_STRUCT_SIZE
#define CUPTI_PROFILER_STRUCT_SIZE(type_, lastfield_)                                              \
  (offsetof (type_, lastfield_) + sizeof (((type_ *) 0)->lastfield_))
#endif

#ifndef _CUPTI_PROFILER_HOST_H_
typedef enum
{
  CUPTI_PROFILER_TYPE_RANGE_PROFILER,
  CUPTI_PROFILER_TYPE_PM_SAMPLING,
  CUPTI_PROFILER_TYPE_PROFILER_INVALID
} CUpti_ProfilerType;

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_ProfilerType profilerType;
  const char *pChipName;
  const uint8_t *pCounterAvailabilityImage;
  CUpti_Profiler_Host_Object *pHostObject; /* [out] */
} CUpti_Profiler_Host_Initialize_Params;
#define CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE                                          \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_Initialize_Params, pHostObject)

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
#define CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE                                        \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_Deinitialize_Params, pHostObject)

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_Profiler_Host_Object *pHostObject;
  const char **ppMetricNames;
  size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
#define CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE                                    \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics)

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_Profiler_Host_Object *pHostObject;
  size_t configImageSize; /* [out] */
} CUpti_Profiler_Host_GetConfigImageSize_Params;
#define CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE                                  \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize)

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_Profiler_Host_Object *pHostObject;
  size_t configImageSize;
  uint8_t *pConfigImage; /* [out] */
} CUpti_Profiler_Host_GetConfigImage_Params;
#define CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE                                      \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage)

typedef struct
{
  size_t structSize;
  void *pPriv;
  CUpti_Profiler_Host_Object *pHostObject;
  const uint8_t *pCounterDataImage;
  size_t counterDataImageSize;
  size_t rangeIndex; /* PM sampling: the sample's index */
  const char **ppMetricNames;
  size_t numMetrics;
  double *pMetricValues; /* [out] numMetrics of them */
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;
#define CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE                                 \
  CUPTI_PROFILER_STRUCT_SIZE (CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues)

CUptiResult cuptiProfilerHostInitialize (CUpti_Profiler_Host_Initialize_Params *pParams);
CUptiResult cuptiProfilerHostDeinitialize (CUpti_Profiler_Host_Deinitialize_Params *pParams);
CUptiResult cuptiProfilerHostConfigAddMetrics (
    CUpti_Profiler_Host_ConfigAddMetrics_Params *pParams);
CUptiResult cuptiProfilerHostGetConfigImageSize (
    CUpti_Profiler_Host_GetConfigImageSize_Params *pParams);
CUptiResult cuptiProfilerHostGetConfigImage (CUpti_Profiler_Host_GetConfigImage_Params *pParams);
CUptiResult cuptiProfilerHostEvaluateToGpuValues (
    CUpti_Profiler_Host_EvaluateToGpuValues_Params *pParams);
#endif /* !_CUPTI_PROFILER_HOST_H_ */
