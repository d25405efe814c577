/* sl-record-dialog.c: the launch dialog (data/ui/sl-record-dialog.ui).  Fields for the program, its arguments, folder and
 * environment (a small table of VAR=VALUE rows), what to trace, delay and duration, and the
 * output file; checks them before anything starts and says what is wrong in the dialog. */
#include "sl-record-dialog-private.h"

#include <string.h>

struct _SlRecordDialog
{
  GtkWindow  parent_instance;

  GtkWidget *program;
  GtkWidget *args;
  GtkWidget *cwd;
  GtkWidget *env_list;
  GtkWidget *cuda, *nvtx, *osrt, *sample, *sample_hz;
  GtkWidget *memory, *um_faults;           /* --cuda-memory-usage, --cuda-um-*-page-faults;
                                            * made in _init */
  GtkWidget *metrics, *metrics_hz;         /* --gpu-metrics=HZ; made in _init */
  GtkWidget *keep_last, *keep_last_s;      /* --keep-last (a flight recorder); made in _init */
  GtkWidget *max_size, *max_size_mib;      /* --max-size; made in _init */
  GtkWidget *delay, *duration;
  GtkWidget *capture_range, *nvtx_capture; /* none / cudaProfilerStart-Stop / NVTX range */
  GtkWidget *capture_end, *capture_end_n;  /* --capture-range-end: stop / stop-shutdown / repeat,
                                            * and repeat's N (0: no limit); made in _init */
  GtkWidget *output;
  GtkWidget *error;
  GtkWidget *again;
  gboolean   confirm_overwrite; /* the output exists and Record was pressed once: replace it */
  char      *confirmed_output;
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (SlRecordDialog, sl_record_dialog, GTK_TYPE_WINDOW)

enum
{
  RECORD,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
show_error (SlRecordDialog *self,
            const char     *text)
{
  gtk_label_set_text (GTK_LABEL (self->error), text != NULL ? text : "");
  gtk_widget_set_visible (self->error, text != NULL && *text != '\0');
}

static GtkWidget *
env_row_new (SlRecordDialog *self,
             const char     *text);

static void
env_remove_cb (GtkButton *button,
               gpointer   data)
{
  SlRecordDialog *self = data;
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_LIST_BOX_ROW);

  gtk_list_box_remove (GTK_LIST_BOX (self->env_list), row);
}

static GtkWidget *
env_row_new (SlRecordDialog *self,
             const char     *text)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *entry = gtk_entry_new ();
  GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");

  gtk_editable_set_text (GTK_EDITABLE (entry), text != NULL ? text : "");
  g_object_set (entry, "placeholder-text", "VARIABLE=value", NULL);
  gtk_widget_set_hexpand (entry, TRUE);
  gtk_widget_set_tooltip_text (remove, "Remove this variable");
  g_signal_connect (remove, "clicked", G_CALLBACK (env_remove_cb), self);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), remove);
  gtk_list_box_append (GTK_LIST_BOX (self->env_list), box);
  return entry;
}

static void
env_add_cb (GtkButton *button,
            gpointer   data)
{
  SlRecordDialog *self = data;

  (void) button;
  gtk_widget_grab_focus (env_row_new (self, NULL));
}

static void
chooser_response_cb (GtkNativeDialog *dialog,
                     int              response,
                     gpointer         data)
{
  SlRecordDialog *self = data;
  GtkWidget *target = g_object_get_data (G_OBJECT (dialog), "target");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        gtk_editable_set_text (GTK_EDITABLE (target), path);
    }
  g_clear_object (&self->chooser);
}

static void
choose (SlRecordDialog      *self,
        GtkWidget           *target,
        GtkFileChooserAction action,
        const char          *title)
{
  g_clear_object (&self->chooser);
  self->chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, NULL, NULL);
  g_object_set_data (G_OBJECT (self->chooser), "target", target);
  g_signal_connect (self->chooser, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
choose_program_cb (GtkButton *button,
                   gpointer   data)
{
  (void) button;
  choose (data, SL_RECORD_DIALOG (data)->program, GTK_FILE_CHOOSER_ACTION_OPEN, "Program to record");
}

static void
choose_cwd_cb (GtkButton *button,
               gpointer   data)
{
  (void) button;
  choose (data, SL_RECORD_DIALOG (data)->cwd, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
          "Working folder");
}

static void
choose_output_cb (GtkButton *button,
                  gpointer   data)
{
  (void) button;
  choose (data, SL_RECORD_DIALOG (data)->output, GTK_FILE_CHOOSER_ACTION_SAVE, "Save the trace as");
}

static void
sample_toggled_cb (GtkCheckButton *check,
                   gpointer        data)
{
  SlRecordDialog *self = data;

  gtk_widget_set_sensitive (self->sample_hz, gtk_check_button_get_active (check));
}

/* GPU memory and unified memory's faults, after the OS runtime in the template's row of what to
 * trace; off by default as in nsys (each adds CUPTI activity that costs the program time). */
static void
memory_checks_init (SlRecordDialog *self)
{
  GtkWidget *box = gtk_widget_get_parent (self->osrt);

  self->memory = gtk_check_button_new_with_mnemonic ("GPU _memory");
  gtk_widget_set_tooltip_text (self->memory,
                               "GPU memory allocated and freed by CUDA calls: the Memory row and "
                               "`sightline memory` (nsys --cuda-memory-usage)");
  self->um_faults = gtk_check_button_new_with_mnemonic ("_Unified-memory faults");
  gtk_widget_set_tooltip_text (self->um_faults,
                               "Page faults and migrations of managed memory, on the CPU and the "
                               "GPU (nsys --cuda-um-cpu-page-faults, --cuda-um-gpu-page-faults)");
  gtk_box_append (GTK_BOX (box), self->memory);
  gtk_box_append (GTK_BOX (box), self->um_faults);
}

static void
metrics_toggled_cb (GtkCheckButton *check,
                    gpointer        data)
{
  SlRecordDialog *self = data;

  gtk_widget_set_sensitive (self->metrics_hz, gtk_check_button_get_active (check));
}

/* GPU metrics (nsys --gpu-metrics-devices; CUPTI PM sampling) after CPU sampling in the
 * template's row: off by default, as in nsys, at nsys's 10 kHz. */
static void
metrics_check_init (SlRecordDialog *self)
{
  GtkWidget *box = gtk_widget_get_parent (self->sample_hz);
  GtkWidget *hz = gtk_label_new ("Hz");

  self->metrics = gtk_check_button_new_with_mnemonic ("GPU _metrics at");
  gtk_widget_set_tooltip_text (self->metrics,
                               "Each GPU's counters (SMs Active, warps in flight, DRAM bandwidth "
                               "…) sampled by CUPTI's PM sampling: the GPU metrics rows, achieved "
                               "occupancy (nsys --gpu-metrics-devices)");
  gtk_widget_set_margin_start (self->metrics, 18);
  self->metrics_hz = gtk_spin_button_new_with_range (10, 200000, 1000);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->metrics_hz), 10000);
  gtk_widget_set_sensitive (self->metrics_hz, FALSE);
  g_signal_connect (self->metrics, "toggled", G_CALLBACK (metrics_toggled_cb), self);
  gtk_box_append (GTK_BOX (box), self->metrics);
  gtk_box_append (GTK_BOX (box), self->metrics_hz);
  gtk_box_append (GTK_BOX (box), hz);
}

static void
bounds_toggled_cb (GtkCheckButton *check,
                   gpointer        data)
{
  SlRecordDialog *self = data;

  (void) check;
  gtk_widget_set_sensitive (self->keep_last_s,
                            gtk_check_button_get_active (GTK_CHECK_BUTTON (self->keep_last)));
  gtk_widget_set_sensitive (self->max_size_mib,
                            gtk_check_button_get_active (GTK_CHECK_BUTTON (self->max_size)));
}

/* A row of bounds under the template's Time row, for recording for hours: a flight recorder
 * (`record --keep-last`: only the last seconds kept, older events dropped as it goes) and a size
 * at which recording stops (`--max-size`; with the first, the oldest events go instead).  Off by
 * default, as on the command line. */
static void
bounds_init (SlRecordDialog *self)
{
  GtkWidget *time_box = gtk_widget_get_parent (self->duration);
  GtkWidget *grid = gtk_widget_get_parent (time_box);
  GtkWidget *label = gtk_label_new ("Bounds");
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  int column, row, width, height;

  gtk_grid_query_child (GTK_GRID (grid), time_box, &column, &row, &width, &height);
  gtk_grid_insert_row (GTK_GRID (grid), row + 1);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_add_css_class (label, "dim-label");
  self->keep_last = gtk_check_button_new_with_mnemonic ("_Keep only the last");
  gtk_widget_set_tooltip_text (self->keep_last,
                               "A flight recorder: only the events of the last seconds are kept, "
                               "in memory and on disk, so that a program can be recorded for "
                               "hours; the trace is written when it ends (record --keep-last)");
  self->keep_last_s = gtk_spin_button_new_with_range (SL_RECORD_KEEP_LAST_MIN,
                                                      SL_RECORD_KEEP_LAST_MAX, 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->keep_last_s), 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->keep_last_s), 30);
  self->max_size = gtk_check_button_new_with_mnemonic ("at _most");
  gtk_widget_set_tooltip_text (self->max_size,
                               "Recording stops when the file reaches this size, the program going "
                               "on; with Keep only the last, the oldest events go instead "
                               "(record --max-size)");
  self->max_size_mib = gtk_spin_button_new_with_range ((double) (SL_RECORD_MAX_SIZE_MIN >> 20),
                                                       (double) (SL_RECORD_MAX_SIZE_MAX >> 20),
                                                       64);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->max_size_mib), 2048);
  g_signal_connect (self->keep_last, "toggled", G_CALLBACK (bounds_toggled_cb), self);
  g_signal_connect (self->max_size, "toggled", G_CALLBACK (bounds_toggled_cb), self);
  gtk_box_append (GTK_BOX (box), self->keep_last);
  gtk_box_append (GTK_BOX (box), self->keep_last_s);
  gtk_box_append (GTK_BOX (box), gtk_label_new ("s,"));
  gtk_box_append (GTK_BOX (box), self->max_size);
  gtk_box_append (GTK_BOX (box), self->max_size_mib);
  gtk_box_append (GTK_BOX (box), gtk_label_new ("MiB"));
  gtk_grid_attach (GTK_GRID (grid), label, 0, row + 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), box, 1, row + 1, 1, 1);
  bounds_toggled_cb (NULL, self);
}

/* --capture-range-end's choices, in the drop-down's order */
enum
{
  CAPTURE_END_STOP,
  CAPTURE_END_STOP_SHUTDOWN, /* the default, as `sightline record`'s and nsys's */
  CAPTURE_END_REPEAT,
};

/* The range's name is asked for only with an NVTX capture range; what ends the capture only with
 * a capture range, and the number of ranges only for repeat. */
static void
capture_range_cb (GObject    *drop_down,
                  GParamSpec *pspec,
                  gpointer    data)
{
  SlRecordDialog *self = data;
  guint range = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->capture_range));

  (void) drop_down;
  (void) pspec;
  gtk_widget_set_sensitive (self->nvtx_capture, range == 2);
  gtk_widget_set_sensitive (self->capture_end, range != 0);
  gtk_widget_set_sensitive (self->capture_end_n,
                            range != 0
                                && gtk_drop_down_get_selected (GTK_DROP_DOWN (self->capture_end))
                                       == CAPTURE_END_REPEAT);
}

/* The capture-range-end controls, beside the capture range's in the template's row (a drop-down
 * of the three ends and a spin button for repeat's N). */
static void
capture_end_init (SlRecordDialog *self)
{
  static const char *const ends[] = { "Then stop", "Then stop the program", "Repeat", NULL };
  GtkWidget *box = gtk_widget_get_parent (self->capture_range);

  self->capture_end = gtk_drop_down_new_from_strings (ends);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->capture_end), CAPTURE_END_STOP_SHUTDOWN);
  gtk_widget_set_tooltip_text (self->capture_end,
                               "What happens when the capture range ends: stop recording and let "
                               "the program run on, stop the program too, or record every later "
                               "range (nsys --capture-range-end)");
  self->capture_end_n = gtk_spin_button_new_with_range (0, 1000000, 1);
  gtk_widget_set_tooltip_text (self->capture_end_n,
                               "How many ranges to record with Repeat (0: all of them)");
  gtk_box_append (GTK_BOX (box), self->capture_end);
  gtk_box_append (GTK_BOX (box), self->capture_end_n);
  g_signal_connect (self->capture_end, "notify::selected", G_CALLBACK (capture_range_cb), self);
}

SlRecordSettings *
sl_record_dialog_get_settings (SlRecordDialog *self)
{
  SlRecordSettings *s = sl_record_settings_new ();
  const char *cwd = gtk_editable_get_text (GTK_EDITABLE (self->cwd));
  const char *args = gtk_editable_get_text (GTK_EDITABLE (self->args));
  g_autoptr (GPtrArray) env = g_ptr_array_new ();

  g_return_val_if_fail (SL_IS_RECORD_DIALOG (self), NULL);
  s->program = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->program))));
  g_strfreev (s->args);
  s->args = NULL;
  if (*args != '\0' && !g_shell_parse_argv (args, NULL, &s->args, NULL))
    s->args = g_strsplit (args, " ", -1); /* quoting is broken: take the words */
  if (s->args == NULL)
    s->args = g_new0 (char *, 1);
  s->cwd = *cwd != '\0' ? g_strdup (cwd) : NULL;
  for (GtkWidget *row = gtk_widget_get_first_child (self->env_list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));
      const char *t = gtk_editable_get_text (GTK_EDITABLE (gtk_widget_get_first_child (box)));
      if (*t != '\0')
        g_ptr_array_add (env, g_strdup (t));
    }
  g_ptr_array_add (env, NULL);
  g_strfreev (s->env);
  s->env = (char **) g_ptr_array_free (g_steal_pointer (&env), FALSE);
  s->trace_cuda = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->cuda));
  s->trace_nvtx = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->nvtx));
  s->trace_osrt = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->osrt));
  s->cuda_memory_usage = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->memory));
  s->cuda_um_cpu_faults = s->cuda_um_gpu_faults
    = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->um_faults));
  s->gpu_metrics_hz = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->metrics))
                        ? (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->metrics_hz))
                        : 0;
  s->sample_hz = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->sample))
                   ? (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->sample_hz))
                   : 0;
  s->delay_s = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->delay));
  s->duration_s = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->duration));
  s->keep_last_s = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->keep_last))
                     ? gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->keep_last_s))
                     : 0;
  s->max_size = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->max_size))
                  ? (guint64) gtk_spin_button_get_value_as_int (
                      GTK_SPIN_BUTTON (self->max_size_mib)) << 20
                  : 0;
  switch (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->capture_range)))
    {
    case 1: s->capture_range = g_strdup ("cudaProfilerApi"); break;
    case 2: s->capture_range = g_strdup ("nvtx"); break;
    default: break;
    }
  s->nvtx_capture = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->nvtx_capture)));
  if (s->capture_range != NULL)
    {
      int n = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->capture_end_n));
      switch (gtk_drop_down_get_selected (GTK_DROP_DOWN (self->capture_end)))
        {
        case CAPTURE_END_STOP: s->capture_range_end = g_strdup ("stop"); break;
        case CAPTURE_END_REPEAT:
          s->capture_range_end = n > 0 ? g_strdup_printf ("repeat:%d", n) : g_strdup ("repeat");
          break;
        default: break; /* stop-shutdown: the default, left out as on the command line */
        }
    }
  s->output = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->output)));
  return s;
}

void
sl_record_dialog_set_settings (SlRecordDialog         *self,
                               const SlRecordSettings *s)
{
  GtkWidget *row;

  g_return_if_fail (SL_IS_RECORD_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->program), s->program != NULL ? s->program : "");
  {
    g_autoptr (GString) args = g_string_new ("");
    for (char **a = s->args; a != NULL && *a != NULL; a++)
      {
        g_autofree char *q = g_shell_quote (*a);
        if (args->len > 0)
          g_string_append_c (args, ' ');
        g_string_append (args, q);
      }
    gtk_editable_set_text (GTK_EDITABLE (self->args), args->str);
  }
  gtk_editable_set_text (GTK_EDITABLE (self->cwd), s->cwd != NULL ? s->cwd : "");
  while ((row = gtk_widget_get_first_child (self->env_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->env_list), row);
  for (char **e = s->env; e != NULL && *e != NULL; e++)
    env_row_new (self, *e);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->cuda), s->trace_cuda);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->nvtx), s->trace_nvtx);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->osrt), s->trace_osrt);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->memory), s->cuda_memory_usage);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->um_faults),
                               s->cuda_um_cpu_faults || s->cuda_um_gpu_faults);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->metrics), s->gpu_metrics_hz > 0);
  if (s->gpu_metrics_hz > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->metrics_hz), s->gpu_metrics_hz);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->sample), s->sample_hz > 0);
  if (s->sample_hz > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->sample_hz), s->sample_hz);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->delay), s->delay_s);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->duration), s->duration_s);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->keep_last), s->keep_last_s > 0);
  if (s->keep_last_s > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->keep_last_s), s->keep_last_s);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->max_size), s->max_size > 0);
  if (s->max_size > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->max_size_mib), (double) (s->max_size >> 20));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->capture_range),
                              g_strcmp0 (s->capture_range, "cudaProfilerApi") == 0 ? 1
                              : g_strcmp0 (s->capture_range, "nvtx") == 0          ? 2
                                                                                   : 0);
  gtk_editable_set_text (GTK_EDITABLE (self->nvtx_capture),
                         s->nvtx_capture != NULL ? s->nvtx_capture : "");
  {
    const char *end = s->capture_range_end != NULL ? s->capture_range_end : "";
    guint which = CAPTURE_END_STOP_SHUTDOWN;
    double n = 0;
    if (strcmp (end, "stop") == 0)
      which = CAPTURE_END_STOP;
    else if (g_str_has_prefix (end, "repeat"))
      {
        which = CAPTURE_END_REPEAT;
        if (end[6] == ':')
          n = g_ascii_strtod (end + 7, NULL);
      }
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->capture_end), which);
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->capture_end_n), n);
  }
  if (s->output != NULL && *s->output != '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->output), s->output);
}

gboolean
sl_record_dialog_record (SlRecordDialog *self)
{
  g_autoptr (SlRecordSettings) s = sl_record_dialog_get_settings (self);
  g_autoptr (GError) error = NULL;
  gboolean overwrite = self->confirm_overwrite && g_strcmp0 (self->confirmed_output, s->output) == 0;

  if (!sl_record_settings_validate (s, overwrite, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          /* never overwrite without asking: the second press is the answer */
          g_autofree char *text = g_strdup_printf ("%s — press Record again to replace it.",
                                                   error->message);
          self->confirm_overwrite = TRUE;
          g_free (self->confirmed_output);
          self->confirmed_output = g_strdup (s->output);
          show_error (self, text);
        }
      else
        show_error (self, error->message);
      return FALSE;
    }
  show_error (self, NULL);
  {
    /* the last settings, without the output (a new name each time) */
    g_autoptr (SlRecordSettings) keep = sl_record_settings_copy (s);
    g_clear_pointer (&keep->output, g_free);
    sl_record_settings_save (keep, NULL);
  }
  g_signal_emit (self, signals[RECORD], 0, s);
  gtk_window_destroy (GTK_WINDOW (self));
  return TRUE;
}

const char *
sl_record_dialog_get_error (SlRecordDialog *self)
{
  g_return_val_if_fail (SL_IS_RECORD_DIALOG (self), NULL);
  return gtk_widget_get_visible (self->error) ? gtk_label_get_text (GTK_LABEL (self->error)) : NULL;
}

gboolean
sl_record_dialog_capture_end_sensitive (SlRecordDialog *self,
                                        gboolean       *n_sensitive)
{
  g_return_val_if_fail (SL_IS_RECORD_DIALOG (self), FALSE);
  if (n_sensitive != NULL)
    *n_sensitive = gtk_widget_get_sensitive (self->capture_end_n);
  return gtk_widget_get_sensitive (self->capture_end);
}

static void
record_clicked_cb (GtkButton *button,
                   gpointer   data)
{
  (void) button;
  sl_record_dialog_record (data);
}

static void
again_clicked_cb (GtkButton *button,
                  gpointer   data)
{
  SlRecordDialog *self = data;
  g_autoptr (SlRecordSettings) last = sl_record_settings_load ();
  g_autofree char *output = sl_record_settings_default_output ();

  (void) button;
  if (last == NULL)
    return;
  g_free (last->output);
  last->output = g_steal_pointer (&output);
  sl_record_dialog_set_settings (self, last);
  sl_record_dialog_record (self);
}

static void
output_changed_cb (GtkEditable *editable,
                   gpointer     data)
{
  SlRecordDialog *self = data;

  (void) editable;
  self->confirm_overwrite = FALSE;
}

static void
cancel_clicked_cb (GtkButton *button,
                   gpointer   data)
{
  (void) button;
  gtk_window_destroy (GTK_WINDOW (data));
}

static void
sl_record_dialog_finalize (GObject *object)
{
  SlRecordDialog *self = SL_RECORD_DIALOG (object);

  g_clear_object (&self->chooser);
  g_free (self->confirmed_output);
  G_OBJECT_CLASS (sl_record_dialog_parent_class)->finalize (object);
}

static void
sl_record_dialog_class_init (SlRecordDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = sl_record_dialog_finalize;
  signals[RECORD] = g_signal_new ("record", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/dev/sightline/Sightline/ui/sl-record-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, program);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, args);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, cwd);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, env_list);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, cuda);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, nvtx);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, osrt);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, capture_range);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, nvtx_capture);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, sample);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, sample_hz);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, delay);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, duration);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, output);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, error);
  gtk_widget_class_bind_template_child (widget_class, SlRecordDialog, again);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, record_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_program_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_cwd_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_output_cb);
  gtk_widget_class_bind_template_callback (widget_class, env_add_cb);
  gtk_widget_class_bind_template_callback (widget_class, sample_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, again_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, output_changed_cb);
}

static void
sl_record_dialog_init (SlRecordDialog *self)
{
  g_autofree char *output = sl_record_settings_default_output ();
  g_autoptr (SlRecordSettings) last = sl_record_settings_load ();

  gtk_widget_init_template (GTK_WIDGET (self));
  /* tenths of a second; set after the range (as gtk_spin_button_new_with_range does it) so that
   * the fields stay as wide as five digits */
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->delay), 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->duration), 1);
  gtk_editable_set_text (GTK_EDITABLE (self->output), output);
  capture_end_init (self);
  memory_checks_init (self);
  metrics_check_init (self);
  bounds_init (self);
  g_signal_connect (self->capture_range, "notify::selected", G_CALLBACK (capture_range_cb), self);
  capture_range_cb (G_OBJECT (self->capture_range), NULL, self);
  gtk_widget_set_visible (self->again, last != NULL);
  if (last != NULL)
    {
      g_autofree char *tip = g_strdup_printf ("%s %s", last->program,
                                              last->args[0] != NULL ? "…" : "");
      gtk_widget_set_tooltip_text (self->again, tip);
      last->output = g_strdup (output);
      sl_record_dialog_set_settings (self, last);
    }
  /* a person starts with the program: Ctrl+R, type it, Enter */
  gtk_window_set_focus (GTK_WINDOW (self), self->program);
}

SlRecordDialog *
sl_record_dialog_new (GtkWindow *parent)
{
  SlRecordDialog *self = g_object_new (SL_TYPE_RECORD_DIALOG, NULL);

  if (parent != NULL)
    gtk_window_set_transient_for (GTK_WINDOW (self), parent);
  return self;
}
