package channels

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// DefaultAllowance is the number of channels a brand may have until the operator
// sets another (`reviewd channel allowance N`).
const DefaultAllowance = 3

// allowanceKey is the settings key of the channel allowance.
const allowanceKey = "channel_allowance"

// NewChannel is the input of CreateChannel.
type NewChannel struct {
	Code, Market, Language, Label, BrandName string
	Domains                                  []string
	LandingURL, PrivacyURL                   string
	SupportURL, SenderAddress                string
	// TimeZone is an IANA zone for reviews' dates ("" = the brand's time_zone).
	TimeZone string
}

// Domain is a channel's domain as listed.
type Domain struct {
	Domain   string `json:"domain"`
	Verified bool   `json:"verified"`
}

// Row is a channel as the management API shows it.
type Row struct {
	Code          string   `json:"code"`
	Label         string   `json:"label"`
	Market        string   `json:"market"`
	Language      string   `json:"language"`
	BrandName     string   `json:"brand_name"`
	SenderAddress string   `json:"sender_address"`
	SupportURL    string   `json:"support_url"`
	PrivacyURL    string   `json:"privacy_url"`
	LandingURL    string   `json:"landing_url"`
	ReviewStyle   string   `json:"review_style"`
	ReviewTheme   string   `json:"review_theme"`
	Active        bool     `json:"active"`
	Domains       []Domain `json:"domains"`
	// TimeZone is shown only when set (otherwise the brand's time_zone applies).
	TimeZone string `json:"time_zone,omitempty"`
}

// Quota is the channel allowance: limit, channels still open to create, and the
// open channel request (nil when none).
type Quota struct {
	Limit   int         `json:"limit"`
	Open    int         `json:"open"`
	Request *RequestRow `json:"request"`
}

// RequestRow is a channel request as shown.
type RequestRow struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Market    string `json:"market"`
	Label     string `json:"label"`
	Note      string `json:"note"`
	CreatedAt string `json:"created_at"`
}

// List is the channel list (shared list contract plus quota).
type List struct {
	Items    []Row `json:"items"`
	Total    int   `json:"total"`
	Page     int   `json:"page"`
	Pages    int   `json:"pages"`
	PageSize int   `json:"page_size"`
	Quota    Quota `json:"quota"`
}

func (s *Service) record(ctx context.Context, tx *store.Tx, a *core.Actor, action, targetType, targetID string, detail any) error {
	if s.Recorder == nil {
		return nil
	}
	return s.Recorder.Record(ctx, tx, a, action, targetType, targetID, detail)
}

// CreateChannel validates and stores a channel with the verified domains given
// (the operator's console). A panel caller is held to the channel allowance (409
// channel_quota) and records no domains: a domain is added and proved separately.
func (s *Service) CreateChannel(ctx context.Context, a *core.Actor, in NewChannel) (store.Channel, error) {
	in.Market = strings.ToUpper(strings.TrimSpace(in.Market))
	in.Code = strings.TrimSpace(in.Code)
	in.Label, in.BrandName = strings.TrimSpace(in.Label), strings.TrimSpace(in.BrandName)
	in.SenderAddress = strings.TrimSpace(in.SenderAddress)
	switch {
	case !core.ReChannelCode.MatchString(in.Code):
		return store.Channel{}, core.Invalid("code")
	case !core.ReMarket.MatchString(in.Market):
		return store.Channel{}, core.Invalid("market")
	case in.Language != "tr" && in.Language != "en":
		return store.Channel{}, core.Invalid("language")
	case in.Label == "" || len(in.Label) > 120:
		return store.Channel{}, core.Invalid("label")
	case in.BrandName == "" || len(in.BrandName) > 120:
		return store.Channel{}, core.Invalid("brand_name")
	}
	ch := store.Channel{Code: in.Code, Market: in.Market, Language: in.Language, Label: in.Label, BrandName: in.BrandName,
		Style: "cards", Theme: "warm", Active: true}
	if err := setTimeZone(&ch, in.TimeZone); err != nil {
		return store.Channel{}, err
	}
	if err := setAddresses(&ch, in.LandingURL, in.PrivacyURL, in.SupportURL); err != nil {
		return store.Channel{}, err
	}
	for _, d := range in.Domains {
		d = core.NormalizeDomain(d)
		if !core.ValidDomain(d) {
			return store.Channel{}, core.Invalidf("domain", d)
		}
		ch.Domains = append(ch.Domains, d)
	}
	panel := a != nil && a.IsPanel()
	if panel {
		ch.Domains = nil
	}
	if in.SenderAddress != "" {
		// Checked before the transaction: the check may ask DNS.
		if err := s.checkSender(ctx, s.DB.Read(), in.SenderAddress); err != nil {
			return store.Channel{}, err
		}
		ch.SenderAddress = in.SenderAddress
	}
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ChannelByCode(ctx, in.Code); err == nil {
			return core.Conflict("channel_exists", "channel_exists")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if panel {
			q, err := s.quota(ctx, tx.Q)
			if err != nil {
				return err
			}
			if q.Open <= 0 {
				return core.Conflict("channel_quota", "channel_quota")
			}
		}
		var err error
		if ch, err = tx.CreateChannel(ctx, ch); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "channel.created", "channel", ch.Code, map[string]any{"market": ch.Market, "domains": ch.Domains})
	})
	return ch, err
}

// setAddresses checks and sets the landing, privacy and support addresses (empty
// clears one). Errors: invalid / landing_url, privacy_url_not_https,
// privacy_url_too_long, support_url.
func setAddresses(ch *store.Channel, landing, privacy, support string) error {
	landing, privacy, support = strings.TrimSpace(landing), strings.TrimSpace(privacy), strings.TrimSpace(support)
	if landing != "" && (!isHTTPURL(landing) || len(landing) > 500) {
		return core.Invalid("landing_url")
	}
	if privacy != "" {
		if !strings.HasPrefix(privacy, "https://") || !isHTTPURL(privacy) {
			return core.Invalid("privacy_url_not_https")
		}
		if len(privacy) > 500 {
			return core.Invalid("privacy_url_too_long")
		}
	}
	if support != "" && (!strings.HasPrefix(support, "https://") || !isHTTPURL(support) || len(support) > 500) {
		return core.Invalid("support_url")
	}
	ch.LandingURL, ch.PrivacyURL, ch.SupportURL = landing, privacy, support
	return nil
}

// setTimeZone checks and sets a channel's time zone: an IANA zone name, or ""
// for the brand's time_zone setting. Error: invalid / time_zone.
func setTimeZone(ch *store.Channel, zone string) error {
	zone = strings.TrimSpace(zone)
	if zone != "" {
		if _, err := time.LoadLocation(zone); err != nil || zone == "Local" || len(zone) > 64 {
			return core.Invalid("time_zone")
		}
	}
	ch.TimeZone = zone
	return nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// Allowance is the number of channels the brand may have.
func Allowance(ctx context.Context, q *store.Q) (int, error) {
	var n int
	err := q.Setting(ctx, allowanceKey, &n)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultAllowance, nil
	}
	return n, err
}

// SetAllowance sets the number of channels the brand may have (the operator's
// console).
func (s *Service) SetAllowance(ctx context.Context, a *core.Actor, n int) error {
	if n < 0 || n > 1000 {
		return core.Invalid("allowance")
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.SetSetting(ctx, allowanceKey, n); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "channel.allowance_set", "settings", allowanceKey, map[string]any{"allowance": n})
	})
}

func (s *Service) quota(ctx context.Context, q *store.Q) (Quota, error) {
	limit, err := Allowance(ctx, q)
	if err != nil {
		return Quota{}, err
	}
	n, err := q.CountChannels(ctx)
	if err != nil {
		return Quota{}, err
	}
	out := Quota{Limit: limit, Open: max(0, limit-n)}
	r, err := q.OpenChannelRequest(ctx)
	if err == nil {
		row := requestRow(r)
		out.Request = &row
	} else if !errors.Is(err, store.ErrNotFound) {
		return Quota{}, err
	}
	return out, nil
}

func requestRow(r store.ChannelRequest) RequestRow {
	return RequestRow{ID: RequestID(r.ID), State: r.State, Market: r.Market, Label: r.Label, Note: r.Note,
		CreatedAt: r.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
}

// RequestID is the public id of a channel request.
func RequestID(id int64) string { return "chreq_" + strconv.FormatInt(id, 10) }

// rowOf builds the shown row of a channel with every domain of it.
func rowOf(ch store.Channel, domains []store.ChannelDomain) Row {
	r := Row{Code: ch.Code, Label: ch.Label, Market: ch.Market, Language: ch.Language, BrandName: ch.BrandName,
		SenderAddress: ch.SenderAddress, SupportURL: ch.SupportURL, PrivacyURL: ch.PrivacyURL, LandingURL: ch.LandingURL,
		ReviewStyle: ch.Style, ReviewTheme: ch.Theme, Active: ch.Active, Domains: []Domain{}, TimeZone: ch.TimeZone}
	for _, d := range domains {
		r.Domains = append(r.Domains, Domain{Domain: d.Domain, Verified: d.Verified()})
	}
	return r
}

// Row returns the shown row of the channel with code (404 not_found).
func (s *Service) Row(ctx context.Context, code string) (Row, error) {
	q := s.DB.Read()
	ch, err := channelByCode(ctx, q, code)
	if err != nil {
		return Row{}, err
	}
	ds, err := q.ChannelDomainRows(ctx, ch.ID)
	if err != nil {
		return Row{}, err
	}
	return rowOf(ch, ds), nil
}

func channelByCode(ctx context.Context, q *store.Q, code string) (store.Channel, error) {
	ch, err := q.ChannelByCode(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return ch, core.ErrNotFound
	}
	return ch, err
}

// Codes lists the codes of every channel, in order (the choices of a form).
func (s *Service) Codes(ctx context.Context) ([]string, error) {
	return s.DB.Read().ListChannelCodes(ctx)
}

// ListChannels lists the channels by code (q matches code, label, market or brand
// name) with the quota.
func (s *Service) ListChannels(ctx context.Context, lq core.ListQuery) (List, error) {
	q := s.DB.Read()
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return List{}, err
	}
	needle := strings.ToLower(strings.TrimSpace(lq.Q))
	var rows []Row
	for _, ch := range chans {
		if needle != "" && !strings.Contains(strings.ToLower(ch.Code+"\n"+ch.Label+"\n"+ch.Market+"\n"+ch.BrandName), needle) {
			continue
		}
		ds, err := q.ChannelDomainRows(ctx, ch.ID)
		if err != nil {
			return List{}, err
		}
		rows = append(rows, rowOf(ch, ds))
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Code < rows[j].Code })
	out := List{Items: []Row{}, Total: len(rows), Page: lq.Page, PageSize: lq.PageSize, Pages: core.PageCount(len(rows), lq.PageSize)}
	if off := lq.Offset(); off < len(rows) {
		out.Items = rows[off:min(len(rows), off+lq.PageSize)]
	}
	if out.Quota, err = s.quota(ctx, q); err != nil {
		return List{}, err
	}
	return out, nil
}

// Change is the input of UpdateChannel: nil fields keep their value.
type Change struct {
	Label, BrandName, SenderAddress, SupportURL, PrivacyURL, LandingURL *string
	// Style and Theme are the page component's layout and theme (core.Styles,
	// core.Themes).
	Style, Theme *string
	Active       *bool
	// TimeZone is an IANA zone; "" returns to the brand's time_zone.
	TimeZone *string
}

// UpdateChannel changes a channel (turning it off and on included). Errors: 404
// not_found, invalid / label, brand_name, landing_url, privacy_url_not_https,
// privacy_url_too_long, support_url, review_style, review_theme, time_zone, sender_address,
// sender_domain_unverified, 502 sender_domain_check_failed / dns_unreachable.
func (s *Service) UpdateChannel(ctx context.Context, a *core.Actor, code string, c Change) (Row, error) {
	var row Row
	if c.SenderAddress != nil {
		// Checked before the transaction: the check may ask DNS.
		v := strings.TrimSpace(*c.SenderAddress)
		c.SenderAddress = &v
		ch, err := channelByCode(ctx, s.DB.Read(), code)
		if err != nil {
			return Row{}, err
		}
		if v != "" && v != ch.SenderAddress {
			if err := s.checkSender(ctx, s.DB.Read(), v); err != nil {
				return Row{}, err
			}
		}
	}
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := channelByCode(ctx, tx.Q, code)
		if err != nil {
			return err
		}
		before := ch
		var changed []string
		if c.Label != nil {
			v := strings.TrimSpace(*c.Label)
			if v == "" || len(v) > 120 {
				return core.Invalid("label")
			}
			ch.Label = v
		}
		if c.BrandName != nil {
			v := strings.TrimSpace(*c.BrandName)
			if v == "" || len(v) > 120 {
				return core.Invalid("brand_name")
			}
			ch.BrandName = v
		}
		landing, privacy, support := ch.LandingURL, ch.PrivacyURL, ch.SupportURL
		if c.LandingURL != nil {
			landing = *c.LandingURL
		}
		if c.PrivacyURL != nil {
			privacy = *c.PrivacyURL
		}
		if c.SupportURL != nil {
			support = *c.SupportURL
		}
		if err := setAddresses(&ch, landing, privacy, support); err != nil {
			return err
		}
		if c.Style != nil {
			if !slices.Contains(core.Styles, *c.Style) {
				return core.Invalid("review_style")
			}
			ch.Style = *c.Style
		}
		if c.Theme != nil {
			if !slices.Contains(core.Themes, *c.Theme) {
				return core.Invalid("review_theme")
			}
			ch.Theme = *c.Theme
		}
		if c.SenderAddress != nil {
			ch.SenderAddress = *c.SenderAddress
		}
		if c.Active != nil {
			ch.Active = *c.Active
		}
		if c.TimeZone != nil {
			if err := setTimeZone(&ch, *c.TimeZone); err != nil {
				return err
			}
		}
		for _, f := range []struct {
			name         string
			before, next any
		}{{"label", before.Label, ch.Label}, {"brand_name", before.BrandName, ch.BrandName},
			{"sender_address", before.SenderAddress, ch.SenderAddress}, {"support_url", before.SupportURL, ch.SupportURL},
			{"privacy_url", before.PrivacyURL, ch.PrivacyURL}, {"landing_url", before.LandingURL, ch.LandingURL},
			{"review_style", before.Style, ch.Style}, {"review_theme", before.Theme, ch.Theme},
			{"active", before.Active, ch.Active}, {"time_zone", before.TimeZone, ch.TimeZone}} {
			if f.before != f.next {
				changed = append(changed, f.name)
			}
		}
		if len(changed) > 0 {
			if err := tx.UpdateChannel(ctx, ch); err != nil {
				return err
			}
			action := "channel.changed"
			if len(changed) == 1 && changed[0] == "active" {
				action = map[bool]string{true: "channel.turned_on", false: "channel.turned_off"}[ch.Active]
			}
			if err := s.record(ctx, tx, a, action, "channel", ch.Code, map[string]any{"fields": changed}); err != nil {
				return err
			}
		}
		ds, err := tx.ChannelDomainRows(ctx, ch.ID)
		if err != nil {
			return err
		}
		row = rowOf(ch, ds)
		return nil
	})
	return row, err
}

// DeleteChannel deletes a channel that has no reviews, orders, questions or
// connection (409 channel_in_use: turn it off instead); 404 not_found.
func (s *Service) DeleteChannel(ctx context.Context, a *core.Actor, code string) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := channelByCode(ctx, tx.Q, code)
		if err != nil {
			return err
		}
		used, err := tx.ChannelHasData(ctx, ch.ID)
		if err != nil {
			return err
		}
		if used {
			return core.Conflict("channel_in_use", "channel_in_use")
		}
		if err := tx.DeleteChannel(ctx, ch.ID); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "channel.deleted", "channel", ch.Code, nil)
	})
}

// NewRequest is the input of RequestChannel.
type NewRequest struct {
	Market, Label, Note string
}

// RequestChannel opens a request for another channel (409 channel_request_open
// while one waits). Errors also: invalid / market, label, note.
func (s *Service) RequestChannel(ctx context.Context, a *core.Actor, in NewRequest) (RequestRow, error) {
	in.Market = strings.ToUpper(strings.TrimSpace(in.Market))
	in.Label, in.Note = strings.TrimSpace(in.Label), strings.TrimSpace(in.Note)
	switch {
	case !core.ReMarket.MatchString(in.Market):
		return RequestRow{}, core.Invalid("market")
	case in.Label == "" || len(in.Label) > 120:
		return RequestRow{}, core.Invalid("label")
	case len(in.Note) > 1000:
		return RequestRow{}, core.Invalid("note")
	}
	var out RequestRow
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.OpenChannelRequest(ctx); err == nil {
			return core.Conflict("channel_request_open", "channel_request_open")
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		actor := ""
		if a != nil {
			actor = a.Name
		}
		r, err := tx.CreateChannelRequest(ctx, store.ChannelRequest{Market: in.Market, Label: in.Label, Note: in.Note, Actor: actor})
		if errors.Is(err, store.ErrConflict) {
			return core.Conflict("channel_request_open", "channel_request_open")
		} else if err != nil {
			return err
		}
		out = requestRow(r)
		return s.record(ctx, tx, a, "channel_request.opened", "channel_request", out.ID, map[string]any{"market": r.Market})
	})
	return out, err
}

// ListRequests lists the channel requests, newest first (the operator's console).
func (s *Service) ListRequests(ctx context.Context) ([]RequestRow, error) {
	rs, err := s.DB.Read().ListChannelRequests(ctx)
	if err != nil {
		return nil, err
	}
	out := []RequestRow{}
	for _, r := range rs {
		out = append(out, requestRow(r))
	}
	return out, nil
}

// GrantRequest grants the open request with the public id and raises the allowance
// by one (the operator's console). 404 not_found for an unknown or closed request.
func (s *Service) GrantRequest(ctx context.Context, a *core.Actor, id string) error {
	var n int64
	for _, c := range strings.TrimPrefix(id, "chreq_") {
		if c < '0' || c > '9' || n > 1<<40 {
			return core.ErrNotFound
		}
		n = n*10 + int64(c-'0')
	}
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.GrantChannelRequest(ctx, n); errors.Is(err, store.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		limit, err := Allowance(ctx, tx.Q)
		if err != nil {
			return err
		}
		if err := tx.SetSetting(ctx, allowanceKey, limit+1); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "channel_request.granted", "channel_request", id, map[string]any{"allowance": limit + 1})
	})
}
