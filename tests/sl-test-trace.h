/* sl-test-trace.h: comparing two traces in tests: the statistics reports they give, and their
 * contents where the numbering of strings, threads and descriptions may differ. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Every report of `sl_report_names()` computed from each trace, the same CSV text (or the same
 * error). */
void sl_test_assert_same_reports (SlTrace *a,
                                  SlTrace *b);

/* The same trace read two ways, compared by content: strings by their text, processes by global
 * pid, threads by global tid, GPUs by device id, lanes by what they hold (kind and thread and
 * depth, or GPU, process, context and stream), each event field by field with names as text,
 * kernel and copy descriptions and call chains by content and links by the lane and index they
 * point at; warnings and tables read as sets; then the reports.  A fresh load itself numbers
 * strings in the order its two loading threads meet them, so ids are not compared. */
void sl_test_assert_equivalent   (SlTrace *a,
                                  SlTrace *b);

G_END_DECLS
