package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// UpdateChannel writes the changeable fields of a channel (label, brand name,
// sender, support, privacy and landing addresses, layout and theme, on or off,
// time zone).
func (q *Tx) UpdateChannel(ctx context.Context, c Channel) error {
	_, err := q.c.ExecContext(ctx, `UPDATE channels SET label = ?, brand_name = ?, sender_address = ?, support_url = ?,
		privacy_url = ?, landing_url = ?, style = ?, theme = ?, active = ?, time_zone = ? WHERE id = ?`,
		c.Label, c.BrandName, c.SenderAddress, c.SupportURL, c.PrivacyURL, c.LandingURL, c.Style, c.Theme, boolInt(c.Active), c.TimeZone, c.ID)
	return translate(err)
}

// CountChannels counts every channel, on or off.
func (q *Q) CountChannels(ctx context.Context) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT COUNT(*) FROM channels`).Scan(&n)
	return n, translate(err)
}

// ChannelHasData reports whether a channel has reviews, orders, questions or an
// order connection (it can then only be turned off, not deleted).
func (q *Q) ChannelHasData(ctx context.Context, channelID int64) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM reviews WHERE channel_id = ?1) OR
		EXISTS (SELECT 1 FROM orders WHERE channel_id = ?1) OR
		EXISTS (SELECT 1 FROM questions WHERE channel_id = ?1) OR
		EXISTS (SELECT 1 FROM order_sources WHERE channel_id = ?1)`, channelID).Scan(&n)
	return n == 1, translate(err)
}

// DeleteChannel deletes a channel without data together with its keys, passwords
// and brand market-rule versions (domains and method statements go by cascade).
func (q *Tx) DeleteChannel(ctx context.Context, channelID int64) error {
	for _, stmt := range []string{
		`DELETE FROM api_keys WHERE channel_id = ?`,
		`DELETE FROM passwords WHERE channel_id = ?`,
		`DELETE FROM market_rules WHERE channel_id = ?`,
		`DELETE FROM channels WHERE id = ?`,
	} {
		if _, err := q.c.ExecContext(ctx, stmt, channelID); err != nil {
			return fmt.Errorf("store: delete channel: %w", translate(err))
		}
	}
	return nil
}

// ChannelDomain is one domain of a channel with its proof token.
type ChannelDomain struct {
	ChannelID  int64
	Domain     string
	Token      string
	VerifiedAt time.Time
}

// Verified reports whether the domain has been verified.
func (d ChannelDomain) Verified() bool { return !d.VerifiedAt.IsZero() }

func scanChannelDomain(sc scanner) (ChannelDomain, error) {
	var d ChannelDomain
	var at sql.NullInt64
	err := sc.Scan(&d.ChannelID, &d.Domain, &d.Token, &at)
	d.VerifiedAt = NullTime(at)
	return d, translate(err)
}

const qChannelDomainCols = `channel_id, domain, token, verified_at`

// ChannelDomainRows lists every domain of a channel, verified or not, by domain.
func (q *Q) ChannelDomainRows(ctx context.Context, channelID int64) ([]ChannelDomain, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qChannelDomainCols+` FROM channel_domains WHERE channel_id = ? ORDER BY domain`, channelID)
	return collect(rows, err, scanChannelDomain)
}

// ChannelDomainOf finds one domain of a channel; ErrNotFound when it has none such.
func (q *Q) ChannelDomainOf(ctx context.Context, channelID int64, domain string) (ChannelDomain, error) {
	return scanChannelDomain(q.c.QueryRowContext(ctx, `SELECT `+qChannelDomainCols+` FROM channel_domains
		WHERE channel_id = ? AND domain = ?`, channelID, domain))
}

// AddPendingDomain records an unverified domain of a channel with its proof token.
func (q *Tx) AddPendingDomain(ctx context.Context, channelID int64, domain, token string) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO channel_domains (channel_id, domain, token, verified_at, created_at)
		VALUES (?, ?, ?, NULL, ?)`, channelID, domain, token, Ms(q.Now))
	return translate(err)
}

// MarkDomainVerified records that a domain of a channel passed its proof;
// ErrNotFound when the channel no longer has the domain.
func (q *Tx) MarkDomainVerified(ctx context.Context, channelID int64, domain string) error {
	res, err := q.c.ExecContext(ctx, `UPDATE channel_domains SET verified_at = ? WHERE channel_id = ? AND domain = ?`,
		Ms(q.Now), channelID, domain)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteChannelDomain removes a domain from a channel.
func (q *Tx) DeleteChannelDomain(ctx context.Context, channelID int64, domain string) error {
	_, err := q.c.ExecContext(ctx, `DELETE FROM channel_domains WHERE channel_id = ? AND domain = ?`, channelID, domain)
	return translate(err)
}

// ChannelRequest is a brand's request for another channel.
type ChannelRequest struct {
	ID        int64
	Market    string
	Label     string
	Note      string
	State     string
	Actor     string
	CreatedAt time.Time
	GrantedAt time.Time
}

const qChannelRequestCols = `id, market, label, note, state, actor, created_at, granted_at`

func scanChannelRequest(sc scanner) (ChannelRequest, error) {
	var r ChannelRequest
	var created int64
	var granted sql.NullInt64
	err := sc.Scan(&r.ID, &r.Market, &r.Label, &r.Note, &r.State, &r.Actor, &created, &granted)
	r.CreatedAt, r.GrantedAt = Time(created), NullTime(granted)
	return r, translate(err)
}

// OpenChannelRequest finds the open channel request; ErrNotFound when none is open.
func (q *Q) OpenChannelRequest(ctx context.Context) (ChannelRequest, error) {
	return scanChannelRequest(q.c.QueryRowContext(ctx, `SELECT `+qChannelRequestCols+` FROM channel_requests WHERE state = 'open'`))
}

// CreateChannelRequest stores an open channel request; ErrConflict when one is
// already open.
func (q *Tx) CreateChannelRequest(ctx context.Context, r ChannelRequest) (ChannelRequest, error) {
	res, err := q.c.ExecContext(ctx, `INSERT INTO channel_requests (market, label, note, state, actor, created_at)
		VALUES (?, ?, ?, 'open', ?, ?)`, r.Market, r.Label, r.Note, r.Actor, Ms(q.Now))
	if err != nil {
		return r, translate(err)
	}
	r.ID, _ = res.LastInsertId()
	r.State, r.CreatedAt = "open", q.Now
	return r, nil
}

// ListChannelRequests lists channel requests, newest first.
func (q *Q) ListChannelRequests(ctx context.Context) ([]ChannelRequest, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qChannelRequestCols+` FROM channel_requests ORDER BY id DESC`)
	return collect(rows, err, scanChannelRequest)
}

// GrantChannelRequest marks an open request granted; ErrNotFound when id is not
// an open request.
func (q *Tx) GrantChannelRequest(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `UPDATE channel_requests SET state = 'granted', granted_at = ? WHERE id = ? AND state = 'open'`,
		Ms(q.Now), id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetDomainToken gives a domain of a channel a proof token.
func (q *Tx) SetDomainToken(ctx context.Context, channelID int64, domain, token string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE channel_domains SET token = ? WHERE channel_id = ? AND domain = ?`, token, channelID, domain)
	return translate(err)
}
