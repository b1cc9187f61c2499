package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/ai"
	"reviewd/app/core/audit"
	"reviewd/app/core/brand"
	"reviewd/app/core/brandexport"
	"reviewd/app/core/buyer"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/channels"
	"reviewd/app/core/checks"
	"reviewd/app/core/feeds"
	"reviewd/app/core/golive"
	"reviewd/app/core/held"
	"reviewd/app/core/insights"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/privacy"
	"reviewd/app/core/qa"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/core/storereviews"
	"reviewd/app/core/transparency"
	"reviewd/app/core/votes"
	"reviewd/app/mail"
	"reviewd/app/media"
	"reviewd/app/metrics"
	"reviewd/app/outbound"
	"reviewd/app/platform/aichat"
	"reviewd/app/platform/magento"
	"reviewd/app/platform/shopify"
	"reviewd/app/platform/woocommerce"
	"reviewd/app/whatsapp"
	"reviewd/store"
)

// DBFile, MediaDir and ExportDir are the fixed names inside the data folder.
const (
	DBFile    = "reviewd.db"
	MediaDir  = "media"
	ExportDir = "exports"
)

// App is one opened data folder: database, kernel and the domain services.
type App struct {
	Config Config
	DB     *store.DB
	// Keys is the keyring of the data folder (secret.key).
	Keys *core.Keyring
	// Domain holds the domain services; surfaces and jobs receive only those they use.
	Domain
	Log *slog.Logger
	// Metrics is nil unless metrics.listen or metrics.token is set.
	Metrics *metrics.Metrics
	// FollowerLag, on a follower, is its lag behind the replica.
	FollowerLag func() time.Duration
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
	var db *store.DB
	if cfg.Follower.Enabled {
		// A follower's copy is written by the replica's follow process only.
		db, err = store.OpenReadOnly(ctx, filepath.Join(cfg.DataDir, DBFile))
	} else {
		db, err = store.Open(ctx, filepath.Join(cfg.DataDir, DBFile), schemaSQL)
	}
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
	var model ai.Provider
	if cfg.AI.Provider == ai.ProviderOpenAI {
		hc, err := out.OperatorEndpoint(cfg.AI.Endpoint, 0)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("app: ai.endpoint: %w", err)
		}
		model = aichat.New(cfg.AI, hc, 0, aichat.DefaultRetries, func() time.Time { return db.Now() })
	}
	d := NewDomain(Parts{
		DB:        db,
		Keys:      keys,
		PublicURL: cfg.PublicURL,
		Log:       log,
		MediaDir:  filepath.Join(cfg.DataDir, MediaDir),
		ExportDir: filepath.Join(cfg.DataDir, ExportDir),
		Outbound:  out,
		Mailer:    mail.New(mcfg),
		Scanner:   &media.Scanner{Address: cfg.Clamd.Address},
		Probe:     media.Probe{FFmpeg: cfg.FFmpeg.FFmpeg, FFprobe: cfg.FFmpeg.FFprobe},
		Platforms: orders.NewPlatforms(magento.Reader{}, shopify.Reader{}, woocommerce.Reader{}),
		AI:        cfg.AI,
		AIModel:   model,
	})
	ms, err := cfg.Media.Open(ctx, d.MediaDir())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("app: media store: %w", err)
	}
	d.Reviews.Media, d.Exports.Media = ms, ms
	w := cfg.WhatsApp
	d.SetWhatsApp(whatsapp.Config{PhoneNumberID: w.PhoneNumberID, AccessToken: w.AccessToken, AppSecret: w.AppSecret,
		VerifyToken: w.VerifyToken, APIURL: w.APIURL, InviteTemplate: w.InviteTemplate, ReminderTemplate: w.ReminderTemplate}, out)
	d.Read.MediaPublicURL = cfg.Media.PublicURL
	// The mail server set in the panel, when there is one, wins over smtp.*.
	if err := d.Sending.ApplyMailServer(ctx); err != nil {
		log.Warn("the mail server set in the panel cannot be read; smtp.* applies", "err", err)
	}
	d.Channels.DNS = channels.NewResolver(cfg.DNS.Server)
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
	return &App{Config: cfg, DB: db, Keys: keys, Domain: d, Log: log, Metrics: m}, nil
}

// Domain is the set of domain services over one kernel.
type Domain struct {
	// Recorder writes the activity history and the access log, Clock is the
	// database clock and Passwords makes the signing, mail-event and notification
	// passwords: the kernel's parts that the console and the surfaces call
	// themselves.
	Recorder  *core.Recorder
	Clock     core.Clock
	Passwords *core.Passwords

	Access *access.Service
	Brand  *brand.Service
	// Channels holds channels, their domains and the keys made from a brand's panel.
	Channels *channels.Service
	Checks   *checks.Service
	Buyer    *buyer.Service
	Read     *readmodel.Service
	// Votes records the helpful votes on published reviews.
	Votes *votes.Service
	// StoreReviews answers the store-wide review page and the carousel.
	StoreReviews *storereviews.Service
	Sending      *sending.Service
	Reviews      *reviews.Service
	QA           *qa.Service
	Orders       *orders.Service
	Audit        *audit.Service
	Privacy      *privacy.Service
	// Catalogue and Marketplace: the product catalogue and marketplace review import.
	Catalogue   *catalogue.Service
	Marketplace *marketplace.Service
	// Exports builds the whole-brand archives.
	Exports *brandexport.Service
	// Feeds and Insights: product-review feeds and the brand's figures.
	Feeds    *feeds.Service
	Insights *insights.Service
	// Transparency is the public log of the decisions that make reviews visible or not.
	Transparency *transparency.Service
	// AI is the AI package (its Provider is nil when ai.provider is off).
	AI *ai.Service
	// GoLive is the go-live checklist and the owner alerts.
	GoLive *golive.Service
	// Held keeps the panel's approve and reject for their undo window.
	Held *held.Service
}

// Parts are what the domain services are built from: the database, keyring,
// public address and logger, and the infrastructure parts.
type Parts struct {
	DB        *store.DB
	Keys      *core.Keyring
	PublicURL string
	Log       *slog.Logger
	// MediaDir is the folder of uploaded and processed media files.
	MediaDir string
	// ExportDir is the folder of the whole-brand archives.
	ExportDir string
	// Outbound is the SSRF-safe client for notices and order-connection reads.
	Outbound *outbound.Client
	// Mailer sends e-mails over the configured SMTP server (sending is off when it
	// has no host; e-mails then wait).
	Mailer *mail.Mailer
	// Scanner scans uploads with clamd (scanning is off without an address).
	Scanner *media.Scanner
	// Probe runs ffprobe and ffmpeg for videos.
	Probe media.Probe
	// Platforms are the store-platform readers of order connections.
	Platforms orders.Platforms
	// AI is the AI package's configuration (provider "" is off) and AIModel the
	// model provider for ai.provider openai.
	AI      ai.Config
	AIModel ai.Provider
}

// NewDomain builds the domain services bottom-up, each holding only its own
// dependencies and the services below it that it uses, over the kernel's recorder
// and clock.
func NewDomain(p Parts) Domain {
	db, keys, log, url := p.DB, p.Keys, p.Log, p.PublicURL
	if log == nil {
		log = slog.Default()
	}
	rec, clock := core.NewRecorder(keys), core.NewClock(db)
	var d Domain
	d.Recorder, d.Clock = rec, clock
	d.Passwords = &core.Passwords{DB: db, Keys: keys, Recorder: rec}
	d.Access = access.New(db, keys, p.Mailer, url, log)
	d.Brand = &brand.Service{DB: db, Recorder: rec, Clock: clock, Passwords: d.Passwords}
	d.Channels = channels.New(db, rec, p.Outbound, nil)
	d.Brand.Senders = d.Channels
	d.Checks = &checks.Service{DB: db, Recorder: rec}
	d.AI = ai.New(db, p.AI, p.AIModel)
	d.AI.Settings = func(ctx context.Context) (ai.Settings, error) {
		st, err := d.Brand.LoadSettings(ctx, db.Read())
		return ai.Settings{SummaryEnabled: st.AISummaryEnabled, TranslationEnabled: st.AITranslationEnabled,
			ReplyTone: st.ReplyTone}, err
	}
	if d.AI.On() {
		d.Checks.AI = d.AI
	}
	d.Buyer = &buyer.Service{DB: db, Keys: keys, Recorder: rec, Clock: clock, Brand: d.Brand}
	d.Read = readmodel.New(readmodel.Service{DB: db, Recorder: rec, Clock: clock, PublicURL: url, Brand: d.Brand, Outbound: p.Outbound, AI: d.AI})
	d.StoreReviews = &storereviews.Service{Read: d.Read}
	d.Sending = &sending.Service{DB: db, Keys: keys, Recorder: rec, Clock: clock, Log: log, PublicURL: url,
		Mailer: p.Mailer, Outbound: p.Outbound, Buyer: d.Buyer, Brand: d.Brand}
	d.Transparency = &transparency.Service{DB: db, Keys: keys, Clock: clock, PublicURL: url}
	d.Reviews = &reviews.Service{DB: db, Keys: keys, Recorder: rec, Clock: clock, Log: log, PublicURL: url,
		MediaDir: p.MediaDir, Scanner: p.Scanner, Probe: p.Probe,
		Sending: d.Sending, Buyer: d.Buyer, Checks: d.Checks, Read: d.Read, Brand: d.Brand, Decisions: d.Transparency, AI: d.AI}
	d.Votes = &votes.Service{DB: db, Keys: keys, Reviews: d.Reviews}
	d.Held = &held.Service{DB: db, Reviews: d.Reviews, Recorder: rec, Clock: clock, Log: log}
	d.QA = &qa.Service{DB: db, Keys: keys, Recorder: rec, Clock: clock, Log: log, PublicURL: url, Mailer: p.Mailer,
		Sending: d.Sending, Buyer: d.Buyer, Brand: d.Brand}
	d.Orders = &orders.Service{DB: db, Keys: keys, Recorder: rec, Clock: clock, Log: log, Outbound: p.Outbound,
		Platforms: p.Platforms, Reviews: d.Reviews, Sending: d.Sending, Brand: d.Brand}
	d.Audit = audit.New(db, keys, url)
	d.Privacy = privacy.New(db, keys, d.Orders, d.Reviews)
	d.Catalogue = catalogue.New(db, p.Outbound, log, rec)
	d.Marketplace = marketplace.New(db, keys, p.Outbound, d.Reviews, d.Catalogue, log)
	d.Marketplace.Sending = d.Sending
	d.Exports = &brandexport.Service{DB: db, Recorder: rec, Clock: clock, Log: log, Dir: p.ExportDir}
	d.Feeds = &feeds.Service{DB: db, Keys: keys, PublicURL: url, Log: log, Recorder: rec}
	d.Insights = &insights.Service{DB: db, Brand: d.Brand}
	d.GoLive = &golive.Service{DB: db, Clock: clock, Log: log, PublicURL: url, Access: d.Access, Channels: d.Channels,
		Sending: d.Sending, Orders: d.Orders, Reviews: d.Reviews}
	return d
}

// SetMailer replaces the mailer of every service that sends e-mail.
func (d Domain) SetMailer(m *mail.Mailer) { d.Sending.Mailer, d.QA.Mailer, d.Access.Mailer = m, m, m }

// SetOutbound replaces the outbound client of every service that calls out.
func (d Domain) SetOutbound(o *outbound.Client) {
	d.Sending.Outbound, d.Orders.Outbound, d.Channels.Outbound, d.Read.Outbound = o, o, o, o
	d.Catalogue.Outbound, d.Marketplace.Outbound = o, o
}

// SetWhatsApp turns the WhatsApp route on (or off, for a cfg that is not
// Configured): the sending service gets its client and the settings offer it.
func (d Domain) SetWhatsApp(cfg whatsapp.Config, o *outbound.Client) {
	d.Sending.WhatsApp = whatsapp.New(cfg, o)
	d.Brand.WhatsApp = d.Sending.WhatsApp.Enabled()
}

// SetScanner replaces the upload scanner.
func (d Domain) SetScanner(s *media.Scanner) { d.Reviews.Scanner = s }

// SetProbe replaces the video probe.
func (d Domain) SetProbe(p media.Probe) { d.Reviews.Probe = p }

// MediaDir is the folder of uploaded and processed media files.
func (d Domain) MediaDir() string { return d.Reviews.MediaDir }

// SetPublicURL changes the public address (the demo learns its port late) in the
// configuration and in every service that writes links.
func (a *App) SetPublicURL(u string) {
	a.Config.PublicURL = u
	a.Read.PublicURL, a.Sending.PublicURL, a.Reviews.PublicURL, a.QA.PublicURL = u, u, u, u
	a.Access.PublicURL = u
	a.Feeds.PublicURL = u
	a.Transparency.PublicURL = u
	a.GoLive.PublicURL = u
}

// Close closes the database.
func (a *App) Close() error {
	a.Exports.Stop()
	a.Access.StopResets()
	return a.DB.Close()
}
