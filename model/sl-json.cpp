/* sl-json.cpp: trace-event JSON read with simdjson (On-Demand for events, DOM for the small
 * top-level values), behind the C interface of sl-json.h.
 *
 * simdjson 3.0.1 (Debian 12) has no comma-separated iterate_many, so the reader hands over a
 * batch of events wrapped as one array (`[{…},{…}]`); On-Demand walks it once, field by field in
 * the order of the file (a duplicate key: the last one wins), and reads numbers only where the
 * model wants them.  Times are read from the number's text: 1.7e15 µs with fractions is beyond a
 * double's 2^53, so "1695835572943613.250" must become 1695835572943613250 ns exactly.
 */
#include "sl-json.h"

#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

using namespace simdjson;

struct _SlJsonParser
{
  gpointer    state;   /* the On-Demand parser, made on first use */
  dom::parser dom;
};

static void free_state (gpointer state);

extern "C" SlJsonParser *
sl_json_parser_new (void)
{
  SlJsonParser *p = new (std::nothrow) _SlJsonParser ();
  if (p == NULL)
    return NULL;
  p->state = NULL;
  return p;
}

extern "C" void
sl_json_parser_free (SlJsonParser *p)
{
  if (p == NULL)
    return;
  free_state (p->state);
  delete p;
}

extern "C" gsize
sl_json_padding (void)
{
  return SIMDJSON_PADDING;
}

/* ---- numbers from their text ----------------------------------------------------------- */

#define NS_LIMIT (G_GINT64_CONSTANT (1) << 62)

extern "C" gboolean
sl_json_us_to_ns (const char *text,
                  gsize       len,
                  gint64     *ns)
{
  const char *p = text, *end = text + len;
  gboolean neg = FALSE;
  guint64 digits = 0;
  int n_digits = 0, frac = 0, exp = 0;
  gboolean any = FALSE, overflow = FALSE;

  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p < end && *p == '"')
    {
      p++;
      while (end > p && (g_ascii_isspace (end[-1]) || end[-1] == '"'))
        end--;
    }
  if (p < end && (*p == '-' || *p == '+'))
    neg = *p++ == '-';
  /* mantissa digits, keeping at most 19 significant ones (those past count as lost precision) */
  for (int part = 0; part < 2; part++)
    {
      while (p < end && g_ascii_isdigit (*p))
        {
          any = TRUE;
          if (n_digits < 19)
            {
              if (digits != 0 || *p != '0')
                n_digits++;
              digits = digits * 10 + (guint64) (*p - '0');
              if (part == 1)
                frac++;
            }
          else if (part == 0)
            exp++;          /* an integer part longer than 19 digits: scale up */
          p++;
        }
      if (part == 0 && p < end && *p == '.')
        p++;
      else
        break;
    }
  if (!any)
    return FALSE;
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      gboolean eneg = FALSE;
      int e = 0;
      p++;
      if (p < end && (*p == '-' || *p == '+'))
        eneg = *p++ == '-';
      if (p >= end || !g_ascii_isdigit (*p))
        return FALSE;
      while (p < end && g_ascii_isdigit (*p))
        {
          e = MIN (e * 10 + (*p - '0'), 10000);
          p++;
        }
      exp += eneg ? -e : e;
    }
  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p != end)
    return FALSE;

  /* value = digits * 10^(exp - frac) µs = digits * 10^(exp - frac + 3) ns */
  int shift = exp - frac + 3;
  guint64 v = digits;
  for (; shift > 0 && v != 0; shift--)
    {
      if (v > G_MAXUINT64 / 10)
        {
          overflow = TRUE;
          break;
        }
      v *= 10;
    }
  for (; shift < 0 && v != 0; shift++)
    v /= 10;
  if (overflow || v > (guint64) NS_LIMIT)
    return FALSE;
  *ns = neg ? -(gint64) v : (gint64) v;
  return TRUE;
}

/* ---- events ------------------------------------------------------------------------------ */

static inline SlJsonText
text_of (std::string_view s)
{
  return SlJsonText { s.data (), s.size () };
}

/* ---- events -------------------------------------------------------------------------------- */

/* get_int's rare cases: not an int64. */
static G_GNUC_NO_INLINE gboolean
get_int_other (ondemand::value &v,
               gint64          *out)
{
  ondemand::json_type t;
  if (v.type ().get (t) != SUCCESS)
    return FALSE;
  if (t == ondemand::json_type::number)
    {
      ondemand::number_type nt;
      if (v.get_number_type ().get (nt) != SUCCESS)
        return FALSE;
      if (nt == ondemand::number_type::signed_integer)
        return v.get_int64 ().get (*out) == SUCCESS;
      if (nt == ondemand::number_type::unsigned_integer)
        {
          *out = G_MAXINT64;
          return TRUE;
        }
      double d;
      if (v.get_double ().get (d) != SUCCESS || std::isnan (d))
        return FALSE;
      *out = d >= 9.2e18 ? G_MAXINT64 : d <= -9.2e18 ? G_MININT64 : (gint64) d;
      return TRUE;
    }
  if (t == ondemand::json_type::string)
    {
      std::string_view s;
      if (v.get_string ().get (s) != SUCCESS)
        return FALSE;
      std::string copy (s);
      char *end = NULL;
      gint64 n = g_ascii_strtoll (copy.c_str (), &end, 10);
      if (end == copy.c_str () || *end != '\0')
        return FALSE;
      *out = n;
      return TRUE;
    }
  return FALSE;
}

/* An integer from a number (a fraction truncated, beyond int64 clamped) or a numeric string.
 * Inline: pid, tid and most args of 10^7 events are plain integers. */
static inline gboolean
get_int (ondemand::value &v,
         gint64          *out)
{
  int64_t fast;
  if (G_LIKELY (v.get_int64 ().get (fast) == SUCCESS))
    {
      *out = fast;
      return TRUE;
    }
  return get_int_other (v, out);
}

static gboolean
get_double (ondemand::value &v,
            double          *out)
{
  double d;
  if (v.get_double ().get (d) != SUCCESS || std::isnan (d) || std::isinf (d))
    return FALSE;
  *out = d;
  return TRUE;
}

/* A time: the number's own text to ns. */
static SlJsonState
get_time (ondemand::value &v,
          gint64          *out)
{
  std::string_view raw;
  ondemand::json_type t;
  if (v.type ().get (t) != SUCCESS
      || (t != ondemand::json_type::number && t != ondemand::json_type::string))
    return SL_JSON_BAD;
  raw = v.raw_json_token ();
  return sl_json_us_to_ns (raw.data (), raw.size (), out) ? SL_JSON_OK : SL_JSON_BAD;
}

/* pid / tid: a number, or text (Kineto writes "Spans", "stream 7") */
static gboolean
get_id (ondemand::value &v,
        gint64          *num,
        SlJsonText      *text,
        gboolean        *is_text)
{
  ondemand::json_type t;
  if (v.type ().get (t) != SUCCESS)
    return FALSE;
  if (t == ondemand::json_type::string)
    {
      std::string_view s;
      if (v.get_string ().get (s) != SUCCESS)
        return FALSE;
      *text = text_of (s);
      *is_text = TRUE;
      return TRUE;
    }
  *is_text = FALSE;
  return get_int (v, num);
}

static guint64
hash_text (std::string_view s)
{
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  for (char c : s)
    h = (h ^ (guchar) c) * G_GUINT64_CONSTANT (1099511628211);
  return h;
}

static void
get_dim3 (ondemand::value &v,
          gint64          *out)
{
  ondemand::array a;
  if (v.get_array ().get (a) != SUCCESS)
    return;
  int i = 0;
  for (auto item : a)
    {
      ondemand::value x;
      if (item.get (x) != SUCCESS)
        return;
      if (i < 3 && !get_int (x, &out[i]))
        out[i] = 0;
      i++;
    }
}

/* Keys are compared as the file writes them, unescaped only where a counter needs its text: the
 * names compared hold no quote or backslash. */
static inline gboolean
key_is (ondemand::raw_json_string key,
        const char               *name)
{
  return key.unsafe_is_equal (name);
}

static std::string_view
key_text (ondemand::raw_json_string key)
{
  const char *p = key.raw (), *q = p;
  while (*q != '"' || (q > p && q[-1] == '\\'))
    q++;
  return std::string_view (p, (size_t) (q - p));
}

static error_code
read_args (ondemand::value &v,
           SlJsonEvent     *ev)
{
  ondemand::object obj;
  if (v.get_object ().get (obj) != SUCCESS)
    return SUCCESS;   /* args that are not an object say nothing */
  for (auto &&fr : obj)
    {
      ondemand::field f;
      error_code err = std::move (fr).get (f);
      if (err)
        return err;
      ondemand::raw_json_string key = f.key ();
      ondemand::value x = f.value ();
      gint64 n;
      switch (key.raw ()[0])
        {
        case 'c':
          if (key_is (key, "correlation"))
            {
              if (get_int (x, &ev->correlation))
                ev->have |= SL_JSON_HAVE_CORRELATION;
              continue;
            }
          if (key_is (key, "context") && get_int (x, &ev->context))
            {
              ev->have |= SL_JSON_HAVE_CONTEXT;
              continue;
            }
          if (key_is (key, "cuda_sync_kind"))
            {
              std::string_view s;
              if (x.get_string ().get (s) == SUCCESS)
                ev->arg_name = text_of (s);
              continue;
            }
          break;
        case 'd':
          if (key_is (key, "device") && get_int (x, &ev->device))
            {
              ev->have |= SL_JSON_HAVE_DEVICE;
              continue;
            }
          break;
        case 's':
          if (key_is (key, "stream") && get_int (x, &ev->stream))
            {
              ev->have |= SL_JSON_HAVE_STREAM;
              continue;
            }
          if (key_is (key, "shared memory"))
            {
              if (get_int (x, &n))
                ev->shared_memory = n;
              continue;
            }
          if (key_is (key, "sort_index"))
            {
              if (get_int (x, &ev->sort_index))
                ev->have |= SL_JSON_HAVE_SORT_INDEX;
              continue;
            }
          break;
        case 'b':
          if (key_is (key, "bytes") && get_int (x, &ev->bytes))
            {
              ev->have |= SL_JSON_HAVE_BYTES;
              continue;
            }
          if (key_is (key, "block"))
            {
              get_dim3 (x, ev->block);
              continue;
            }
          break;
        case 'g':
          if (key_is (key, "grid"))
            {
              get_dim3 (x, ev->grid);
              continue;
            }
          break;
        case 'r':
          if (key_is (key, "registers per thread"))
            {
              if (get_int (x, &n))
                ev->registers = n;
              continue;
            }
          break;
        case 'B':
          if (key_is (key, "Bytes") && get_int (x, &ev->mem_bytes))
            {
              ev->have |= SL_JSON_HAVE_MEM_BYTES;
              continue;
            }
          break;
        case 'A':
          if (key_is (key, "Addr"))
            {
              get_int (x, &ev->mem_addr);
              continue;
            }
          break;
        case 'D':
          if (key_is (key, "Device Type"))
            {
              get_int (x, &ev->mem_device_type);
              continue;
            }
          if (key_is (key, "Device Id"))
            {
              get_int (x, &ev->mem_device_id);
              continue;
            }
          break;
        case 'e':
          if (key_is (key, "est. achieved occupancy %"))
            {
              if (get_double (x, &ev->occupancy))
                ev->have |= SL_JSON_HAVE_OCCUPANCY;
              continue;
            }
          break;
        case 'w':
          /* a cuda_sync "Stream Wait Event": the record it waits for */
          if (key_is (key, "wait_on_stream") && get_int (x, &ev->wait_stream))
            {
              ev->have |= SL_JSON_HAVE_WAIT_STREAM;
              continue;
            }
          if (key_is (key, "wait_on_cuda_event_record_corr_id")
              && get_int (x, &ev->wait_record_corr))
            {
              ev->have |= SL_JSON_HAVE_WAIT_RECORD;
              continue;
            }
          if (key_is (key, "wait_on_cuda_event_id") && get_int (x, &ev->wait_event_id))
            {
              ev->have |= SL_JSON_HAVE_WAIT_EVENT;
              continue;
            }
          break;
        case 'n':
        case 'l':
          if (key_is (key, "name") || key_is (key, "labels"))
            {
              std::string_view s;
              if (x.get_string ().get (s) == SUCCESS)
                ev->arg_name = text_of (s);
              continue;
            }
          break;
        default:
          break;
        }
      /* counters: every numeric arg is a series */
      if ((ev->ph == 'C' || ev->ph == 0) && ev->n_series < SL_JSON_MAX_SERIES)
        {
          ondemand::json_type t;
          double d;
          if (x.type ().get (t) == SUCCESS && t == ondemand::json_type::number
              && get_double (x, &d))
            {
              ev->series_name[ev->n_series] = text_of (key_text (key));
              ev->series_value[ev->n_series++] = d;
            }
        }
    }
  return SUCCESS;
}

static error_code
read_event (ondemand::object &obj,
            SlJsonEvent      *ev)
{
  memset (ev, 0, sizeof *ev);
  for (auto &&fr : obj)
    {
      ondemand::field f;
      error_code err = std::move (fr).get (f);
      if (err)
        return err;
      ondemand::raw_json_string key = f.key ();
      ondemand::value v = f.value ();
      std::string_view s;
      const char *k = key.raw ();
      /* the length of short keys, and their first letter */
      int len = k[0] == '"' ? 0 : k[1] == '"' ? 1 : k[2] == '"' ? 2 : k[3] == '"' ? 3
                : k[4] == '"' ? 4 : 5;
      switch (len <= 1 ? k[0] * (len == 1) : len * 256 + k[0])
        {
        case 2 * 256 + 'p':    /* "ph" */
          if (key_is (key, "ph") && v.get_string ().get (s) == SUCCESS && s.size () == 1)
            ev->ph = s[0];
          break;
        case 2 * 256 + 't':    /* "ts" */
          if (key_is (key, "ts"))
            ev->ts_state = get_time (v, &ev->ts);
          break;
        case 3 * 256 + 'd':    /* "dur" */
          if (key_is (key, "dur"))
            ev->dur_state = get_time (v, &ev->dur);
          break;
        case 3 * 256 + 'c':    /* "cat" */
          if (key_is (key, "cat") && v.get_string ().get (s) == SUCCESS)
            ev->cat = text_of (s);
          break;
        case 4 * 256 + 'n':    /* "name" */
          if (key_is (key, "name") && v.get_string ().get (s) == SUCCESS)
            ev->name = text_of (s);
          break;
        case 3 * 256 + 'p':    /* "pid" */
          if (key_is (key, "pid"))
            ev->has_pid = get_id (v, &ev->pid, &ev->pid_text, &ev->pid_is_text);
          break;
        case 3 * 256 + 't':    /* "tid" */
          if (key_is (key, "tid"))
            ev->has_tid = get_id (v, &ev->tid, &ev->tid_text, &ev->tid_is_text);
          break;
        case 2 * 256 + 'i':    /* "id" */
          if (key_is (key, "id"))
            {
              gint64 n;
              if (v.get_string ().get (s) == SUCCESS)
                {
                  ev->id = hash_text (s);
                  ev->have |= SL_JSON_HAVE_ID;
                }
              else if (get_int (v, &n))
                {
                  ev->id = (guint64) n;
                  ev->have |= SL_JSON_HAVE_ID;
                }
            }
          break;
        case 2 * 256 + 'b':    /* "bp" */
          if (key_is (key, "bp") && v.get_string ().get (s) == SUCCESS && s.size () == 1)
            ev->bp = s[0];
          break;
        case 's':
          if (v.get_string ().get (s) == SUCCESS && s.size () == 1)
            ev->scope = s[0];
          break;
        case 4 * 256 + 'a':    /* "args" */
          if (key_is (key, "args") && (err = read_args (v, ev)))
            return err;
          break;
        default:
          break;
        }
    }
  return SUCCESS;
}

static gboolean
parse_events (gpointer        *state,
              const char      *buf,
              gsize            len,
              SlJsonEventFunc  func,
              gpointer         data,
              guint64         *n_done,
              guint64         *n_other,
              gsize           *error_at,
              const char     **message,
              gboolean        *utf8)
{
  ondemand::document doc;
  ondemand::array arr;
  SlJsonEvent ev;
  error_code err;

  *n_done = 0;
  *utf8 = FALSE;
  *error_at = 0;
  if (*state == NULL)
    *state = new (std::nothrow) ondemand::parser ();
  if (*state == NULL)
    {
      *message = "out of memory";
      return FALSE;
    }
  ondemand::parser *parser = static_cast<ondemand::parser *> (*state);
  err = parser->iterate (buf, len, len + SIMDJSON_PADDING).get (doc);
  bool iterated = !err;   /* a document that failed to start has no location to ask */
  if (!err)
    err = doc.get_array ().get (arr);
  if (!err)
    for (auto item : arr)
      {
        ondemand::value v;
        if ((err = item.get (v)))
          break;
        ondemand::object obj;
        ondemand::json_type t;
        if ((err = v.type ().get (t)))
          break;
        if (t != ondemand::json_type::object)
          {
            (*n_other)++;
            continue;
          }
        if ((err = v.get_object ().get (obj)))
          break;
        if ((err = read_event (obj, &ev)))
          break;
        (*n_done)++;
        if (!func (&ev, data))
          return TRUE;
      }
  if (!err)
    return TRUE;
  const char *at = NULL;
  if (iterated && doc.current_location ().get (at) == SUCCESS && at >= buf && at <= buf + len)
    *error_at = (gsize) (at - buf);
  *utf8 = err == UTF8_ERROR;
  *message = error_message (err);
  return FALSE;
}

static void
free_state (gpointer state)
{
  delete static_cast<ondemand::parser *> (state);
}

extern "C" gboolean
sl_json_parse_events (SlJsonParser    *p,
                      const char      *buf,
                      gsize            len,
                      SlJsonEventFunc  func,
                      gpointer         data,
                      guint64         *n_done,
                      guint64         *n_other,
                      gsize           *error_at,
                      const char     **message,
                      gboolean        *utf8)
{
  return parse_events (&p->state, buf, len, func, data, n_done, n_other, error_at, message,
                       utf8);
}

/* ---- the top-level values ---------------------------------------------------------------- */

static gint
dev_int (dom::object &o,
         const char  *key)
{
  int64_t v;
  double d;
  if (o[key].get_int64 ().get (v) == SUCCESS)
    return (gint) CLAMP (v, 0, G_MAXINT);
  if (o[key].get_double ().get (d) == SUCCESS && d > 0 && d < G_MAXINT)
    return (gint) d;
  return 0;
}

extern "C" void
sl_json_meta_clear (SlJsonMeta *meta)
{
  if (meta->devices != NULL)
    {
      for (guint i = 0; i < meta->devices->len; i++)
        g_free (g_array_index (meta->devices, SlJsonDevice, i).name);
      g_array_unref (meta->devices);
    }
  g_free (meta->trace_name);
  memset (meta, 0, sizeof *meta);
  meta->schema_version = -1;
}

extern "C" gboolean
sl_json_parse_meta (SlJsonParser *p,
                    const char   *buf,
                    gsize         len,
                    SlJsonMeta   *meta,
                    const char  **message)
{
  dom::element root;
  dom::object top;

  sl_json_meta_clear (meta);
  meta->devices = g_array_new (FALSE, TRUE, sizeof (SlJsonDevice));
  error_code err = p->dom.parse (buf, len).get (root);
  if (!err)
    err = root.get_object ().get (top);
  if (err)
    {
      *message = error_message (err);
      return FALSE;
    }
  int64_t v;
  if (top["schemaVersion"].get_int64 ().get (v) == SUCCESS)
    meta->schema_version = v;
  std::string_view s;
  if (top["traceName"].get_string ().get (s) == SUCCESS)
    meta->trace_name = g_utf8_make_valid (s.data (), (gssize) s.size ());
  dom::element base;
  if (top["baseTimeNanoseconds"].get (base) == SUCCESS)
    {
      std::string text;
      uint64_t u;
      if (base.get_int64 ().get (v) == SUCCESS)
        meta->base_time_ns = CLAMP (v, -NS_LIMIT, NS_LIMIT);
      else if (base.get_uint64 ().get (u) == SUCCESS)
        meta->base_time_ns = NS_LIMIT;
    }
  dom::object dist;
  if (top["distributedInfo"].get_object ().get (dist) == SUCCESS)
    {
      if (dist["rank"].get_int64 ().get (v) == SUCCESS)
        {
          meta->has_rank = TRUE;
          meta->rank = v;
        }
      if (dist["world_size"].get_int64 ().get (v) == SUCCESS)
        meta->world_size = v;
    }
  dom::array devs;
  if (top["deviceProperties"].get_array ().get (devs) == SUCCESS)
    for (dom::element e : devs)
      {
        dom::object o;
        if (e.get_object ().get (o) != SUCCESS || o["id"].get_int64 ().get (v) != SUCCESS
            || v < 0 || v > G_MAXINT)
          continue;
        SlJsonDevice d = {};
        d.id = (gint) v;
        if (o["name"].get_string ().get (s) == SUCCESS)
          d.name = g_utf8_make_valid (s.data (), (gssize) s.size ());
        if (o["totalGlobalMem"].get_int64 ().get (v) == SUCCESS)
          d.total_memory = MAX (v, 0);
        d.cc_major = dev_int (o, "computeMajor");
        d.cc_minor = dev_int (o, "computeMinor");
        d.sm_count = dev_int (o, "numSms");
        d.warp_size = dev_int (o, "warpSize");
        d.max_threads_per_block = dev_int (o, "maxThreadsPerBlock");
        d.max_threads_per_sm = dev_int (o, "maxThreadsPerMultiprocessor");
        d.max_regs_per_block = dev_int (o, "regsPerBlock");
        d.max_regs_per_sm = dev_int (o, "regsPerMultiprocessor");
        d.max_smem_per_block = dev_int (o, "sharedMemPerBlock");
        d.max_smem_per_block_optin = dev_int (o, "sharedMemPerBlockOptin");
        d.max_smem_per_sm = dev_int (o, "sharedMemPerMultiprocessor");
        d.max_blocks_per_sm = dev_int (o, "maxBlocksPerMultiProcessor");
        g_array_append_val (meta->devices, d);
      }
  return TRUE;
}
