package orders

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Order connection settings (spec 1, "Platform order connection").
const (
	DefaultBackfillDays    = 30
	MaxBackfillDays        = 365
	DefaultIntervalMinutes = 15
	MinIntervalMinutes     = 5
	MaxIntervalMinutes     = 1440
	maxBaseURLLen          = 500
	maxCredentialLen       = 1024
	maxRemoteChannelLen    = 10
)

// Activity actions of order connections.
const (
	ActOrderSourceCreated   = "order_source.created"
	ActOrderSourceUpdated   = "order_source.updated"
	ActOrderSourceRemoved   = "order_source.removed"
	ActOrderSourceTried     = "order_source.tried"
	ActOrderSourceRunNeeded = "order_source.run_requested"
)

// Errors of the order connection endpoints (spec 3).
var (
	ErrSourceExists          = core.Conflict("source_exists", "")
	ErrSourceInactive        = core.Conflict("source_inactive", "")
	ErrChannelInactive       = core.Conflict("channel_inactive", "")
	ErrAddressNeedsCreds     = core.Invalid("address_needs_credentials")
	errOrderSourceNotFound   = core.ErrNotFound
	errOrderSourceBadChannel = core.Invalid("channel")
)

// PlatformRefused is the answer of a failed connection try: 400 platform_refused /
// <failure code>.
func PlatformRefused(code string) *core.Error {
	return core.E(core.StatusBadRequest, "platform_refused", code)
}

// OrderSourcePublicID is the id of a connection in answers ("conn_<n>").
func OrderSourcePublicID(id int64) string { return "conn_" + strconv.FormatInt(id, 10) }

// ParseOrderSourceID reads an id made by OrderSourcePublicID.
func ParseOrderSourceID(s string) (int64, bool) { return core.ParseID("conn_", s) }

// OrderSourceView is a connection as the admin API shows it. Credential values are
// never part of it.
type OrderSourceView struct {
	ID              string          `json:"id"`
	Platform        string          `json:"platform"`
	Channel         string          `json:"channel"`
	BaseURL         string          `json:"base_url"`
	RemoteChannel   *string         `json:"remote_channel,omitempty"`
	BackfillDays    int             `json:"backfill_days"`
	IntervalMinutes int             `json:"interval_minutes"`
	Enabled         bool            `json:"enabled"`
	HasCredentials  bool            `json:"has_credentials"`
	ChannelActive   bool            `json:"channel_active"`
	LastRunAt       *string         `json:"last_run_at"`
	LastError       *string         `json:"last_error"`
	LastReport      json.RawMessage `json:"last_report"`
	NextRunAt       *string         `json:"next_run_at"`
	Failures        int             `json:"failures"`
	CreatedAt       string          `json:"created_at"`
	UpdatedAt       string          `json:"updated_at"`
	// RatingFieldsIssue is what the panel says of the last read's product rating
	// fields: scope_missing, failed or "" (written, or nothing to write).
	RatingFieldsIssue string `json:"-"`
}

// OrderSourceList is the answer of GET /admin/v1/order-sources.
type OrderSourceList struct {
	Items     []OrderSourceView `json:"items"`
	Platforms []PlatformDef     `json:"platforms"`
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := rfc3339(t)
	return &s
}

func viewOrderSource(s store.OrderSource) OrderSourceView {
	v := OrderSourceView{ID: OrderSourcePublicID(s.ID), Platform: s.Platform, Channel: s.ChannelCode, BaseURL: s.BaseURL,
		BackfillDays: s.BackfillDays, IntervalMinutes: s.IntervalMinutes, Enabled: s.Enabled, HasCredentials: s.HasCredentials,
		ChannelActive: s.ChannelActive, LastRunAt: optTime(s.LastRunAt), NextRunAt: optTime(s.NextRunAt),
		Failures: s.Failures, CreatedAt: rfc3339(s.CreatedAt), UpdatedAt: rfc3339(s.UpdatedAt), LastReport: json.RawMessage("null")}
	if s.Platform == PlatformMagento {
		rc := s.RemoteChannel
		v.RemoteChannel = &rc
	}
	if s.LastError != "" {
		e := s.LastError
		v.LastError = &e
	}
	if s.LastReport != "" {
		v.LastReport = json.RawMessage(s.LastReport)
		v.RatingFieldsIssue = ratingFieldsIssue(s.LastReport)
	}
	if !s.Enabled {
		v.NextRunAt = nil
	}
	return v
}

// ListOrderSources lists the connections and the platform kinds with their fields.
func (c *Service) ListOrderSources(ctx context.Context) (OrderSourceList, error) {
	rows, err := c.DB.Read().ListOrderSources(ctx)
	if err != nil {
		return OrderSourceList{}, err
	}
	out := OrderSourceList{Items: make([]OrderSourceView, 0, len(rows)), Platforms: PlatformDefs()}
	for _, s := range rows {
		out.Items = append(out.Items, viewOrderSource(s))
	}
	return out, nil
}

// OrderSource returns one connection by its public id (404 when unknown).
func (c *Service) OrderSource(ctx context.Context, id string) (OrderSourceView, error) {
	s, err := c.orderSourceByPublicID(ctx, c.DB.Read(), id)
	if err != nil {
		return OrderSourceView{}, err
	}
	return viewOrderSource(s), nil
}

func (c *Service) orderSourceByPublicID(ctx context.Context, q *store.Q, id string) (store.OrderSource, error) {
	n, ok := ParseOrderSourceID(id)
	if !ok {
		return store.OrderSource{}, errOrderSourceNotFound
	}
	s, err := q.OrderSourceByID(ctx, n)
	if errors.Is(err, store.ErrNotFound) {
		return s, errOrderSourceNotFound
	}
	return s, err
}

// body fields ------------------------------------------------------------------

// complete reports whether creds hold every required credential of def.
func (d PlatformDef) complete(creds map[string]string) bool {
	for _, f := range d.credentialFields() {
		if f.Required && creds[f.Name] == "" {
			return false
		}
	}
	return true
}

func (c *Service) sealCredentials(creds map[string]string) ([]byte, error) {
	if len(creds) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(creds)
	if err != nil {
		return nil, err
	}
	return c.Keys.Encrypt(raw), nil
}

// openCredentials decrypts stored credentials; a value the master key cannot open
// is the failure credentials_undecryptable (they must be entered again).
func (c *Service) openCredentials(sealed []byte) (map[string]string, error) {
	creds := map[string]string{}
	if len(sealed) == 0 {
		return creds, nil
	}
	raw, err := c.Keys.Decrypt(sealed)
	if err != nil {
		return nil, Failure(FailUndecryptable, err)
	}
	if err := json.Unmarshal(raw, &creds); err != nil {
		return nil, Failure(FailUndecryptable, err)
	}
	return creds, nil
}

func credentialNames(creds map[string]string) []string {
	var out []string
	for _, d := range platformDefs {
		for _, f := range d.Fields {
			if _, ok := creds[f.Name]; ok && f.Secret {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// CreateOrderSource sets up a connection (POST /admin/v1/order-sources): platform,
// channel, base_url and, for magento, remote_channel are required; credentials may
// follow later (has_credentials false until then; reads fail with
// api_credentials_missing or credentials_missing). A second connection of the same
// platform for the channel is 409 source_exists.
func (c *Service) CreateOrderSource(ctx context.Context, a *core.Actor, raw map[string]json.RawMessage) (OrderSourceView, error) {
	var out store.OrderSource
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		f, err := c.parseSourceBody(ctx, tx.Q, sourceBody(raw), "")
		if err != nil {
			return err
		}
		if !f.hasChannel {
			return core.Invalid("channel_required")
		}
		if missing := f.def.requiredMissing(f); missing != "" {
			return core.Invalid(missing)
		}
		s := store.OrderSource{Platform: f.def.Code, ChannelID: f.channel.ID, BaseURL: f.baseURL, RemoteChannel: f.remoteChannel,
			HasCredentials: f.def.complete(f.creds), BackfillDays: DefaultBackfillDays, IntervalMinutes: DefaultIntervalMinutes,
			Enabled: true, NextRunAt: tx.Now}
		if f.hasBackfill {
			s.BackfillDays = f.backfill
		}
		if f.hasInterval {
			s.IntervalMinutes = f.interval
		}
		if f.hasEnabled {
			s.Enabled = f.enabled
		}
		if s.CredentialsEnc, err = c.sealCredentials(f.creds); err != nil {
			return err
		}
		out, err = tx.CreateOrderSource(ctx, s)
		if errors.Is(err, store.ErrConflict) {
			return ErrSourceExists
		} else if err != nil {
			return err
		}
		return c.Record(ctx, tx, a, ActOrderSourceCreated, "order_source", OrderSourcePublicID(out.ID), map[string]any{
			"platform": out.Platform, "channel": out.ChannelCode, "base_url": out.BaseURL, "credentials": credentialNames(f.creds),
			"enabled": out.Enabled, "interval_minutes": out.IntervalMinutes, "backfill_days": out.BackfillDays})
	})
	if err != nil {
		return OrderSourceView{}, err
	}
	return viewOrderSource(out), nil
}

// UpdateOrderSource changes a connection (PATCH /admin/v1/order-sources/<id>):
// enabled, interval_minutes, backfill_days, base_url, remote_channel and credential
// fields. Credentials change only when sent (an empty client_id clears it). A
// base_url naming another address needs the platform's credentials in the same
// body (400 invalid / address_needs_credentials) and starts reading afresh, as does
// another remote_channel. platform and channel cannot change.
func (c *Service) UpdateOrderSource(ctx context.Context, a *core.Actor, id string, raw map[string]json.RawMessage) (OrderSourceView, error) {
	var out store.OrderSource
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		s, err := c.orderSourceByPublicID(ctx, tx.Q, id)
		if err != nil {
			return err
		}
		f, err := c.parseSourceBody(ctx, tx.Q, sourceBody(raw), s.Platform)
		if err != nil {
			return err
		}
		if f.hasChannel && f.channel.ID != s.ChannelID {
			return core.Invalid("channel")
		}
		changed := []string{}
		if f.hasBaseURL && f.baseURL != s.BaseURL {
			if !f.def.complete(f.creds) {
				return ErrAddressNeedsCreds
			}
			s.BaseURL, s.CursorAt = f.baseURL, time.Time{}
			changed = append(changed, "base_url")
		}
		if f.hasRemote && f.remoteChannel != s.RemoteChannel {
			s.RemoteChannel, s.CursorAt = f.remoteChannel, time.Time{}
			changed = append(changed, "remote_channel")
		}
		if len(f.creds) > 0 {
			creds, err := c.openCredentials(s.CredentialsEnc)
			if err != nil {
				creds = map[string]string{} // unreadable: the new values replace them all
			}
			for k, v := range f.creds {
				if v == "" {
					delete(creds, k)
				} else {
					creds[k] = v
				}
			}
			if s.CredentialsEnc, err = c.sealCredentials(creds); err != nil {
				return err
			}
			s.HasCredentials = f.def.complete(creds)
			changed = append(changed, credentialNames(f.creds)...)
		}
		if f.hasBackfill && f.backfill != s.BackfillDays {
			s.BackfillDays = f.backfill
			changed = append(changed, "backfill_days")
		}
		if f.hasInterval && f.interval != s.IntervalMinutes {
			s.IntervalMinutes = f.interval
			if !s.LastRunAt.IsZero() {
				s.NextRunAt = s.LastRunAt.Add(time.Duration(s.IntervalMinutes) * time.Minute)
			}
			changed = append(changed, "interval_minutes")
		}
		if f.hasEnabled && f.enabled != s.Enabled {
			s.Enabled = f.enabled
			changed = append(changed, "enabled")
		}
		if err := tx.UpdateOrderSource(ctx, s); err != nil {
			return err
		}
		if out, err = tx.OrderSourceByID(ctx, s.ID); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, ActOrderSourceUpdated, "order_source", OrderSourcePublicID(s.ID), map[string]any{
			"platform": s.Platform, "channel": out.ChannelCode, "changed": changed, "enabled": out.Enabled})
	})
	if err != nil {
		return OrderSourceView{}, err
	}
	return viewOrderSource(out), nil
}

// RemoveOrderSource deletes a connection and ends its alert episodes; the orders it
// read stay, as does its connection log.
func (c *Service) RemoveOrderSource(ctx context.Context, a *core.Actor, id string) error {
	return c.DB.WithTx(ctx, func(tx *store.Tx) error {
		s, err := c.orderSourceByPublicID(ctx, tx.Q, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteOrderSource(ctx, s.ID); err != nil {
			return err
		}
		if err := tx.EndAlertEpisode(ctx, alertSubject(s), ""); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, ActOrderSourceRemoved, "order_source", OrderSourcePublicID(s.ID), map[string]any{
			"platform": s.Platform, "channel": s.ChannelCode, "base_url": s.BaseURL})
	})
}

// ManualReadLimit bounds a read started by hand (after RequestOrderSourceRun).
const ManualReadLimit = 15 * time.Minute

// ManualRead is the read a surface starts in the background after
// RequestOrderSourceRun answered id, within ManualReadLimit: the connection read
// now, under the same one-read-per-connection lease as the job's.
func (c *Service) ManualRead(id int64) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.ReadOrderSource(ctx, id, c.Now(), TriggerManual)
		return err
	}
}

// RequestOrderSourceRun asks for a read now (POST /admin/v1/order-sources/<id>/run):
// the connection becomes due at once, so the order-sources job reads it on its next
// tick even if the caller's own read (see ReadOrderSource) never happens. A paused
// connection is 409 source_inactive; one of a channel that is off is 409
// channel_inactive. It returns the connection's internal id.
func (c *Service) RequestOrderSourceRun(ctx context.Context, a *core.Actor, id string) (int64, error) {
	var n int64
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		s, err := c.orderSourceByPublicID(ctx, tx.Q, id)
		if err != nil {
			return err
		}
		switch {
		case !s.Enabled:
			return ErrSourceInactive
		case !s.ChannelActive:
			return ErrChannelInactive
		}
		n = s.ID
		if err := tx.SetOrderSourceDue(ctx, s.ID, tx.Now); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, ActOrderSourceRunNeeded, "order_source", OrderSourcePublicID(s.ID), map[string]any{
			"platform": s.Platform, "channel": s.ChannelCode})
	})
	return n, err
}
