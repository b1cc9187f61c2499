package marketplace

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Routes of a connection.
const (
	RouteFile = "file"
	RouteFeed = "feed"
)

// Run states (spec 3, "States and transitions").
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunHeld      = "held"
	RunFailed    = "failed"
)

// Errors of the connection endpoints.
var (
	ErrSourceExists     = core.Conflict("source_exists", "")
	ErrSourceInactive   = core.Conflict("source_inactive", "")
	ErrSourceHasReviews = core.Conflict("source_has_reviews", "")
	ErrRunInProgress    = core.Conflict("run_in_progress", "")
)

// SourceID is the public id of a connection.
func SourceID(id int64) string { return "mks_" + strconv.FormatInt(id, 10) }

// RunID is the public id of a run.
func RunID(id int64) string { return "mkr_" + strconv.FormatInt(id, 10) }

func parseID(prefix, s string) (int64, bool) { return core.ParseID(prefix, s) }

// Attention is what needs the brand's eye on a connection: the last read held
// removals back, or reads failed.
type Attention struct {
	Kind  string    `json:"kind"`
	Count int       `json:"count"`
	Error string    `json:"error"`
	At    time.Time `json:"at"`
}

// SourceView is a connection record (spec 3, "Marketplace connection record").
type SourceView struct {
	ID           string     `json:"id"`
	Platform     string     `json:"platform"`
	PlatformName string     `json:"platform_name"`
	Channel      string     `json:"channel"`
	SellerID     string     `json:"seller_id"`
	Route        string     `json:"route"`
	FeedURL      string     `json:"feed_url"`
	HasSecret    bool       `json:"has_secret"`
	Enabled      bool       `json:"enabled"`
	LastRun      *RunView   `json:"last_run"`
	Runs         int        `json:"runs"`
	Attention    *Attention `json:"attention"`
	CreatedAt    time.Time  `json:"created_at"`
}

// RouteInfo describes a route for the panel.
type RouteInfo struct {
	Code     string   `json:"code"`
	Formats  []string `json:"formats"`
	MaxBytes int      `json:"max_bytes,omitempty"`
	MaxRows  int      `json:"max_rows,omitempty"`
	Columns  []Column `json:"columns"`
	Scopes   []string `json:"scopes,omitempty"`
}

// Column is one canonical column.
type Column struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// SourceList is the answer of GET /admin/v1/marketplace/sources.
type SourceList struct {
	Items     []SourceView `json:"items"`
	Total     int          `json:"total"`
	Page      int          `json:"page"`
	Pages     int          `json:"pages"`
	PageSize  int          `json:"page_size"`
	Platforms []Platform   `json:"platforms"`
	Routes    []RouteInfo  `json:"routes"`
}

func columnsInfo() []Column {
	out := make([]Column, len(Columns))
	for i, c := range Columns {
		out[i] = Column{Name: c}
		for _, r := range requiredColumns {
			if r == c {
				out[i].Required = true
			}
		}
	}
	return out
}

// Routes describes the two routes and their file columns.
func Routes() []RouteInfo {
	return []RouteInfo{
		{Code: RouteFile, Formats: []string{FormatCSV, FormatXLSX, FormatJSON}, MaxBytes: MaxFileBytes, MaxRows: MaxFileRows, Columns: columnsInfo()},
		{Code: RouteFeed, Formats: []string{FormatJSON, FormatCSV}, Columns: columnsInfo(), Scopes: []string{ScopeNew, ScopeFull}},
	}
}

func (c *Service) view(ctx context.Context, q *store.Q, s store.MarketplaceSource) (SourceView, error) {
	p, _ := PlatformOf(s.Platform)
	v := SourceView{ID: SourceID(s.ID), Platform: s.Platform, PlatformName: p.Name, Channel: s.Channel, SellerID: s.SellerID,
		Route: s.Route, FeedURL: s.FeedURL, HasSecret: len(s.SecretEnc) > 0, Enabled: s.Enabled, CreatedAt: s.CreatedAt}
	runs, err := q.MarketplaceRuns(ctx, s.ID, 20)
	if err != nil {
		return v, err
	}
	if v.Runs, err = q.CountMarketplaceRuns(ctx, s.ID); err != nil {
		return v, err
	}
	if len(runs) > 0 {
		rv := runView(runs[0])
		v.LastRun = &rv
	}
	// attention: the newest finished run held removals, or reads failed in a row.
	for _, r := range runs {
		if r.State == RunQueued || r.State == RunRunning {
			continue
		}
		switch r.State {
		case RunHeld:
			var cnt RunCounts
			_ = json.Unmarshal([]byte(r.Counts), &cnt)
			v.Attention = &Attention{Kind: "held", Count: cnt.Held, At: r.FinishedAt}
		case RunFailed:
			n, err := q.MarketplaceFailedInRow(ctx, s.ID)
			if err != nil {
				return v, err
			}
			v.Attention = &Attention{Kind: "failed", Count: n, Error: r.Error, At: r.FinishedAt}
		}
		break
	}
	return v, nil
}

// ListSources lists the connections with the platforms and routes.
func (c *Service) ListSources(ctx context.Context) (SourceList, error) {
	q := c.DB.Read()
	ss, err := q.ListMarketplaceSources(ctx)
	if err != nil {
		return SourceList{}, err
	}
	out := SourceList{Items: []SourceView{}, Page: 1, Pages: 1, Platforms: Platforms, Routes: Routes()}
	for _, s := range ss {
		v, err := c.view(ctx, q, s)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, v)
	}
	out.Total, out.PageSize = len(out.Items), max(len(out.Items), 25)
	return out, nil
}

func (c *Service) sourceByPublicID(ctx context.Context, q *store.Q, id string) (store.MarketplaceSource, error) {
	n, ok := parseID("mks_", id)
	if !ok {
		return store.MarketplaceSource{}, core.ErrNotFound
	}
	s, err := q.MarketplaceSourceByID(ctx, n)
	if errors.Is(err, store.ErrNotFound) {
		return s, core.ErrNotFound
	}
	return s, err
}

// Source returns one connection.
func (c *Service) Source(ctx context.Context, id string) (SourceView, error) {
	q := c.DB.Read()
	s, err := c.sourceByPublicID(ctx, q, id)
	if err != nil {
		return SourceView{}, err
	}
	return c.view(ctx, q, s)
}

// SourceInput is the body of POST /admin/v1/marketplace/sources and of PATCH.
type SourceInput struct {
	Platform *string `json:"platform"`
	Channel  *string `json:"channel"`
	SellerID *string `json:"seller_id"`
	Route    *string `json:"route"`
	FeedURL  *string `json:"feed_url"`
	Secret   *string `json:"secret"`
	Enabled  *bool   `json:"enabled"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// checkFeedURL checks a feed address: https, at most 2048 characters, no port
// other than 443 and no user info.
func checkFeedURL(u string) error {
	switch {
	case u == "":
		return core.Invalid("feed_url_required")
	case len(u) > 2048 || !core.StorableText(u):
		return core.Invalid("url_invalid")
	}
	if err := outbound.CheckURL(u); err != nil {
		if outbound.Code(err) == outbound.CodeSchemeRefused {
			return core.Invalid("feed_url_not_https")
		}
		return core.Invalid("url_invalid")
	}
	return nil
}

func (c *Service) sealSecret(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > 1024 || !core.StorableText(s) {
		return nil, core.Invalid("secret")
	}
	return c.Keys.Encrypt([]byte(s)), nil
}

// CreateSource saves a new connection (201).
func (c *Service) CreateSource(ctx context.Context, a *core.Actor, in SourceInput) (SourceView, error) {
	platform, route := str(in.Platform), str(in.Route)
	if platform == "" {
		return SourceView{}, core.Invalid("platform_required")
	}
	if _, ok := PlatformOf(platform); !ok {
		return SourceView{}, core.Invalid("platform")
	}
	seller := str(in.SellerID)
	switch {
	case seller == "":
		return SourceView{}, core.Invalid("seller_id_required")
	case len(seller) > 100 || !core.StorableText(seller):
		return SourceView{}, core.Invalid("seller_id")
	}
	feedURL := str(in.FeedURL)
	switch route {
	case RouteFile:
		if feedURL != "" || str(in.Secret) != "" {
			return SourceView{}, core.Invalid("feed_url_not_applicable")
		}
	case RouteFeed:
		if err := checkFeedURL(feedURL); err != nil {
			return SourceView{}, err
		}
	case "":
		return SourceView{}, core.Invalid("route_required")
	default:
		return SourceView{}, core.Invalid("route")
	}
	secret, err := c.sealSecret(str(in.Secret))
	if err != nil {
		return SourceView{}, err
	}
	code := str(in.Channel)
	if code == "" {
		return SourceView{}, core.Invalid("channel_required")
	}
	enabled := in.Enabled == nil || *in.Enabled
	var out SourceView
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := tx.ChannelByCode(ctx, code)
		if errors.Is(err, store.ErrNotFound) {
			return core.Invalid("channel")
		}
		if err != nil {
			return err
		}
		s, err := tx.CreateMarketplaceSource(ctx, store.MarketplaceSource{Platform: platform, ChannelID: ch.ID, SellerID: seller,
			Route: route, FeedURL: feedURL, SecretEnc: secret, Enabled: enabled})
		if errors.Is(err, store.ErrConflict) {
			return ErrSourceExists
		}
		if err != nil {
			return err
		}
		if err := c.record(ctx, tx, a, "marketplace_source.created", "marketplace_source", SourceID(s.ID),
			map[string]any{"platform": platform, "channel": code, "seller_id": seller, "route": route}); err != nil {
			return err
		}
		out, err = c.view(ctx, tx.Q, s)
		return err
	})
	return out, err
}

// UpdateSource changes enabled, feed_url and secret; seller_id cannot change
// (400 invalid / seller_id_locked), nor can platform, channel or route.
func (c *Service) UpdateSource(ctx context.Context, a *core.Actor, id string, in SourceInput) (SourceView, error) {
	var out SourceView
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		s, err := c.sourceByPublicID(ctx, tx.Q, id)
		if err != nil {
			return err
		}
		if in.SellerID != nil && str(in.SellerID) != s.SellerID {
			return core.Invalid("seller_id_locked")
		}
		switch {
		case in.Platform != nil && str(in.Platform) != s.Platform:
			return core.Invalid("platform")
		case in.Channel != nil && str(in.Channel) != s.Channel:
			return core.Invalid("channel")
		case in.Route != nil && str(in.Route) != s.Route:
			return core.Invalid("route")
		}
		changed := []string{}
		if in.Enabled != nil {
			s.Enabled = *in.Enabled
			changed = append(changed, "enabled")
		}
		if in.FeedURL != nil {
			if s.Route != RouteFeed {
				return core.Invalid("feed_url_not_applicable")
			}
			u := str(in.FeedURL)
			if err := checkFeedURL(u); err != nil {
				return err
			}
			s.FeedURL = u
			changed = append(changed, "feed_url")
		}
		if in.Secret != nil {
			if s.Route != RouteFeed {
				return core.Invalid("feed_url_not_applicable")
			}
			if s.SecretEnc, err = c.sealSecret(str(in.Secret)); err != nil {
				return err
			}
			changed = append(changed, "secret")
		}
		if err := tx.UpdateMarketplaceSource(ctx, s); err != nil {
			return err
		}
		if err := c.record(ctx, tx, a, "marketplace_source.changed", "marketplace_source", SourceID(s.ID),
			map[string]any{"fields": changed}); err != nil {
			return err
		}
		out, err = c.view(ctx, tx.Q, s)
		return err
	})
	return out, err
}

// RemoveSource deletes a connection; refused with 409 source_has_reviews while its
// imported reviews are live or a removal request touched it.
func (c *Service) RemoveSource(ctx context.Context, a *core.Actor, id string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		s, err := c.sourceByPublicID(ctx, tx.Q, id)
		if err != nil {
			return err
		}
		live, removal, err := tx.MarketplaceSourceHolds(ctx, s.ID)
		if err != nil {
			return err
		}
		if live || removal {
			return ErrSourceHasReviews
		}
		if err := tx.DeleteMarketplaceSource(ctx, s.ID); err != nil {
			return err
		}
		if err := tx.EndAlertEpisode(ctx, alertSubject(s), ""); err != nil {
			return err
		}
		return c.record(ctx, tx, a, "marketplace_source.removed", "marketplace_source", SourceID(s.ID),
			map[string]any{"platform": s.Platform, "channel": s.Channel})
	})
}
