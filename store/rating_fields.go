package store

import "context"

// RatingField is one product of a Shopify order connection with its published
// figures in the connection's market (product_stats, scope group) and the figures
// last written to the store (Written false before the first write).
type RatingField struct {
	ProductID string
	// Reviews and RatingSum are the product's current figures.
	Reviews   int
	RatingSum int
	// WrittenCount and WrittenAverage were last written.
	Written        bool
	WrittenCount   int
	WrittenAverage string
}

const (
	qAddRatingProduct = `INSERT INTO rating_fields (source_id, product_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT (source_id, product_id) DO NOTHING`
	// Products of the connection with published reviews in the market, and those
	// whose written fields still show reviews that are gone (no product_stats row
	// there, or no review left).
	qRatingFields = `SELECT f.product_id, coalesce(s.reviews, 0), coalesce(s.rating_sum, 0), f.written_at IS NOT NULL,
		coalesce(f.count, 0), coalesce(f.average, '')
		FROM rating_fields f LEFT JOIN product_stats s ON s.scope = 'group' AND s.product_key = f.product_id AND s.market = ?
		WHERE f.source_id = ? AND (s.reviews > 0 OR f.count > 0) ORDER BY f.product_id`
	qSaveRatingField = `UPDATE rating_fields SET count = ?, average = ?, written_at = ? WHERE source_id = ? AND product_id = ?`
)

// AddRatingProducts records products read by a connection (known ones are kept
// as they are).
func (q *Tx) AddRatingProducts(ctx context.Context, sourceID int64, productIDs []string) error {
	for _, id := range productIDs {
		if _, err := q.c.ExecContext(ctx, qAddRatingProduct, sourceID, id, Ms(q.Now)); err != nil {
			return translate(err)
		}
	}
	return nil
}

// RatingFields lists the connection's products that have published reviews in
// market or were last written with some, with their figures and what was last
// written, by product id.
func (q *Q) RatingFields(ctx context.Context, sourceID int64, market string) ([]RatingField, error) {
	rows, err := q.c.QueryContext(ctx, qRatingFields, market, sourceID)
	return collect(rows, err, func(sc scanner) (RatingField, error) {
		var f RatingField
		err := sc.Scan(&f.ProductID, &f.Reviews, &f.RatingSum, &f.Written, &f.WrittenCount, &f.WrittenAverage)
		return f, err
	})
}

// SaveRatingField records the figures written for one product.
func (q *Tx) SaveRatingField(ctx context.Context, sourceID int64, productID string, count int, average string) error {
	_, err := q.c.ExecContext(ctx, qSaveRatingField, count, average, Ms(q.Now), sourceID, productID)
	return translate(err)
}
