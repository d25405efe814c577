/* sl-demangle.h: kernel names as Nsight Systems writes them (demangledName, shortName); no GLib. */
#pragma once

#ifdef __cplusplus
extern "C"
{
#endif

  /*
   * Returns the demangled form of the kernel name @name as nsys's demangledName column has it
   * (NVIDIA's cu++filt style: "void at::native::vectorized_gather_kernel<(int)16, long>(char *,
   * T2 *)"), or a copy of @name when it is not a mangled C++ name ("ampere_sgemm_128x64_nn").
   * If @short_name is not NULL it is set to the base function name, as nsys's shortName column
   * has it ("vectorized_gather_kernel"; the whole name when not mangled).  Both are malloc'd and
   * freed with free(); NULL @name is "".  Returns NULL only when memory runs out (then
   * *@short_name is NULL too).
   */
  char *sl_kernel_names (const char *name, char **short_name);

  /* Tests only: @name parsed by sl_kernel_names()'s parser but printed as libstdc++'s
   * __cxa_demangle would (template parameters resolved), to check the parser against it.  NULL
   * when the parser does not take the name; malloc'd. */
  char *_sl_demangle_gnu_style (const char *name);

#ifdef __cplusplus
}
#endif
