package store

import (
	"context"
	"database/sql"
	"time"
)

// The go-live checklist and the owner alerts: component refusals counted per
// origin or key, the mail server set in the panel (sealed), and the day each
// owner-alert kind was last mailed.

const (
	qRefusalNote = `INSERT INTO component_refusals (kind, subject, channel_id, count, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (kind, subject) DO UPDATE SET count = count + excluded.count, last_at = excluded.last_at, channel_id = excluded.channel_id`
	qRefusalsSince = `SELECT r.kind, r.subject, coalesce(c.code, ''), r.count, r.first_at, r.last_at,
		EXISTS (SELECT 1 FROM channel_domains d WHERE d.domain = r.subject AND d.verified_at IS NOT NULL)
		FROM component_refusals r LEFT JOIN channels c ON c.id = r.channel_id
		WHERE r.last_at >= ? ORDER BY r.last_at DESC LIMIT 50`
	qRefusalClear = `DELETE FROM component_refusals WHERE kind = ? AND subject = ?`
	qLaunchFacts  = `SELECT
		EXISTS (SELECT 1 FROM channel_domains d JOIN channels c ON c.id = d.channel_id WHERE d.verified_at IS NOT NULL AND c.active = 1),
		EXISTS (SELECT 1 FROM api_keys WHERE kind = 'site' AND revoked_at IS NULL),
		EXISTS (SELECT 1 FROM api_keys WHERE kind = 'server' AND revoked_at IS NULL),
		-- A site key used (a use refused for the page's domain counts as one too, so
		-- with such refusals a counted component view is asked for).
		EXISTS (SELECT 1 FROM api_keys WHERE kind = 'site' AND last_used_at IS NOT NULL)
			AND (EXISTS (SELECT 1 FROM component_views)
				OR NOT EXISTS (SELECT 1 FROM component_refusals WHERE kind = 'origin_unverified')),
		EXISTS (SELECT 1 FROM send_logs WHERE status = 'sent' AND channel_kind IN ('email', 'webhook')),
		EXISTS (SELECT 1 FROM orders),
		EXISTS (SELECT 1 FROM reviews)`
	qMailSettings      = `SELECT sealed, updated_at FROM mail_settings WHERE id = 1`
	qMailSettingsPut   = `INSERT INTO mail_settings (id, sealed, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`
	qMailSettingsDel   = `DELETE FROM mail_settings WHERE id = 1`
	qMailTestPut       = `INSERT INTO mail_tests (id, tested_at, ok, error) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET tested_at = excluded.tested_at, ok = excluded.ok, error = excluded.error`
	qMailTest          = `SELECT tested_at, ok, error FROM mail_tests WHERE id = 1`
	qOwnerAlertMailed  = `INSERT INTO owner_alert_mails (kind, mailed_at) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET mailed_at = excluded.mailed_at WHERE mailed_at <= ?`
	qOwnerAlertUnclaim = `DELETE FROM owner_alert_mails WHERE kind = ? AND mailed_at = ?`
)

// ComponentRefusal is one counted refusal of the page component: kind
// (origin_unverified, revoked_site_key) and subject (the page's host, the key's
// public id). SubjectVerified: a channel now holds the subject as a verified
// domain.
type ComponentRefusal struct {
	Kind, Subject, Channel string
	Count                  int
	FirstAt, LastAt        time.Time
	SubjectVerified        bool
}

// NoteComponentRefusal counts n refusals of kind and subject.
func (q *Tx) NoteComponentRefusal(ctx context.Context, kind, subject string, channelID int64, n int) error {
	var ch any
	if channelID > 0 {
		ch = channelID
	}
	_, err := q.c.ExecContext(ctx, qRefusalNote, kind, subject, ch, n, Ms(q.Now), Ms(q.Now))
	return translate(err)
}

// ClearComponentRefusal forgets the refusals of kind and subject.
func (q *Tx) ClearComponentRefusal(ctx context.Context, kind, subject string) error {
	_, err := q.c.ExecContext(ctx, qRefusalClear, kind, subject)
	return translate(err)
}

// ComponentRefusals lists the refusals last seen at or after since (newest first,
// at most 50).
func (q *Q) ComponentRefusals(ctx context.Context, since time.Time) ([]ComponentRefusal, error) {
	rows, err := q.c.QueryContext(ctx, qRefusalsSince, Ms(since))
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []ComponentRefusal
	for rows.Next() {
		var r ComponentRefusal
		var first, last int64
		if err := rows.Scan(&r.Kind, &r.Subject, &r.Channel, &r.Count, &first, &last, &r.SubjectVerified); err != nil {
			return nil, translate(err)
		}
		r.FirstAt, r.LastAt = Time(first), Time(last)
		out = append(out, r)
	}
	return out, translate(rows.Err())
}

// LaunchFacts are the facts the go-live checklist is made of.
type LaunchFacts struct {
	VerifiedDomain, SiteKey, ServerKey, SiteKeyUsed, Delivered, Order, Review bool
}

// LaunchFacts reads the checklist's facts in one query.
func (q *Q) LaunchFacts(ctx context.Context) (LaunchFacts, error) {
	var f LaunchFacts
	err := q.c.QueryRowContext(ctx, qLaunchFacts).Scan(&f.VerifiedDomain, &f.SiteKey, &f.ServerKey, &f.SiteKeyUsed,
		&f.Delivered, &f.Order, &f.Review)
	return f, translate(err)
}

// MailSettings is the mail server set in the panel: sealed is its JSON sealed
// with the master key.
type MailSettings struct {
	Sealed    []byte
	UpdatedAt time.Time
}

// MailSettingsRow reads the panel's mail server; ErrNotFound when none is set.
func (q *Q) MailSettingsRow(ctx context.Context) (MailSettings, error) {
	var m MailSettings
	var updated int64
	err := q.c.QueryRowContext(ctx, qMailSettings).Scan(&m.Sealed, &updated)
	m.UpdatedAt = Time(updated)
	return m, translate(err)
}

// PutMailSettings stores the panel's mail server (sealed).
func (q *Tx) PutMailSettings(ctx context.Context, sealed []byte) error {
	_, err := q.c.ExecContext(ctx, qMailSettingsPut, sealed, Ms(q.Now))
	return translate(err)
}

// DeleteMailSettings removes the panel's mail server (the configuration file's
// applies again).
func (q *Tx) DeleteMailSettings(ctx context.Context) error {
	_, err := q.c.ExecContext(ctx, qMailSettingsDel)
	return translate(err)
}

// MailTest is the outcome of the last test message.
type MailTest struct {
	At    time.Time
	OK    bool
	Error string
}

// PutMailTest records the outcome of a test message.
func (q *Tx) PutMailTest(ctx context.Context, ok bool, errText string) error {
	_, err := q.c.ExecContext(ctx, qMailTestPut, Ms(q.Now), ok, errText)
	return translate(err)
}

// LastMailTest reads the last test message's outcome (zero when none was sent).
func (q *Q) LastMailTest(ctx context.Context) (MailTest, error) {
	var t MailTest
	var at int64
	err := q.c.QueryRowContext(ctx, qMailTest).Scan(&at, &t.OK, &t.Error)
	if err == sql.ErrNoRows {
		return MailTest{}, nil
	}
	t.At = Time(at)
	return t, translate(err)
}

// ClaimOwnerAlertMail claims the day's e-mail of an owner-alert kind: true when
// none was mailed since notBefore (the claim is then stamped now).
func (q *Tx) ClaimOwnerAlertMail(ctx context.Context, kind string, notBefore time.Time) (bool, error) {
	res, err := q.c.ExecContext(ctx, qOwnerAlertMailed, kind, Ms(q.Now), Ms(notBefore))
	if err != nil {
		return false, translate(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UnclaimOwnerAlertMail gives back a claim made at at (nothing could be sent).
func (q *Tx) UnclaimOwnerAlertMail(ctx context.Context, kind string, at time.Time) error {
	_, err := q.c.ExecContext(ctx, qOwnerAlertUnclaim, kind, Ms(at))
	return translate(err)
}
