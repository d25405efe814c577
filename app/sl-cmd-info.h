/* sl-cmd-info.h: `sightline info FILE`. */
#pragma once

int sl_cmd_info (int argc, char **argv);
