package app

import (
	"fmt"
	"os"
	"path/filepath"

	"reviewd/app/core"
)

// PermissionWarnings lists what in the data folder other accounts of the machine
// can read: the folder itself (readable or enterable by others), and the master key
// and database files (readable by group or others). serve logs each at start; the
// files are left as the operator set them.
func PermissionWarnings(dataDir string) []string {
	var out []string
	if st, err := os.Stat(dataDir); err == nil && st.Mode().Perm()&0o007 != 0 {
		out = append(out, fmt.Sprintf("data folder %s has mode %04o: other accounts can read it; use 0750 or 0700", dataDir, st.Mode().Perm()))
	}
	for _, name := range []string{core.MasterKeyFile, DBFile, DBFile + "-wal", DBFile + "-shm"} {
		p := filepath.Join(dataDir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			out = append(out, fmt.Sprintf("%s has mode %04o: other accounts can read it; use 0600", p, st.Mode().Perm()))
		}
	}
	return out
}
