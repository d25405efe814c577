/* sl-cmd-record.h: `sightline record [OPTION…] -- COMMAND`: record a program through sightlined. */
#pragma once

int sl_cmd_record (int argc, char **argv);
