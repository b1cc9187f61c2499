package insights

import (
	"context"
	"time"
)

// Insights is the answer of GET /admin/v1/insights.
type Insights struct {
	Channel     string       `json:"channel"`
	Market      string       `json:"market"`
	From        string       `json:"from"`
	To          string       `json:"to"`
	Current     PeriodFigure `json:"current"`
	Previous    PeriodFigure `json:"previous"`
	TopProducts []Product    `json:"top_products"`
	Topics      []Topic      `json:"topics"`
	// AI is always null in v1 (the AI package belongs to v2).
	AI any `json:"ai"`
}

// PeriodFigure sums one period: reviews received, published with their average,
// photo share and invitation conversion.
type PeriodFigure struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Received   int      `json:"received"`
	Published  int      `json:"published"`
	Average    *float64 `json:"average"`
	PhotoShare float64  `json:"photo_share"`
	Conversion float64  `json:"conversion"`
}

// Product is one of the products with the most published reviews.
type Product struct {
	ProductKey string   `json:"product_key"`
	Market     string   `json:"market"`
	Name       string   `json:"name"`
	Reviews    int      `json:"reviews"`
	Average    *float64 `json:"average"`
}

// Topic is one of the most frequent words of published reviews.
type Topic struct {
	Word    string `json:"word"`
	Reviews int    `json:"reviews"`
}

// Top list lengths.
const (
	topProducts = 10
	topTopics   = 10
)

// Insights answers GET /admin/v1/insights: the period against the one as long
// before it, and the top products and topics of the market (the channel's market;
// every market without a filter; products and topics are kept per market).
func (s *Service) Insights(ctx context.Context, in Query) (Insights, error) {
	q := s.DB.Read()
	in.Period = unitWhole
	sp, err := s.resolve(ctx, q, in)
	if err != nil {
		return Insights{}, err
	}
	out := Insights{Channel: sp.channel.Code, Market: sp.market, From: sp.from.Format(dateLayout),
		To: sp.to.AddDate(0, 0, -1).Format(dateLayout), TopProducts: []Product{}, Topics: []Topic{}}
	prev := sp
	days := int(sp.to.Sub(sp.from).Round(24*time.Hour) / (24 * time.Hour))
	prev.to, prev.from = sp.from, sp.from.AddDate(0, 0, -days)
	for i, p := range []span{sp, prev} {
		f, err := s.sum(ctx, q, p)
		if err != nil {
			return Insights{}, err
		}
		v := PeriodFigure{From: p.from.Format(dateLayout), To: p.to.AddDate(0, 0, -1).Format(dateLayout),
			Received: f.totals.Received, Published: f.totals.Published, Average: f.totals.Average,
			PhotoShare: share(f.totals.WithMedia, f.totals.Published), Conversion: f.funnel.Conversion}
		if i == 0 {
			out.Current = v
		} else {
			out.Previous = v
		}
	}
	products, err := q.TopProducts(ctx, sp.market, topProducts)
	if err != nil {
		return Insights{}, err
	}
	for _, p := range products {
		out.TopProducts = append(out.TopProducts, Product{ProductKey: p.ProductKey, Market: p.Market, Name: p.Name,
			Reviews: p.Reviews, Average: average(p.RatingSum, p.Reviews)})
	}
	topics, err := q.TopTopics(ctx, sp.market, topTopics)
	if err != nil {
		return Insights{}, err
	}
	for _, t := range topics {
		out.Topics = append(out.Topics, Topic{Word: t.Word, Reviews: t.Reviews})
	}
	return out, nil
}
