package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// AspectTemplate is one of the brand's own rating-topic lists; Aspects is JSON.
type AspectTemplate struct {
	Key       string
	Name      string
	Aspects   string
	RetiredAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TemplateProduct assigns a product (by variant or group key) to a list.
type TemplateProduct struct {
	Scope       string // variant or group
	ProductKey  string
	TemplateKey string
}

func scanAspectTemplate(sc scanner) (AspectTemplate, error) {
	var t AspectTemplate
	var retired sql.NullInt64
	var created, updated int64
	err := sc.Scan(&t.Key, &t.Name, &t.Aspects, &retired, &created, &updated)
	t.RetiredAt, t.CreatedAt, t.UpdatedAt = NullTime(retired), Time(created), Time(updated)
	return t, translate(err)
}

const qAspectTemplateCols = `key, name, aspects, retired_at, created_at, updated_at`

// AspectTemplates lists the brand's own lists (retired ones too), oldest first.
func (q *Q) AspectTemplates(ctx context.Context) ([]AspectTemplate, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qAspectTemplateCols+` FROM aspect_templates ORDER BY created_at, key`)
	return collect(rows, err, scanAspectTemplate)
}

// AspectTemplateByKey finds an own list.
func (q *Q) AspectTemplateByKey(ctx context.Context, key string) (AspectTemplate, error) {
	return scanAspectTemplate(q.c.QueryRowContext(ctx, `SELECT `+qAspectTemplateCols+` FROM aspect_templates WHERE key = ?`, key))
}

// SaveAspectTemplate inserts or updates an own list (name and aspects).
func (q *Tx) SaveAspectTemplate(ctx context.Context, t AspectTemplate) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `INSERT INTO aspect_templates (key, name, aspects, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET name = excluded.name, aspects = excluded.aspects,
		updated_at = excluded.updated_at`, t.Key, t.Name, t.Aspects, now, now)
	if err != nil {
		return fmt.Errorf("store: save aspect template: %w", translate(err))
	}
	return nil
}

// RetireAspectTemplate marks an own list retired.
func (q *Tx) RetireAspectTemplate(ctx context.Context, key string) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `UPDATE aspect_templates SET retired_at = ?, updated_at = ? WHERE key = ?`, now, now, key)
	return translate(err)
}

// TemplateProducts lists the product assignments of a list ("" = every list).
func (q *Q) TemplateProducts(ctx context.Context, templateKey string) ([]TemplateProduct, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT scope, product_key, template_key FROM aspect_template_products
		WHERE ? = '' OR template_key = ? ORDER BY template_key, scope, product_key`, templateKey, templateKey)
	return collect(rows, err, func(sc scanner) (TemplateProduct, error) {
		var p TemplateProduct
		err := sc.Scan(&p.Scope, &p.ProductKey, &p.TemplateKey)
		return p, translate(err)
	})
}

// AssignTemplateProducts replaces the product assignments of a list with ps (a
// product assigned to another list moves to this one).
func (q *Tx) AssignTemplateProducts(ctx context.Context, templateKey string, ps []TemplateProduct) error {
	if _, err := q.c.ExecContext(ctx, `DELETE FROM aspect_template_products WHERE template_key = ?`, templateKey); err != nil {
		return translate(err)
	}
	for _, p := range ps {
		_, err := q.c.ExecContext(ctx, `INSERT INTO aspect_template_products (scope, product_key, template_key) VALUES (?, ?, ?)
			ON CONFLICT (scope, product_key) DO UPDATE SET template_key = excluded.template_key`, p.Scope, p.ProductKey, templateKey)
		if err != nil {
			return fmt.Errorf("store: assign template product: %w", translate(err))
		}
	}
	return nil
}

// TemplateForProduct returns the list key assigned to a variant, else to its group;
// "" when neither is assigned.
func (q *Q) TemplateForProduct(ctx context.Context, variantKey, groupKey string) (string, error) {
	var key string
	err := q.c.QueryRowContext(ctx, `SELECT template_key FROM aspect_template_products
		WHERE (scope = 'variant' AND product_key = ?) OR (scope = 'group' AND product_key = ? AND ? != '')
		ORDER BY scope = 'variant' DESC LIMIT 1`, variantKey, groupKey, groupKey).Scan(&key)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return key, translate(err)
}

// CountReviewsWithTemplate counts reviews that carry topic values of a list.
func (q *Q) CountReviewsWithTemplate(ctx context.Context, key string) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM reviews WHERE aspect_template = ?`, key).Scan(&n)
	return n, translate(err)
}
