package store

import (
	"context"
	"database/sql"
	"time"
)

// Product is one catalogue row (table products).
type Product struct {
	ID         int64
	VariantKey string
	GroupKey   string
	CatalogID  string
	Name       string
	URL        string
	ImageURL   string
	Brand      string
	GTIN       string
	MPN        string
	Source     string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

const qProductCols = `id, variant_key, group_key, catalog_id, name, url, image_url, brand, gtin, mpn, source,
	created_at, updated_at`

func scanProduct(sc scanner) (Product, error) {
	var p Product
	var created, updated int64
	err := sc.Scan(&p.ID, &p.VariantKey, &p.GroupKey, &p.CatalogID, &p.Name, &p.URL, &p.ImageURL, &p.Brand, &p.GTIN,
		&p.MPN, &p.Source, &created, &updated)
	p.CreatedAt, p.UpdatedAt = Time(created), Time(updated)
	return p, translate(err)
}

// UpsertProduct stores a product posted or read from a feed: a new variant_key is
// inserted, an existing one takes every non-empty field of p (empty fields keep
// what the row holds).
func (q *Tx) UpsertProduct(ctx context.Context, p Product) error {
	now := Ms(q.Now)
	_, err := q.c.ExecContext(ctx, `INSERT INTO products (variant_key, group_key, catalog_id, name, url, image_url, brand,
		gtin, mpn, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (variant_key) DO UPDATE SET
			group_key = CASE WHEN excluded.group_key != '' THEN excluded.group_key ELSE products.group_key END,
			catalog_id = CASE WHEN excluded.catalog_id != '' THEN excluded.catalog_id ELSE products.catalog_id END,
			name = CASE WHEN excluded.name != '' THEN excluded.name ELSE products.name END,
			url = CASE WHEN excluded.url != '' THEN excluded.url ELSE products.url END,
			image_url = CASE WHEN excluded.image_url != '' THEN excluded.image_url ELSE products.image_url END,
			brand = CASE WHEN excluded.brand != '' THEN excluded.brand ELSE products.brand END,
			gtin = CASE WHEN excluded.gtin != '' THEN excluded.gtin ELSE products.gtin END,
			mpn = CASE WHEN excluded.mpn != '' THEN excluded.mpn ELSE products.mpn END,
			source = CASE WHEN products.source = 'order' THEN excluded.source ELSE products.source END,
			updated_at = excluded.updated_at`,
		p.VariantKey, p.GroupKey, p.CatalogID, p.Name, p.URL, p.ImageURL, p.Brand, p.GTIN, p.MPN, p.Source, now, now)
	return translate(err)
}

// FillProductsFromOrderLines adds the variants of order lines missing from the
// catalogue (source order) and fills empty group_key, catalog_id and name fields of
// existing rows from the newest order line of the variant. It returns the rows
// added or changed.
func (q *Tx) FillProductsFromOrderLines(ctx context.Context) (int64, error) {
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, `INSERT INTO products (variant_key, group_key, catalog_id, name, source, created_at, updated_at)
		SELECT l.variant_key, l.group_key, l.catalog_id, l.title, 'order', ?, ?
		FROM order_lines l JOIN (SELECT variant_key, max(id) AS id FROM order_lines WHERE variant_key != '' GROUP BY variant_key) n
			ON n.id = l.id
		WHERE true
		ON CONFLICT (variant_key) DO UPDATE SET
			group_key = CASE WHEN products.group_key = '' THEN excluded.group_key ELSE products.group_key END,
			catalog_id = CASE WHEN products.catalog_id = '' THEN excluded.catalog_id ELSE products.catalog_id END,
			name = CASE WHEN products.name = '' THEN excluded.name ELSE products.name END,
			updated_at = excluded.updated_at
		WHERE (products.group_key = '' AND excluded.group_key != '') OR (products.catalog_id = '' AND excluded.catalog_id != '')
			OR (products.name = '' AND excluded.name != '')`, now, now)
	if err != nil {
		return 0, translate(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// ProductByVariant finds a product by its variant key.
func (q *Q) ProductByVariant(ctx context.Context, variantKey string) (Product, error) {
	return scanProduct(q.c.QueryRowContext(ctx, `SELECT `+qProductCols+` FROM products WHERE variant_key = ?`, variantKey))
}

// ProductsByBarcode lists up to limit products a marketplace barcode names: those
// whose gtin equals it; when none, those whose catalog_id equals it; when none, the
// one whose variant_key equals it (CONTRACT: gtin, else catalog_id, else variant_key).
func (q *Q) ProductsByBarcode(ctx context.Context, barcode string, limit int) ([]Product, error) {
	for _, col := range []string{"gtin", "catalog_id", "variant_key"} {
		rows, err := q.c.QueryContext(ctx, `SELECT `+qProductCols+` FROM products WHERE `+col+` = ? ORDER BY id LIMIT ?`,
			barcode, limit)
		ps, err := collect(rows, err, scanProduct)
		if err != nil || len(ps) > 0 {
			return ps, err
		}
	}
	return nil, nil
}

// CountProducts counts the catalogue rows.
func (q *Q) CountProducts(ctx context.Context) (int, error) {
	var n int
	err := q.c.QueryRowContext(ctx, `SELECT count(*) FROM products`).Scan(&n)
	return n, translate(err)
}

// ProductFeed is one product feed (table product_feeds).
type ProductFeed struct {
	ID              int64
	URL             string
	Format          string
	IntervalMinutes int
	Enabled         bool
	NextRunAt       time.Time
	LastRunAt       time.Time
	LastError       string
	LastProducts    int
	LastPages       int
	CreatedAt       time.Time
}

const qFeedCols = `id, url, format, interval_minutes, enabled, next_run_at, last_run_at, last_error, last_products,
	last_pages, created_at`

func scanFeed(sc scanner) (ProductFeed, error) {
	var f ProductFeed
	var enabled int
	var next, created int64
	var last sql.NullInt64
	err := sc.Scan(&f.ID, &f.URL, &f.Format, &f.IntervalMinutes, &enabled, &next, &last, &f.LastError, &f.LastProducts,
		&f.LastPages, &created)
	f.Enabled, f.NextRunAt, f.LastRunAt, f.CreatedAt = enabled == 1, Time(next), NullTime(last), Time(created)
	return f, translate(err)
}

// CreateProductFeed inserts a feed due at once; a second feed of the same URL is
// ErrConflict.
func (q *Tx) CreateProductFeed(ctx context.Context, f ProductFeed) (ProductFeed, error) {
	now := Ms(q.Now)
	res, err := q.c.ExecContext(ctx, `INSERT INTO product_feeds (url, format, interval_minutes, enabled, next_run_at,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, f.URL, f.Format, f.IntervalMinutes, boolInt(f.Enabled), now, now, now)
	if err != nil {
		return f, translate(err)
	}
	f.ID, _ = res.LastInsertId()
	f.NextRunAt, f.CreatedAt = q.Now, q.Now
	return f, nil
}

// ProductFeeds lists the feeds, oldest first.
func (q *Q) ProductFeeds(ctx context.Context) ([]ProductFeed, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qFeedCols+` FROM product_feeds ORDER BY id`)
	return collect(rows, err, scanFeed)
}

// DueProductFeeds lists the enabled feeds due at now.
func (q *Q) DueProductFeeds(ctx context.Context, now time.Time) ([]ProductFeed, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT `+qFeedCols+` FROM product_feeds WHERE enabled = 1 AND next_run_at <= ?
		ORDER BY next_run_at`, Ms(now))
	return collect(rows, err, scanFeed)
}

// FinishProductFeedRead records a read of a feed and makes it due again after its
// interval.
func (q *Tx) FinishProductFeedRead(ctx context.Context, id int64, at time.Time, products, pages int, failure string) error {
	_, err := q.c.ExecContext(ctx, `UPDATE product_feeds SET last_run_at = ?, last_error = ?, last_products = ?,
		last_pages = ?, next_run_at = ? + interval_minutes * 60000, updated_at = ? WHERE id = ?`,
		Ms(at), failure, products, pages, Ms(at), Ms(q.Now), id)
	return translate(err)
}

// DeferProductFeed makes a feed due again one interval after at. The read job
// commits it before reading, so a read that takes the process down is not started
// again at once.
func (q *Tx) DeferProductFeed(ctx context.Context, id int64, at time.Time) error {
	_, err := q.c.ExecContext(ctx, `UPDATE product_feeds SET next_run_at = ? + interval_minutes * 60000, updated_at = ?
		WHERE id = ?`, Ms(at), Ms(q.Now), id)
	return translate(err)
}

// DeleteProductFeed removes a feed (its products stay).
func (q *Tx) DeleteProductFeed(ctx context.Context, id int64) error {
	res, err := q.c.ExecContext(ctx, `DELETE FROM product_feeds WHERE id = ?`, id)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
