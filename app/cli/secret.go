package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/app/core"
)

func newSecretCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "create signing, mail-event and notification passwords"}
	cmd.AddCommand(newSecretCreateCmd(e))
	return cmd
}

// createdSecretOut is the JSON form of a new password; the only time it is shown.
type createdSecretOut struct {
	ID       string  `json:"id"`
	Purpose  string  `json:"purpose"`
	Password string  `json:"password"`
	Channel  *string `json:"channel"`
}

func newSecretCreateCmd(e *env) *cobra.Command {
	var purpose, channel string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "create a password and print it once",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			p, err := a.Passwords.CreatePassword(cmd.Context(), core.Console(), purpose, channel)
			if err != nil {
				return consoleErr(err)
			}
			out := createdSecretOut{ID: p.ID, Purpose: p.Purpose, Password: p.Secret, Channel: optString(p.Channel)}
			return e.print(cmd, out, func(w io.Writer) {
				t := newTable(w, "ID", "PURPOSE", "CHANNEL", "PASSWORD")
				t.row(out.ID, out.Purpose, p.Channel, out.Password)
				t.flush()
				fmt.Fprintln(w, "The password is shown only now; the ID is what X-Service-Secret carries.")
			})
		}),
	}
	cmd.Flags().StringVar(&purpose, "purpose", "", "signing, mail_events or notification")
	cmd.Flags().StringVar(&channel, "channel", "", "channel code (required for signing)")
	_ = cmd.MarkFlagRequired("purpose")
	return cmd
}
