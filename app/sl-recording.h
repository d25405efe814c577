/* sl-recording.h: one recording made from the GUI through sightlined, the same daemon and control
 * protocol `sightline record` uses. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* What to record: the record dialog's fields, remembered between sessions. */
typedef struct
{
  char    *program;       /* path or a name on PATH */
  char   **args;          /* NULL-terminated */
  char    *cwd;           /* NULL: the current directory */
  char   **env;           /* VAR=VALUE, NULL-terminated */
  gboolean trace_cuda, trace_nvtx, trace_osrt;
  guint    sample_hz;     /* 0: no CPU sampling */
  double   delay_s, duration_s;
  guint64  osrt_threshold_ns; /* 0: the default (1 µs) */
  guint64  osrt_backtrace_ns; /* backtraces of calls this long; 0: the default (80 µs),
                               * G_MAXUINT64: none */
  char    *sched;             /* scheduling: "auto" (NULL too), "off", "perf" or "proc" */
  gboolean cuda_graph_nodes;  /* CUDA graph launches as their nodes' kernels (--cuda-graph-trace
                               * node); FALSE: one row a launch (graph, nsys's default) */
  char    *cuda_backtrace;    /* nsys's --cudabacktrace value; NULL: the default (sync) */
  char    *capture_range;     /* "cudaProfilerApi", "nvtx"; NULL (or "none"): the whole run */
  char    *nvtx_capture;      /* RANGE[@DOMAIN] of capture_range nvtx */
  char    *capture_range_end; /* "stop", "stop-shutdown", "repeat[:N]"; NULL: stop-shutdown */
  gboolean cuda_memory_usage; /* nsys --cuda-memory-usage: GPU memory allocated and freed */
  gboolean cuda_um_cpu_faults;/* nsys --cuda-um-cpu-page-faults, --cuda-um-gpu-page-faults:
                               * unified memory's page faults and migrations (the dialog sets */
  gboolean cuda_um_gpu_faults;/* both with one check) */
  guint    gpu_metrics_hz;    /* --gpu-metrics[=HZ]: GPU counters sampled HZ times a second
                               * (CUPTI PM sampling); 0: none */
  double   keep_last_s;       /* --keep-last: a flight recorder keeping only the events of the
                               * last this many seconds (SL_RECORD_KEEP_LAST_MIN…MAX); 0: all */
  guint64  max_size;          /* --max-size: bytes at which the recording stops (with keep_last_s:
                               * the oldest events go instead); 0: no bound */
  gboolean output_pattern;    /* `output` kept "%n" (a flight recorder's file number) and "%%"
                               * for the daemon (sl_control_expand_pattern) */
  char    *output;        /* the trace file */
} SlRecordSettings;

/* The bounds of --keep-last (seconds) and --max-size (bytes): a window shorter than a commit
 * (100 ms), or a file smaller than an empty trace's tables, records nothing. */
#define SL_RECORD_KEEP_LAST_MIN 0.1
#define SL_RECORD_KEEP_LAST_MAX (7 * 24 * 3600.0)
#define SL_RECORD_MAX_SIZE_MIN  (G_GUINT64_CONSTANT (8) << 20)
#define SL_RECORD_MAX_SIZE_MAX  (G_GUINT64_CONSTANT (1) << 50)

/* --keep-last DURATION: a number and a unit, ms, s, m or h ("30s", "5m", "1.5h"; a bare number
 * is seconds), within the bounds above.  FALSE with a message naming what is wrong. */
gboolean          sl_record_parse_duration    (const char *text,
                                               double     *seconds,
                                               GError    **error);
/* --max-size SIZE: bytes, or a number with K, M, G or T (powers of 1024; "KiB", "MB" … taken
 * alike): "2G", "20M", "512K".  FALSE with a message for anything else or outside the bounds. */
gboolean          sl_record_parse_size        (const char *text,
                                               guint64    *bytes,
                                               GError    **error);

SlRecordSettings *sl_record_settings_new      (void);
/* nsys's syntax of --cudabacktrace: "all", "none", or kernel|memory|sync|other[:NS] joined by
 * commas.  FALSE for anything else. */
gboolean          sl_record_cuda_backtrace_valid (const char *value);
/* --capture-range-end: stop, stop-shutdown, repeat or repeat:N. */
gboolean          sl_record_capture_end_valid (const char *value);
SlRecordSettings *sl_record_settings_copy     (const SlRecordSettings *s);
void              sl_record_settings_free     (SlRecordSettings *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlRecordSettings, sl_record_settings_free)

/* Loads / saves the last settings in $XDG_CONFIG_HOME/sightline/record.ini.  Load returns NULL
 * when nothing was saved yet. */
SlRecordSettings *sl_record_settings_load     (void);
gboolean          sl_record_settings_save     (const SlRecordSettings *s, GError **error);

/* The folder recordings go to by default ($XDG_DATA_HOME/sightline/recordings) and a fresh,
 * unused name in it. */
char             *sl_record_settings_default_output (void);

/* Checks what can be checked before starting: the program exists and is executable (the
 * resolved path in *resolved), the working directory, the output folder is writable, the file is
 * not there yet (unless `overwrite`).  FALSE with a message for a person. */
gboolean          sl_record_settings_validate (const SlRecordSettings *s,
                                               gboolean                overwrite,
                                               char                  **resolved,
                                               GError                **error);

/* COMMAND as the daemon will exec it: a path, found on PATH as a shell would.  NULL with the
 * exit status a shell would give (127 not found, 126 not executable) and a message. */
char             *sl_record_resolve_program   (const char *name,
                                               int        *exit_code,
                                               GError    **error);
/* Where sightlined is: $SIGHTLINE_DAEMON, beside this program, or on PATH; NULL if nowhere. */
char             *sl_recording_daemon_path    (void);
/* The "record" control message for `settings` with `program` resolved: our environment with the
 * settings' variables over it. */
GPtrArray        *sl_record_request           (const SlRecordSettings *settings,
                                               const char             *program,
                                               gboolean                overwrite);

#define SL_TYPE_RECORDING (sl_recording_get_type ())
G_DECLARE_FINAL_TYPE (SlRecording, sl_recording, SL, RECORDING, GObject)

/*
 * Signals (all on the main context):
 *   started (int pid)                      the program runs
 *   progress (guint64 elapsed_ns, guint64 events)   every ~250 ms
 *   output (const char *text)              the program's stdout and stderr, as they come
 *   exited (int wait_status)               the program ended
 *   finished (guint64 events, guint64 dropped, const char *error_or_NULL)
 *                                          the trace is complete (or the recording failed)
 */
SlRecording *sl_recording_new   (const SlRecordSettings *settings);
/* Connects (starting the daemon if needed) and asks it to record; FALSE and `error` if the daemon
 * cannot be reached.  Everything after comes through the signals. */
gboolean     sl_recording_start (SlRecording *self, GError **error);
typedef enum
{
  SL_RECORDING_END,    /* the program gets SIGINT (as from Ctrl+C); the trace is kept */
  SL_RECORDING_KILL,   /* SIGKILL, for a program that does not end on SIGINT */
  SL_RECORDING_DETACH, /* the recording ends, the program runs on unrecorded */
} SlRecordingStop;

void         sl_recording_stop  (SlRecording *self, SlRecordingStop how);
gboolean     sl_recording_is_running (SlRecording *self);
const char  *sl_recording_get_output (SlRecording *self);

G_END_DECLS
