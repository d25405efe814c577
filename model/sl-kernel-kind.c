/* sl-kernel-kind.c: library kernels recognised by name.
 *
 * The patterns come from the kernels of real traces (nsys and PyTorch's profiler): NCCL's
 * ncclKernel_* / ncclDevKernel_*; cuBLAS's <arch>_sgemm_* (ampere_, volta_, turing_ …),
 * sm80_xmma_gemm_*, nvjet_* (cuBLASLt on Hopper), gemv, nrm2, scal and split-K kernels whose
 * arguments name cublas*Params, cutlass::Kernel<…>; cuDNN's cudnn::*, sm80_xmma_fprop_*,
 * implicit_convolve_sgemm, and winograd and fft2d_* kernels whose arguments name cudnn types;
 * flash::flash_fwd_kernel (whose template arguments name cutlass types), fmha_*.  Names are
 * matched whole, arguments included (nsys's demangledName, Kineto's name): the arguments are
 * often what names the library.  Patterns a user's own kernel could carry (winograd, attn_fwd:
 * Triton's tutorial) are left out.
 * Order matters: attention before BLAS (FlashAttention is built on CUTLASS), cuDNN before BLAS
 * (its convolutions are "implicit gemm"), NCCL before all.  A bare "gemm" is not enough: users
 * name their own kernels naive_gemm and tiled_gemm (nsys-2025.5-cuda-events.sqlite). */
#include "sl-kernel-kind.h"

#include <string.h>

static gboolean
has_any (const char        *name,
         const char *const *needles)
{
  for (; *needles != NULL; needles++)
    if (strstr (name, *needles) != NULL)
      return TRUE;
  return FALSE;
}

/* cuBLAS's SASS kernels named for their architecture: ampere_sgemm_32x32_sliced1x4_tn,
 * volta_sgemm_64x64_nt, ampere_fp16_s16816gemm_…, turing_h1688gemm_… */
static gboolean
is_arch_gemm (const char *name)
{
  static const char *const archs[] = { "maxwell_", "pascal_", "volta_", "turing_", "ampere_",
                                       "ada_", "hopper_", "blackwell_", NULL };

  for (const char *const *a = archs; *a != NULL; a++)
    {
      const char *at = strstr (name, *a);
      /* at the start of the name or of a word ("void ampere_…" does not occur, but be lenient) */
      if (at != NULL && (at == name || at[-1] == ' ') && strstr (at, "gemm") != NULL)
        return TRUE;
    }
  return FALSE;
}

SlKernelLibrary
sl_kernel_library (const char *name)
{
  static const char *const nccl[] = { "nccl", "NCCL", NULL };
  static const char *const attention[] = { "flash_fwd", "flash_bwd", "flash::", "flash_attn",
                                           "fmha", "FMHA", "_sdpa", NULL };
  static const char *const dnn[] = { "cudnn", "implicit_convolve", "xmma_fprop", "xmma_dgrad",
                                     "xmma_wgrad", "xmma_pooling", NULL };
  static const char *const blas[] = { "cutlass", "cublas", "nvjet", "xmma_gemm", NULL };

  if (name == NULL || *name == '\0')
    return SL_KERNEL_LIBRARY_NONE;
  if (has_any (name, nccl))
    return SL_KERNEL_LIBRARY_NCCL;
  if (has_any (name, attention))
    return SL_KERNEL_LIBRARY_ATTENTION;
  if (has_any (name, dnn))
    return SL_KERNEL_LIBRARY_DNN;
  if (has_any (name, blas) || is_arch_gemm (name))
    return SL_KERNEL_LIBRARY_BLAS;
  /* after the libraries: PyTorch's kernels name them in their template arguments at times */
  if (strstr (name, "at::native::") != NULL || strstr (name, "at_cuda_detail::") != NULL)
    return SL_KERNEL_LIBRARY_PYTORCH;
  return SL_KERNEL_LIBRARY_NONE;
}

const char *
sl_kernel_library_name (SlKernelLibrary library)
{
  switch (library)
    {
    case SL_KERNEL_LIBRARY_NCCL:
      return "NCCL";
    case SL_KERNEL_LIBRARY_BLAS:
      return "cuBLAS/CUTLASS";
    case SL_KERNEL_LIBRARY_DNN:
      return "cuDNN";
    case SL_KERNEL_LIBRARY_ATTENTION:
      return "attention library";
    case SL_KERNEL_LIBRARY_PYTORCH:
      return "PyTorch (ATen)";
    case SL_KERNEL_LIBRARY_NONE:
    default:
      return NULL;
    }
}
