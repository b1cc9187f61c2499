package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/checks"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/app/media"
	"reviewd/app/metrics"
	"reviewd/app/outbound"
	"reviewd/store"
)

// DBFile and MediaDir are the fixed names inside the data folder.
const (
	DBFile   = "reviewd.db"
	MediaDir = "media"
)

// App is one opened data folder: database, kernel and the domain services.
type App struct {
	Config Config
	DB     *store.DB
	Core   *core.Core
	// Domain holds the domain services; surfaces and jobs receive only those they use.
	Domain
	Log *slog.Logger
	// Metrics is nil unless metrics.listen or metrics.token is set.
	Metrics *metrics.Metrics
}

// Open prepares the data folder (creating it, media/ and secret.key when missing),
// opens the database and brings its schema up to date.
func Open(ctx context.Context, cfg Config, schemaSQL string, log *slog.Logger) (*App, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, MediaDir), 0o750); err != nil {
		return nil, fmt.Errorf("app: data folder: %w", err)
	}
	keys, err := core.LoadMasterKey(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, filepath.Join(cfg.DataDir, DBFile), schemaSQL)
	if err != nil {
		return nil, err
	}
	var m *metrics.Metrics
	if cfg.Metrics.Enabled() {
		m = metrics.New()
		db.ObserveWriteTx = m.ObserveWriteTx
		m.WatchStore(db, func() time.Time { return db.Now() }, log)
	}
	ocfg := outbound.Config{Resolve: cfg.Outbound.Resolve, CAFile: cfg.Outbound.CAFile}
	mcfg := mail.Config{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Username: cfg.SMTP.Username,
		Password: cfg.SMTP.Password, Security: cfg.SMTP.Security, From: cfg.SMTP.From}
	if m != nil {
		ocfg.Observe = m.ObserveOutbound
		mcfg.Observe = m.ObserveMail
	}
	out, err := outbound.New(ocfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("app: outbound: %w", err)
	}
	c := core.New(db, keys, cfg.PublicURL, log)
	c.MediaDir = filepath.Join(cfg.DataDir, MediaDir)
	c.Outbound = out
	c.Mailer = mail.New(mcfg)
	c.Scanner = &media.Scanner{Address: cfg.Clamd.Address}
	c.Probe = media.Probe{FFmpeg: cfg.FFmpeg.FFmpeg, FFprobe: cfg.FFmpeg.FFprobe}
	d := NewDomain(c)
	if db.UpgradedFrom > 0 && db.UpgradedFrom < store.ReadModelVersion {
		// Reviews stored before the read model existed get their product figures,
		// listing and search rows now.
		n, err := d.Read.RebuildProductStats(ctx)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("app: build the review read model: %w", err)
		}
		log.Info("built the review read model after the upgrade", "products", n, "from_version", db.UpgradedFrom)
	}
	return &App{Config: cfg, DB: db, Core: c, Domain: d, Log: log, Metrics: m}, nil
}

// Domain is the set of domain services over one kernel.
type Domain struct {
	Brand   *brand.Service
	Checks  *checks.Service
	Buyer   *buyer.Service
	Read    *readmodel.Service
	Sending *sending.Service
	Reviews *reviews.Service
	QA      *qa.Service
	Orders  *orders.Service
	// Catalogue and Marketplace: the product catalogue and marketplace review import.
	Catalogue   *catalogue.Service
	Marketplace *marketplace.Service
}

// NewDomain builds the domain services bottom-up, each holding only the services
// below it that it uses.
func NewDomain(c *core.Core) Domain {
	var d Domain
	d.Brand = brand.New(c)
	d.Checks = checks.New(c)
	d.Buyer = buyer.New(c, d.Brand)
	d.Read = readmodel.New(c, d.Brand)
	d.Sending = sending.New(c, d.Buyer, d.Brand)
	d.Reviews = reviews.New(c, d.Sending, d.Read, d.Buyer, d.Checks, d.Brand)
	d.QA = qa.New(c, d.Sending, d.Buyer, d.Brand)
	d.Orders = orders.New(c, d.Reviews, d.Sending, d.Brand)
	d.Catalogue = catalogue.New(c.DB, c.Outbound, c.Log)
	d.Marketplace = marketplace.New(c.DB, c.Keys, c.Outbound, d.Reviews, d.Catalogue, c.Log)
	return d
}

// Close closes the database.
func (a *App) Close() error { return a.DB.Close() }
