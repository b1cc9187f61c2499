package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app/replica"
	"reviewd/store"
)

// promoted is the answer of reviewd promote.
type promoted struct {
	TXID      uint64    `json:"txid"`       // the last replica transaction the database holds
	ReplicaAt time.Time `json:"replica_at"` // when the replica received it
	Data      string    `json:"data_dir"`
}

func newPromoteCmd(e *env) *cobra.Command {
	var quiet time.Duration
	cmd := &cobra.Command{
		Use:   "promote [--quiet D]",
		Short: "turn a stopped follower's data folder into a primary's, once the old primary no longer writes to the replica",
		Long: "promote checks twice, --quiet apart, that the replica's position does not move and is at least --quiet old\n" +
			"(the old primary is gone), applies the replica's last transactions to the follower's copy, and makes it a\n" +
			"primary's database. Stop the follower first; then run reviewd serve on the folder, with replica.url pointing\n" +
			"to a new prefix (docs/high-availability.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if !cfg.Replica.Enabled() {
				return errReplicaOff
			}
			if quiet <= 0 {
				quiet = max(3*cfg.Replica.SyncInterval, 5*time.Second)
			}
			db := dataPaths(cfg.DataDir).DB
			if _, err := os.Stat(db); err != nil {
				return fmt.Errorf("promote: no database in %s: %w", cfg.DataDir, err)
			}
			if applied, err := replica.Applied(db); err != nil || applied == 0 {
				return fmt.Errorf("promote: %s is not a follower's data folder (no follow position)", cfg.DataDir)
			}
			release, err := replica.HoldFollowLock(cfg.DataDir)
			if err != nil {
				return fmt.Errorf("promote: %w", err)
			}
			defer release()
			txid, at, err := replica.Fence(cmd.Context(), cfg.Replica, quiet)
			if err != nil {
				return fmt.Errorf("promote: %w", err)
			}
			if err := replica.CatchUp(cmd.Context(), cfg.Replica, db, txid, cfg.Replica.SyncInterval, time.Minute); err != nil {
				return fmt.Errorf("promote: %w", err)
			}
			if err := replica.EndFollow(db); err != nil {
				return err
			}
			// Opening it as a primary does returns it to WAL mode and checks the schema.
			s, err := store.Open(cmd.Context(), db, e.schema)
			if err != nil {
				return fmt.Errorf("promote: %w", err)
			}
			if err := s.Close(); err != nil {
				return err
			}
			res := promoted{TXID: txid, ReplicaAt: at, Data: cfg.DataDir}
			return e.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "promoted %s: transaction %d (received by the replica %s); start reviewd serve on it\n",
					cfg.DataDir, txid, at.Format(time.RFC3339))
			})
		},
	}
	cmd.Flags().DurationVar(&quiet, "quiet", 0, "how long the replica must stay still (default: 3 x replica.sync_interval, at least 5s)")
	return cmd
}
