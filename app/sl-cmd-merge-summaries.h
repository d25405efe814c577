/* sl-cmd-merge-summaries.h: `sightline merge-summaries A.json B.json …`: the ranks of a
 * distributed job, from each rank's `analyze --format json`, slowest first. */
#pragma once

int sl_cmd_merge_summaries (int argc, char **argv);
