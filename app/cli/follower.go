package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/replica"
)

// runFollower serves a follower (docs/high-availability.md): the data folder is
// restored from the replica when it holds no database, a child process
// (`reviewd replica follow`) keeps applying the replica's new transactions, and
// this process serves the storefront's reads from the copy, read-only, passing
// the rest to the primary. No job, purge or replication runs here.
func runFollower(cmd *cobra.Command, e *env, cfg app.Config) error {
	cfg.Follower.Enabled, cfg.Jobs.Enabled = true, false
	if err := cfg.Validate(); err != nil {
		return err
	}
	ctx := cmd.Context()
	p := dataPaths(cfg.DataDir)
	if _, err := os.Stat(p.DB); errors.Is(err, fs.ErrNotExist) {
		err := intoEmptyDir(cfg.DataDir, func() error {
			_, err := replica.RestoreForFollow(ctx, cfg.Replica, p, nil)
			return err
		})
		if err != nil {
			return fmt.Errorf("follower: %w", err)
		}
	} else if err != nil {
		return err
	}
	if applied, err := replica.Applied(p.DB); err != nil || applied == 0 {
		return fmt.Errorf("follower: %s holds a database that is not a follower's copy (no follow position); give the follower an empty data folder", cfg.DataDir)
	}
	release, err := replica.HoldFollowLock(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("follower: %w", err)
	}
	defer release()
	stop, err := startFollowProcess(cmd, cfg)
	if err != nil {
		return err
	}
	defer stop()
	a, err := app.Open(ctx, cfg, e.schema, nil)
	if err != nil {
		return err
	}
	defer a.Close()
	lag, err := replica.NewLag(ctx, cfg.Replica, p.DB)
	if err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go lag.Run(lctx, cfg.Replica.SyncInterval)
	a.FollowerLag = lag.Lag
	return runServer(cmd, a, func(addr net.Addr) {
		fmt.Fprintf(cmd.OutOrStdout(), "reviewd listening on %s (follower of %s)\n", addr, cfg.Follower.PrimaryURL)
	})
}

// startFollowProcess starts `reviewd replica follow` on the same configuration.
// The child ends when its standard input closes, so it never outlives this
// process, even after a kill -9.
func startFollowProcess(cmd *cobra.Command, cfg app.Config) (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"replica", "follow", "--data", cfg.DataDir}
	if f, _ := cmd.Flags().GetString("config"); f != "" {
		args = append(args, "--config", f)
	}
	child := exec.Command(exe, args...)
	child.Stdout, child.Stderr = os.Stderr, os.Stderr
	in, err := child.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := child.Start(); err != nil {
		return nil, fmt.Errorf("follower: start the follow process: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = child.Wait(); close(done) }()
	return func() {
		in.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = child.Process.Kill()
			<-done
		}
	}, nil
}

// newReplicaFollowCmd is the follow process of a follower: it applies the
// replica's new transactions to the data folder's database until its standard
// input closes (the serving process ended) or it is stopped.
func newReplicaFollowCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:    "follow",
		Short:  "apply the replica's new transactions to a follower's database (started by serve --follow)",
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if !cfg.Replica.Enabled() {
				return errReplicaOff
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			go func() {
				_, _ = io.Copy(io.Discard, cmd.InOrStdin())
				cancel()
			}()
			return replica.Follow(ctx, cfg.Replica, dataPaths(cfg.DataDir).DB, cfg.Replica.SyncInterval, nil)
		},
	}
}
