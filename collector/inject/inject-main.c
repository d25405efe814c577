/* inject-main.c: libsightline-inject.so.  Everything lives in sightline-inject-core (linked whole):
 * the constructor in sl-inject.c starts recording when SIGHTLINE_SOCKET is set, the interposed
 * OS runtime and pthread functions, NVTX's InitializeInjectionNvtx2 and CUDA's InitializeInjection
 * are exported from there.  This file only names the library's version for `strings`/dlsym. */
#include "sl-inject-private.h"

SL_EXPORT const char sightline_inject_version[] = "sightline-inject " SL_INJECT_VERSION;
