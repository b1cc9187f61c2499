package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/replica"
	"reviewd/store"
)

// errReplicaOff is the answer of the replica commands without replica.url.
var errReplicaOff = errors.New("replication is off: set replica.url (REVIEWD_REPLICA_URL)")

func newReplicaCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "replica", Short: "continuous replication of the data folder (replica.* keys)"}
	cmd.AddCommand(newReplicaFollowCmd(e))
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "compare the replica with the data folder: newest transaction, lag, media files, master key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if !cfg.Replica.Enabled() {
				return errReplicaOff
			}
			s, err := replica.ReadStatus(cmd.Context(), cfg.Replica, dataPaths(cfg.DataDir))
			if err != nil {
				return err
			}
			return e.print(cmd, s, func(w io.Writer) {
				at := func(t time.Time) string {
					if t.IsZero() {
						return "-"
					}
					return t.Format(time.RFC3339)
				}
				for _, warning := range s.Warnings {
					fmt.Fprintf(w, "warning            %s\n", warning)
				}
				fmt.Fprintf(w, "replica            %s\n", s.Replica)
				fmt.Fprintf(w, "replica position   transaction %d, received %s\n", s.ReplicaTXID, at(s.ReplicaAt))
				fmt.Fprintf(w, "restorable since   %s\n", at(s.OldestAt))
				pending := ""
				if s.WALPending {
					pending = "; newer writes not read yet"
				}
				fmt.Fprintf(w, "local position     transaction %d (%d behind%s)\n", s.LocalTXID, s.Behind, pending)
				fmt.Fprintf(w, "media              %d local, %d in the replica, %d waiting\n", s.LocalMedia, s.ReplicaMedia, s.PendingMedia)
				fmt.Fprintf(w, "master key         %s\n", map[bool]string{true: "in the replica", false: "missing"}[s.KeyPresent])
			})
		},
	})
	return cmd
}

func newRestoreCmd(e *env) *cobra.Command {
	var from bool
	var at string
	cmd := &cobra.Command{
		Use:   "restore --from-replica [--timestamp T]",
		Short: "restore the data folder (database, master key, media) from the replica into an empty or missing folder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !from {
				return errUsage("restore: give --from-replica (for an archive: reviewd backup restore FILE)")
			}
			var ts time.Time
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return errUsage("restore: --timestamp %q is not RFC 3339 (2026-11-25T11:57:00Z)", at)
				}
				ts = t.UTC()
			}
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if !cfg.Replica.Enabled() {
				return errReplicaOff
			}
			var res replica.Restored
			err = intoEmptyDir(cfg.DataDir, func() error {
				var err error
				if res, err = replica.Restore(cmd.Context(), cfg.Replica, dataPaths(cfg.DataDir), ts, nil); err != nil {
					return err
				}
				return checkRestored(cmd, e.schema, cfg.DataDir)
			})
			if err != nil {
				return err
			}
			return e.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "restored %s into %s: transaction %d (received %s), %d media files, in %.1fs\n",
					res.Replica, cfg.DataDir, res.TXID, res.StateAt.Format(time.RFC3339), res.Media, res.Elapsed)
			})
		},
	}
	cmd.Flags().BoolVar(&from, "from-replica", false, "restore from replica.url")
	cmd.Flags().StringVar(&at, "timestamp", "", "restore the state of this time (RFC 3339) instead of the latest")
	return cmd
}

// intoEmptyDir runs fill on dir, which must be empty or missing. When fill fails,
// what it wrote is removed, leaving dir as it was found.
func intoEmptyDir(dir string, fill func() error) (err error) {
	entries, rerr := os.ReadDir(dir)
	existed := rerr == nil
	switch {
	case rerr != nil && !errors.Is(rerr, fs.ErrNotExist):
		return fmt.Errorf("restore: %w", rerr)
	case len(entries) > 0:
		return fmt.Errorf("restore: data folder %s is not empty; restore only into an empty or missing folder", dir)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer func() {
		if err == nil {
			return
		}
		if !existed {
			os.RemoveAll(dir)
			return
		}
		left, _ := os.ReadDir(dir)
		for _, e := range left {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}()
	return fill()
}

// checkRestored opens a restored data folder as serve would (key, schema upgrade)
// and runs SQLite's integrity check.
func checkRestored(cmd *cobra.Command, schema, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, app.MediaDir), 0o750); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if _, err := core.LoadMasterKey(dir); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	db, err := store.Open(cmd.Context(), filepath.Join(dir, app.DBFile), schema)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	err = db.IntegrityCheck(cmd.Context())
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}
