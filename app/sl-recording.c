/* sl-recording.c: a recording made from the GUI: settings (remembered in a key file), checks, and
 * the conversation with sightlined.
 *
 * The daemon is reached exactly as `sightline record` does (sl-control.h); a thread blocks on its
 * messages and hands each to the main context.  The program's stdout and stderr come back through
 * two pipes whose write ends travel to the daemon with the request (SCM_RIGHTS).
 */
#include "sl-recording.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "sl-control.h"

extern char **environ;

/* ---- settings ------------------------------------------------------------------------------ */

SlRecordSettings *
sl_record_settings_new (void)
{
  SlRecordSettings *s = g_new0 (SlRecordSettings, 1);

  s->args = g_new0 (char *, 1);
  s->env = g_new0 (char *, 1);
  s->trace_cuda = s->trace_nvtx = s->trace_osrt = TRUE;
  s->sample_hz = 1000;
  return s;
}

SlRecordSettings *
sl_record_settings_copy (const SlRecordSettings *s)
{
  SlRecordSettings *c = g_memdup2 (s, sizeof *s);

  c->program = g_strdup (s->program);
  c->args = g_strdupv (s->args);
  c->cwd = g_strdup (s->cwd);
  c->env = g_strdupv (s->env);
  c->output = g_strdup (s->output);
  c->sched = g_strdup (s->sched);
  c->cuda_backtrace = g_strdup (s->cuda_backtrace);
  c->capture_range = g_strdup (s->capture_range);
  c->nvtx_capture = g_strdup (s->nvtx_capture);
  c->capture_range_end = g_strdup (s->capture_range_end);
  return c;
}

void
sl_record_settings_free (SlRecordSettings *s)
{
  if (s == NULL)
    return;
  g_free (s->program);
  g_strfreev (s->args);
  g_free (s->cwd);
  g_strfreev (s->env);
  g_free (s->output);
  g_free (s->sched);
  g_free (s->cuda_backtrace);
  g_free (s->capture_range);
  g_free (s->nvtx_capture);
  g_free (s->capture_range_end);
  g_free (s);
}

gboolean
sl_record_cuda_backtrace_valid (const char *value)
{
  static const char *const classes[] = { "all", "kernel", "memory", "sync", "other" };
  g_auto (GStrv) items = NULL;

  if (value == NULL || *value == '\0')
    return FALSE;
  if (strcmp (value, "none") == 0)
    return TRUE;
  items = g_strsplit (value, ",", -1);
  for (char **it = items; *it != NULL; it++)
    {
      const char *colon = strchr (*it, ':');
      size_t n = colon != NULL ? (size_t) (colon - *it) : strlen (*it);
      gboolean known = FALSE;
      for (size_t k = 0; k < G_N_ELEMENTS (classes) && !known; k++)
        known = strlen (classes[k]) == n && strncmp (*it, classes[k], n) == 0;
      if (!known)
        return FALSE;
      if (colon != NULL)
        for (const char *d = colon + 1; *d != '\0' || d == colon + 1; d++)
          if (!g_ascii_isdigit (*d))
            return FALSE;
    }
  return TRUE;
}

gboolean
sl_record_capture_end_valid (const char *value)
{
  if (value == NULL)
    return FALSE;
  if (strcmp (value, "stop") == 0 || strcmp (value, "stop-shutdown") == 0
      || strcmp (value, "repeat") == 0)
    return TRUE;
  if (strncmp (value, "repeat:", 7) != 0 || value[7] == '\0')
    return FALSE;
  for (const char *d = value + 7; *d != '\0'; d++)
    if (!g_ascii_isdigit (*d))
      return FALSE;
  return TRUE;
}

static char *
settings_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "sightline", "record.ini", NULL);
}

SlRecordSettings *
sl_record_settings_load (void)
{
  g_autofree char *path = settings_path ();
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  SlRecordSettings *s;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL)
      || !g_key_file_has_key (kf, "last", "program", NULL))
    return NULL;
  s = sl_record_settings_new ();
  s->program = g_key_file_get_string (kf, "last", "program", NULL);
  if (g_key_file_has_key (kf, "last", "args", NULL))
    {
      g_strfreev (s->args);
      s->args = g_key_file_get_string_list (kf, "last", "args", NULL, NULL);
    }
  s->cwd = g_key_file_get_string (kf, "last", "cwd", NULL);
  if (s->cwd != NULL && *s->cwd == '\0')
    g_clear_pointer (&s->cwd, g_free);
  if (g_key_file_has_key (kf, "last", "env", NULL))
    {
      g_strfreev (s->env);
      s->env = g_key_file_get_string_list (kf, "last", "env", NULL, NULL);
    }
  s->trace_cuda = g_key_file_get_boolean (kf, "last", "cuda", NULL);
  s->trace_nvtx = g_key_file_get_boolean (kf, "last", "nvtx", NULL);
  s->trace_osrt = g_key_file_get_boolean (kf, "last", "osrt", NULL);
  s->sample_hz = (guint) g_key_file_get_integer (kf, "last", "sample_hz", NULL);
  s->delay_s = g_key_file_get_double (kf, "last", "delay", NULL);
  s->duration_s = g_key_file_get_double (kf, "last", "duration", NULL);
  s->capture_range = g_key_file_get_string (kf, "last", "capture_range", NULL);
  s->nvtx_capture = g_key_file_get_string (kf, "last", "nvtx_capture", NULL);
  s->cuda_memory_usage = g_key_file_get_boolean (kf, "last", "cuda_memory_usage", NULL);
  s->cuda_um_cpu_faults = s->cuda_um_gpu_faults
    = g_key_file_get_boolean (kf, "last", "cuda_um_faults", NULL);
  s->gpu_metrics_hz = (guint) g_key_file_get_integer (kf, "last", "gpu_metrics_hz", NULL);
  s->keep_last_s = g_key_file_get_double (kf, "last", "keep_last", NULL);
  if (s->keep_last_s != 0
      && !(s->keep_last_s >= SL_RECORD_KEEP_LAST_MIN && s->keep_last_s <= SL_RECORD_KEEP_LAST_MAX))
    s->keep_last_s = 0;
  s->max_size = g_key_file_get_uint64 (kf, "last", "max_size", NULL);
  if (s->max_size != 0
      && (s->max_size < SL_RECORD_MAX_SIZE_MIN || s->max_size > SL_RECORD_MAX_SIZE_MAX))
    s->max_size = 0;
  if (s->args == NULL)
    s->args = g_new0 (char *, 1);
  if (s->env == NULL)
    s->env = g_new0 (char *, 1);
  return s;
}

gboolean
sl_record_parse_duration (const char *text,
                          double     *seconds,
                          GError    **error)
{
  static const struct
  {
    const char *unit;
    double      seconds;
  } units[] = { { "ms", 0.001 }, { "s", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 }, { "", 1 } };
  char *end = NULL;
  double v = text != NULL && g_ascii_isdigit (*text) ? g_ascii_strtod (text, &end) : -1;

  for (gsize i = 0; end != NULL && i < G_N_ELEMENTS (units); i++)
    if (strcmp (end, units[i].unit) == 0)
      {
        double s = v * units[i].seconds;
        if (s >= SL_RECORD_KEEP_LAST_MIN && s <= SL_RECORD_KEEP_LAST_MAX)
          {
            *seconds = s;
            return TRUE;
          }
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "--keep-last %s: from 100ms to 7 days (168h)", text);
        return FALSE;
      }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--keep-last %s: a duration such as 30s, 5m or 1h (units ms, s, m, h)",
               text != NULL ? text : "");
  return FALSE;
}

gboolean
sl_record_parse_size (const char *text,
                      guint64    *bytes,
                      GError    **error)
{
  static const char *const units[] = { "", "K", "M", "G", "T" };
  char *end = NULL;
  double v = text != NULL && g_ascii_isdigit (*text) ? g_ascii_strtod (text, &end) : -1;

  for (gsize i = 0; end != NULL && i < G_N_ELEMENTS (units); i++)
    {
      gsize n = strlen (units[i]);
      const char *rest = end + n;
      if (g_ascii_strncasecmp (end, units[i], n) != 0
          || !(*rest == '\0' || g_ascii_strcasecmp (rest, "B") == 0
               || (n > 0 && g_ascii_strcasecmp (rest, "iB") == 0)))
        continue;
      double b = v;
      for (gsize k = 0; k < i; k++)
        b *= 1024;
      if (b >= (double) SL_RECORD_MAX_SIZE_MIN && b <= (double) SL_RECORD_MAX_SIZE_MAX)
        {
          *bytes = (guint64) b;
          return TRUE;
        }
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--max-size %s: from 8M (an empty trace's tables take a few MiB) to 1024T",
                   text);
      return FALSE;
    }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--max-size %s: a size such as 2G, 500M or 20M (K, M, G, T: powers of 1024)",
               text != NULL ? text : "");
  return FALSE;
}

gboolean
sl_record_settings_save (const SlRecordSettings *s,
                         GError                **error)
{
  g_autofree char *path = settings_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GKeyFile) kf = g_key_file_new ();

  g_key_file_set_string (kf, "last", "program", s->program != NULL ? s->program : "");
  g_key_file_set_string_list (kf, "last", "args", (const char *const *) s->args,
                              g_strv_length (s->args));
  g_key_file_set_string (kf, "last", "cwd", s->cwd != NULL ? s->cwd : "");
  g_key_file_set_string_list (kf, "last", "env", (const char *const *) s->env,
                              g_strv_length (s->env));
  g_key_file_set_boolean (kf, "last", "cuda", s->trace_cuda);
  g_key_file_set_boolean (kf, "last", "nvtx", s->trace_nvtx);
  g_key_file_set_boolean (kf, "last", "osrt", s->trace_osrt);
  g_key_file_set_integer (kf, "last", "sample_hz", (gint) s->sample_hz);
  g_key_file_set_double (kf, "last", "delay", s->delay_s);
  g_key_file_set_double (kf, "last", "duration", s->duration_s);
  g_key_file_set_string (kf, "last", "capture_range",
                         s->capture_range != NULL ? s->capture_range : "none");
  g_key_file_set_string (kf, "last", "nvtx_capture",
                         s->nvtx_capture != NULL ? s->nvtx_capture : "");
  g_key_file_set_boolean (kf, "last", "cuda_memory_usage", s->cuda_memory_usage);
  g_key_file_set_boolean (kf, "last", "cuda_um_faults",
                          s->cuda_um_cpu_faults || s->cuda_um_gpu_faults);
  g_key_file_set_integer (kf, "last", "gpu_metrics_hz", (gint) s->gpu_metrics_hz);
  g_key_file_set_double (kf, "last", "keep_last", s->keep_last_s);
  g_key_file_set_uint64 (kf, "last", "max_size", s->max_size);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  return g_key_file_save_to_file (kf, path, error);
}

char *
sl_record_settings_default_output (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "sightline", "recordings", NULL);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%d-%H%M%S");

  g_mkdir_with_parents (dir, 0700);
  for (int n = 0; n < 1000; n++)
    {
      g_autofree char *name = n == 0 ? g_strdup_printf ("recording-%s.sqlite", stamp)
                                     : g_strdup_printf ("recording-%s-%d.sqlite", stamp, n);
      char *path = g_build_filename (dir, name, NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
  return g_build_filename (dir, "recording.sqlite", NULL);
}

char *
sl_record_resolve_program (const char *name,
                           int        *exit_code,
                           GError    **error)
{
  struct stat st;
  char *found;

  if (name == NULL || *name == '\0')
    {
      *exit_code = 127;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "no program given");
      return NULL;
    }
  if (strchr (name, '/') == NULL)
    {
      found = g_find_program_in_path (name);
      if (found == NULL)
        {
          *exit_code = 127;
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: command not found", name);
        }
      return found;
    }
  found = g_canonicalize_filename (name, NULL);
  if (stat (found, &st) != 0)
    {
      *exit_code = 127;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s: no such file", name);
      g_free (found);
      return NULL;
    }
  if (S_ISDIR (st.st_mode) || access (found, X_OK) != 0)
    {
      *exit_code = 126;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "%s: not an executable file",
                   name);
      g_free (found);
      return NULL;
    }
  return found;
}

gboolean
sl_record_settings_validate (const SlRecordSettings *s,
                             gboolean                overwrite,
                             char                  **resolved,
                             GError                **error)
{
  int code;
  g_autofree char *program = sl_record_resolve_program (s->program, &code, error);

  if (program == NULL)
    return FALSE;
  if (s->cwd != NULL && !g_file_test (s->cwd, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY, "%s: not a folder", s->cwd);
      return FALSE;
    }
  for (char **e = s->env; e != NULL && *e != NULL; e++)
    if (strchr (*e, '=') == NULL || **e == '=')
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "%s: an environment variable is VAR=VALUE", *e);
        return FALSE;
      }
  if (s->capture_range != NULL && strcmp (s->capture_range, "nvtx") == 0
      && (s->nvtx_capture == NULL || *s->nvtx_capture == '\0'))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "a capture range of NVTX needs the range's name (RANGE or RANGE@DOMAIN)");
      return FALSE;
    }
  if (s->output == NULL || *s->output == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "no output file given");
      return FALSE;
    }
  g_autofree char *dir = g_path_get_dirname (s->output);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR) || access (dir, W_OK) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "%s: the folder for the trace is not writable", dir);
      return FALSE;
    }
  if (!overwrite && g_file_test (s->output, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "%s already exists", s->output);
      return FALSE;
    }
  if (resolved != NULL)
    *resolved = g_steal_pointer (&program);
  return TRUE;
}

char *
sl_recording_daemon_path (void)
{
  const char *env = g_getenv ("SIGHTLINE_DAEMON");
  char exe[PATH_MAX];
  ssize_t n;

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0)
    {
      exe[n] = '\0';
      g_autofree char *dir = g_path_get_dirname (exe);
      char *beside = g_build_filename (dir, "sightlined", NULL);
      if (access (beside, X_OK) == 0)
        return beside;
      g_free (beside);
      /* the test programs live in build/tests/, the daemon in build/ */
      beside = g_build_filename (dir, "..", "sightlined", NULL);
      if (access (beside, X_OK) == 0)
        return beside;
      g_free (beside);
      /* installed: PREFIX/bin/sightline, PREFIX/lib/sightline/sightlined (cmake --install, the
       * .deb); relative to the program, so a prefix that was moved still works */
      beside = g_build_filename (dir, "..", "lib", "sightline", "sightlined", NULL);
      if (access (beside, X_OK) == 0)
        return beside;
      g_free (beside);
    }
  return g_find_program_in_path ("sightlined");
}

GPtrArray *
sl_record_request (const SlRecordSettings *s,
                   const char             *program,
                   gboolean                overwrite)
{
  GPtrArray *msg = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) trace = g_string_new ("");

  if (s->trace_cuda)
    g_string_append (trace, "cuda,");
  if (s->trace_nvtx)
    g_string_append (trace, "nvtx,");
  if (s->trace_osrt)
    g_string_append (trace, "osrt,");
  if (trace->len > 0)
    g_string_truncate (trace, trace->len - 1);
  else
    g_string_assign (trace, "none");
  g_ptr_array_add (msg, g_strdup ("record"));
  g_ptr_array_add (msg, g_strdup_printf ("output=%s", s->output));
  if (overwrite)
    g_ptr_array_add (msg, g_strdup ("force=1"));
  g_ptr_array_add (msg, g_strdup_printf ("trace=%s", trace->str));
  g_ptr_array_add (msg, g_strdup_printf ("sample_hz=%u", s->sample_hz));
  if (s->cwd != NULL)
    g_ptr_array_add (msg, g_strdup_printf ("cwd=%s", s->cwd));
  if (s->delay_s > 0)
    g_ptr_array_add (msg, g_strdup_printf ("delay_ms=%.0f", s->delay_s * 1000));
  if (s->duration_s > 0)
    g_ptr_array_add (msg, g_strdup_printf ("duration_ms=%.0f", s->duration_s * 1000));
  if (s->osrt_threshold_ns > 0)
    g_ptr_array_add (msg, g_strdup_printf ("osrt_threshold_ns=%" G_GUINT64_FORMAT,
                                           s->osrt_threshold_ns));
  if (s->osrt_backtrace_ns == G_MAXUINT64)
    g_ptr_array_add (msg, g_strdup ("osrt_backtrace_ns=none"));
  else if (s->osrt_backtrace_ns > 0)
    g_ptr_array_add (msg, g_strdup_printf ("osrt_backtrace_ns=%" G_GUINT64_FORMAT,
                                           s->osrt_backtrace_ns));
  if (s->sched != NULL)
    g_ptr_array_add (msg, g_strdup_printf ("sched=%s", s->sched));
  g_ptr_array_add (msg, g_strdup_printf ("cuda_graph_trace=%s",
                                         s->cuda_graph_nodes ? "node" : "graph"));
  if (s->cuda_backtrace != NULL)
    g_ptr_array_add (msg, g_strdup_printf ("cuda_backtrace=%s", s->cuda_backtrace));
  if (s->cuda_memory_usage)
    g_ptr_array_add (msg, g_strdup ("cuda_memory_usage=true"));
  if (s->cuda_um_cpu_faults)
    g_ptr_array_add (msg, g_strdup ("cuda_um_cpu_page_faults=true"));
  if (s->cuda_um_gpu_faults)
    g_ptr_array_add (msg, g_strdup ("cuda_um_gpu_page_faults=true"));
  if (s->gpu_metrics_hz > 0)
    g_ptr_array_add (msg, g_strdup_printf ("gpu_metrics=%u", s->gpu_metrics_hz));
  if (s->keep_last_s > 0)
    g_ptr_array_add (msg, g_strdup_printf ("keep_last_ms=%.0f", MAX (s->keep_last_s * 1000, 100)));
  if (s->keep_last_s > 0 && s->output_pattern)
    g_ptr_array_add (msg, g_strdup ("output_pattern=1"));
  if (s->max_size > 0)
    g_ptr_array_add (msg, g_strdup_printf ("max_size=%" G_GUINT64_FORMAT, s->max_size));
  if (s->capture_range != NULL && strcmp (s->capture_range, "none") != 0)
    {
      g_ptr_array_add (msg, g_strdup_printf ("capture_range=%s", s->capture_range));
      if (s->nvtx_capture != NULL && *s->nvtx_capture != '\0')
        g_ptr_array_add (msg, g_strdup_printf ("nvtx_capture=%s", s->nvtx_capture));
      if (s->capture_range_end != NULL)
        g_ptr_array_add (msg, g_strdup_printf ("capture_range_end=%s", s->capture_range_end));
    }
  /* our environment, with the settings' variables over it */
  for (char **e = environ; *e != NULL; e++)
    {
      gboolean overridden = FALSE;
      for (char **o = s->env; o != NULL && *o != NULL && !overridden; o++)
        {
          size_t n = strcspn (*o, "=");
          overridden = strncmp (*e, *o, n) == 0 && (*e)[n] == '=';
        }
      if (!overridden)
        g_ptr_array_add (msg, g_strdup_printf ("env=%s", *e));
    }
  for (char **o = s->env; o != NULL && *o != NULL; o++)
    g_ptr_array_add (msg, g_strdup_printf ("env=%s", *o));
  g_ptr_array_add (msg, g_strdup ("--"));
  g_ptr_array_add (msg, g_strdup (program));
  for (char **a = s->args; a != NULL && *a != NULL; a++)
    g_ptr_array_add (msg, g_strdup (*a));
  return msg;
}

/* ---- the recording -------------------------------------------------------------------------- */

struct _SlRecording
{
  GObject           parent_instance;
  SlRecordSettings *settings;
  int               fd;           /* the control connection */
  GThread          *reader;
  gboolean          running;      /* between start and finished */
  gboolean          finished;
  GInputStream     *out[2];
  GCancellable     *cancellable;
  char              buf[2][4096];
};

G_DEFINE_FINAL_TYPE (SlRecording, sl_recording, G_TYPE_OBJECT)

enum
{
  STARTED,
  PROGRESS,
  OUTPUT,
  EXITED,
  FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  SlRecording *self; /* a strong ref */
  char       **argv;
} Message;

static gboolean
message_cb (gpointer data)
{
  Message *m = data;
  SlRecording *self = m->self;
  const char *verb = m->argv != NULL && m->argv[0] != NULL ? m->argv[0] : "";
  guint n = m->argv != NULL ? g_strv_length (m->argv) : 0;

  if (self->finished)
    ;
  else if (strcmp (verb, "started") == 0 && n >= 2)
    g_signal_emit (self, signals[STARTED], 0, atoi (m->argv[1]));
  else if (strcmp (verb, "progress") == 0 && n >= 3)
    g_signal_emit (self, signals[PROGRESS], 0, g_ascii_strtoull (m->argv[1], NULL, 10),
                   g_ascii_strtoull (m->argv[2], NULL, 10));
  else if (strcmp (verb, "exited") == 0 && n >= 2)
    g_signal_emit (self, signals[EXITED], 0, atoi (m->argv[1]));
  else if ((strcmp (verb, "stopped") == 0 || strcmp (verb, "snapshot") == 0
            || strcmp (verb, "snapshot-error") == 0)
           && n >= 2)
    {
      /* --max-size stopped the recording (the program goes on), a snapshot written or not */
      g_autofree char *text = g_strdup_printf (
          "sightline: %s%s\n",
          verb[1] == 't' ? "" : verb[8] == '\0' ? "snapshot written to " : "no snapshot: ",
          m->argv[1]);
      g_signal_emit (self, signals[OUTPUT], 0, text);
    }
  else if (strcmp (verb, "output") == 0 && n >= 2)
    {
      g_free (self->settings->output);
      self->settings->output = g_strdup (m->argv[1]);
    }
  else if ((strcmp (verb, "warning") == 0 || strcmp (verb, "sched") == 0) && n >= 2)
    {
      /* a warning, or how scheduling is recorded: in the output pane */
      g_autofree char *text = g_strdup_printf ("sightline: %s%s\n",
                                               verb[0] == 's' ? "scheduling: " : "", m->argv[1]);
      g_signal_emit (self, signals[OUTPUT], 0, text);
    }
  else if (strcmp (verb, "error") == 0 && n >= 2)
    {
      self->finished = TRUE;
      self->running = FALSE;
      g_signal_emit (self, signals[FINISHED], 0, (guint64) 0, (guint64) 0, m->argv[1]);
    }
  else if (strcmp (verb, "done") == 0 && n >= 3)
    {
      /* no process of the program reported from the injection library: a failure, as in
       * `sightline record`, though the file keeps what was seen from outside */
      const char *why = NULL;
      if (n >= 4 && g_ascii_strtoull (m->argv[3], NULL, 10) == 0)
        why = n >= 5 && *m->argv[4] != '\0' ? m->argv[4]
                                             : "the program never reported from the injection "
                                               "library";
      self->finished = TRUE;
      self->running = FALSE;
      g_signal_emit (self, signals[FINISHED], 0, g_ascii_strtoull (m->argv[1], NULL, 10),
                     g_ascii_strtoull (m->argv[2], NULL, 10), why);
    }
  else if (strcmp (verb, "gone") == 0)
    {
      self->finished = TRUE;
      self->running = FALSE;
      g_signal_emit (self, signals[FINISHED], 0, (guint64) 0, (guint64) 0,
                     "the collector daemon went away; the trace keeps what was written so far");
    }
  g_strfreev (m->argv);
  g_object_unref (m->self);
  g_free (m);
  return G_SOURCE_REMOVE;
}

static void
post (SlRecording *self,
      char       **argv)
{
  Message *m = g_new0 (Message, 1);

  m->self = g_object_ref (self);
  m->argv = argv;
  /* queued for the main thread, in order: g_main_context_invoke() would run it on this reader
   * thread whenever the default context is free to take (between two iterations of a loop run by
   * hand, as the tests do), and the handlers touch GTK widgets: a crash in Pango, seen once in a
   * suite run */
  g_idle_add_full (G_PRIORITY_DEFAULT, message_cb, m, NULL);
}

/* Blocks on the daemon's messages; ends at "done"/"error" or when the daemon goes away. */
static gpointer
reader_main (gpointer data)
{
  SlRecording *self = data;

  for (;;)
    {
      SlControlMsg m;
      if (sl_control_recv (self->fd, &m) != 0)
        {
          char **gone = g_new0 (char *, 2);
          gone[0] = g_strdup ("gone");
          post (self, gone);
          break;
        }
      gboolean last = m.n > 0 && (strcmp (m.argv[0], "done") == 0 || strcmp (m.argv[0], "error") == 0);
      post (self, g_strdupv (m.argv));
      sl_control_msg_clear (&m);
      if (last)
        break;
    }
  g_object_unref (self);
  return NULL;
}

static void read_output (SlRecording *self, int which);

static void
output_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      data)
{
  SlRecording *self = data;
  int which = G_INPUT_STREAM (source) == self->out[0] ? 0 : 1;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, NULL);

  if (n > 0)
    {
      g_autofree char *text = g_utf8_make_valid (self->buf[which], n);
      g_signal_emit (self, signals[OUTPUT], 0, text);
      read_output (self, which);
    }
  g_object_unref (self);
}

static void
read_output (SlRecording *self,
             int          which)
{
  g_input_stream_read_async (self->out[which], self->buf[which], sizeof self->buf[which],
                             G_PRIORITY_DEFAULT, self->cancellable, output_read_cb,
                             g_object_ref (self));
}

SlRecording *
sl_recording_new (const SlRecordSettings *settings)
{
  SlRecording *self = g_object_new (SL_TYPE_RECORDING, NULL);

  self->settings = sl_record_settings_copy (settings);
  return self;
}

gboolean
sl_recording_start (SlRecording *self,
                    GError     **error)
{
  char sock[256], dir[256], note[8192];
  int code, pipes[2][2], fds[3];
  g_autofree char *program = NULL;
  g_autofree char *daemon = NULL;
  g_autoptr (GPtrArray) msg = NULL;

  g_return_val_if_fail (SL_IS_RECORDING (self), FALSE);
  g_return_val_if_fail (!self->running && self->fd < 0, FALSE);

  program = sl_record_resolve_program (self->settings->program, &code, error);
  if (program == NULL)
    return FALSE;
  if (!sl_control_socket_path (sock, sizeof sock, dir, sizeof dir))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot use %s for the collector daemon's socket: %s", dir, g_strerror (errno));
      return FALSE;
    }
  daemon = sl_recording_daemon_path ();
  /* our own daemon, as `sightline record` finds it: one of another install is passed over */
  self->fd = sl_control_connect_own (sock, daemon != NULL ? daemon : "sightlined", 5000, note,
                                     sizeof note);
  if (self->fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s%s", note,
                   daemon == NULL ? "; sightlined was not found" : "");
      return FALSE;
    }
  /* why the usual daemon was passed over: in the output pane, as the daemon's warnings are */
  if (note[0] != '\0')
    {
      char **warning = g_new0 (char *, 3);
      warning[0] = g_strdup ("warning");
      warning[1] = g_strdup (note);
      post (self, warning);
    }
  if (!g_unix_open_pipe (pipes[0], FD_CLOEXEC, NULL) || !g_unix_open_pipe (pipes[1], FD_CLOEXEC, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot make pipes: %s", g_strerror (errno));
      return FALSE;
    }
  fds[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  fds[1] = pipes[0][1];
  fds[2] = pipes[1][1];
  msg = sl_record_request (self->settings, program, TRUE);
  gboolean sent = sl_control_send (self->fd, (const char *const *) msg->pdata, msg->len, fds, 3);
  int e = errno;
  for (int i = 0; i < 3; i++)
    close (fds[i]);
  for (int i = 0; i < 2; i++)
    self->out[i] = g_unix_input_stream_new (pipes[i][0], TRUE);
  if (!sent)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "cannot talk to the daemon: %s",
                   g_strerror (e));
      return FALSE;
    }
  self->running = TRUE;
  for (int i = 0; i < 2; i++)
    read_output (self, i);
  self->reader = g_thread_new ("sl-recording", reader_main, g_object_ref (self));
  return TRUE;
}

void
sl_recording_stop (SlRecording    *self,
                   SlRecordingStop how)
{
  static const char *const verbs[] = { "stop", "kill", "detach" };

  g_return_if_fail (SL_IS_RECORDING (self));
  if (self->running && self->fd >= 0 && how <= SL_RECORDING_DETACH)
    sl_control_sendv (self->fd, verbs[how], NULL, NULL, NULL);
}

gboolean
sl_recording_is_running (SlRecording *self)
{
  return self->running;
}

const char *
sl_recording_get_output (SlRecording *self)
{
  return self->settings->output;
}

static void
sl_recording_dispose (GObject *object)
{
  SlRecording *self = SL_RECORDING (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (sl_recording_parent_class)->dispose (object);
}

static void
sl_recording_finalize (GObject *object)
{
  SlRecording *self = SL_RECORDING (object);

  /* the reader thread holds a reference until it ends: it has ended here */
  if (self->reader != NULL)
    g_thread_unref (self->reader);
  if (self->fd >= 0)
    close (self->fd);
  for (int i = 0; i < 2; i++)
    g_clear_object (&self->out[i]);
  g_clear_object (&self->cancellable);
  sl_record_settings_free (self->settings);
  G_OBJECT_CLASS (sl_recording_parent_class)->finalize (object);
}

static void
sl_recording_class_init (SlRecordingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sl_recording_dispose;
  object_class->finalize = sl_recording_finalize;
  signals[STARTED] = g_signal_new ("started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  signals[PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT64, G_TYPE_UINT64,
                                    G_TYPE_STRING);
}

static void
sl_recording_init (SlRecording *self)
{
  self->fd = -1;
  self->cancellable = g_cancellable_new ();
}
