// Package catalogue owns the product catalogue: products posted by the store server
// (POST /v1/ingest/products), products read from product feeds on a schedule, gaps
// filled from order lines, and the lookup of a marketplace barcode (docs/catalogue.md).
package catalogue

import (
	"log/slog"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Service is the catalogue domain service.
type Service struct {
	DB *store.DB
	// Outbound reads product feeds.
	Outbound *outbound.Client
	Log      *slog.Logger
	// Recorder writes the activity history of product feed definitions.
	Recorder *core.Recorder
}

// New builds the catalogue service.
func New(db *store.DB, out *outbound.Client, log *slog.Logger, rec *core.Recorder) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{DB: db, Outbound: out, Log: log, Recorder: rec}
}
