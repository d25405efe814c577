/* sl-plant.h: writes small nsys-schema traces event by event, to plant known problems in. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PLANT_US ((gint64) 1000)
#define PLANT_MS ((gint64) 1000000)
#define PLANT_S  ((gint64) 1000000000)

/* One process (pid 100, "python3") with a main thread (tid 100) and two data-loader threads
 * (101, 102); one H100 (GPU 0, 132 SMs) with stream 7.  Times are ns from the session start. */
enum
{
  PLANT_MAIN = 100,
  PLANT_LOADER_0 = 101,
  PLANT_LOADER_1 = 102,
};

typedef struct _Plant Plant;

typedef struct
{
  guint grid, block;        /* 1-D */
  guint registers;
  guint dynamic_shared;
} PlantConfig;

Plant  *plant_new      (const char *path);
/* As plant_new with these GPUs (device ids), described in the file in this order; device d's
 * work runs in context 1 + d, stream 7.  plant_new is plant_new_gpus with device 0 alone. */
Plant  *plant_new_gpus (const char *path, const guint *devices, guint n_devices);
/* A CUDA API call; returns its correlation id. */
gint64  plant_api      (Plant *p, gint tid, const char *name, gint64 start, gint64 end);
void    plant_kernel   (Plant *p, const char *name, const PlantConfig *config, gint64 start,
                        gint64 end, gint64 corr);
/* A kernel on the GPU with that device id (plant_kernel: device 0). */
void    plant_kernel_on (Plant *p, guint device, const char *name, const PlantConfig *config,
                         gint64 start, gint64 end, gint64 corr);
/* copy_kind: 1 HtoD, 2 DtoH; kinds: 0 pageable, 1 pinned, 2 device */
void    plant_memcpy   (Plant *p, gint copy_kind, gint src_kind, gint dst_kind, gint64 bytes,
                        gint64 start, gint64 end, gint64 corr);
void    plant_osrt     (Plant *p, gint tid, const char *name, gint64 start, gint64 end);
/* An OS runtime call with its backtrace (OSRT_CALLCHAINS): frames[i] "symbol@module", leaf
 * first. */
void    plant_osrt_backtrace (Plant *p, gint tid, const char *name, gint64 start, gint64 end,
                              const char *const *frames, guint n);
void    plant_sample   (Plant *p, gint tid, gint64 t, const char *symbol);
/* A sample with a whole stack: frames[i] is "symbol@module", leaf first, n of them. */
void    plant_sample_stack (Plant *p, gint tid, gint64 t, const char *const *frames, guint n);
/* The same for thread `tid` of process `pid`. */
void    plant_sample_stack_of (Plant *p, gint pid, gint tid, gint64 t, const char *const *frames,
                               guint n);
/* Another process `pid` (its main thread `pid`), a child of `parent` (0: none): its PROCESSES
 * and ThreadNames rows and a row of SL_PROCESS_INFO (Sightline's own table: parent, command
 * line), as the collector writes them. */
void    plant_process  (Plant *p, gint pid, gint parent, const char *name,
                        const char *command_line);
/* Thread `tid` of process `pid` scheduled in on `cpu` at `in` and out at `out` (SCHED_EVENTS),
 * switching out in threadState `state` with threadBlock `block` (-1: NULL); state 1 (Running)
 * is a preemption, 2 (Interruptible sleep) a block. */
void    plant_sched_slice (Plant *p, gint pid, gint tid, gint cpu, gint64 in, gint64 out,
                           gint state, gint block);
/* A row of TARGET_INFO_SYSTEM_ENV ("CpuCores", "16"), the table made on first use. */
void    plant_system_env (Plant *p, const char *name, const char *value);
/* Writes the session's extent and closes the file. */
void    plant_finish   (Plant *p);

/* The healthy loop: the main thread launches `n` kernels of `dur` every `period` from `t`
 * (a 5 µs cudaLaunchKernel each); the GPU runs each as soon as it is free.  Returns the time
 * after the last launch. */
gint64  plant_loop     (Plant *p, gint64 t, guint n, gint64 period, gint64 dur, const char *name,
                        const PlantConfig *config);
/* When the GPU is free again (the end of the last kernel or copy). */
gint64  plant_gpu_free (Plant *p);
void    plant_set_gpu_free (Plant *p, gint64 t);

/* After plant_finish, on the file: an NVTX event (type 59 push/pop, 60 start/end) of thread
 * `tid` of process 100 in the default domain; any SQL. */
void    plant_nvtx     (const char *path, gint tid, gint type, const char *text, gint64 start,
                        gint64 end);
void    plant_sql      (const char *path, const char *sql);

extern const PlantConfig plant_config_full;   /* 256 threads, 32 registers: 100% occupancy */

G_END_DECLS
