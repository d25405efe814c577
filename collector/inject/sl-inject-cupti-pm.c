/* sl-inject-cupti-pm.c: GPU metrics (sightline record --gpu-metrics[=HZ], nsys's
 * --gpu-metrics-devices) from CUPTI's PM sampling API (CUDA 12.6 and later): each GPU's
 * performance monitors read HZ times a second by the GPU itself into a hardware buffer, decoded
 * by a thread of ours every SL_PM_DECODE_MS into a counter data image, evaluated on the host into
 * nsys's metrics (SMs Active, SM Issue, Tensor Active, DRAM bandwidth, …) and sent as one
 * SL_WIRE_GPU_METRICS record a sample.  C11 + POSIX + CUPTI, no GLib.
 *
 * The sequence, per GPU: cuptiProfilerInitialize (once), cuptiDeviceGetChipName, the counter
 * availability image, a profiler host object for the chip, the metrics it accepts of the ones
 * wanted (one cuptiProfilerHostConfigAddMetrics each: what the chip lacks is left out), its
 * config image; cuptiPmSamplingEnable, SetConfig (the period from HZ, GPU time trigger, SYS clock
 * where the GPU has no time trigger: Turing, GA100), a counter data image, Start.  At the end,
 * Stop, the last decode, Disable.
 *
 * Refusals (counters restricted to admin users, a GPU or driver without PM sampling, a CUPTI
 * before 12.6) are said in one line on stderr and in DIAGNOSTIC_EVENT, with what to do; the rest
 * of the recording goes on. */
#include "sl-inject-cupti.h"
#include "sl-inject-cupti-api.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sl-schema.h"

#define SL_PM_MAX_DEVICES  16         /* GPUs sampled at most (GPU_METRICS' typeId has 8 bits) */
#define SL_PM_DECODE_MS    50         /* the hardware buffer is decoded this often */
#define SL_PM_HW_BUFFER    (64u << 20) /* per GPU, in GPU memory: ~10^5 samples */
#define SL_PM_MAX_NAMES    3          /* CUPTI metric names tried for one of nsys's metrics */

_Static_assert (sizeof (SlWireGpuMetricSet) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireGpuMetrics) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireGpuMetricValue) % 8 == 0, "wire records are multiples of 8");
_Static_assert (SL_GPU_METRIC_N <= 64, "a GPU's metric set is a 64-bit mask");

/* nsys's metrics and the CUPTI (Perfworks) metrics that measure them, most precise first: a chip
 * offers one, another or none (then nsys's metric has no rows for that GPU).  `scale` turns the
 * evaluated value into nsys's unit (Hz into MHz). */
static const struct
{
  unsigned id;
  double scale;
  const char *names[SL_PM_MAX_NAMES];
} wanted[] = {
  { SL_GPU_METRIC_GPC_CLOCK, 1e-6, { "gpc__cycles_elapsed.avg.per_second" } },
  { SL_GPU_METRIC_SYS_CLOCK, 1e-6, { "sys__cycles_elapsed.avg.per_second" } },
  { SL_GPU_METRIC_GR_ACTIVE, 1, { "gr__cycles_active.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_SYNC_COMPUTE, 1,
    { "gr__dispatch_cycles_active_queue_sync.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_ASYNC_COMPUTE, 1,
    { "gr__dispatch_cycles_active_queue_async.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_SMS_ACTIVE, 1, { "sm__cycles_active.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_SM_ISSUE, 1,
    { "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
      "sm__inst_executed.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_TENSOR_ACTIVE, 1,
    { "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      "sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_WARPS_IN_FLIGHT, 1,
    { "sm__warps_active.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_DRAM_READ, 1, { "dram__read_throughput.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_DRAM_WRITE, 1,
    { "dram__write_throughput.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_PCIE_RX, 1, { "pcie__read_bytes.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_PCIE_TX, 1, { "pcie__write_bytes.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_PCIE_BAR1_READS, 1, { "pcie__rx_requests_aperture_bar1_op_read.sum" } },
  { SL_GPU_METRIC_PCIE_BAR1_WRITES, 1, { "pcie__rx_requests_aperture_bar1_op_write.sum" } },
  { SL_GPU_METRIC_NVLINK_RX, 1,
    { "nvlrx__bytes_data_user.avg.pct_of_peak_sustained_elapsed" } },
  { SL_GPU_METRIC_NVLINK_TX, 1,
    { "nvltx__bytes_data_user.avg.pct_of_peak_sustained_elapsed" } },
};
#define SL_PM_WANTED (sizeof wanted / sizeof wanted[0])

typedef struct
{
  uint32_t device;
  CUpti_Profiler_Host_Object *host;
  CUpti_PmSampling_Object *sampler;
  bool started;
  uint8_t *availability;
  uint8_t *config;
  size_t config_size;
  uint8_t *data; /* the counter data image: max_samples samples */
  size_t data_size;
  size_t consumed; /* its samples already sent */
  size_t n;        /* metrics sampled: CUPTI's names, nsys's ids, scales */
  const char *names[SL_PM_WANTED];
  unsigned ids[SL_PM_WANTED];
  double scales[SL_PM_WANTED];
  bool overflow_said;
  bool decode_said;
} PmDevice;

static struct
{
  bool initialized; /* cuptiProfilerInitialize succeeded */
  PmDevice devices[SL_PM_MAX_DEVICES];
  unsigned n_devices;
  unsigned hz;
  uint32_t max_samples;
  int64_t offset; /* session time - GPU time */
  pid_t pid;      /* the process that started sampling (a forked child has not its thread) */

  pthread_t thread;
  bool thread_running;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool stop;
} pm = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static const char *
result_name (CUptiResult r)
{
  const char *text = NULL;

  if (cuptiGetResultString == NULL || cuptiGetResultString (r, &text) != CUPTI_SUCCESS
      || text == NULL)
    text = "unknown error";
  return text;
}

/* One line for a refusal: which call, CUPTI's answer, and what a person can do about it. */
static void
refused (uint32_t    device,
         const char *what,
         CUptiResult r)
{
  const char *fix;
  char text[600];

  switch ((int) r)
    {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      fix = "the driver lets only admin users read GPU performance counters: record as root, or "
            "load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0 "
            "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
      break;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      fix = "this GPU or driver cannot PM-sample (Turing or newer and a CUDA 12.6 or newer "
            "driver are needed; not in most virtual machines)";
      break;
    default:
      fix = "GPU metrics are not recorded";
      break;
    }
  snprintf (text, sizeof text, "--gpu-metrics: GPU %u: %s failed (%s): %s; the rest is recorded",
            device, what, result_name (r), fix);
  _sl_cupti_warn (text);
}

static bool
have_api (void)
{
  return cuptiProfilerInitialize != NULL && cuptiDeviceGetChipName != NULL
         && cuptiPmSamplingGetCounterAvailability != NULL && cuptiProfilerHostInitialize != NULL
         && cuptiProfilerHostConfigAddMetrics != NULL && cuptiProfilerHostGetConfigImageSize != NULL
         && cuptiProfilerHostGetConfigImage != NULL && cuptiPmSamplingEnable != NULL
         && cuptiPmSamplingSetConfig != NULL && cuptiPmSamplingGetCounterDataSize != NULL
         && cuptiPmSamplingCounterDataImageInitialize != NULL && cuptiPmSamplingStart != NULL
         && cuptiPmSamplingDecodeData != NULL && cuptiPmSamplingGetCounterDataInfo != NULL
         && cuptiPmSamplingCounterDataGetSampleInfo != NULL
         && cuptiProfilerHostEvaluateToGpuValues != NULL && cuptiPmSamplingStop != NULL
         && cuptiPmSamplingDisable != NULL && cuptiProfilerHostDeinitialize != NULL;
}

static uint64_t
clock_ns (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ---- samples ------------------------------------------------------------------------------ */

/* nsys stores values as integers: a percentage or MHz rounded, NaN (a metric the period could
 * not measure) left out. */
static bool
value_of (double  v,
          int64_t *out)
{
  if (!isfinite (v))
    return false;
  /* rounded half away from zero, without libm (the library links nothing it can do without) */
  *out = v >= 9.2e18    ? INT64_MAX
         : v <= -9.2e18 ? INT64_MIN
         : v >= 0       ? (int64_t) (v + 0.5)
                        : -(int64_t) (0.5 - v);
  return true;
}

/* Sample `index` of the device's counter data image as one record. */
static void
send_sample (PmDevice *d,
             size_t    index)
{
  CUpti_PmSampling_CounterData_GetSampleInfo_Params info = {
    .structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE,
    .pPmSamplingObject = d->sampler,
    .pCounterDataImage = d->data,
    .counterDataImageSize = d->data_size,
    .sampleIndex = index,
  };
  double values[SL_PM_WANTED];
  CUpti_Profiler_Host_EvaluateToGpuValues_Params eval = {
    .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
    .pHostObject = d->host,
    .pCounterDataImage = d->data,
    .counterDataImageSize = d->data_size,
    .rangeIndex = index,
    .ppMetricNames = d->names,
    .numMetrics = d->n,
    .pMetricValues = values,
  };
  struct
  {
    SlWireGpuMetrics m;
    SlWireGpuMetricValue v[SL_PM_WANTED];
  } rec;
  uint32_t n = 0;

  if (cuptiPmSamplingCounterDataGetSampleInfo (&info) != CUPTI_SUCCESS || info.endTimestamp == 0
      || cuptiProfilerHostEvaluateToGpuValues (&eval) != CUPTI_SUCCESS)
    return;
  memset (&rec, 0, sizeof rec);
  rec.m.raw_ns = info.endTimestamp;
  rec.m.time_ns = (uint64_t) ((int64_t) info.endTimestamp + pm.offset);
  rec.m.device_id = d->device;
  if (!_sl_capture_covers (rec.m.time_ns))
    return;
  for (size_t i = 0; i < d->n; i++)
    if (value_of (values[i] * d->scales[i], &rec.v[n].value))
      rec.v[n++].metric_id = d->ids[i];
  if (n == 0)
    return;
  rec.m.n_values = n;

  uint32_t size = (uint32_t) (sizeof rec.m + n * sizeof rec.v[0]);
  uint8_t *out = _sl_emit_begin_wait (SL_WIRE_GPU_METRICS, size);
  if (out == NULL)
    return; /* counted by the core, reported as SL_WIRE_DROPPED */
  memcpy (out + sizeof (SlWireHeader), (const uint8_t *) &rec + sizeof (SlWireHeader),
          size - sizeof (SlWireHeader));
  _sl_emit_end (out);
}

/* What the GPU wrote into its hardware buffer since the last call, decoded and sent.  A full
 * counter data image is read to its end, then started afresh. */
static void
decode (PmDevice *d)
{
  for (int round = 0; round < 64; round++)
    {
      CUpti_PmSampling_DecodeData_Params dp = {
        .structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE,
        .pPmSamplingObject = d->sampler,
        .pCounterDataImage = d->data,
        .counterDataImageSize = d->data_size,
      };
      CUpti_PmSampling_GetCounterDataInfo_Params ip = {
        .structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = d->data,
        .counterDataImageSize = d->data_size,
      };
      CUptiResult r = cuptiPmSamplingDecodeData (&dp);

      if (r != CUPTI_SUCCESS)
        {
          if (!d->decode_said)
            refused (d->device, "cuptiPmSamplingDecodeData", r);
          d->decode_said = true;
          return;
        }
      if (dp.overflow && !d->overflow_said)
        {
          char text[200];
          snprintf (text, sizeof text,
                    "--gpu-metrics: GPU %u: the PM sampling buffer overflowed, samples were lost "
                    "(ask for fewer a second)",
                    d->device);
          _sl_cupti_warn (text);
          d->overflow_said = true;
        }
      if (cuptiPmSamplingGetCounterDataInfo (&ip) != CUPTI_SUCCESS)
        return;
      size_t done = ip.numCompletedSamples < pm.max_samples ? ip.numCompletedSamples
                                                             : pm.max_samples;
      for (size_t i = d->consumed; i < done; i++)
        send_sample (d, i);
      d->consumed = done > d->consumed ? done : d->consumed;
      if (dp.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
        return;
      CUpti_PmSampling_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pPmSamplingObject = d->sampler,
        .counterDataSize = d->data_size,
        .pCounterData = d->data,
      };
      if (cuptiPmSamplingCounterDataImageInitialize (&init) != CUPTI_SUCCESS)
        return;
      d->consumed = 0;
    }
}

static void *
decode_thread_main (void *data)
{
  (void) data;
  _sl_enter_library (); /* its waits and CUPTI's calls are not the program's */
  _sl_name_library_thread ("sightline-pm");
  pthread_mutex_lock (&pm.lock);
  while (!pm.stop)
    {
      _sl_cupti_wait_ms (&pm.cond, &pm.lock, SL_PM_DECODE_MS);
      if (pm.stop)
        break;
      pthread_mutex_unlock (&pm.lock);
      for (unsigned i = 0; i < pm.n_devices; i++)
        decode (&pm.devices[i]);
      pthread_mutex_lock (&pm.lock);
    }
  pthread_mutex_unlock (&pm.lock);
  _sl_leave_library ();
  return NULL;
}

/* ---- start and stop ----------------------------------------------------------------------- */

static void
device_free (PmDevice *d)
{
  if (d->sampler != NULL)
    {
      CUpti_PmSampling_Disable_Params p = {
        .structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
        .pPmSamplingObject = d->sampler,
      };
      cuptiPmSamplingDisable (&p);
    }
  if (d->host != NULL)
    {
      CUpti_Profiler_Host_Deinitialize_Params p = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
        .pHostObject = d->host,
      };
      cuptiProfilerHostDeinitialize (&p);
    }
  free (d->availability);
  free (d->config);
  free (d->data);
  memset (d, 0, sizeof *d);
}

/* Everything up to Start for GPU `index`: NULL, or the call CUPTI refused (its answer in `r`). */
static const char *
device_start (PmDevice    *d,
              uint32_t     index,
              const char  *chip,
              CUptiResult *r)
{
  const char *what;

  d->device = index;
  {
    CUpti_PmSampling_GetCounterAvailability_Params p = {
      .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE,
      .deviceIndex = index,
    };
    what = "cuptiPmSamplingGetCounterAvailability";
    if ((*r = cuptiPmSamplingGetCounterAvailability (&p)) != CUPTI_SUCCESS)
      return what;
    if ((d->availability = calloc (1, p.counterAvailabilityImageSize + 1)) == NULL)
      {
        *r = CUPTI_ERROR_OUT_OF_MEMORY;
        return "calloc";
      }
    p.pCounterAvailabilityImage = d->availability;
    if ((*r = cuptiPmSamplingGetCounterAvailability (&p)) != CUPTI_SUCCESS)
      return what;
  }
  {
    CUpti_Profiler_Host_Initialize_Params p = {
      .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
      .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
      .pChipName = chip,
      .pCounterAvailabilityImage = d->availability,
    };
    what = "cuptiProfilerHostInitialize";
    if ((*r = cuptiProfilerHostInitialize (&p)) != CUPTI_SUCCESS)
      return what;
    d->host = p.pHostObject;
  }
  /* the metrics this chip offers, one by one: one it lacks is refused alone */
  for (size_t i = 0; i < SL_PM_WANTED; i++)
    for (size_t k = 0; k < SL_PM_MAX_NAMES && wanted[i].names[k] != NULL; k++)
      {
        const char *name = wanted[i].names[k];
        CUpti_Profiler_Host_ConfigAddMetrics_Params p = {
          .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
          .pHostObject = d->host,
          .ppMetricNames = &name,
          .numMetrics = 1,
        };
        if (cuptiProfilerHostConfigAddMetrics (&p) != CUPTI_SUCCESS)
          continue;
        d->names[d->n] = wanted[i].names[k];
        d->ids[d->n] = wanted[i].id;
        d->scales[d->n] = wanted[i].scale;
        d->n++;
        break;
      }
  if (d->n == 0)
    {
      *r = CUPTI_ERROR_NOT_SUPPORTED;
      return "cuptiProfilerHostConfigAddMetrics (none of nsys's metrics)";
    }
  {
    CUpti_Profiler_Host_GetConfigImageSize_Params ps = {
      .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
      .pHostObject = d->host,
    };
    what = "cuptiProfilerHostGetConfigImageSize";
    if ((*r = cuptiProfilerHostGetConfigImageSize (&ps)) != CUPTI_SUCCESS)
      return what;
    if ((d->config = calloc (1, ps.configImageSize + 1)) == NULL)
      {
        *r = CUPTI_ERROR_OUT_OF_MEMORY;
        return "calloc";
      }
    d->config_size = ps.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params p = {
      .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
      .pHostObject = d->host,
      .configImageSize = d->config_size,
      .pConfigImage = d->config,
    };
    what = "cuptiProfilerHostGetConfigImage";
    if ((*r = cuptiProfilerHostGetConfigImage (&p)) != CUPTI_SUCCESS)
      return what;
  }
  {
    CUpti_PmSampling_Enable_Params p = {
      .structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE,
      .deviceIndex = index,
    };
    what = "cuptiPmSamplingEnable";
    if ((*r = cuptiPmSamplingEnable (&p)) != CUPTI_SUCCESS)
      return what;
    d->sampler = p.pPmSamplingObject;
  }
  {
    CUpti_PmSampling_SetConfig_Params p = {
      .structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE,
      .pPmSamplingObject = d->sampler,
      .configSize = d->config_size,
      .pConfig = d->config,
      .hardwareBufferSize = SL_PM_HW_BUFFER,
      .samplingInterval = 1000000000u / pm.hz,
      .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL,
      .hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST,
    };
    what = "cuptiPmSamplingSetConfig";
    if ((*r = cuptiPmSamplingSetConfig (&p)) == CUPTI_ERROR_NOT_SUPPORTED)
      {
        /* Turing and GA100 count the period in SYS clock cycles (~1.1 … 1.8 GHz): HZ is then
         * approximate */
        p.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
        p.samplingInterval = 1400000000u / pm.hz;
        *r = cuptiPmSamplingSetConfig (&p);
      }
    if (*r != CUPTI_SUCCESS)
      return what;
  }
  {
    CUpti_PmSampling_GetCounterDataSize_Params ps = {
      .structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE,
      .pPmSamplingObject = d->sampler,
      .pMetricNames = d->names,
      .numMetrics = d->n,
      .maxSamples = pm.max_samples,
    };
    what = "cuptiPmSamplingGetCounterDataSize";
    if ((*r = cuptiPmSamplingGetCounterDataSize (&ps)) != CUPTI_SUCCESS)
      return what;
    if ((d->data = calloc (1, ps.counterDataSize + 1)) == NULL)
      {
        *r = CUPTI_ERROR_OUT_OF_MEMORY;
        return "calloc";
      }
    d->data_size = ps.counterDataSize;
    CUpti_PmSampling_CounterDataImage_Initialize_Params p = {
      .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE,
      .pPmSamplingObject = d->sampler,
      .counterDataSize = d->data_size,
      .pCounterData = d->data,
    };
    what = "cuptiPmSamplingCounterDataImageInitialize";
    if ((*r = cuptiPmSamplingCounterDataImageInitialize (&p)) != CUPTI_SUCCESS)
      return what;
  }
  {
    CUpti_PmSampling_Start_Params p = {
      .structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE,
      .pPmSamplingObject = d->sampler,
    };
    what = "cuptiPmSamplingStart";
    if ((*r = cuptiPmSamplingStart (&p)) != CUPTI_SUCCESS)
      return what;
    d->started = true;
  }

  SlWireGpuMetricSet set = { 0 };
  for (size_t i = 0; i < d->n; i++)
    set.metrics |= UINT64_C (1) << d->ids[i];
  set.device_id = index;
  set.hz = pm.hz;
  _sl_emit_with_text (SL_WIRE_GPU_METRIC_SET, &set, sizeof set, chip, true);
  return NULL;
}

void
_sl_cupti_pm_start (void)
{
  const char *v = getenv ("SIGHTLINE_GPU_METRICS");
  long hz = v != NULL ? strtol (v, NULL, 10) : 0;
  CUptiResult r;

  if (hz <= 0)
    return;
  pm.hz = hz < 10 ? 10 : hz > 200000 ? 200000 : (unsigned) hz;
  if (!have_api ())
    {
      _sl_cupti_warn ("--gpu-metrics: this CUPTI has no PM sampling API (CUDA 12.6 or newer is "
                      "needed): GPU metrics are not recorded, the rest is");
      return;
    }
  /* room for four decode periods of samples: the image is read to its end each period */
  pm.max_samples = (uint32_t) ((uint64_t) pm.hz * SL_PM_DECODE_MS * 4 / 1000 + 16);
  /* the samples' times are the GPU's global timer, which the driver keeps on the host's
   * CLOCK_REALTIME: measured once against ours (CLOCK_MONOTONIC), as CUPTI's own clock is
   * where its timestamp callback is refused */
  uint64_t before = _sl_now ();
  uint64_t real = clock_ns (CLOCK_REALTIME);
  uint64_t after = _sl_now ();
  pm.offset = (int64_t) (before + (after - before) / 2) - (int64_t) real;

  CUpti_Profiler_Initialize_Params init = {
    .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE,
  };
  if ((r = cuptiProfilerInitialize (&init)) != CUPTI_SUCCESS)
    {
      refused (0, "cuptiProfilerInitialize", r);
      return;
    }
  pm.initialized = true;
  pm.pid = getpid ();
  for (uint32_t i = 0; i < SL_PM_MAX_DEVICES; i++)
    {
      CUpti_Device_GetChipName_Params p = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = i,
      };
      if ((r = cuptiDeviceGetChipName (&p)) != CUPTI_SUCCESS || p.pChipName == NULL)
        {
          if (i == 0)
            refused (0, "cuptiDeviceGetChipName", r);
          break; /* no such device: the GPUs were all found */
        }
      PmDevice *d = &pm.devices[pm.n_devices];
      const char *failed = device_start (d, i, p.pChipName, &r);
      if (failed != NULL)
        {
          refused (i, failed, r);
          device_free (d);
          break; /* what refused one GPU refuses the next: said once */
        }
      pm.n_devices++;
    }
  if (pm.n_devices == 0)
    return;

  sigset_t all, old;
  sigfillset (&all);
  _sl_enter_library ();
  pthread_sigmask (SIG_BLOCK, &all, &old);
  pm.stop = false;
  pm.thread_running = pthread_create (&pm.thread, NULL, decode_thread_main, NULL) == 0;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  _sl_leave_library ();
}

void
_sl_cupti_pm_stop (void)
{
  if (pm.pid != getpid ())
    return; /* never started, or the parent's (a forked child has not its thread) */
  pm.pid = 0;
  if (pm.thread_running)
    {
      _sl_enter_library ();
      pthread_mutex_lock (&pm.lock);
      pm.stop = true;
      pthread_cond_signal (&pm.cond);
      pthread_mutex_unlock (&pm.lock);
      pthread_join (pm.thread, NULL);
      _sl_leave_library ();
      pm.thread_running = false;
    }
  for (unsigned i = 0; i < pm.n_devices; i++)
    {
      PmDevice *d = &pm.devices[i];
      if (d->started)
        {
          CUpti_PmSampling_Stop_Params p = {
            .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE,
            .pPmSamplingObject = d->sampler,
          };
          cuptiPmSamplingStop (&p);
          decode (d); /* what came since the last period */
        }
      device_free (d);
    }
  pm.n_devices = 0;
  if (pm.initialized && cuptiProfilerDeInitialize != NULL)
    {
      CUpti_Profiler_DeInitialize_Params p = {
        .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
      };
      cuptiProfilerDeInitialize (&p);
    }
  pm.initialized = false;
}
