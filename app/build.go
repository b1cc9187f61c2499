package app

import "runtime/debug"

// Build information, set at link time (scripts/release.sh):
// -ldflags "-X reviewd/app.Version=1.2.0 -X reviewd/app.Commit=0123abc".
// Without them, a build from a git checkout still names its commit.
var (
	Version = "dev"
	Commit  = "none"
)

func init() {
	if Commit != "none" {
		return
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		if dirty {
			rev += "-dirty"
		}
		Commit = rev
	}
}
