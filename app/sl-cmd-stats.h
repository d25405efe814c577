/* sl-cmd-stats.h: `sightline stats FILE`: nsys-style summary reports. */
#pragma once

int sl_cmd_stats (int argc, char **argv);
