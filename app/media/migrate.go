package media

import (
	"context"
	"errors"
	"fmt"
)

// MigrateResult is what one Migrate run did.
type MigrateResult struct {
	// Copied files were written to the target and read back with the same
	// SHA-256; Present ones were there already with the same SHA-256 (a resumed
	// run); Vanished ones were removed from the source while the run went on.
	Copied, Present, Vanished int
	// Bytes is the size of the copied files.
	Bytes int64
	// Failed lists the keys whose copy could not be verified (the run goes on).
	Failed []string
}

// Migrate copies every file of src into dst and verifies each copy by reading it
// back and comparing SHA-256 checksums. It never deletes from src and skips files
// dst already holds with the same checksum, so it can be interrupted and run
// again, also while serve keeps writing to src (run it once more after switching
// media.store, for the files processed in between). progress, when not nil, is
// called after each file.
func Migrate(ctx context.Context, src, dst Store, progress func(done, total int)) (MigrateResult, error) {
	var out MigrateResult
	list, err := src.List(ctx, "")
	if err != nil {
		return out, fmt.Errorf("media: migrate: list the source: %w", err)
	}
	there, err := dst.List(ctx, "")
	if err != nil {
		return out, fmt.Errorf("media: migrate: list the target: %w", err)
	}
	size := map[string]int64{}
	for _, o := range there {
		size[o.Key] = o.Size
	}
	for i, o := range list {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		sum, n, err := sumOf(ctx, src, o.Key)
		switch {
		case errors.Is(err, ErrNoObject):
			out.Vanished++
			continue
		case err != nil:
			return out, err
		}
		if s, ok := size[o.Key]; ok && s == n {
			if got, _, err := sumOf(ctx, dst, o.Key); err == nil && got == sum {
				out.Present++
				continue
			}
		}
		f, err := src.Open(ctx, o.Key)
		if errors.Is(err, ErrNoObject) {
			out.Vanished++
			continue
		}
		if err != nil {
			return out, err
		}
		err = dst.Put(ctx, o.Key, f, n)
		f.Close()
		if err != nil {
			return out, fmt.Errorf("media: migrate %s: %w", o.Key, err)
		}
		if got, _, err := sumOf(ctx, dst, o.Key); err != nil || got != sum {
			out.Failed = append(out.Failed, o.Key)
			continue
		}
		out.Copied++
		out.Bytes += n
		if progress != nil {
			progress(i+1, len(list))
		}
	}
	return out, nil
}

func sumOf(ctx context.Context, s Store, key string) (string, int64, error) {
	f, err := s.Open(ctx, key)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	return SHA256(f)
}
