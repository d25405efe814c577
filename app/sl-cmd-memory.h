/* sl-cmd-memory.h: `sightline memory FILE`: GPU memory in use, its peak and live allocations. */
#pragma once

int sl_cmd_memory (int argc, char **argv);
