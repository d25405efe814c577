/* sl-cmd-critical-path.h: `sightline critical-path FILE`: the critical path of a range. */
#pragma once

int sl_cmd_critical_path (int argc, char **argv);
