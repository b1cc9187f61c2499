// Package cli holds the reviewd commands: one constructor per subcommand returning
// *cobra.Command. It is the only place that builds the whole application.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"reviewd/app"
)

// env holds what every command shares: the schema, the parsed flags and viper.
type env struct {
	schema string
	v      *viper.Viper
	json   bool
}

// NewRoot builds the reviewd command tree.
func NewRoot(schemaSQL string) *cobra.Command {
	e := &env{schema: schemaSQL, v: viper.New()}
	root := &cobra.Command{
		Use:           "reviewd",
		Short:         "reviewd: self-hosted product reviews over one SQLite file",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("config", "", "YAML config file (default ./reviewd.yaml when it exists)")
	root.PersistentFlags().String("data", "", "data folder (data_dir)")
	root.PersistentFlags().BoolVar(&e.json, "json", false, "print JSON instead of a table")
	root.AddCommand(
		newServeCmd(e),
		newMigrateCmd(e),
		newVersionCmd(e),
		newChannelCmd(e),
		newKeyCmd(e),
		newBrandCmd(e),
		newSecretCmd(e),
		newMailEventsCmd(e),
		newUserCmd(e),
		newBackupCmd(e),
		newMediaCmd(e),
		newReplicaCmd(e),
		newRestoreCmd(e),
		newPromoteCmd(e),
		newJobsCmd(e),
		newTransparencyCmd(e),
		newDemoCmd(e),
	)
	return root
}

// config loads the configuration: flag > environment > file > default.
func (e *env) config(cmd *cobra.Command) (app.Config, error) {
	v := e.v
	app.Defaults(v)
	v.SetEnvPrefix("REVIEWD")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	file, _ := cmd.Flags().GetString("config")
	if file == "" {
		if _, err := os.Stat("reviewd.yaml"); err == nil {
			file = "reviewd.yaml"
		}
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return app.Config{}, fmt.Errorf("config: %w", err)
		}
	}
	bind := func(key, flag string) {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			v.Set(key, f.Value.String())
		}
	}
	bind("data_dir", "data")
	bind("listen", "listen")
	cfg, err := app.Load(v)
	if err != nil {
		return cfg, err
	}
	setupLog(cfg.Log, os.Stderr)
	return cfg, nil
}

func setupLog(c app.Log, w io.Writer) {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if c.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	slog.SetDefault(slog.New(h))
}

// open loads the configuration and opens the data folder.
func (e *env) open(cmd *cobra.Command) (*app.App, error) {
	cfg, err := e.config(cmd)
	if err != nil {
		return nil, err
	}
	return app.Open(cmd.Context(), cfg, e.schema, slog.Default())
}

// print writes v as JSON with --json, else as the table text.
func (e *env) print(cmd *cobra.Command, v any, table func(w io.Writer)) error {
	w := cmd.OutOrStdout()
	if e.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	table(w)
	return nil
}

// errUsage is a one-line usage problem.
func errUsage(format string, args ...any) error { return fmt.Errorf(format, args...) }

// withApp makes a command body that runs with the data folder opened (and closed
// again afterwards).
func (e *env) withApp(fn func(cmd *cobra.Command, args []string, a *app.App) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a, err := e.open(cmd)
		if err != nil {
			return err
		}
		defer a.Close()
		return fn(cmd, args, a)
	}
}
