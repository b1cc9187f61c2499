package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"reviewd/app/core"
	"reviewd/app/core/buyer"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/app/media"
	"reviewd/app/outbound"
	"reviewd/store"
)

// DBFile and MediaDir are the fixed names inside the data folder.
const (
	DBFile   = "reviewd.db"
	MediaDir = "media"
)

// App is one opened data folder: database, master key and the domain service.
type App struct {
	Config  Config
	DB      *store.DB
	Core    *core.Core
	Orders  *orders.Service
	QA      *qa.Service
	Reviews *reviews.Service
	Sending *sending.Service
	Read    *readmodel.Service
	Buyer   *buyer.Service
	Checks  *checks.Service
	Log     *slog.Logger
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
	out, err := outbound.New(outbound.Config{Resolve: cfg.Outbound.Resolve, CAFile: cfg.Outbound.CAFile})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("app: outbound: %w", err)
	}
	c := core.New(db, keys, cfg.PublicURL, log)
	c.MediaDir = filepath.Join(cfg.DataDir, MediaDir)
	c.Outbound = out
	if db.UpgradedFrom > 0 && db.UpgradedFrom < store.ReadModelVersion {
		// Reviews stored before the read model existed get their product figures,
		// listing and search rows now.
		n, err := readmodel.New(c).RebuildProductStats(ctx)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("app: build the review read model: %w", err)
		}
		log.Info("built the review read model after the upgrade", "products", n, "from_version", db.UpgradedFrom)
	}
	c.Mailer = mail.New(mail.Config{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Username: cfg.SMTP.Username,
		Password: cfg.SMTP.Password, Security: cfg.SMTP.Security, From: cfg.SMTP.From})
	c.Scanner = &media.Scanner{Address: cfg.Clamd.Address}
	c.Probe = media.Probe{FFmpeg: cfg.FFmpeg.FFmpeg, FFprobe: cfg.FFmpeg.FFprobe}
	chk := checks.New(c)
	b := buyer.New(c)
	read := readmodel.New(c)
	snd := sending.New(c, b)
	rv := reviews.New(c, snd, read, b, chk)
	return &App{Config: cfg, DB: db, Core: c, Orders: orders.New(c, rv, snd), QA: qa.New(c, snd, b), Reviews: rv, Sending: snd, Read: read, Buyer: b, Checks: chk,
		Log: log}, nil
}

// Close closes the database.
func (a *App) Close() error { return a.DB.Close() }
