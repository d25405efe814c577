// cupti-host-layout.cpp: collector/inject/sl-inject-cupti-host.h (CUPTI's profiler host API
// declared for C) held to CUDA's own cupti_profiler_host.h, which only C++ can include: every
// member the injection library sets or reads at the same offset, every struct of the same size,
// the profiler types of the same values.  Compiled, never run: a difference fails the build.
#include <cstddef>
#include <cstdint>

#include <cupti_result.h>

namespace sl
{
#include "sl-inject-cupti-host.h"
}
/* CUDA's header defines them alike (the last member of each, compared below) */
#undef CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE
#undef CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE
#undef CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE
#undef CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE
#undef CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE
#undef CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE

#include <cupti_profiler_host.h>

#define SAME_SIZE(type) static_assert (sizeof (sl::type) == sizeof (::type), #type)
#define SAME(type, field)                                                                          \
  static_assert (offsetof (sl::type, field) == offsetof (::type, field), #type "." #field)

static_assert ((int) sl::CUPTI_PROFILER_TYPE_PM_SAMPLING == (int) ::CUPTI_PROFILER_TYPE_PM_SAMPLING,
               "CUpti_ProfilerType");

SAME_SIZE (CUpti_Profiler_Host_Initialize_Params);
SAME (CUpti_Profiler_Host_Initialize_Params, profilerType);
SAME (CUpti_Profiler_Host_Initialize_Params, pChipName);
SAME (CUpti_Profiler_Host_Initialize_Params, pCounterAvailabilityImage);
SAME (CUpti_Profiler_Host_Initialize_Params, pHostObject);
SAME_SIZE (CUpti_Profiler_Host_Deinitialize_Params);
SAME (CUpti_Profiler_Host_Deinitialize_Params, pHostObject);
SAME_SIZE (CUpti_Profiler_Host_ConfigAddMetrics_Params);
SAME (CUpti_Profiler_Host_ConfigAddMetrics_Params, pHostObject);
SAME (CUpti_Profiler_Host_ConfigAddMetrics_Params, ppMetricNames);
SAME (CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics);
SAME_SIZE (CUpti_Profiler_Host_GetConfigImageSize_Params);
SAME (CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize);
SAME_SIZE (CUpti_Profiler_Host_GetConfigImage_Params);
SAME (CUpti_Profiler_Host_GetConfigImage_Params, configImageSize);
SAME (CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage);
SAME_SIZE (CUpti_Profiler_Host_EvaluateToGpuValues_Params);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, pHostObject);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, pCounterDataImage);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, counterDataImageSize);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, rangeIndex);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, ppMetricNames);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, numMetrics);
SAME (CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues);
