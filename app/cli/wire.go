package cli

import (
	"context"
	"fmt"
	"net"
	"time"

	"path/filepath"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/admin"
	"reviewd/app/cdn"
	"reviewd/app/core"
	"reviewd/app/ingest"
	"reviewd/app/mailhook"
	"reviewd/app/panel"
	"reviewd/app/replica"
	"reviewd/app/storefront"
	"reviewd/jobs"
)

// Surfaces lists every HTTP surface over an opened data folder. The router tries
// routes in the order they were mounted and no two surfaces share a path, so the
// storefront, whose reads are most of the traffic, comes first.
func Surfaces(a *app.App, s *app.Server) []app.Surface {
	return []app.Surface{
		&storefront.Handler{Clock: a.Clock, QA: a.QA, Reviews: a.Reviews, Read: a.Read, StoreReviews: a.StoreReviews, Votes: a.Votes, Buyer: a.Buyer, Transparency: a.Transparency, Auth: s.Auth, Limits: s.Limits,
			CDN: a.Config.CDN.Purge.Kind != ""},
		&admin.Handler{PublicURL: func() string { return a.Config.PublicURL }, Clock: a.Clock, Access: a.Access, Orders: a.Orders, QA: a.QA, Reviews: a.Reviews, Sending: a.Sending, Read: a.Read, Checks: a.Checks, Brand: a.Brand, Passwords: a.Passwords, Channels: a.Channels, Audit: a.Audit, Privacy: a.Privacy, Marketplace: a.Marketplace, Catalogue: a.Catalogue, Exports: a.Exports, Feeds: a.Feeds, Insights: a.Insights, AI: a.AI, Auth: s.Auth, Limits: s.Limits},
		&ingest.Handler{Orders: a.Orders, Catalogue: a.Catalogue, Auth: s.Auth, Limits: s.Limits},
		&mailhook.Handler{Sending: a.Sending, Auth: s.Auth, Limits: s.Limits,
			WhatsApp: mailhook.WhatsAppHook{AppSecret: a.Config.WhatsApp.AppSecret, VerifyToken: a.Config.WhatsApp.VerifyToken}},
		&panel.Handler{Sessions: a.Access, Passwords: a.Passwords, PlainReplicaEndpoint: plainReplicaEndpoint(a.Config.Replica), PublicURL: a.Config.PublicURL, Reviews: a.Reviews, QA: a.QA, Brand: a.Brand, Sending: a.Sending, Auth: s.Auth,
			Access: a.Access, Channels: a.Channels, Audit: a.Audit, Privacy: a.Privacy, Orders: a.Orders, Marketplace: a.Marketplace, Read: a.Read, Checks: a.Checks,
			Feeds: a.Feeds, Exports: a.Exports, Insights: a.Insights, AI: a.AI, GoLive: a.GoLive, Held: a.Held},
	}
}

// TestSurfaces is Surfaces, for apptest.New.
func TestSurfaces(a *app.App, s *app.Server) []app.Surface { return Surfaces(a, s) }

// buildServer mounts every HTTP surface over an opened data folder.
func buildServer(a *app.App) *app.Server {
	srv := app.NewServer(a.Config, a.Clock, a.Log, a.Access, func(s *app.Server) []app.Surface { return Surfaces(a, s) })
	srv.UseMetrics(a.Metrics)
	return srv
}

// TestRunner is buildRunner, for tests that run the jobs as serve and the console do.
func TestRunner(a *app.App) *jobs.Runner { return buildRunner(a) }

// buildRunner lists every job of the CONTRACT with its schedule. The jobs that send
// or read connections run only while the brand is active; media processing, erasure
// and retention go on for a frozen or closed brand.
func buildRunner(a *app.App) *jobs.Runner {
	active := func(j jobs.Job) jobs.Job { return jobs.WhileActive{Job: j, Access: a.Access} }
	r := jobs.NewRunner(a.DB, a.Log,
		jobs.Entry{Job: active(jobs.Invitations{Sending: a.Sending}), Schedule: "@every 1m"},
		jobs.Entry{Job: active(jobs.OrderSources{Orders: a.Orders}), Schedule: "@every 1m"},
		jobs.Entry{Job: active(jobs.Marketplace{Marketplace: a.Marketplace, Catalogue: a.Catalogue}), Schedule: "@every 15m"},
		jobs.Entry{Job: jobs.Media{Reviews: a.Reviews}, Schedule: "@every 10s"},
		jobs.Entry{Job: jobs.Erasure{Orders: a.Orders}, Schedule: "@every 1h"},
		jobs.Entry{Job: jobs.Cleanup{DB: a.DB, Reviews: a.Reviews, Exports: a.Exports, Alerts: a.GoLive}, Schedule: "30 * * * *"}, // hourly: unattached uploads go within a day
		jobs.Entry{Job: jobs.Transparency{Log: a.Transparency}, Schedule: "@every 1m"},
		jobs.Entry{Job: jobs.AI{AI: a.AI}, Schedule: "@every 1m"},
	)
	if a.Metrics != nil {
		r.Observe = a.Metrics.ObserveJob
	}
	return r
}

// dataPaths are the parts of a data folder that replication covers.
func dataPaths(dir string) replica.Paths {
	return replica.Paths{DB: filepath.Join(dir, app.DBFile), Media: filepath.Join(dir, app.MediaDir),
		Key: filepath.Join(dir, core.MasterKeyFile)}
}

// runServer serves until the command's context ends, with the cron jobs unless
// jobs.enabled is false. extra surfaces (the demo's) are mounted after the usual ones.
func runServer(cmd *cobra.Command, a *app.App, ready func(net.Addr), extra ...app.Surface) error {
	runner := buildRunner(a)
	srv := buildServer(a)
	if a.Config.Follower.Enabled {
		// A follower writes nothing: no replication, jobs or purges; the
		// storefront's reads are served here, the rest passed to the primary.
		for _, s := range extra {
			s.Mount(srv.Router())
		}
		addr := a.Config.Listen
		if f := cmd.Flags().Lookup("listen"); f != nil && f.Changed {
			addr = f.Value.String()
		}
		return app.Serve(cmd.Context(), addr, app.FollowerHandler(srv.Handler(), a.Config.Follower, a.FollowerLag), ready)
	}
	if a.Config.Replica.Enabled() {
		// Started before the HTTP server and stopped after it, so every acknowledged
		// write is shipped on a clean stop.
		rep, err := replica.Start(cmd.Context(), a.Config.Replica, dataPaths(a.Config.DataDir), a.Log)
		if err != nil {
			return err
		}
		// Set before the server and the jobs start: the owner alerts name a lag.
		a.GoLive.Replica, a.GoLive.ReplicaMaxLag = rep.LastSync, max(15*time.Minute, 10*a.Config.Replica.MediaInterval)
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := rep.Close(ctx); err != nil {
				a.Log.Error("replication did not finish cleanly", "err", err)
			}
		}()
	}
	for _, s := range extra {
		s.Mount(srv.Router())
	}
	// Held panel decisions take effect when their undo window ends, jobs or not
	// (a moderator's approve must not wait on jobs.enabled).
	heldCtx, heldStop := context.WithCancel(cmd.Context())
	heldDone := make(chan struct{})
	go func() { a.Held.Run(heldCtx); close(heldDone) }()
	defer func() { heldStop(); <-heldDone }()
	if a.Config.Jobs.Enabled {
		// CDN purges go out while the jobs run (the queue fills on this database's
		// writes); with no route configured the queue is only cleared.
		ctx, cancel := context.WithCancel(cmd.Context())
		dr := &cdn.Drainer{DB: a.DB, Purger: cdn.NewPurger(a.Config.CDN.Purge, a.Sending.Outbound), Log: a.Log,
			Interval: a.Config.CDN.Purge.Interval}
		done := make(chan struct{})
		go func() { dr.Run(ctx); close(done) }()
		defer func() { cancel(); <-done }()
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
	if ml := a.Config.Metrics.Listen; ml != "" && a.Metrics != nil {
		ln, err := net.Listen("tcp", ml)
		if err != nil {
			return fmt.Errorf("metrics.listen: %w", err)
		}
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- app.ServeListener(ctx, ln, app.MetricsHandler(a.Metrics)) }()
		defer func() { cancel(); <-done }()
		a.Log.Info("metrics listening", "address", ln.Addr().String())
		fmt.Fprintf(cmd.OutOrStdout(), "reviewd metrics on http://%s/metrics\n", ln.Addr())
	}
	return srv.ListenAndServe(cmd.Context(), addr, ready)
}

// plainReplicaEndpoint is replica.endpoint when the panel should warn about it
// (plain http to another machine), else "".
func plainReplicaEndpoint(c replica.Config) string {
	if c.EndpointWarning() == "" {
		return ""
	}
	return c.Endpoint
}
