/* sl-inject-nvtx.c: NVTX ranges, marks, domains and thread names through NVTX_INJECTION64_PATH.
 *
 * The NVTX headers compiled into the program load the library named by NVTX_INJECTION64_PATH on
 * the first NVTX call and call its InitializeInjectionNvtx2(), which fills NVTX's function tables
 * with ours.  The few NVTX ABI types we need are declared here (the ABI is versioned and stable:
 * nvtx3/nvtxDetail/nvtxTypes.h), so that NVTX works in builds without the CUDA toolkit.
 *
 * Push/pop and start/end are sent as they happen; the daemon pairs them into ranges.  Strings are
 * copied into the record: an NVTX message is usually 10-60 bytes.
 */
#include "sl-inject-private.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- the NVTX ABI (v3 headers, API version 2/3) ---- */
typedef void (*NvtxFunctionPointer) (void);
typedef NvtxFunctionPointer **NvtxFunctionTable;
typedef struct
{
  size_t struct_size;
  int (*GetModuleFunctionTable) (int module, NvtxFunctionTable *out_table, unsigned int *out_size);
} NvtxExportTableCallbacks;
typedef const void *(*NvtxGetExportTableFunc) (uint32_t id);

enum
{
  NVTX_ETID_CALLBACKS = 1,
  NVTX_CB_MODULE_CORE = 1,
  NVTX_CB_MODULE_CORE2 = 5,
  /* CORE */
  CORE_MarkEx = 1,
  CORE_MarkA = 2,
  CORE_MarkW = 3,
  CORE_RangeStartEx = 4,
  CORE_RangeStartA = 5,
  CORE_RangeStartW = 6,
  CORE_RangeEnd = 7,
  CORE_RangePushEx = 8,
  CORE_RangePushA = 9,
  CORE_RangePushW = 10,
  CORE_RangePop = 11,
  CORE_NameOsThreadA = 14,
  /* CORE2 */
  CORE2_DomainMarkEx = 1,
  CORE2_DomainRangeStartEx = 2,
  CORE2_DomainRangeEnd = 3,
  CORE2_DomainRangePushEx = 4,
  CORE2_DomainRangePop = 5,
  CORE2_DomainRegisterStringA = 10,
  CORE2_DomainRegisterStringW = 11,
  CORE2_DomainCreateA = 12,
  CORE2_DomainCreateW = 13,
  /* attributes */
  NVTX_COLOR_ARGB = 1,
  NVTX_MESSAGE_TYPE_ASCII = 1,
  NVTX_MESSAGE_TYPE_UNICODE = 2,
  NVTX_MESSAGE_TYPE_REGISTERED = 3,
};

typedef struct
{
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t colorType;
  uint32_t color;
  int32_t payloadType;
  int32_t reserved0;
  uint64_t payload;
  int32_t messageType;
  const void *message; /* ascii, unicode, or a registered string handle */
} NvtxAttributes;

typedef struct
{
  char name[1];
} NvtxDomain; /* our domain handle: a copy of its name (the handle's value is its id) */

static _Atomic uint64_t next_range_id = 1;

/* ---- records ---- */

/* Wide strings to UTF-8 (NVTX's W functions); at most `max` bytes. */
static void
wide_to_utf8 (const wchar_t *w,
              char          *out,
              size_t         max)
{
  size_t n = 0;

  for (; w != NULL && *w != 0 && n + 4 < max; w++)
    {
      uint32_t c = (uint32_t) *w;
      if (c < 0x80)
        out[n++] = (char) c;
      else if (c < 0x800)
        {
          out[n++] = (char) (0xC0 | (c >> 6));
          out[n++] = (char) (0x80 | (c & 0x3F));
        }
      else if (c < 0x10000)
        {
          out[n++] = (char) (0xE0 | (c >> 12));
          out[n++] = (char) (0x80 | ((c >> 6) & 0x3F));
          out[n++] = (char) (0x80 | (c & 0x3F));
        }
      else if (c < 0x110000)
        {
          out[n++] = (char) (0xF0 | (c >> 18));
          out[n++] = (char) (0x80 | ((c >> 12) & 0x3F));
          out[n++] = (char) (0x80 | ((c >> 6) & 0x3F));
          out[n++] = (char) (0x80 | (c & 0x3F));
        }
    }
  out[n] = '\0';
}

static void
emit (uint32_t    op,
      uint64_t    domain,
      uint64_t    range_id,
      const char *text,
      const NvtxAttributes *attr)
{
  SlWireNvtx r = { { SL_WIRE_NVTX, 0, 0 }, _sl_now (), range_id, domain, op, 0, 0, 0 };

  if (attr != NULL)
    {
      r.category = attr->category;
      if (attr->colorType == NVTX_COLOR_ARGB)
        {
          r.color = attr->color;
          r.has_color = 1;
        }
    }
  /* a capture range may begin with this range or end with it (nsys --nvtx-capture) */
  const char *domain_name = domain != 0 ? ((const NvtxDomain *) (uintptr_t) domain)->name : NULL;
  if (op <= SL_NVTX_END)
    _sl_capture_nvtx (op, domain_name, range_id, text, true);
  /* outside a capture range: no ranges or marks; domains and thread names always */
  if (op > SL_NVTX_END || !_sl_capture_gated ())
    _sl_emit_with_text (SL_WIRE_NVTX, &r, sizeof r, text, false);
  if (op <= SL_NVTX_END)
    _sl_capture_nvtx (op, domain_name, range_id, text, false);
}

/* The text of an attribute structure: ASCII, wide (converted into `buf`), or registered. */
static const char *
attr_text (const NvtxAttributes *attr,
           char                 *buf,
           size_t                size)
{
  if (attr == NULL || attr->message == NULL)
    return NULL;
  switch (attr->messageType)
    {
    case NVTX_MESSAGE_TYPE_ASCII:
    case NVTX_MESSAGE_TYPE_REGISTERED: /* our handle is a copy of the string */
      return attr->message;
    case NVTX_MESSAGE_TYPE_UNICODE:
      wide_to_utf8 (attr->message, buf, size);
      return buf;
    default:
      return NULL;
    }
}

#define TEXT_BUF 1024

static void
mark_ex (uint64_t              domain,
         const NvtxAttributes *attr)
{
  char buf[TEXT_BUF];
  emit (SL_NVTX_MARK, domain, 0, attr_text (attr, buf, sizeof buf), attr);
}

static uint64_t
start_ex (uint64_t              domain,
          const NvtxAttributes *attr)
{
  char buf[TEXT_BUF];
  uint64_t id = atomic_fetch_add (&next_range_id, 1);
  emit (SL_NVTX_START, domain, id, attr_text (attr, buf, sizeof buf), attr);
  return id;
}

static int
push_ex (uint64_t              domain,
         const NvtxAttributes *attr)
{
  char buf[TEXT_BUF];
  emit (SL_NVTX_PUSH, domain, 0, attr_text (attr, buf, sizeof buf), attr);
  return 0;
}

/* CORE */
static void
nvtx_mark_ex (const NvtxAttributes *attr)
{
  mark_ex (0, attr);
}

static void
nvtx_mark_a (const char *message)
{
  emit (SL_NVTX_MARK, 0, 0, message, NULL);
}

static void
nvtx_mark_w (const wchar_t *message)
{
  char buf[TEXT_BUF];
  wide_to_utf8 (message, buf, sizeof buf);
  emit (SL_NVTX_MARK, 0, 0, buf, NULL);
}

static uint64_t
nvtx_range_start_ex (const NvtxAttributes *attr)
{
  return start_ex (0, attr);
}

static uint64_t
nvtx_range_start_a (const char *message)
{
  uint64_t id = atomic_fetch_add (&next_range_id, 1);
  emit (SL_NVTX_START, 0, id, message, NULL);
  return id;
}

static uint64_t
nvtx_range_start_w (const wchar_t *message)
{
  char buf[TEXT_BUF];
  wide_to_utf8 (message, buf, sizeof buf);
  return nvtx_range_start_a (buf);
}

static void
nvtx_range_end (uint64_t id)
{
  emit (SL_NVTX_END, 0, id, NULL, NULL);
}

static int
nvtx_range_push_ex (const NvtxAttributes *attr)
{
  return push_ex (0, attr);
}

static int
nvtx_range_push_a (const char *message)
{
  emit (SL_NVTX_PUSH, 0, 0, message, NULL);
  return 0;
}

static int
nvtx_range_push_w (const wchar_t *message)
{
  char buf[TEXT_BUF];
  wide_to_utf8 (message, buf, sizeof buf);
  emit (SL_NVTX_PUSH, 0, 0, buf, NULL);
  return 0;
}

static int
nvtx_range_pop (void)
{
  emit (SL_NVTX_POP, 0, 0, NULL, NULL);
  return 0;
}

static void
nvtx_name_os_thread_a (uint32_t    tid,
                       const char *name)
{
  _sl_emit_thread_name (tid, name);
}

/* CORE2: domains */
static void
nvtx_domain_mark_ex (NvtxDomain           *d,
                     const NvtxAttributes *attr)
{
  mark_ex ((uint64_t) (uintptr_t) d, attr);
}

static uint64_t
nvtx_domain_range_start_ex (NvtxDomain           *d,
                            const NvtxAttributes *attr)
{
  return start_ex ((uint64_t) (uintptr_t) d, attr);
}

static void
nvtx_domain_range_end (NvtxDomain *d,
                       uint64_t    id)
{
  emit (SL_NVTX_END, (uint64_t) (uintptr_t) d, id, NULL, NULL);
}

static int
nvtx_domain_range_push_ex (NvtxDomain           *d,
                           const NvtxAttributes *attr)
{
  return push_ex ((uint64_t) (uintptr_t) d, attr);
}

static int
nvtx_domain_range_pop (NvtxDomain *d)
{
  emit (SL_NVTX_POP, (uint64_t) (uintptr_t) d, 0, NULL, NULL);
  return 0;
}

/* Registered strings and domains live as long as the process: a handful per program. */
static const char *
nvtx_domain_register_string_a (NvtxDomain *d,
                               const char *s)
{
  (void) d;
  return strdup (s != NULL ? s : "");
}

static const char *
nvtx_domain_register_string_w (NvtxDomain    *d,
                               const wchar_t *s)
{
  char buf[TEXT_BUF];
  wide_to_utf8 (s, buf, sizeof buf);
  return nvtx_domain_register_string_a (d, buf);
}

static NvtxDomain *
nvtx_domain_create_a (const char *name)
{
  NvtxDomain *d = (NvtxDomain *) strdup (name != NULL ? name : "");

  if (d != NULL)
    emit (SL_NVTX_DOMAIN_CREATE, (uint64_t) (uintptr_t) d, 0, name, NULL);
  return d;
}

static NvtxDomain *
nvtx_domain_create_w (const wchar_t *name)
{
  char buf[TEXT_BUF];
  wide_to_utf8 (name, buf, sizeof buf);
  return nvtx_domain_create_a (buf);
}

static void
table_set (NvtxFunctionTable table,
           unsigned          n,
           unsigned          id,
           NvtxFunctionPointer fn)
{
  if (id < n && table[id] != NULL)
    *table[id] = fn;
}

#define FN(f) ((NvtxFunctionPointer) (void (*) (void)) (f))

SL_EXPORT int
InitializeInjectionNvtx2 (NvtxGetExportTableFunc get_table)
{
  const NvtxExportTableCallbacks *cb;
  NvtxFunctionTable table = NULL;
  unsigned size = 0;

  _sl_inject_ensure_started ();
  if (!_sl_trace_enabled ("nvtx") || get_table == NULL)
    return 0; /* NVTX then stays a no-op in the program */
  cb = get_table (NVTX_ETID_CALLBACKS);
  if (cb == NULL || cb->GetModuleFunctionTable == NULL)
    return 0;
  if (cb->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size) && table != NULL)
    {
      unsigned n = size + 1; /* size: entries of the table, less its terminating NULL */
      table_set (table, n, CORE_MarkEx, FN (nvtx_mark_ex));
      table_set (table, n, CORE_MarkA, FN (nvtx_mark_a));
      table_set (table, n, CORE_MarkW, FN (nvtx_mark_w));
      table_set (table, n, CORE_RangeStartEx, FN (nvtx_range_start_ex));
      table_set (table, n, CORE_RangeStartA, FN (nvtx_range_start_a));
      table_set (table, n, CORE_RangeStartW, FN (nvtx_range_start_w));
      table_set (table, n, CORE_RangeEnd, FN (nvtx_range_end));
      table_set (table, n, CORE_RangePushEx, FN (nvtx_range_push_ex));
      table_set (table, n, CORE_RangePushA, FN (nvtx_range_push_a));
      table_set (table, n, CORE_RangePushW, FN (nvtx_range_push_w));
      table_set (table, n, CORE_RangePop, FN (nvtx_range_pop));
      table_set (table, n, CORE_NameOsThreadA, FN (nvtx_name_os_thread_a));
    }
  table = NULL;
  if (cb->GetModuleFunctionTable (NVTX_CB_MODULE_CORE2, &table, &size) && table != NULL)
    {
      unsigned n = size + 1; /* size: entries of the table, less its terminating NULL */
      table_set (table, n, CORE2_DomainMarkEx, FN (nvtx_domain_mark_ex));
      table_set (table, n, CORE2_DomainRangeStartEx, FN (nvtx_domain_range_start_ex));
      table_set (table, n, CORE2_DomainRangeEnd, FN (nvtx_domain_range_end));
      table_set (table, n, CORE2_DomainRangePushEx, FN (nvtx_domain_range_push_ex));
      table_set (table, n, CORE2_DomainRangePop, FN (nvtx_domain_range_pop));
      table_set (table, n, CORE2_DomainRegisterStringA, FN (nvtx_domain_register_string_a));
      table_set (table, n, CORE2_DomainRegisterStringW, FN (nvtx_domain_register_string_w));
      table_set (table, n, CORE2_DomainCreateA, FN (nvtx_domain_create_a));
      table_set (table, n, CORE2_DomainCreateW, FN (nvtx_domain_create_w));
    }
  return 1;
}
