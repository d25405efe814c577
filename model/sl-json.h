/* sl-json.h: the C interface of sl-json.cpp, trace-event JSON parsed with simdjson's On-Demand API.
 *
 * The reader (sl-reader-json.c) cuts a file's `traceEvents` into batches of whole events and
 * hands each batch here as one JSON array; every event comes back as an SlJsonEvent holding the
 * fields the model uses, times already in integer nanoseconds (read from the number's text, never
 * through a double).  The small top-level values (deviceProperties, distributedInfo,
 * baseTimeNanoseconds …) come back as an SlJsonMeta.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Text inside the parser's buffers: valid until the next event; not NUL-terminated. */
typedef struct
{
  const char *s;
  gsize       len;
} SlJsonText;

/* A time field: absent, read, or present but not a number (or one beyond ±2^62 ns). */
typedef enum
{
  SL_JSON_ABSENT = 0,
  SL_JSON_OK,
  SL_JSON_BAD,
} SlJsonState;

/* Which of an event's args were present (SlJsonEvent.have). */
enum
{
  SL_JSON_HAVE_CORRELATION = 1 << 0,
  SL_JSON_HAVE_DEVICE      = 1 << 1,
  SL_JSON_HAVE_STREAM      = 1 << 2,
  SL_JSON_HAVE_BYTES       = 1 << 3,
  SL_JSON_HAVE_OCCUPANCY   = 1 << 4,
  SL_JSON_HAVE_SORT_INDEX  = 1 << 5,
  SL_JSON_HAVE_ID          = 1 << 6,
  SL_JSON_HAVE_CONTEXT     = 1 << 7,
  SL_JSON_HAVE_WAIT_STREAM = 1 << 8,   /* args.wait_on_stream */
  SL_JSON_HAVE_WAIT_RECORD = 1 << 9,   /* args.wait_on_cuda_event_record_corr_id */
  SL_JSON_HAVE_WAIT_EVENT  = 1 << 10,  /* args.wait_on_cuda_event_id */
  SL_JSON_HAVE_MEM_BYTES   = 1 << 11,  /* a [memory] event's args.Bytes */
};

#define SL_JSON_MAX_SERIES 8

typedef struct
{
  char        ph;            /* 0 when absent or not a one-letter string */
  char        bp;            /* flow binding point ('e') */
  char        scope;         /* instant scope `s` ('g', 'p', 't') */
  SlJsonText  cat;
  SlJsonText  name;
  gboolean    pid_is_text, tid_is_text, has_pid, has_tid;
  gint64      pid, tid;
  SlJsonText  pid_text, tid_text;
  SlJsonState ts_state, dur_state;
  gint64      ts, dur;       /* ns */
  guint64     id;            /* flow id (text ids are hashed) */
  guint32     have;          /* SL_JSON_HAVE_* */
  gint64      correlation, device, context, stream, bytes;
  gint64      registers, shared_memory;
  /* a Kineto "Stream Wait Event" (cuda_sync): the stream and the cudaEventRecord call
   * (correlation id) of the record it waits for, and the event's id */
  gint64      wait_stream, wait_record_corr, wait_event_id;
  /* a Kineto "[memory]" instant (PyTorch's memory profiler): bytes allocated (negative: freed)
   * at an address of a device ("Device Type" 0 CPU, 1 CUDA; "Device Id" -1 for the CPU) */
  gint64      mem_bytes, mem_addr, mem_device_type, mem_device_id;
  gint64      grid[3], block[3];
  double      occupancy;     /* "est. achieved occupancy %" */
  gint64      sort_index;    /* M *_sort_index */
  SlJsonText  arg_name;      /* args.name (M), args.cuda_sync_kind, args.labels */
  guint       n_series;      /* C: numeric args */
  SlJsonText  series_name[SL_JSON_MAX_SERIES];
  double      series_value[SL_JSON_MAX_SERIES];
} SlJsonEvent;

/* Returns FALSE to stop. */
typedef gboolean (*SlJsonEventFunc) (const SlJsonEvent *ev,
                                     gpointer           data);

typedef struct
{
  gint        id;
  char       *name;
  gint64      total_memory;
  gint        cc_major, cc_minor, sm_count, warp_size, max_threads_per_block;
  gint        max_threads_per_sm, max_regs_per_block, max_regs_per_sm, max_smem_per_block;
  gint        max_smem_per_block_optin, max_smem_per_sm, max_blocks_per_sm;
} SlJsonDevice;

typedef struct
{
  GArray     *devices;       /* SlJsonDevice */
  gboolean    has_rank;
  gint64      rank, world_size;
  gint64      schema_version;   /* -1 when absent */
  gint64      base_time_ns;     /* baseTimeNanoseconds, 0 when absent */
  char       *trace_name;
} SlJsonMeta;

typedef struct _SlJsonParser SlJsonParser;

SlJsonParser *sl_json_parser_new     (void);
void          sl_json_parser_free    (SlJsonParser *p);
/* Bytes a buffer handed to the parser must have readable after its end. */
gsize         sl_json_padding        (void);

/* Parses buf[0, len), a JSON array, calling `func` for each element that is an object and
 * counting the others in *n_other.  *n_done is the number of objects handed over, so that a
 * caller can resume after an error with the next object.  FALSE on a syntax or encoding error:
 * *error_at is its offset in `buf` (approximate: where the parser noticed), *message says what,
 * *utf8 is TRUE when the trouble is invalid UTF-8. */
gboolean      sl_json_parse_events   (SlJsonParser    *p,
                                      const char      *buf,
                                      gsize            len,
                                      SlJsonEventFunc  func,
                                      gpointer         data,
                                      guint64         *n_done,
                                      guint64         *n_other,
                                      gsize           *error_at,
                                      const char     **message,
                                      gboolean        *utf8);

/* Parses a JSON object of top-level values (`{"deviceProperties": […], "distributedInfo": …}`)
 * into *meta (cleared first); FALSE with *message when it is not valid JSON. */
gboolean      sl_json_parse_meta     (SlJsonParser    *p,
                                      const char      *buf,
                                      gsize            len,
                                      SlJsonMeta      *meta,
                                      const char     **message);
void          sl_json_meta_clear     (SlJsonMeta      *meta);

/* A JSON number's text (µs, "1695835572943613.25", "1.7e15", optionally quoted) as integer ns;
 * FALSE when it is not a number or beyond ±2^62 ns. */
gboolean      sl_json_us_to_ns       (const char      *text,
                                      gsize            len,
                                      gint64          *ns);

G_END_DECLS
