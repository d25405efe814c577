/* sl-cmd-samples.h: `sightline samples FILE`: CPU samples as collapsed stacks or top functions. */
#pragma once

int sl_cmd_samples (int argc, char **argv);
