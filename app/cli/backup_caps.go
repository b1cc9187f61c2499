package cli

import (
	"fmt"
	"strings"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/media"
)

// Whatever modes the archive states, a restore writes folders 0750 and files 0600:
// the data folder holds the master key and customers' personal data.
const (
	restoreDirMode  = 0o750
	restoreFileMode = 0o600
)

// What a restore unpacks is capped, so a damaged or hostile archive cannot fill the
// disk: each entry by what reviewd writes there, the whole by restoreMaxFiles and
// by the free space of the target's disk less restoreHeadroom.
const (
	restoreMaxKey   = 4 << 10
	restoreMaxMedia = media.VideoMaxBytes + 64<<20 // an upload or a remuxed video
	restoreMaxFiles = 5_000_000
	restoreHeadroom = 256 << 20
)

type restoreCaps struct {
	dir   string
	files int
	// free reports the bytes free on dir's disk (-1 when unknown).
	free func(dir string) int64
}

func newRestoreCaps(dir string) *restoreCaps { return &restoreCaps{dir: dir, free: freeBytes} }

// admit checks one file entry of size bytes before it is written.
func (c *restoreCaps) admit(name string, size int64) error {
	c.files++
	var limit int64 = -1
	switch {
	case name == core.MasterKeyFile:
		limit = restoreMaxKey
	case strings.HasPrefix(name, app.MediaDir+"/"):
		limit = restoreMaxMedia
	}
	switch {
	case size < 0, limit >= 0 && size > limit:
		return fmt.Errorf("restore: archive entry %q of %d bytes is over the %d bytes a backup holds there", name, size, limit)
	case c.files > restoreMaxFiles:
		return fmt.Errorf("restore: archive holds more than %d files", restoreMaxFiles)
	}
	if free := c.free(c.dir); free >= 0 && size > free-restoreHeadroom {
		return fmt.Errorf("restore: archive entry %q of %d bytes does not fit on the disk of %s (%d bytes free, %d kept free)", name, size, c.dir, free, restoreHeadroom)
	}
	return nil
}
