package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
)

// The tables of a whole-brand archive (docs/brand-export.md). Each dataset is one
// query read row by row (EachExportRow), so an archive of any size is written with
// bounded memory. Customer contact data (order e-mail addresses, asker addresses)
// and secrets are not exported; reviewer and asker display names are.

// ExportDataset is one table of a brand archive: its file name and columns.
type ExportDataset struct {
	Name    string
	Columns []string
	query   string
}

// ExportDatasets lists the archive's tables in the order they are written.
var ExportDatasets = []ExportDataset{
	{Name: "channels", Columns: []string{"code", "market", "language", "label", "brand_name", "landing_url", "privacy_url",
		"support_url", "sender_address", "style", "theme", "active", "created_at"},
		query: `SELECT code, market, language, label, brand_name, landing_url, privacy_url, support_url, sender_address, style,
			theme, active, created_at FROM channels ORDER BY id`},
	{Name: "settings", Columns: []string{"key", "value", "updated_at"},
		query: `SELECT key, value, updated_at FROM settings ORDER BY key`},
	{Name: "market_rules", Columns: []string{"market", "channel", "verification_required", "review_window_days",
		"allowed_sorts", "default_sort", "valid_from", "created_at"},
		query: `SELECT m.market, coalesce(c.code, ''), m.verification_required, m.review_window_days, m.allowed_sorts,
			m.default_sort, m.valid_from, m.created_at FROM market_rules m LEFT JOIN channels c ON c.id = m.channel_id ORDER BY m.id`},
	{Name: "aspect_templates", Columns: []string{"key", "name", "aspects", "retired_at", "created_at", "updated_at"},
		query: `SELECT key, name, aspects, retired_at, created_at, updated_at FROM aspect_templates ORDER BY key`},
	{Name: "terms", Columns: []string{"pattern", "label", "created_at"},
		query: `SELECT pattern, label, created_at FROM review_terms ORDER BY id`},
	{Name: "invite_templates", Columns: []string{"type", "language", "market", "channel", "subject", "html", "created_at", "updated_at"},
		query: `SELECT t.kind, t.language, t.market, coalesce(c.code, ''), t.subject, t.html, t.created_at, t.updated_at
			FROM invite_templates t LEFT JOIN channels c ON c.id = t.channel_id ORDER BY t.id`},
	{Name: "products", Columns: []string{"variant_key", "group_key", "catalog_id", "name", "url", "image_url", "brand", "gtin",
		"mpn", "source", "created_at", "updated_at"},
		query: `SELECT variant_key, group_key, catalog_id, name, url, image_url, brand, gtin, mpn, source, created_at, updated_at
			FROM products ORDER BY id`},
	{Name: "orders", Columns: []string{"order_reference", "channel", "market", "language", "payment_state", "placed_at",
		"erased_at", "created_at"},
		query: `SELECT o.external_id, c.code, o.market, o.language, o.payment_state, o.placed_at, o.erased_at, o.created_at
			FROM orders o JOIN channels c ON c.id = o.channel_id ORDER BY o.id`},
	{Name: "order_lines", Columns: []string{"order_reference", "line_reference", "variant_key", "group_key", "catalog_id", "title",
		"quantity", "fulfilment_state", "delivered_at"},
		query: `SELECT o.external_id, l.line_reference, l.variant_key, l.group_key, l.catalog_id, l.title, l.quantity,
			l.fulfilment_state, l.delivered_at FROM order_lines l JOIN orders o ON o.id = l.order_id ORDER BY l.id`},
	{Name: "reviews", Columns: []string{"id", "channel", "market", "language", "variant_key", "group_key", "product_name",
		"experience", "origin", "state", "rating", "title", "body", "author_name", "hide_name", "aspects", "aspect_template",
		"verification_method", "order_reference", "returned_at", "helpful_count", "unhelpful_count", "source_platform",
		"source_name", "source_url", "source_review_id", "submitted_at", "published_at", "anonymized_at", "incentivized"},
		query: `SELECT r.public_id, c.code, r.market, r.language, r.variant_key, r.group_key, r.product_name, r.experience,
			r.origin, r.state, r.rating, r.title, r.body, r.author_name, r.hide_name, r.aspects, r.aspect_template,
			r.verification_method, coalesce(o.external_id, ''), r.returned_at, r.helpful_count, r.unhelpful_count,
			r.source_platform, r.source_name, r.source_url, r.source_review_id, r.submitted_at, r.published_at, r.anonymized_at,
			r.incentivized FROM reviews r JOIN channels c ON c.id = r.channel_id LEFT JOIN orders o ON o.id = r.order_id ORDER BY r.id`},
	{Name: "review_history", Columns: []string{"review_id", "event", "from_state", "to_state", "reason", "actor_type",
		"actor_name", "detail", "at"},
		query: `SELECT r.public_id, h.event, h.from_state, h.to_state, h.reason, h.actor_type, h.actor_name, h.detail, h.at
			FROM review_history h JOIN reviews r ON r.id = h.review_id ORDER BY h.id`},
	{Name: "seller_responses", Columns: []string{"review_id", "body", "published_at", "updated_at"},
		query: `SELECT r.public_id, s.body, s.published_at, s.updated_at FROM seller_responses s
			JOIN reviews r ON r.id = s.review_id ORDER BY s.review_id`},
	{Name: "resolutions", Columns: []string{"review_id", "body", "created_at"},
		query: `SELECT r.public_id, s.body, s.created_at FROM review_resolutions s JOIN reviews r ON r.id = s.review_id
			ORDER BY s.review_id`},
	{Name: "review_media", Columns: []string{"id", "review_id", "kind", "type", "state", "position", "width", "height",
		"duration_ms", "bytes", "alt_text", "removal_reason", "created_at", "processed_at", "removed_at"},
		query: `SELECT m.public_id, coalesce(r.public_id, ''), m.kind, m.type, m.state, m.position, m.width, m.height,
			m.duration_ms, m.bytes, m.alt_text, m.removal_reason, m.created_at, m.processed_at, m.removed_at
			FROM review_media m LEFT JOIN reviews r ON r.id = m.review_id WHERE m.review_id IS NOT NULL ORDER BY m.id`},
	{Name: "questions", Columns: []string{"id", "channel", "market", "scope", "variant_key", "group_key", "language",
		"asker_name", "hide_name", "body", "state", "created_at", "published_at", "anonymized_at"},
		query: `SELECT q.public_id, c.code, q.market, q.scope, q.variant_key, q.group_key, q.language, q.asker_name,
			q.hide_name, q.body, q.state, q.created_at, q.published_at, q.anonymized_at
			FROM questions q JOIN channels c ON c.id = q.channel_id ORDER BY q.id`},
	{Name: "answers", Columns: []string{"id", "question_id", "kind", "author_name", "hide_name", "body", "language", "state",
		"created_at", "published_at", "anonymized_at"},
		query: `SELECT a.public_id, q.public_id, a.kind, a.author_name, a.hide_name, a.body, a.language, a.state,
			a.created_at, a.published_at, a.anonymized_at FROM answers a JOIN questions q ON q.id = a.question_id ORDER BY a.id`},
}

// EachExportRow reads a dataset row by row and hands each row to fn as text:
// times (columns ending in _at, and valid_from) as RFC 3339 in UTC, empty when
// unset. fn's error ends the read.
func (q *Q) EachExportRow(ctx context.Context, d ExportDataset, fn func(row []string) error) error {
	rows, err := q.c.QueryContext(ctx, d.query)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	vals := make([]sql.NullString, len(d.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := make([]string, len(vals))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return translate(err)
		}
		for i, v := range vals {
			out[i] = v.String
			col := d.Columns[i]
			if v.Valid && (strings.HasSuffix(col, "_at") || col == "valid_from") {
				if ms, err := strconv.ParseInt(v.String, 10, 64); err == nil {
					out[i] = Time(ms).Format(time.RFC3339Nano)
				}
			}
		}
		if err := fn(out); err != nil {
			return err
		}
	}
	return translate(rows.Err())
}

// ExportMedia is one media item whose files go into an archive.
type ExportMedia struct {
	PublicID string
	ReviewID string // the review's public id
}

// EachExportMedia hands fn every processed media item attached to a review.
func (q *Q) EachExportMedia(ctx context.Context, fn func(ExportMedia) error) error {
	rows, err := q.c.QueryContext(ctx, `SELECT m.public_id, r.public_id FROM review_media m JOIN reviews r ON r.id = m.review_id
		WHERE m.state = 'ready' ORDER BY m.id`)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var m ExportMedia
		if err := rows.Scan(&m.PublicID, &m.ReviewID); err != nil {
			return translate(err)
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return translate(rows.Err())
}

// BrandExport is one whole-brand archive (brand_exports).
type BrandExport struct {
	ID        int64
	State     string // building, ready, failed
	Error     string
	File      string // file name inside the exports folder
	Size      int64
	SHA256    string
	Counts    string // JSON object: dataset -> rows, media -> files
	ActorID   string
	CreatedAt time.Time
	ReadyAt   time.Time
	ExpiresAt time.Time
}

const qBrandExportCols = `id, state, error, file, size, sha256, counts, actor_id, created_at, ready_at, expires_at`

func scanBrandExport(sc scanner) (BrandExport, error) {
	var e BrandExport
	var created, expires int64
	var ready sql.NullInt64
	err := sc.Scan(&e.ID, &e.State, &e.Error, &e.File, &e.Size, &e.SHA256, &e.Counts, &e.ActorID, &created, &ready, &expires)
	e.CreatedAt, e.ReadyAt, e.ExpiresAt = Time(created), NullTime(ready), Time(expires)
	return e, translate(err)
}

// CreateBrandExport records an archive being built.
func (tx *Tx) CreateBrandExport(ctx context.Context, actorID string, expires time.Time) (BrandExport, error) {
	res, err := tx.c.ExecContext(ctx, `INSERT INTO brand_exports (state, actor_id, created_at, expires_at) VALUES ('building', ?, ?, ?)`,
		actorID, Ms(tx.Now), Ms(expires))
	if err != nil {
		return BrandExport{}, translate(err)
	}
	id, _ := res.LastInsertId()
	return BrandExport{ID: id, State: "building", Counts: "{}", ActorID: actorID, CreatedAt: tx.Now, ExpiresAt: expires}, nil
}

// FinishBrandExport records the outcome of a build: ready with its file, or
// failed with a code.
func (tx *Tx) FinishBrandExport(ctx context.Context, e BrandExport) error {
	var ready any
	if e.State == "ready" {
		ready = Ms(tx.Now)
	}
	res, err := tx.c.ExecContext(ctx, `UPDATE brand_exports SET state = ?, error = ?, file = ?, size = ?, sha256 = ?, counts = ?,
		ready_at = ? WHERE id = ?`, e.State, e.Error, e.File, e.Size, e.SHA256, e.Counts, ready, e.ID)
	return affectedOne(res, err)
}

// BrandExportByID returns one archive record (ErrNotFound).
func (q *Q) BrandExportByID(ctx context.Context, id int64) (BrandExport, error) {
	return scanBrandExport(q.c.QueryRowContext(ctx, `SELECT `+qBrandExportCols+` FROM brand_exports WHERE id = ?`, id))
}

// BrandExports lists the archive records, newest first.
func (q *Q) BrandExports(ctx context.Context) ([]BrandExport, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qBrandExportCols+` FROM brand_exports ORDER BY id DESC`)
	return collect(rows, err, scanBrandExport)
}

// DeleteBrandExports removes the given archive records.
func (tx *Tx) DeleteBrandExports(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		if _, err := tx.c.ExecContext(ctx, `DELETE FROM brand_exports WHERE id = ?`, id); err != nil {
			return translate(err)
		}
	}
	return nil
}
