package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Channel is one sales channel (a store front in one market).
type Channel struct {
	ID            int64
	Code          string
	Market        string
	Language      string
	Label         string
	BrandName     string
	LandingURL    string
	PrivacyURL    string
	SupportURL    string
	SenderAddress string
	Style         string
	Theme         string
	Active        bool
	Domains       []string
	// TimeZone is the channel's IANA zone of reviews' dates ("" = the brand's).
	TimeZone string
}

const (
	qChannelCols   = `id, code, market, language, label, brand_name, landing_url, privacy_url, support_url, sender_address, style, theme, active, time_zone`
	qChannelInsert = `INSERT INTO channels (code, market, language, label, brand_name, landing_url, privacy_url, support_url, sender_address, style, theme, active, time_zone, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qDomainInsert   = `INSERT OR IGNORE INTO channel_domains (channel_id, domain, verified_at, created_at) VALUES (?, ?, ?, ?)`
	qChannelDomains = `SELECT domain FROM channel_domains WHERE channel_id = ? AND verified_at IS NOT NULL ORDER BY domain`
)

func scanChannel(sc interface{ Scan(...any) error }) (Channel, error) {
	var c Channel
	var active int
	err := sc.Scan(&c.ID, &c.Code, &c.Market, &c.Language, &c.Label, &c.BrandName, &c.LandingURL,
		&c.PrivacyURL, &c.SupportURL, &c.SenderAddress, &c.Style, &c.Theme, &active, &c.TimeZone)
	c.Active = active == 1
	return c, translate(err)
}

// CreateChannel inserts a channel with its verified domains.
func (q *Tx) CreateChannel(ctx context.Context, c Channel) (Channel, error) {
	res, err := q.c.ExecContext(ctx, qChannelInsert, c.Code, c.Market, c.Language, c.Label, c.BrandName,
		c.LandingURL, c.PrivacyURL, c.SupportURL, c.SenderAddress, c.Style, c.Theme, boolInt(c.Active), c.TimeZone, Ms(q.Now))
	if err != nil {
		return c, fmt.Errorf("store: create channel: %w", translate(err))
	}
	c.ID, _ = res.LastInsertId()
	for _, d := range c.Domains {
		if err := q.AddDomain(ctx, c.ID, d, true); err != nil {
			return c, err
		}
	}
	return c, nil
}

// AddDomain records a domain of a channel, verified or not.
func (q *Tx) AddDomain(ctx context.Context, channelID int64, domain string, verified bool) error {
	var at any
	if verified {
		at = Ms(q.Now)
	}
	_, err := q.c.ExecContext(ctx, qDomainInsert, channelID, domain, at, Ms(q.Now))
	return translate(err)
}

// ChannelDomains lists the verified domains of a channel.
func (q *Q) ChannelDomains(ctx context.Context, channelID int64) ([]string, error) {
	rows, err := q.c.QueryContext(ctx, qChannelDomains, channelID)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ChannelByCode finds a channel by code (active or not).
func (q *Q) ChannelByCode(ctx context.Context, code string) (Channel, error) {
	return scanChannel(q.c.QueryRowContext(ctx, `SELECT `+qChannelCols+` FROM channels WHERE code = ?`, code))
}

// ChannelByID finds a channel by id.
func (q *Q) ChannelByID(ctx context.Context, id int64) (Channel, error) {
	return scanChannel(q.c.QueryRowContext(ctx, `SELECT `+qChannelCols+` FROM channels WHERE id = ?`, id))
}

// ListChannelCodes lists the codes of every channel, in order.
func (q *Q) ListChannelCodes(ctx context.Context) ([]string, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT code FROM channels ORDER BY code`)
	return collect(rows, err, func(sc scanner) (code string, err error) { return code, sc.Scan(&code) })
}

// ListChannels lists every channel with its verified domains, by code.
func (q *Q) ListChannels(ctx context.Context) ([]Channel, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qChannelCols+` FROM channels ORDER BY code`)
	if err != nil {
		return nil, translate(err)
	}
	var out []Channel
	for rows.Next() {
		c, err := scanChannel(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Domains, err = q.ChannelDomains(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetChannelActive switches a channel on or off.
func (q *Tx) SetChannelActive(ctx context.Context, id int64, active bool) error {
	_, err := q.c.ExecContext(ctx, `UPDATE channels SET active = ? WHERE id = ?`, boolInt(active), id)
	return translate(err)
}

// SetChannelLook sets a channel's component layout and theme.
func (q *Tx) SetChannelLook(ctx context.Context, id int64, style, theme string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE channels SET style = ?, theme = ? WHERE id = ?`, style, theme, id)
	return translate(err)
}

// nullID is NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func idOf(v sql.NullInt64) int64 {
	if v.Valid {
		return v.Int64
	}
	return 0
}
