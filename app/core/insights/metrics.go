package insights

import (
	"context"
	"strconv"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Metrics is the answer of GET /admin/v1/metrics.
type Metrics struct {
	Channel      string         `json:"channel"`
	From         string         `json:"from"`
	To           string         `json:"to"`
	Period       string         `json:"period"`
	TimeZone     string         `json:"time_zone"`
	Reviews      ReviewTotals   `json:"reviews"`
	Series       []Point        `json:"series"`
	Distribution map[string]int `json:"distribution"`
	Invitations  Funnel         `json:"invitations"`
	Moderation   Moderation     `json:"moderation"`
	PhotoShare   float64        `json:"photo_share"`
	AsOf         time.Time      `json:"as_of"`
	// Deliveries are the message-log attempts of the period by route (email,
	// webhook, whatsapp); present only when WhatsApp is configured.
	Deliveries map[string]store.RouteFigures `json:"deliveries,omitempty"`
}

// ReviewTotals are the reviews submitted in the period: received (every state),
// imported (of them), published (now) with their average and those with media.
type ReviewTotals struct {
	Received  int      `json:"received"`
	Imported  int      `json:"imported"`
	Published int      `json:"published"`
	Average   *float64 `json:"average"`
	WithMedia int      `json:"with_media"`
}

// Point is one bucket of the series.
type Point struct {
	Start     string   `json:"start"`
	Received  int      `json:"received"`
	Published int      `json:"published"`
	Average   *float64 `json:"average"`
}

// Funnel is the product-review invitations sent in the period and what became of
// them: opened, reviewed, and their shares of sent.
type Funnel struct {
	Sent       int     `json:"sent"`
	Opened     int     `json:"opened"`
	Reviewed   int     `json:"reviewed"`
	OpenRate   float64 `json:"open_rate"`
	Conversion float64 `json:"conversion"`
}

// Moderation is the response time of moderators for reviews submitted in the
// period (decided: moved from awaiting approval to published or rejected by a
// later decision than the submission) and the queue now.
type Moderation struct {
	Decided         int        `json:"decided"`
	AverageHours    *float64   `json:"average_hours"`
	Within24h       float64    `json:"within_24h"`
	Waiting         int        `json:"waiting"`
	WaitingOver48h  int        `json:"waiting_over_48h"`
	OldestWaitingAt *time.Time `json:"oldest_waiting_at"`
}

// SlowModeration is how long a review may wait before the overview asks for
// attention.
const SlowModeration = 48 * time.Hour

// figures is what metrics and insights both sum.
type figures struct {
	totals  ReviewTotals
	ratings [5]int
	decided store.ReviewSlot
	series  map[time.Time]*seriesSum
	funnel  Funnel
}

type seriesSum struct{ received, published, sum int }

// sum reads and folds the figures of a span: whole UTC days from the day rows, the
// days its local midnights cut from the hour rows.
func (s *Service) sum(ctx context.Context, q *store.Q, sp span) (figures, error) {
	fromDay, toDay, cut, isCut := sp.cuts()
	days, err := q.ReviewDays(ctx, sp.scope, fromDay, toDay)
	if err != nil {
		return figures{}, err
	}
	hours, err := q.ReviewHoursOf(ctx, sp.scope, cut)
	if err != nil {
		return figures{}, err
	}
	f := figures{series: map[time.Time]*seriesSum{}}
	ratingSum := 0
	add := func(h store.ReviewSlot) {
		f.totals.Received += h.Received
		f.totals.Imported += h.Imported
		f.totals.Published += h.Published
		f.totals.WithMedia += h.WithMedia
		ratingSum += h.RatingSum
		for i, n := range h.Ratings {
			f.ratings[i] += n
		}
		f.decided.Decided += h.Decided
		f.decided.DecidedMs += h.DecidedMs
		f.decided.Decided24h += h.Decided24h
		b := sp.bucket(h.Start)
		p := f.series[b]
		if p == nil {
			p = &seriesSum{}
			f.series[b] = p
		}
		p.received += h.Received
		p.published += h.Published
		p.sum += h.RatingSum
	}
	for _, d := range days {
		if !isCut[d.Start/store.DayMs] {
			add(d)
		}
	}
	for _, h := range hours {
		if sp.inside(h.Start) {
			add(h)
		}
	}
	f.totals.Average = average(ratingSum, f.totals.Published)
	idays, err := q.InviteDays(ctx, sp.scope, fromDay, toDay)
	if err != nil {
		return figures{}, err
	}
	ihours, err := q.InviteHoursOf(ctx, sp.scope, cut)
	if err != nil {
		return figures{}, err
	}
	addInv := func(h store.InviteSlot) {
		f.funnel.Sent += h.Sent
		f.funnel.Opened += h.Opened
		f.funnel.Reviewed += h.Reviewed
	}
	for _, d := range idays {
		if !isCut[d.Start/store.DayMs] {
			addInv(d)
		}
	}
	for _, h := range ihours {
		if sp.inside(h.Start) {
			addInv(h)
		}
	}
	f.funnel.OpenRate, f.funnel.Conversion = share(f.funnel.Opened, f.funnel.Sent), share(f.funnel.Reviewed, f.funnel.Sent)
	return f, nil
}

// Metrics answers GET /admin/v1/metrics (errors: see resolve).
func (s *Service) Metrics(ctx context.Context, in Query) (Metrics, error) {
	q := s.DB.Read()
	in.Market = ""
	if in.Period == unitWhole {
		return Metrics{}, core.Invalid("period")
	}
	sp, err := s.resolve(ctx, q, in)
	if err != nil {
		return Metrics{}, err
	}
	f, err := s.sum(ctx, q, sp)
	if err != nil {
		return Metrics{}, err
	}
	out := Metrics{Channel: sp.channel.Code, From: sp.from.Format(dateLayout), To: sp.to.AddDate(0, 0, -1).Format(dateLayout),
		Period: sp.unit, TimeZone: sp.zone, Reviews: f.totals, Distribution: map[string]int{}, Invitations: f.funnel,
		PhotoShare: share(f.totals.WithMedia, f.totals.Published), AsOf: q.Now}
	for i, n := range f.ratings {
		out.Distribution[strconv.Itoa(i+1)] = n
	}
	for _, b := range sp.buckets() {
		p := Point{Start: b.Format(dateLayout)}
		if v := f.series[b]; v != nil {
			p.Received, p.Published, p.Average = v.received, v.published, average(v.sum, v.published)
		}
		out.Series = append(out.Series, p)
	}
	out.Moderation.Decided = f.decided.Decided
	if f.decided.Decided > 0 {
		h := float64(int(float64(f.decided.DecidedMs)/float64(f.decided.Decided)/3600000*100+0.5)) / 100
		out.Moderation.AverageHours = &h
	}
	out.Moderation.Within24h = share(f.decided.Decided24h, f.decided.Decided)
	w, err := q.WaitingReviews(ctx, sp.scope, q.Now.Add(-SlowModeration))
	if err != nil {
		return Metrics{}, err
	}
	out.Moderation.Waiting, out.Moderation.WaitingOver48h = w.Count, w.Older
	out.Moderation.OldestWaitingAt = core.OptTime(w.Oldest)
	if out.Deliveries, err = s.deliveries(ctx, q, sp.channel.ID, sp.from, sp.to); err != nil {
		return Metrics{}, err
	}
	return out, nil
}

// deliveries are the delivery figures per route of [from, to), every route
// listed; nil when WhatsApp is not configured (the v1 answers stay as they were).
func (s *Service) deliveries(ctx context.Context, q *store.Q, channelID int64, from, to time.Time) (map[string]store.RouteFigures, error) {
	if s.Brand == nil || !s.Brand.WhatsApp {
		return nil, nil
	}
	f, err := q.SendFiguresByRoute(ctx, channelID, from, to)
	if err != nil {
		return nil, err
	}
	for _, r := range []string{brand.RouteEmail, brand.RouteWebhook, brand.RouteWhatsApp} {
		if _, ok := f[r]; !ok {
			f[r] = store.RouteFigures{}
		}
	}
	return f, nil
}
