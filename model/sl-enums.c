/* sl-enums.c: enum labels: from the file's ENUM_* tables, or built in where a file has none
 * (2021 exports).  The numeric values are CUPTI's and nsys's, stable across versions. */
#include "sl-trace-private.h"

typedef struct
{
  gint64      value;
  const char *label;
} EnumEntry;

static const EnumEntry memcpy_oper[] = {
  { 0, "Unknown" }, { 1, "Host-to-Device" }, { 2, "Device-to-Host" }, { 3, "Host-to-Array" },
  { 4, "Array-to-Host" }, { 5, "Array-to-Array" }, { 6, "Array-to-Device" },
  { 7, "Device-to-Array" }, { 8, "Device-to-Device" }, { 9, "Host-to-Host" },
  { 10, "Peer-to-Peer" }, { 11, "Unified Host-to-Device" }, { 12, "Unified Device-to-Host" },
  { 13, "Unified Device-to-Device" }, { -1, NULL }
};

static const EnumEntry mem_kind[] = {
  { 0, "Pageable" }, { 1, "Pinned" }, { 2, "Device" }, { 3, "Array" }, { 4, "Managed" },
  { 5, "Device Static" }, { 6, "Managed Static" }, { 7, "Unknown" }, { -1, NULL }
};

static const EnumEntry sync_type[] = {
  { 0, "Unknown" }, { 1, "Event sync" }, { 2, "Stream wait sync" }, { 3, "Stream sync" },
  { 4, "Context sync" }, { -1, NULL }
};

static const EnumEntry event_class[] = {
  { 0, "CUDA runtime" }, { 1, "CUDA driver" }, { 26, "CUDA API" }, { 27, "OSRT runtime" },
  { 28, "cuDNN" }, { 29, "cuBLAS" }, { -1, NULL }
};

static const EnumEntry launch_type[] = {
  { 0, "Unknown" }, { 1, "Regular" }, { 2, "Coop Single Device" }, { 3, "Coop Multi Device" },
  { -1, NULL }
};

static const EnumEntry thread_state[] = {
  { 0, "Unknown" }, { 1, "Running" }, { 2, "Interruptible" }, { 3, "Uninterruptible" },
  { 4, "Stopped" }, { 5, "Terminated" }, { 6, "Unscheduled" }, { 7, "Waiting" },
  { 8, "OS runtime" }, { 9, "Initialized" }, { 10, "Transition" }, { -1, NULL }
};

/* ENUM_SCHEDULING_THREAD_BLOCK: why a thread was switched out (SCHED_EVENTS.threadBlock) */
static const EnumEntry thread_block[] = {
  { 0, "NonBlocked" }, { 1, "Unknown" }, { 2, "SigSuspend" }, { 3, "Stopped" }, { 4, "Nanosleep" },
  { 5, "Intr" }, { 6, "Mutex" }, { 7, "CondVar" }, { 8, "Sem" }, { 9, "Join" },
  { 10, "SigWaitInfo" }, { 11, "WaitCtx" }, { 12, "Send" }, { 13, "Receive" }, { 14, "Reply" },
  { 15, "Stack" }, { 16, "WaitThread" }, { 17, "WaitPage" }, { 18, "NetSend" }, { 19, "NetReply" },
  { 20, "FreePage" }, { 21, "PageIn" }, { 22, "PoolAllocation" }, { 23, "DelayExecution" },
  { 24, "Suspended" }, { 25, "UserRequest" }, { 26, "EventPair" }, { 27, "Queue" },
  { 28, "LPCReceive" }, { 29, "LPCReply" }, { 30, "VirtualMemory" }, { 31, "PageOut" },
  { 32, "Rendezvous" }, { 33, "KeyedEvent" }, { 34, "Terminated" }, { 35, "ProcessInSwap" },
  { 36, "CPURateControl" }, { 37, "WrCalloutStack" }, { 38, "Kernel" }, { 39, "Resource" },
  { 40, "PushLock" }, { 41, "WindowsMutex" }, { 42, "QuantumEnd" }, { 43, "DispatchInt" },
  { 44, "Preempted" }, { 45, "YieldExecution" }, { 46, "FastMutex" }, { 47, "GuardedMutex" },
  { 48, "Rundown" }, { 49, "ReadyToRun" }, { 50, "AlertByThreadId" }, { 51, "DeferredPreempt" },
  { 52, "PhysicalFault" }, { 53, "MqSend" }, { 54, "MqReceive" }, { 55, "MuonMutex" },
  { 56, "Barrier" }, { 57, "RwlockRead" }, { 58, "RwlockWrite" }, { 59, "TraceBuffer" },
  { 60, "InterruptAttachEvent" }, { 61, "TimerDelegate" }, { -1, NULL }
};

static const EnumEntry diagnostic_severity[] = {
  { 0, "Unknown" }, { 1, "Info" }, { 2, "Warning" }, { 3, "Error" }, { 4, "Verbose" },
  { -1, NULL }
};

static const EnumEntry diagnostic_source[] = {
  { 0, "Unknown source" }, { 1, "Injection" }, { 2, "Daemon" }, { 3, "Analysis" }, { -1, NULL }
};

static const EnumEntry um_migration[] = {
  { 0, "Unknown" }, { 1, "User prefetch" }, { 2, "Page fault" }, { 3, "Speculative prefetch" },
  { 4, "Eviction" }, { 5, "Access counters" }, { -1, NULL }
};

static const EnumEntry *builtin[SL_N_ENUMS] = {
  [SL_ENUM_MEMCPY_OPER] = memcpy_oper,
  [SL_ENUM_MEM_KIND] = mem_kind,
  [SL_ENUM_SYNC_TYPE] = sync_type,
  [SL_ENUM_EVENT_CLASS] = event_class,
  [SL_ENUM_LAUNCH_TYPE] = launch_type,
  [SL_ENUM_THREAD_STATE] = thread_state,
  [SL_ENUM_THREAD_BLOCK] = thread_block,
  [SL_ENUM_DIAGNOSTIC_SEVERITY] = diagnostic_severity,
  [SL_ENUM_DIAGNOSTIC_SOURCE] = diagnostic_source,
  [SL_ENUM_UM_MIGRATION] = um_migration,
};

const char *
_sl_trace_enum_find (SlTrace *trace,
                     SlEnum   which,
                     gint64   value)
{
  const char *label;

  g_return_val_if_fail (which < SL_N_ENUMS, NULL);
  if (trace != NULL && (label = g_hash_table_lookup (trace->enum_labels[which], &value)) != NULL)
    return label;
  for (const EnumEntry *e = builtin[which]; e->label != NULL; e++)
    if (e->value == value)
      return e->label;
  return NULL;
}

const char *
sl_trace_enum_label (SlTrace *trace,
                     SlEnum   which,
                     gint64   value)
{
  const char *label = _sl_trace_enum_find (trace, which, value);

  return label != NULL ? label : "Unknown";
}
