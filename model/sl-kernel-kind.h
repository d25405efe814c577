/* sl-kernel-kind.h: which library wrote a kernel, from its name, so that rules give advice a
 * user can follow (how the library is called, not how it is compiled). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  SL_KERNEL_LIBRARY_NONE,       /* the user's own, or not recognised: its source is at hand */
  SL_KERNEL_LIBRARY_NCCL,       /* NCCL collectives: a block per channel, 2-32 blocks by design */
  SL_KERNEL_LIBRARY_BLAS,       /* cuBLAS, cuBLASLt (nvjet), CUTLASS: tiles tuned per shape */
  SL_KERNEL_LIBRARY_DNN,        /* cuDNN (convolutions, batch norm, its layout transforms) */
  SL_KERNEL_LIBRARY_ATTENTION,  /* FlashAttention, memory-efficient / fused MHA (fmha) */
  SL_KERNEL_LIBRARY_PYTORCH,    /* PyTorch's own (at::native): not tuned per shape, but their
                                 * launch configuration is PyTorch's, not the user's */
} SlKernelLibrary;

/* The library of a kernel of this (demangled or short) name; NONE for NULL.  A dozen substring
 * tests: called once per launch configuration, not per kernel. */
SlKernelLibrary sl_kernel_library      (const char      *name);
/* "NCCL", "cuBLAS/CUTLASS", "cuDNN", "attention library", "PyTorch (ATen)"; NULL for NONE. */
const char     *sl_kernel_library_name (SlKernelLibrary  library);

G_END_DECLS
