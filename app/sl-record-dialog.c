/* sl-record-dialog.c: the launch dialog.  Fields for the program, its arguments, folder and
 * environment (a small table of VAR=VALUE rows), what to trace, delay and duration, and the
 * output file; checks them before anything starts and says what is wrong in the dialog. */
#include "sl-record-dialog.h"

#include <string.h>

struct _SlRecordDialog
{
  GtkWindow  parent_instance;

  GtkWidget *program;
  GtkWidget *args;
  GtkWidget *cwd;
  GtkWidget *env_list;
  GtkWidget *cuda, *nvtx, *osrt, *sample, *sample_hz;
  GtkWidget *delay, *duration;
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
  s->sample_hz = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->sample))
                   ? (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->sample_hz))
                   : 0;
  s->delay_s = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->delay));
  s->duration_s = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->duration));
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
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->sample), s->sample_hz > 0);
  if (s->sample_hz > 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->sample_hz), s->sample_hz);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->delay), s->delay_s);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->duration), s->duration_s);
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

static GtkWidget *
with_button (GtkWidget  *entry,
             const char *tooltip,
             GCallback   cb,
             gpointer    data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *button = gtk_button_new_from_icon_name ("document-open-symbolic");

  gtk_widget_set_hexpand (entry, TRUE);
  gtk_widget_set_tooltip_text (button, tooltip);
  g_signal_connect (button, "clicked", cb, data);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), button);
  return box;
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

  object_class->finalize = sl_record_dialog_finalize;
  signals[RECORD] = g_signal_new ("record", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  gtk_widget_class_add_binding_action (GTK_WIDGET_CLASS (klass), GDK_KEY_Escape, 0,
                                       "window.close", NULL);
}

static GtkWidget *
label (const char *text)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (text);

  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_widget_add_css_class (l, "dim-label");
  return l;
}

static void
sl_record_dialog_init (SlRecordDialog *self)
{
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");
  GtkWidget *record = gtk_button_new_with_mnemonic ("_Record");
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *traces = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *sampling = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *env_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *env_add = gtk_button_new_with_mnemonic ("_Add a variable");
  GtkWidget *env_frame = gtk_frame_new (NULL);
  GtkWidget *limits = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  g_autofree char *output = sl_record_settings_default_output ();
  g_autoptr (SlRecordSettings) last = sl_record_settings_load ();
  int row = 0;

  gtk_window_set_title (GTK_WINDOW (self), "Record a Program");
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (self), 620, -1);
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_widget_add_css_class (record, "suggested-action");
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  g_signal_connect (record, "clicked", G_CALLBACK (record_clicked_cb), self);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), record);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);
  gtk_window_set_default_widget (GTK_WINDOW (self), record);

  self->program = gtk_entry_new ();
  g_object_set (self->program, "placeholder-text", "python3, ./train, /usr/bin/…",
                "activates-default", TRUE, NULL);
  self->args = gtk_entry_new ();
  g_object_set (self->args, "placeholder-text", "arguments, quoted as in a shell",
                "activates-default", TRUE, NULL);
  self->cwd = gtk_entry_new ();
  g_object_set (self->cwd, "placeholder-text", "the current folder", NULL);
  self->env_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->env_list), GTK_SELECTION_NONE);
  gtk_frame_set_child (GTK_FRAME (env_frame), self->env_list);
  gtk_widget_set_halign (env_add, GTK_ALIGN_START);
  g_signal_connect (env_add, "clicked", G_CALLBACK (env_add_cb), self);
  gtk_box_append (GTK_BOX (env_box), env_frame);
  gtk_box_append (GTK_BOX (env_box), env_add);

  self->cuda = gtk_check_button_new_with_mnemonic ("C_UDA");
  self->nvtx = gtk_check_button_new_with_mnemonic ("_NVTX");
  self->osrt = gtk_check_button_new_with_mnemonic ("_OS runtime");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->cuda), TRUE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->nvtx), TRUE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->osrt), TRUE);
  gtk_box_append (GTK_BOX (traces), self->cuda);
  gtk_box_append (GTK_BOX (traces), self->nvtx);
  gtk_box_append (GTK_BOX (traces), self->osrt);
  self->sample = gtk_check_button_new_with_mnemonic ("CPU _sampling at");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->sample), TRUE);
  self->sample_hz = gtk_spin_button_new_with_range (10, 20000, 100);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->sample_hz), 1000);
  g_signal_connect (self->sample, "toggled", G_CALLBACK (sample_toggled_cb), self);
  gtk_box_append (GTK_BOX (sampling), self->sample);
  gtk_box_append (GTK_BOX (sampling), self->sample_hz);
  gtk_box_append (GTK_BOX (sampling), gtk_label_new ("Hz"));

  self->delay = gtk_spin_button_new_with_range (0, 86400, 1);
  self->duration = gtk_spin_button_new_with_range (0, 86400, 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->delay), 1);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->duration), 1);
  gtk_widget_set_tooltip_text (self->delay, "Start collecting after this many seconds");
  gtk_widget_set_tooltip_text (self->duration, "Collect this many seconds, then end the program "
                                               "(0: until it ends)");
  gtk_box_append (GTK_BOX (limits), gtk_label_new ("Start after"));
  gtk_box_append (GTK_BOX (limits), self->delay);
  gtk_box_append (GTK_BOX (limits), gtk_label_new ("s, stop after"));
  gtk_box_append (GTK_BOX (limits), self->duration);
  gtk_box_append (GTK_BOX (limits), gtk_label_new ("s (0: never)"));

  self->output = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (self->output), output);
  g_signal_connect (self->output, "changed", G_CALLBACK (output_changed_cb), self);

  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
#define ROW(text, widget)                                                                          \
  do                                                                                               \
    {                                                                                              \
      gtk_grid_attach (GTK_GRID (grid), label (text), 0, row, 1, 1);                               \
      gtk_grid_attach (GTK_GRID (grid), widget, 1, row++, 1, 1);                                   \
    }                                                                                              \
  while (0)
  ROW ("_Program", with_button (self->program, "Choose the program", G_CALLBACK (choose_program_cb),
                                self));
  ROW ("_Arguments", self->args);
  ROW ("_Working folder", with_button (self->cwd, "Choose the folder", G_CALLBACK (choose_cwd_cb),
                                       self));
  ROW ("_Environment", env_box);
  ROW ("Trace", traces);
  ROW ("", sampling);
  ROW ("Time", limits);
  ROW ("Trace _file", with_button (self->output, "Choose where to save the trace",
                                   G_CALLBACK (choose_output_cb), self));
#undef ROW

  self->error = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->error), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->error), 0);
  gtk_widget_add_css_class (self->error, "error");
  gtk_widget_set_visible (self->error, FALSE);

  self->again = gtk_button_new_with_mnemonic ("Record the _last program again");
  gtk_widget_set_halign (self->again, GTK_ALIGN_START);
  g_signal_connect (self->again, "clicked", G_CALLBACK (again_clicked_cb), self);
  gtk_widget_set_visible (self->again, last != NULL);
  if (last != NULL)
    {
      g_autofree char *tip = g_strdup_printf ("%s %s", last->program,
                                              last->args[0] != NULL ? "…" : "");
      gtk_widget_set_tooltip_text (self->again, tip);
      last->output = g_strdup (output);
      sl_record_dialog_set_settings (self, last);
    }

  g_object_set (outer, "margin-start", 18, "margin-end", 18, "margin-top", 18, "margin-bottom", 18,
                NULL);
  gtk_box_append (GTK_BOX (outer), grid);
  gtk_box_append (GTK_BOX (outer), self->error);
  gtk_box_append (GTK_BOX (outer), self->again);
  gtk_window_set_child (GTK_WINDOW (self), outer);
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
