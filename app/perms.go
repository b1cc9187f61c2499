package app

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

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

// ProxyWarning is a warning for serve's start when reviewd looks like it runs
// behind a reverse proxy (it listens on a loopback address while public_url names
// another host) and trusted_proxies is empty: every client then has the proxy's
// address, and the per-IP limits would treat all visitors as one. Empty otherwise.
func ProxyWarning(cfg Config) string {
	if len(cfg.TrustedProxies) > 0 {
		return ""
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil || !loopbackHost(host) {
		return ""
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Hostname() == "" || loopbackHost(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("reviewd listens on %s but public_url is %s, so it seems to run behind a proxy; trusted_proxies is empty, so every visitor has the proxy's address and shares its per-IP limits: set trusted_proxies to the proxy's address", cfg.Listen, cfg.PublicURL)
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
