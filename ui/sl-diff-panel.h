/* sl-diff-panel.h: two traces compared (the window's comparison, `sightline --compare A B`): a
 * report's rows side by side with their deltas (`sightline diff`), each side's figures and the
 * findings new in B or gone from it; the step the two are aligned on. */
#pragma once

#include <gtk/gtk.h>

#include "sl-diff.h"

G_BEGIN_DECLS

#define SL_TYPE_DIFF_PANEL (sl_diff_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlDiffPanel, sl_diff_panel, SL, DIFF_PANEL, GtkWidget)

GtkWidget  *sl_diff_panel_new          (void);

/* The diffs to show, one per report of sl_diff_report_names () in that order (transfer full;
 * NULL entries for reports neither side has data for), or NULL while they are computed;
 * `status` says how the two are aligned ("Aligned on step 1 of each"). */
void        sl_diff_panel_set_diffs    (SlDiffPanel *self,
                                        GPtrArray   *diffs,
                                        const char  *status);

/* The report shown ("cuda_gpu_kern_sum"), and showing another, as the report menu does. */
const char *sl_diff_panel_get_report   (SlDiffPanel *self);
gboolean    sl_diff_panel_show_report  (SlDiffPanel *self,
                                        const char  *report);
/* The step the "Align on step" field holds, counted from 0 (it shows it from 1). */
guint       sl_diff_panel_get_step     (SlDiffPanel *self);
void        sl_diff_panel_set_step     (SlDiffPanel *self,
                                        guint        step);

/* For tests: the table shown (as `sightline diff --format csv` writes it) and the summary text. */
char       *sl_diff_panel_get_csv      (SlDiffPanel *self);
const char *sl_diff_panel_get_summary  (SlDiffPanel *self);

/* Signal "align-step" (guint step, from 0): the user asked for the two to be aligned on the
 * start of that step. */

G_END_DECLS
