//go:build unix

package cli

import "golang.org/x/sys/unix"

// freeBytes is the space an unprivileged process may still use on dir's disk.
func freeBytes(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
