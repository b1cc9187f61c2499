package insights

import (
	"context"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Overview is the answer of GET /admin/v1/overview.
type Overview struct {
	Sites     []Site      `json:"sites"`
	Attention []Attention `json:"attention"`
	// Mode is the publishing method (the brand's; with channel, the channel's).
	Mode string `json:"mode"`
	// ModeOverrides counts channels whose method differs from the brand's: the
	// method is brand-wide in v1, so it is 0.
	ModeOverrides int `json:"mode_overrides"`
	WindowDays    int `json:"window_days"`
	// Deliveries are the message-log attempts of the window by route; present only
	// when WhatsApp is configured.
	Deliveries map[string]store.RouteFigures `json:"deliveries,omitempty"`
}

// Site is a channel and what its store server sent in the window: transfer calls
// (orders and deliveries), refused ones, the newest call ever, and a verdict.
type Site struct {
	Code    string     `json:"code"`
	Label   string     `json:"label"`
	Market  string     `json:"market"`
	Verdict string     `json:"verdict"`
	Calls   int        `json:"calls"`
	Refused int        `json:"refused"`
	LastAt  *time.Time `json:"last_at"`
}

// Attention is something that waits for the brand: moderation_slow (reviews
// waiting over 48 hours), marketplace_held (connections whose last read held
// removals back), marketplace_failed (whose last read failed); count and the
// newest (marketplace) or oldest (moderation) time.
type Attention struct {
	Kind  string     `json:"kind"`
	Count int        `json:"count"`
	At    *time.Time `json:"at"`
}

// Site verdicts.
const (
	VerdictOK       = "ok"       // calls arrive, most accepted
	VerdictRefusing = "refusing" // more than half of the window's calls refused
	VerdictSilent   = "silent"   // no call in the window
	VerdictInactive = "inactive" // the channel is turned off
)

// SiteWindow is the window of the site figures.
const SiteWindow = 7 * 24 * time.Hour

// Overview answers GET /admin/v1/overview (errors: invalid / channel).
func (s *Service) Overview(ctx context.Context, channel string) (Overview, error) {
	q := s.DB.Read()
	ch, err := core.ChannelFilter(ctx, q, strings.TrimSpace(channel), "")
	if err != nil {
		return Overview{}, err
	}
	st, err := s.Brand.LoadSettings(ctx, q)
	if err != nil {
		return Overview{}, err
	}
	out := Overview{Sites: []Site{}, Attention: []Attention{}, Mode: st.PublishingMethod, WindowDays: int(SiteWindow / (24 * time.Hour))}
	chans := []store.Channel{ch}
	if ch.ID == 0 {
		if chans, err = q.ListChannels(ctx); err != nil {
			return Overview{}, err
		}
	}
	since := q.Now.Add(-SiteWindow).UnixMilli() / 3600000
	for _, c := range chans {
		f, err := q.SiteFigures(ctx, c.Code, since)
		if err != nil {
			return Overview{}, err
		}
		site := Site{Code: c.Code, Label: c.Label, Market: c.Market, Calls: f.Calls, Refused: f.Refused, LastAt: core.OptTime(f.LastAt)}
		switch {
		case !c.Active:
			site.Verdict = VerdictInactive
		case f.Calls == 0:
			site.Verdict = VerdictSilent
		case f.Refused*2 > f.Calls:
			site.Verdict = VerdictRefusing
		default:
			site.Verdict = VerdictOK
		}
		out.Sites = append(out.Sites, site)
	}
	if out.Deliveries, err = s.deliveries(ctx, q, ch.ID, q.Now.Add(-SiteWindow), q.Now.Add(time.Millisecond)); err != nil {
		return Overview{}, err
	}
	w, err := q.WaitingReviews(ctx, store.FigureScope{ChannelID: ch.ID}, q.Now.Add(-SlowModeration))
	if err != nil {
		return Overview{}, err
	}
	if w.Older > 0 {
		t := w.Oldest
		out.Attention = append(out.Attention, Attention{Kind: "moderation_slow", Count: w.Older, At: &t})
	}
	for _, k := range []struct{ kind, state string }{{"marketplace_held", "held"}, {"marketplace_failed", "failed"}} {
		n, at, err := q.MarketplaceAttention(ctx, ch.ID, k.state)
		if err != nil {
			return Overview{}, err
		}
		if n > 0 {
			a := Attention{Kind: k.kind, Count: n}
			if !at.IsZero() {
				a.At = &at
			}
			out.Attention = append(out.Attention, a)
		}
	}
	return out, nil
}
