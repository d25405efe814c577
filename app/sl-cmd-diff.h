/* sl-cmd-diff.h: `sightline diff A B`: two traces compared by a summary report, their figures
 * and their findings. */
#pragma once

int sl_cmd_diff (int argc, char **argv);
