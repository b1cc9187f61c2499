package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/store"
)

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print version, commit and schema version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := map[string]any{"version": app.Version, "commit": app.Commit, "schema_version": store.SchemaVersion}
			return e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "reviewd %s (commit %s, schema %d)\n", app.Version, app.Commit, store.SchemaVersion)
			})
		},
	}
}
