package cli

import (
	"context"
	"net"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/admin"
	"reviewd/app/ingest"
	"reviewd/app/mailhook"
	"reviewd/app/storefront"
	"reviewd/jobs"
)

// Surfaces lists every HTTP surface over an opened data folder.
func Surfaces(a *app.App, s *app.Server, runner *jobs.Runner) []app.Surface {
	return []app.Surface{
		&admin.Handler{Core: a.Core, Auth: s.Auth, Limits: s.Limits, Jobs: runner},
		&ingest.Handler{Core: a.Core, Auth: s.Auth, Limits: s.Limits},
		&mailhook.Handler{Core: a.Core, Auth: s.Auth, Limits: s.Limits},
		&storefront.Handler{Core: a.Core, Auth: s.Auth, Limits: s.Limits},
	}
}

// TestSurfaces is Surfaces with its own job runner, for apptest.New.
func TestSurfaces(a *app.App, s *app.Server) []app.Surface { return Surfaces(a, s, buildRunner(a)) }

// buildServer mounts every HTTP surface over an opened data folder.
func buildServer(a *app.App, runner *jobs.Runner) *app.Server {
	return app.NewServer(a.Config, a.Core, func(s *app.Server) []app.Surface { return Surfaces(a, s, runner) })
}

// buildRunner lists every job of the CONTRACT with its schedule.
func buildRunner(a *app.App) *jobs.Runner {
	return jobs.NewRunner(a.DB, a.Log,
		jobs.Entry{Job: jobs.Invitations{Core: a.Core}, Schedule: "@every 1m"},
		jobs.Entry{Job: jobs.OrderSources{Core: a.Core}, Schedule: "@every 1m"},
		jobs.Entry{Job: jobs.Idle{JobName: "marketplace"}, Schedule: "@every 15m"},
		jobs.Entry{Job: jobs.Media{Core: a.Core}, Schedule: "@every 10s"},
		jobs.Entry{Job: jobs.Erasure{Core: a.Core}, Schedule: "@every 1h"},
		jobs.Entry{Job: jobs.Cleanup{DB: a.DB, Core: a.Core}, Schedule: "30 * * * *"}, // hourly: unattached uploads go within a day
	)
}

// runServer serves until the command's context ends, with the cron jobs unless
// jobs.enabled is false. extra surfaces (the demo's) are mounted after the usual ones.
func runServer(cmd *cobra.Command, a *app.App, ready func(net.Addr), extra ...app.Surface) error {
	runner := buildRunner(a)
	srv := buildServer(a, runner)
	for _, s := range extra {
		s.Mount(srv.Router())
	}
	if a.Config.Jobs.Enabled {
		if err := runner.Start(cmd.Context()); err != nil {
			return err
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			runner.Stop(ctx)
		}()
	} else {
		a.Log.Info("cron jobs are off (jobs.enabled: false)")
	}
	if a.Config.Clamd.Address == "" {
		a.Log.Warn("virus scanning is off: clamd.address is empty")
	}
	if w := app.ProxyWarning(a.Config); w != "" {
		a.Log.Warn(w)
	}
	for _, w := range app.PermissionWarnings(a.Config.DataDir) {
		a.Log.Warn("data folder permissions: " + w)
	}
	addr := a.Config.Listen
	if f := cmd.Flags().Lookup("listen"); f != nil && f.Changed {
		addr = f.Value.String()
	}
	return srv.ListenAndServe(cmd.Context(), addr, ready)
}
