/* sl-cmd-export.h: `sightline export FILE`: a trace written as Chrome trace JSON or nsys SQLite. */
#pragma once

int sl_cmd_export (int argc, char **argv);
