/* sl-cmd-analyze.h: `sightline analyze FILE`: findings that point at the bottleneck. */
#pragma once

int sl_cmd_analyze (int argc, char **argv);
