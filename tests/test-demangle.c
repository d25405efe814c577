/* test-demangle.c: kernel names against what nsys wrote in real exports (demangledName and
 * shortName of every kernel row that has a mangledName), the parser against libstdc++'s own
 * demangler on every symbol of libstdc++, and names no one should trust. */
#include "sl-demangle.h"
#include "sl-test-util.h"

#include <link.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler, the cross-check's reference (the daemon core links libstdc++) */
char *__cxa_demangle (const char *mangled, char *buf, size_t *len, int *status);

/* The names sl_kernel_names() gives, checked and freed. */
static void
check_names (const char *mangled,
             const char *demangled,
             const char *base)
{
  char *short_name = NULL;
  char *full = sl_kernel_names (mangled, &short_name);

  g_assert_nonnull (full);
  g_assert_nonnull (short_name);
  g_assert_cmpstr (full, ==, demangled);
  g_assert_cmpstr (short_name, ==, base);
  free (full);
  free (short_name);
}

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *sql = g_strdup_printf ("SELECT 1 FROM pragma_table_info('%s') WHERE name = ?",
                                          table);
  sqlite3_stmt *stmt = NULL;
  gboolean found;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, column, -1, SQLITE_STATIC);
  found = sqlite3_step (stmt) == SQLITE_ROW;
  sqlite3_finalize (stmt);
  return found;
}

/* ---- the oracle: every kernel row of every real export ------------------------------------- */

static void
test_nsys_oracle (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  guint64 rows = 0, matched = 0, without_mangled = 0;
  guint distinct = 0, files_used = 0;

  for (char **f = files; *f != NULL; f++)
    {
      sqlite3 *db = NULL;
      sqlite3_stmt *stmt = NULL;
      guint64 file_rows = 0, file_matched = 0;

      g_assert_cmpint (sqlite3_open_v2 (*f, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
      if (!has_column (db, "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName"))
        {
          /* 2021 layouts: no mangledName column, nothing to check against */
          sqlite3_close (db);
          continue;
        }
      files_used++;
      /* one row per distinct triple with its row count: the same check as row by row */
      g_assert_cmpint (sqlite3_prepare_v2 (db,
                                           "SELECT m.value, d.value, s.value, COUNT(*)"
                                           " FROM CUPTI_ACTIVITY_KIND_KERNEL k"
                                           " JOIN StringIds m ON m.id = k.mangledName"
                                           " JOIN StringIds d ON d.id = k.demangledName"
                                           " JOIN StringIds s ON s.id = k.shortName"
                                           " GROUP BY 1, 2, 3",
                                           -1, &stmt, NULL),
                       ==, SQLITE_OK);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          const char *mangled = (const char *) sqlite3_column_text (stmt, 0);
          const char *want_full = (const char *) sqlite3_column_text (stmt, 1);
          const char *want_short = (const char *) sqlite3_column_text (stmt, 2);
          guint64 count = (guint64) sqlite3_column_int64 (stmt, 3);
          char *got_short = NULL;
          char *got_full = sl_kernel_names (mangled, &got_short);

          g_assert_nonnull (got_full);
          distinct++;
          file_rows += count;
          if (g_strcmp0 (got_full, want_full) == 0 && g_strcmp0 (got_short, want_short) == 0)
            file_matched += count;
          else
            g_test_message ("%s: %s\n  nsys: %s | %s\n  ours: %s | %s", *f, mangled, want_full,
                            want_short, got_full, got_short);
          free (got_full);
          free (got_short);
        }
      sqlite3_finalize (stmt);
      g_assert_cmpint (sqlite3_prepare_v2 (db,
                                           "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"
                                           " WHERE mangledName IS NULL",
                                           -1, &stmt, NULL),
                       ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
      without_mangled += (guint64) sqlite3_column_int64 (stmt, 0);
      sqlite3_finalize (stmt);
      sqlite3_close (db);
      g_test_message ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " kernel rows match",
                      *f, file_matched, file_rows);
      rows += file_rows;
      matched += file_matched;
    }
  g_test_message ("nsys oracle: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                  " kernel rows (%u distinct names, %u files) match demangledName and shortName; "
                  "%" G_GUINT64_FORMAT " rows without mangledName",
                  matched, rows, distinct, files_used, without_mangled);
  /* 9 files of 2023 ... 2026 nsys have the column; ~7700 rows, 94 distinct names */
  g_assert_cmpuint (files_used, >=, 8);
  g_assert_cmpuint (distinct, >=, 90);
  g_assert_cmpuint (matched, ==, rows);
}

/* The oracle's constructs one by one, so that a failure says which rule broke. */
static void
test_nsys_forms (void)
{
  /* cv first, a space before '*' */
  check_names ("_Z12add_parallelPKfS0_Pfi",
               "add_parallel(const float *, const float *, float *, int)", "add_parallel");
  /* template parameters as written (T_ is T1, T0_ is T2), literals as casts */
  check_names ("_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb",
               "void at::native::vectorized_gather_kernel<(int)16, long>"
               "(char *, char *, T2 *, int, long, long, long, long, bool)",
               "vectorized_gather_kernel");
  check_names ("_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE",
               "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
               "ncclDevKernel_SendRecv");
  /* anonymous namespaces, ">>" */
  check_names ("_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f63"
               "20softmax_warp_forwardIfffLi6ELb0ELb0EEEvPT0_PKT_iiiPKbib",
               "void <unnamed>::softmax_warp_forward<float, float, float, (int)6, (bool)0, (bool)0>"
               "(T2 *, const T1 *, int, int, int, const bool *, int, bool)",
               "softmax_warp_forward");
  /* lambdas in local names inside template arguments */
  check_names ("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocast"
               "INS0_15CUDAFunctor_addIfEEEEvRNS_18TensorIteratorBaseERKT_EUliE_EEviT1_",
               "void at::native::elementwise_kernel<(int)128, (int)2, "
               "void at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float>>"
               "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
               "elementwise_kernel");
  /* template parameters in a scope and in an expression argument */
  check_names ("_ZN2at6native40_GLOBAL__N__0f1a8107_8_Shape_cu_49f7391c"
               "30CatArrayBatchedCopy_vectorizedINS1_10OpaqueTypeILj2EEEjLi1ELi128ELi1ELi16ELi8EE"
               "EvPcNS1_25CatArrInputTensorMetadataIT_T0_XT2_EXT3_EEENS1_16TensorSizeStride"
               "IS8_Lj4EEEiS8_",
               "void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<"
               "at::native::<unnamed>::OpaqueType<(unsigned int)2>, unsigned int, "
               "(int)1, (int)128, (int)1, (int)16, (int)8>(char *, "
               "at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, "
               "at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)",
               "CatArrayBatchedCopy_vectorized");
  /* not mangled: kept, and it is its own short name */
  check_names ("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn");
  check_names ("nvkernel_solve_F1L204_2", "nvkernel_solve_F1L204_2", "nvkernel_solve_F1L204_2");
}

/* Forms the real files do not show: our spelling, in EDG's manner, kept stable. */
static void
test_other_forms (void)
{
  check_names ("_Z1fPFviE", "f(void (*)(int))", "f");
  check_names ("_Z1fRA4_i", "f(int (&)[4])", "f");
  check_names ("_Z1fPKPc", "f(char *const *)", "f");
  check_names ("_Z1fPVKi", "f(const volatile int *)", "f");
  check_names ("_Z1fM1AFivE", "f(int (A::*)())", "f");
  check_names ("_Z1fOi", "f(int &&)", "f");
  check_names ("_ZN1AclEv", "A::operator ()()", "operator ()");
  check_names ("_ZN1AC1Ev", "A::A()", "A");
  check_names ("_ZN1AD1Ev", "A::~A()", "~A");
  check_names ("_ZNK1A1fEv", "A::f() const", "f");
  check_names ("_ZN1N1fB5cxx11Ev", "N::f[abi:cxx11]()", "f");
  check_names ("_Z1fILin5EEvv", "void f<(int)-5>()", "f");
  check_names ("_Z1fIJidEEvDpT_", "void f<int, double>(T1...)", "f");
  check_names ("_ZZ4mainENKUlvE_clEv", "main::[lambda() (instance 1)]::operator ()() const",
               "operator ()");
  check_names ("_Z3foov.cold.1", "foo() [clone .cold.1]", "foo");
}

/* What our parser leaves to __cxa_demangle is still demangled (GNU-styled), never lost. */
static void
test_fallback (void)
{
  check_names ("_ZTV1A", "vtable for A", "A");
  check_names ("_ZTSN2ns5ThingE", "typeinfo name for ns::Thing", "Thing");
  /* a vtable of garbage is not given to libstdc++'s demangler, which ran > 2 min on this one
   * (fuzz-demangle; tests/fuzz/regress/demangle/) */
  static const char hang[] = "_ZTVNrrDOsrrODOsrDOsrrDOsrrDOsrZcvDOsrDOsrDOsrrrZcvdaODOsrDOsrrDOsrrZ"
                             "cvdaODOsrDOsrrDOsrrDOsrZcv16__(tsy]sclpe_n'oE";
  check_names (hang, hang, hang);
  /* vector types: our parser does not print them, and libstdc++'s demangler is not trusted with
   * anything but special names (it can loop on garbage): kept as they are */
  check_names ("_Z1fDv4_f", "_Z1fDv4_f", "_Z1fDv4_f");
  /* not a valid mangled name at all: kept as it is */
  check_names ("_Z", "_Z", "_Z");
  check_names ("_Zfoo", "_Zfoo", "_Zfoo");
  check_names ("", "", "");
  check_names (NULL, "", "");

  char *full = sl_kernel_names ("_Z3fooi", NULL);
  g_assert_cmpstr (full, ==, "foo(int)");
  free (full);
}

/* ---- the parser against libstdc++'s demangler ---------------------------------------------- */

static int
find_libstdcxx_cb (struct dl_phdr_info *info,
                   size_t               size,
                   void                *data)
{
  char **path = data;

  (void) size;
  if (info->dlpi_name != NULL && strstr (info->dlpi_name, "libstdc++.so") != NULL)
    {
      *path = g_strdup (info->dlpi_name);
      return 1;
    }
  return 0;
}

/* Every "_Z..." symbol in libstdc++'s file (~6000 names, every C++ construct a library uses). */
static GPtrArray *
libstdcxx_symbols (void)
{
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  dl_iterate_phdr (find_libstdcxx_cb, &path);
  if (path == NULL || !g_file_get_contents (path, &data, &len, NULL))
    return names;
  for (gsize i = 0; i + 2 < len; i++)
    {
      if (data[i] != '_' || data[i + 1] != 'Z' || (i > 0 && data[i - 1] != '\0'))
        continue;
      gsize end = i + 2;
      while (end < len && (g_ascii_isalnum (data[end]) || data[end] == '_' || data[end] == '.'))
        end++;
      if (end >= len || data[end] != '\0' || end - i < 4)
        continue;
      char *name = g_strndup (data + i, end - i);
      if (g_hash_table_contains (seen, name))
        g_free (name);
      else
        {
          g_hash_table_add (seen, name);
          g_ptr_array_add (names, name);
        }
      i = end;
    }
  return names;
}

static void
test_libstdcxx_crosscheck (void)
{
  g_autoptr (GPtrArray) names = libstdcxx_symbols ();
  guint gnu_ok = 0, parsed = 0, same = 0, special = 0;

  if (names->len == 0)
    {
      g_test_skip ("libstdc++'s file not found");
      return;
    }
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      int status = 0;
      char *gnu = __cxa_demangle (name, NULL, NULL, &status);
      char *ours = _sl_demangle_gnu_style (name);
      /* vtables, typeinfo, guards, thunks: left to __cxa_demangle on purpose */
      gboolean is_special = g_str_has_prefix (name, "_ZT") || g_str_has_prefix (name, "_ZG");

      if (gnu != NULL)
        {
          gnu_ok++;
          special += is_special;
          if (!is_special && ours == NULL)
            g_test_message ("not parsed: %s (%s)", name, gnu);
        }
      if (gnu != NULL && ours != NULL)
        {
          parsed++;
          if (strcmp (gnu, ours) == 0)
            same++;
          else if (g_test_verbose ())
            g_test_message ("%s\n  gnu:  %s\n  ours: %s", name, gnu, ours);
        }
      free (gnu);
      free (ours);
    }
  g_test_message ("libstdc++: %u symbols, %u demangled by __cxa_demangle (%u special names); "
                  "ours parses %u, %u printed identically",
                  names->len, gnu_ok, special, parsed, same);
  g_assert_cmpuint (gnu_ok, >, 1000);
  /* every name but the special ones parses (libstdc++ of GCC 12: all of them; a newer one may
   * have forms kernels never use, such as C++20 constraints, which go to the fallback) */
  g_assert_cmpuint (parsed * 100, >=, (gnu_ok - special) * 99);
  /* the rest differ only in how GNU prints expressions, packs and nullptr: ~99.3% identical */
  g_assert_cmpuint (same * 100, >=, parsed * 98);
}

/* ---- names no one should trust ------------------------------------------------------------- */

static void
check_survives (const char *name)
{
  char *short_name = NULL;
  char *full = sl_kernel_names (name, &short_name);

  g_assert_nonnull (full);
  g_assert_nonnull (short_name);
  free (full);
  free (short_name);
}

static void
test_hostile (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  guint32 seed = sl_test_seed ();
  GRand *rand = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);
  const char alphabet[] = "_ZNSIEKRPLTDUlvcijmfbdA0123456789tzsrCXJpOMFYB._";

  /* every prefix of real names: truncated in a buffer, or cut by the wire's size limit */
  check_survives ("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocast"
                  "IZZZNS0_15neg_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE5_clEv"
                  "EUlfE_EEvS4_RKT_EUliE_EEviT1_");
  const char *real = "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4E"
                     "Lb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_E"
                     "ELb0ELb0ELb0ELb0ELb0ELb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE";
  for (size_t n = 0; n <= strlen (real); n++)
    {
      g_autofree char *prefix = g_strndup (real, n);
      check_survives (prefix);
    }

  /* nesting far beyond any real name: refused, never a stack overflow */
  g_string_assign (s, "_Z1f");
  for (int i = 0; i < 200000; i++)
    g_string_append_c (s, 'P');
  g_string_append_c (s, 'i');
  check_survives (s->str);
  g_string_assign (s, "_Z1fIX");
  for (int i = 0; i < 100000; i++)
    g_string_append (s, "ng");
  g_string_append (s, "Li1EEEvv");
  check_survives (s->str);

  /* substitutions that double the output each time (A<A<int>, A<int>> ...): 60 steps would print
   * 2^60 names; capped, and not handed to __cxa_demangle, whose printer has no cap */
  g_string_assign (s, "_Z1f1AIiE"); /* S_ = A, S0_ = A<int> */
  for (int k = 1; k <= 60; k++)
    {
      /* the type made at step k-1 is candidate k: S<k-1 in base 36>_ */
      char seq[8];
      int v = k - 1, at = (int) sizeof seq - 1;
      seq[at] = '\0';
      do
        seq[--at] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 36];
      while ((v /= 36) > 0);
      g_string_append_printf (s, "S_IS%s_S%s_E", seq + at, seq + at);
    }
  {
    char *short_name = NULL;
    gint64 start = g_get_monotonic_time ();
    char *full = sl_kernel_names (s->str, &short_name);
    g_assert_cmpstr (full, ==, s->str); /* refused: kept as it is */
    g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
    free (full);
    free (short_name);
  }
  /* ... while a few doublings are fine */
  check_names ("_Z1f1AIiES_IS0_S0_ES_IS1_S1_E",
               "f(A<int>, A<A<int>, A<int>>, A<A<A<int>, A<int>>, A<A<int>, A<int>>>)", "f");

  /* a random string that kept libstdc++'s demangler busy for minutes (seed 1416555983) */
  check_survives ("_Z3jXYFt6cD_70FAsrlM2NNm3tpCYmrs52TJ.F3cPK3viXdtORZK1KzXU2Ecrm_v");

  /* random strings over the grammar's letters */
  g_test_message ("seed %u", seed);
  for (int i = 0; i < 20000; i++)
    {
      int len = g_rand_int_range (rand, 0, 64);
      g_string_assign (s, "_Z");
      for (int k = 0; k < len; k++)
        g_string_append_c (s, alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]);
      check_survives (s->str);
    }
  g_string_free (s, TRUE);
  g_rand_free (rand);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/demangle/nsys-oracle", test_nsys_oracle);
  g_test_add_func ("/collector/demangle/nsys-forms", test_nsys_forms);
  g_test_add_func ("/collector/demangle/other-forms", test_other_forms);
  g_test_add_func ("/collector/demangle/fallback", test_fallback);
  g_test_add_func ("/collector/demangle/libstdcxx", test_libstdcxx_crosscheck);
  g_test_add_func ("/collector/demangle/hostile", test_hostile);
  return g_test_run ();
}
