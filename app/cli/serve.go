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
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if follow, _ := cmd.Flags().GetBool("follow"); follow || cfg.Follower.Enabled {
				return runFollower(cmd, e, cfg)
			}
			return e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
				return runServer(cmd, a, func(addr net.Addr) {
					fmt.Fprintf(cmd.OutOrStdout(), "reviewd listening on %s (public address %s)\n", addr, a.Config.PublicURL)
				})
			})(cmd, args)
		},
	}
	cmd.Flags().String("listen", "", "address to bind (listen)")
	cmd.Flags().Bool("follow", false, "serve as a read-only follower of the primary from replica.url (follower.* keys)")
	return cmd
}
