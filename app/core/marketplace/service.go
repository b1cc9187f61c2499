// Package marketplace imports reviews written on marketplaces (Trendyol,
// Hepsiburada, n11, Amazon, Çiçeksepeti): the connections (file or feed route),
// reading uploaded files and feeds row by row, matching barcodes to the catalogue,
// the run reports, held removals and removal requests (spec 3, "Marketplace review
// endpoints"; docs/marketplace.md). Review state is written only through
// app/core/reviews.
package marketplace

import (
	"context"
	"log/slog"
	"os"
	"sync"

	"reviewd/app/core"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Service is the marketplace domain service.
type Service struct {
	DB   *store.DB
	Keys *core.Keyring
	// Outbound reads marketplace feeds.
	Outbound  *outbound.Client
	Reviews   *reviews.Service
	Catalogue *catalogue.Service
	// Sending mails the brand administrators' alerts (held removals, failed reads).
	Sending *sending.Service
	Log     *slog.Logger
	// TempDir holds uploaded files while they are read ("" is the system's).
	TempDir string

	bg sync.WaitGroup
}

// New builds the marketplace service.
func New(db *store.DB, keys *core.Keyring, out *outbound.Client, rev *reviews.Service, cat *catalogue.Service, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{DB: db, Keys: keys, Outbound: out, Reviews: rev, Catalogue: cat, Log: log}
}

// Wait blocks until the background reads started by this service have ended.
func (c *Service) Wait() { c.bg.Wait() }

// record writes one activity-history entry in tx.
func (c *Service) record(ctx context.Context, tx *store.Tx, a *core.Actor, action, targetType, targetID string, detail any) error {
	return core.NewRecorder(c.Keys).Record(ctx, tx, a, action, targetType, targetID, detail)
}

// logAccess writes one personal-data access-log entry in tx.
func (c *Service) logAccess(ctx context.Context, tx *store.Tx, a *core.Actor, action string, count int) error {
	return core.NewRecorder(c.Keys).LogAccess(ctx, tx, a, action, "imported_review", "", count)
}

func (c *Service) tempDir() string {
	if c.TempDir != "" {
		return c.TempDir
	}
	return os.TempDir()
}

// TempDirPath is the folder uploads are stored in while they are read.
func (c *Service) TempDirPath() string { return c.tempDir() }
