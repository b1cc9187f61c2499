package cli

import (
	"io"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/app/core/sending"
)

func newMailEventsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "mail-events", Short: "mail provider event endpoints"}
	cmd.AddCommand(&cobra.Command{
		Use:   "addresses",
		Short: "print the four provider endpoint addresses with their access code",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			code, err := a.Sending.MailAccessCode(cmd.Context())
			if err != nil {
				return consoleErr(err)
			}
			type addr struct {
				Provider string `json:"provider"`
				URL      string `json:"url"`
			}
			out := make([]addr, 0, len(sending.MailProviders))
			for _, p := range sending.MailProviders {
				out = append(out, addr{Provider: p, URL: a.Config.PublicURL + "/v1/mail-events/" + p + "/" + code})
			}
			return e.print(cmd, out, func(w io.Writer) {
				t := newTable(w, "PROVIDER", "ADDRESS")
				for _, r := range out {
					t.row(r.Provider, r.URL)
				}
				t.flush()
			})
		}),
	})
	return cmd
}
