package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reviewd/app"

	"reviewd/store"
)

func newMigrateCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "apply the schema and exit",
		Args:  cobra.NoArgs,
		RunE: e.withApp(func(cmd *cobra.Command, _ []string, a *app.App) error {
			v, err := a.DB.Version(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(cmd, map[string]any{"schema_version": v, "latest": store.SchemaVersion}, func(w io.Writer) {
				fmt.Fprintf(w, "schema version %d (latest %d)\n", v, store.SchemaVersion)
			})
		}),
	}
}
