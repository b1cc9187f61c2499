// Package reviews owns the life of a review: writing and revising, media uploads and
// processing, publishing, moderation, the admin lists, the trace, reports and votes.
// It is the only package that writes review state, and every such write refreshes
// the read model (AfterReviewStateChange).
package reviews

import (
	"log/slog"
	"sync"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/sending"
	"reviewd/app/media"
	"reviewd/store"
)

// Service is the review domain service.
type Service struct {
	DB *store.DB
	// Keys pseudonymises voters and reporters and tells erased order references.
	Keys *core.Keyring
	// Recorder writes the activity history and the personal-data access log.
	*core.Recorder
	core.Clock
	Log *slog.Logger
	// PublicURL is reviewd's public address (media and admin links).
	PublicURL string
	// MediaDir is the folder of uploaded and processed media files.
	MediaDir string
	// Scanner scans uploads with clamd (scanning is off without an address).
	Scanner *media.Scanner
	// Probe runs ffprobe and ffmpeg for videos.
	Probe media.Probe
	// Sending queues rejection notices and sends them.
	Sending *sending.Service
	// Buyer reads and verifies the customer tokens.
	Buyer *buyer.Service
	// Checks runs the automatic content checks.
	Checks *checks.Service
	// AI writes reply drafts (its Provider is nil while ai.provider is off).
	AI *ai.Service
	// Read is the read model every review-state write refreshes.
	Read *readmodel.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
	// Decisions is the transparency log: every review-history entry goes to it in
	// its transaction (AddReviewEvent).
	Decisions DecisionLog
	// Media is where processed photos and videos are kept (media.store); nil is
	// the local folder MediaDir.
	Media media.Store
	// publicSync orders the public-copy updates of this process (media_store.go).
	publicSync sync.Mutex
}
