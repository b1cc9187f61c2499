package panel

import (
	"context"
	"fmt"
	"math"

	"reviewd/app/core/insights"
)

// figures are the overview's figures of the last 30 days (insights.Insights and
// insights.Metrics, as GET /admin/v1/insights and GET /admin/v1/metrics, both
// with the read permission of the overview).
type figures struct {
	From, To string
	Items    []figure
	// Moderation: average hours to a decision ("" when none was decided), the
	// share decided within 24 hours, and the reviews waiting over 48 hours.
	DecisionHours string
	Within24h     int
	WaitingOver48 int
}

// figure is one number with its change against the previous period.
type figure struct {
	Key, Value, Change string
	// Trend is up, down or "" (no change or nothing to compare).
	Trend string
}

func (h *Handler) figures(ctx context.Context) (*figures, error) {
	if h.Insights == nil {
		return nil, nil
	}
	in, err := h.Insights.Insights(ctx, insights.Query{})
	if err != nil {
		return nil, err
	}
	m, err := h.Insights.Metrics(ctx, insights.Query{Period: "month"})
	if err != nil {
		return nil, err
	}
	c, p := in.Current, in.Previous
	f := &figures{From: in.From, To: in.To, Within24h: int(math.Round(m.Moderation.Within24h * 100)), WaitingOver48: m.Moderation.WaitingOver48h}
	if m.Moderation.AverageHours != nil {
		f.DecisionHours = fmt.Sprintf("%.1f", *m.Moderation.AverageHours)
	}
	f.Items = []figure{
		count("fig_received", c.Received, p.Received),
		count("fig_published", c.Published, p.Published),
		average(c.Average, p.Average),
		share("fig_photo_share", c.PhotoShare, p.PhotoShare),
		share("fig_conversion", c.Conversion, p.Conversion),
	}
	return f, nil
}

func trend(d float64) string {
	switch {
	case d > 0:
		return "up"
	case d < 0:
		return "down"
	}
	return ""
}

func count(key string, cur, prev int) figure {
	f := figure{Key: key, Value: fmt.Sprint(cur)}
	if cur != 0 || prev != 0 {
		f.Change, f.Trend = fmt.Sprintf("%+d", cur-prev), trend(float64(cur-prev))
	}
	return f
}

func share(key string, cur, prev float64) figure {
	f := figure{Key: key, Value: fmt.Sprintf("%.0f%%", cur*100)}
	if cur != 0 || prev != 0 {
		d := math.Round(cur*100) - math.Round(prev*100)
		f.Change, f.Trend = fmt.Sprintf("%+.0f", d), trend(d)
	}
	return f
}

func average(cur, prev *float64) figure {
	f := figure{Key: "fig_average", Value: "—"}
	if cur != nil {
		f.Value = fmt.Sprintf("%.1f", *cur)
		if prev != nil {
			d := math.Round((*cur-*prev)*10) / 10
			f.Change, f.Trend = fmt.Sprintf("%+.1f", d), trend(d)
		}
	}
	return f
}
