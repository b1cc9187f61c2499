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
func Surfaces(a *app.App, s *app.Server) []app.Surface {
	return []app.Surface{
		&admin.Handler{Core: a.Core, Orders: a.Orders, QA: a.QA, Reviews: a.Reviews, Sending: a.Sending, Read: a.Read, Checks: a.Checks, Brand: a.Brand, Auth: s.Auth, Limits: s.Limits},
		&ingest.Handler{Orders: a.Orders, Auth: s.Auth, Limits: s.Limits},
		&mailhook.Handler{Sending: a.Sending, Auth: s.Auth, Limits: s.Limits},
		&storefront.Handler{Core: a.Core, QA: a.QA, Reviews: a.Reviews, Read: a.Read, Buyer: a.Buyer, Auth: s.Auth, Limits: s.Limits},
	}
}

// TestSurfaces is Surfaces, for apptest.New.
func TestSurfaces(a *app.App, s *app.Server) []app.Surface { return Surfaces(a, s) }

// buildServer mounts every HTTP surface over an opened data folder.
func buildServer(a *app.App) *app.Server {
	return app.NewServer(a.Config, a.Core, func(s *app.Server) []app.Surface { return Surfaces(a, s) })
}

// buildRunner lists every job of the CONTRACT with its schedule.
func buildRunner(a *app.App) *jobs.Runner {
	return jobs.NewRunner(a.DB, a.Log,
		jobs.Entry{Job: jobs.Invitations{Sending: a.Sending}, Schedule: "@every 1m"},
		jobs.Entry{Job: jobs.OrderSources{Orders: a.Orders}, Schedule: "@every 1m"},
		jobs.Entry{Job: jobs.Idle{JobName: "marketplace"}, Schedule: "@every 15m"},
		jobs.Entry{Job: jobs.Media{Reviews: a.Reviews}, Schedule: "@every 10s"},
		jobs.Entry{Job: jobs.Erasure{Orders: a.Orders}, Schedule: "@every 1h"},
		jobs.Entry{Job: jobs.Cleanup{DB: a.DB}, Schedule: "30 3 * * *"},
	)
}

// runServer serves until the command's context ends, with the cron jobs unless
// jobs.enabled is false. extra surfaces (the demo's) are mounted after the usual ones.
func runServer(cmd *cobra.Command, a *app.App, ready func(net.Addr), extra ...app.Surface) error {
	runner := buildRunner(a)
	srv := buildServer(a)
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
	addr := a.Config.Listen
	if f := cmd.Flags().Lookup("listen"); f != nil && f.Changed {
		addr = f.Value.String()
	}
	return srv.ListenAndServe(cmd.Context(), addr, ready)
}
