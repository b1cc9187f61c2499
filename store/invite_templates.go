package store

import (
	"context"
	"time"
)

// InviteTemplate is a brand's own invitation e-mail (invite_templates). ChannelID 0
// is every channel of Market; Market "" every market.
type InviteTemplate struct {
	ID        int64
	Kind      string
	Language  string
	Market    string
	ChannelID int64
	Subject   string
	HTML      string
	ActorID   string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Incentive: the e-mail offers something for a review (never for a rating).
	Incentive bool
}

const qInviteTemplateCols = `id, kind, language, market, channel_id, subject, html, actor_id, created_at, updated_at, incentive`

func scanInviteTemplate(sc scanner) (InviteTemplate, error) {
	var t InviteTemplate
	var created, updated int64
	var incentive int
	err := sc.Scan(&t.ID, &t.Kind, &t.Language, &t.Market, &t.ChannelID, &t.Subject, &t.HTML, &t.ActorID, &created, &updated,
		&incentive)
	t.Incentive = incentive == 1
	t.CreatedAt, t.UpdatedAt = Time(created), Time(updated)
	return t, translate(err)
}

// InviteTemplates lists the brand's templates by type, language, market and channel.
func (q *Q) InviteTemplates(ctx context.Context) ([]InviteTemplate, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qInviteTemplateCols+` FROM invite_templates
		ORDER BY kind, language, market, channel_id`)
	return collect(rows, err, scanInviteTemplate)
}

// InviteTemplateByID returns one template (ErrNotFound).
func (q *Q) InviteTemplateByID(ctx context.Context, id int64) (InviteTemplate, error) {
	return scanInviteTemplate(q.c.QueryRowContext(ctx, `SELECT `+qInviteTemplateCols+` FROM invite_templates WHERE id = ?`, id))
}

// InviteTemplateFor returns the template a message of kind in language to a
// channel of market uses: the channel's own, else the market's, else the one for
// every market (ErrNotFound: none, the built-in default is used).
func (q *Q) InviteTemplateFor(ctx context.Context, kind, language, market string, channelID int64) (InviteTemplate, error) {
	return scanInviteTemplate(q.c.QueryRowContext(ctx, `SELECT `+qInviteTemplateCols+` FROM invite_templates
		WHERE kind = ? AND language = ? AND ((channel_id = ?) OR (channel_id = 0 AND market IN (?, '')))
		ORDER BY channel_id DESC, market DESC LIMIT 1`, kind, language, channelID, market))
}

// SaveInviteTemplate creates a template (ID 0) or changes one; ErrConflict when
// another template has the same type, language, market and channel.
func (tx *Tx) SaveInviteTemplate(ctx context.Context, t InviteTemplate) (InviteTemplate, error) {
	if t.ID == 0 {
		res, err := tx.c.ExecContext(ctx, `INSERT INTO invite_templates (kind, language, market, channel_id, subject, html,
			actor_id, created_at, updated_at, incentive) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.Kind, t.Language, t.Market,
			t.ChannelID, t.Subject, t.HTML, t.ActorID, Ms(tx.Now), Ms(tx.Now), boolInt(t.Incentive))
		if err != nil {
			return t, translate(err)
		}
		t.ID, _ = res.LastInsertId()
		t.CreatedAt, t.UpdatedAt = tx.Now, tx.Now
		return t, nil
	}
	res, err := tx.c.ExecContext(ctx, `UPDATE invite_templates SET kind = ?, language = ?, market = ?, channel_id = ?,
		subject = ?, html = ?, actor_id = ?, updated_at = ?, incentive = ? WHERE id = ?`, t.Kind, t.Language, t.Market,
		t.ChannelID, t.Subject, t.HTML, t.ActorID, Ms(tx.Now), boolInt(t.Incentive), t.ID)
	if err := affectedOne(res, err); err != nil {
		return t, err
	}
	return tx.InviteTemplateByID(ctx, t.ID)
}

// DeleteInviteTemplate removes a template (ErrNotFound).
func (tx *Tx) DeleteInviteTemplate(ctx context.Context, id int64) error {
	res, err := tx.c.ExecContext(ctx, `DELETE FROM invite_templates WHERE id = ?`, id)
	return affectedOne(res, err)
}

// MarkInvitationIncentive records that invitation id was rendered from a template
// carrying an incentive: reviews written with its token are incentivised.
func (tx *Tx) MarkInvitationIncentive(ctx context.Context, id int64) error {
	_, err := tx.c.ExecContext(ctx, `UPDATE invitations SET incentive = 1 WHERE id = ? AND incentive = 0`, id)
	return translate(err)
}

// TokenIncentive reports whether a message of order orderID sent with token id
// (the invitation or its reminder) was rendered from a template carrying an
// incentive. It reads through the one-per-order and one-reminder indexes
// (invitations have no token index).
func (q *Q) TokenIncentive(ctx context.Context, orderID, tokenID int64) (bool, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM invitations p
		WHERE p.order_id = ? AND p.kind IN ('invitation', 'experience') AND p.token_id = ?
		AND (p.incentive = 1 OR EXISTS (SELECT 1 FROM invitations r WHERE r.parent_id = p.id AND r.kind = 'reminder' AND r.incentive = 1))`,
		orderID, tokenID).Scan(&n)
	return n > 0, translate(err)
}
