package cli

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"reviewd/app"
	"reviewd/app/media"
)

func newMediaCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "media", Short: "manage where photos and videos are kept"}
	cmd.AddCommand(newMediaMigrateCmd(e))
	return cmd
}

func newMediaMigrateCmd(e *env) *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "migrate --to s3|local",
		Short: "copy every stored photo and video to the other store (checksums verified, resumable, safe while serve runs)",
		Long: `Copies the processed media files from the local folder (data_dir/media) to the
bucket of media.s3.* (--to s3), or back (--to local). Each copy is read back and
its SHA-256 compared; files already copied are skipped, so an interrupted run is
simply started again. Nothing is deleted from the source, so serve keeps working
while it runs. Afterwards set media.store to the target, restart serve, and run
the command once more for files processed in between. With --to s3 the files of
published reviews are then also put under the public prefix.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to != media.StoreS3 && to != media.StoreLocal {
				return errUsage("media migrate: --to must be s3 or local")
			}
			cfg, err := e.config(cmd)
			if err != nil {
				return err
			}
			if cfg.Media.S3.Bucket == "" {
				return errUsage("media migrate: media.s3.bucket (and the other media.s3.* keys) must be set")
			}
			ctx := cmd.Context()
			s3, err := media.OpenS3(ctx, cfg.Media.S3)
			if err != nil {
				return err
			}
			local := media.LocalStore(filepath.Join(cfg.DataDir, app.MediaDir))
			var src, dst media.Store = local, s3
			if to == media.StoreLocal {
				src, dst = s3, local
			}
			a, err := app.Open(ctx, cfg, e.schema, slog.Default())
			if err != nil {
				return err
			}
			defer a.Close()
			start := time.Now()
			res, err := media.Migrate(ctx, src, dst, nil)
			if err != nil {
				return err
			}
			// Check the target against the database and publish what is published
			// (s3): the same reconciliation the cleanup job runs on the store in use.
			a.Reviews.Media = dst
			rec, err := a.Reviews.ReconcileMedia(ctx, time.Now())
			if err != nil {
				return err
			}
			out := map[string]any{"from": src.Kind(), "to": dst.Kind(), "copied": res.Copied, "already_there": res.Present,
				"vanished": res.Vanished, "bytes": res.Bytes, "failed": res.Failed, "published": rec.Published,
				"missing": rec.Missing, "seconds": time.Since(start).Seconds()}
			if err := e.print(cmd, out, func(w io.Writer) {
				fmt.Fprintf(w, "media %s -> %s: %d copied (%d bytes), %d already there, %d removed meanwhile, %d failed; %d items published, %d files missing\n",
					src.Kind(), dst.Kind(), res.Copied, res.Bytes, res.Present, res.Vanished, len(res.Failed), rec.Published, rec.Missing)
				for _, k := range res.Failed {
					fmt.Fprintf(w, "  checksum mismatch: %s\n", k)
				}
			}); err != nil {
				return err
			}
			if len(res.Failed) > 0 || rec.Missing > 0 {
				return fmt.Errorf("media migrate: %d copies failed their checksum, %d files of ready items are missing from the %s store; run the command again", len(res.Failed), rec.Missing, dst.Kind())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "target store: s3 or local")
	return cmd
}
