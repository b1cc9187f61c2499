package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/channels"
)

// newChannelAllowanceCmd: reviewd channel allowance [N] shows or sets the number of
// channels the brand may have.
func newChannelAllowanceCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "allowance [N]",
		Short: "show or set the number of channels the brand may have (default 3)",
		Args:  cobra.MaximumNArgs(1),
		RunE: e.withApp(func(cmd *cobra.Command, args []string, a *app.App) error {
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil {
					return fmt.Errorf("allowance: %q is not a number", args[0])
				}
				if err := a.Domain.Channels.SetAllowance(cmd.Context(), core.Console(), n); err != nil {
					return consoleErr(err)
				}
			}
			n, err := channels.Allowance(cmd.Context(), a.DB.Read())
			if err != nil {
				return err
			}
			out := map[string]int{"allowance": n}
			return e.print(cmd, out, func(w io.Writer) { fmt.Fprintf(w, "allowance: %d\n", n) })
		}),
	}
}

// newChannelRequestsCmd: reviewd channel requests [grant ID] lists channel requests
// or grants the open one (the allowance grows by one).
func newChannelRequestsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "requests [grant ID]",
		Short: "list requests for another channel, or grant one (raises the allowance by one)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || (len(args) == 2 && args[0] == "grant") {
				return nil
			}
			return fmt.Errorf("usage: reviewd channel requests [grant ID]")
		},
		RunE: e.withApp(func(cmd *cobra.Command, args []string, a *app.App) error {
			if len(args) == 2 {
				if err := a.Domain.Channels.GrantRequest(cmd.Context(), core.Console(), args[1]); err != nil {
					return consoleErr(err)
				}
			}
			rows, err := a.Domain.Channels.ListRequests(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(cmd, rows, func(w io.Writer) {
				t := newTable(w, "ID", "STATE", "MARKET", "LABEL", "NOTE", "CREATED")
				for _, r := range rows {
					t.row(r.ID, r.State, r.Market, r.Label, r.Note, r.CreatedAt)
				}
				t.flush()
			})
		}),
	}
}
