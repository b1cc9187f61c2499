package cli

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"reviewd/app"
)

func newServeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "apply the schema, serve every HTTP route and run the cron jobs",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			return runServer(cmd, a, func(addr net.Addr) {
				fmt.Fprintf(cmd.OutOrStdout(), "reviewd listening on %s (public address %s)\n", addr, a.Config.PublicURL)
			})
		}),
	}
	cmd.Flags().String("listen", "", "address to bind (listen)")
	return cmd
}
