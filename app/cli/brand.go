package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
)

func newBrandCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "brand", Short: "freeze, close or reopen the brand"}
	for _, c := range []struct{ use, short, state string }{
		{"freeze", "freeze the brand: the management API keeps only the data export, the storefront only reads", access.BrandFrozen},
		{"close", "close the brand: the management API keeps only the data export, the storefront serves nothing", access.BrandClosed},
		{"reopen", "make a frozen or closed brand active again", access.BrandActive},
		{"status", "print the brand's state", ""},
	} {
		cmd.AddCommand(newBrandStateCmd(e, c.use, c.short, c.state))
	}
	return cmd
}

func newBrandStateCmd(e *env, use, short, state string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			if state != "" {
				if err := a.Access.SetBrandState(cmd.Context(), core.Console(), state); err != nil {
					return consoleErr(err)
				}
			}
			st, err := a.Access.BrandState(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(cmd, map[string]any{"state": st}, func(w io.Writer) {
				fmt.Fprintf(w, "brand %s\n", st)
			})
		}),
	}
}
