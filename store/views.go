package store

import (
	"context"
	"fmt"
)

// ViewKey is one counter of component_views.
type ViewKey struct {
	Day        string // YYYY-MM-DD, UTC
	ChannelID  int64
	Scope      string
	ProductKey string
	Shown      string
	Style      string
	Theme      string
	Width      string
}

// ViewCount is a counter with its value.
type ViewCount struct {
	ViewKey
	Views int
}

// CountView adds one view to its counter.
func (q *Tx) CountView(ctx context.Context, k ViewKey) error {
	_, err := q.c.ExecContext(ctx, `INSERT INTO component_views (day, channel_id, scope, product_key, shown, style, theme,
		width, views) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (day, channel_id, scope, product_key, shown, style,
		theme, width) DO UPDATE SET views = views + 1`, k.Day, k.ChannelID, k.Scope, k.ProductKey, k.Shown, k.Style,
		k.Theme, k.Width)
	if err != nil {
		return fmt.Errorf("store: count view: %w", translate(err))
	}
	return nil
}

// ComponentViews lists the view counters of the days from..to (inclusive,
// YYYY-MM-DD), by day, channel and product.
func (q *Q) ComponentViews(ctx context.Context, from, to string) ([]ViewCount, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT day, channel_id, scope, product_key, shown, style, theme, width, views
		FROM component_views WHERE day BETWEEN ? AND ?
		ORDER BY day, channel_id, scope, product_key, shown, style, theme, width`, from, to)
	return collect(rows, err, func(sc scanner) (ViewCount, error) {
		var v ViewCount
		err := sc.Scan(&v.Day, &v.ChannelID, &v.Scope, &v.ProductKey, &v.Shown, &v.Style, &v.Theme, &v.Width, &v.Views)
		return v, err
	})
}
