// Package insights owns the brand's figures: GET /admin/v1/metrics (reviews and
// average per period, rating distribution, invitation funnel, moderation response
// time, photo share), GET /admin/v1/insights (comparison with the previous period,
// top products, topics) and GET /admin/v1/overview (sites, attention, publishing
// method). Every answer sums figures that triggers keep in the transaction of the
// write that changes them (schema.sql, version 14), so no answer reads reviews one
// by one. It imports the kernel and brand.
package insights

import (
	"context"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Service is the insights domain service.
type Service struct {
	DB    *store.DB
	Brand *brand.Service
}

// Query is the query of the figures endpoints: channel (and, for insights, market)
// and the period: from and to as dates (YYYY-MM-DD, both included) in the brand's
// time zone, and the series unit (day, week or month).
type Query struct {
	Channel, Market string
	From, To        string
	Period          string
}

// MaxDays is the longest period a request may ask for; a series by day covers at
// most MaxDailyDays.
const (
	MaxDays      = 731
	MaxDailyDays = 92
)

// unitWhole is the unit of a span read as one bucket (insights).
const unitWhole = "whole"

// span is a parsed query: the scope, the channel, the local period [from, to) and
// the time zone.
type span struct {
	scope    store.FigureScope
	channel  store.Channel
	market   string
	loc      *time.Location
	from, to time.Time // local midnights; to is the day after the last
	unit     string
	zone     string
}

const dateLayout = "2006-01-02"

// resolve checks a query. Errors: invalid / channel (unknown code),
// channel_market_mismatch, market, from, to, range (to before from or more than
// MaxDays days), period.
func (s *Service) resolve(ctx context.Context, q *store.Q, in Query) (span, error) {
	var sp span
	market := strings.TrimSpace(in.Market)
	if market != "" && !core.ReMarket.MatchString(market) {
		return sp, core.Invalid("market")
	}
	ch, err := core.ChannelFilter(ctx, q, strings.TrimSpace(in.Channel), market)
	if err != nil {
		return sp, err
	}
	st, err := s.Brand.LoadSettings(ctx, q)
	if err != nil {
		return sp, err
	}
	sp.loc, sp.zone, sp.channel, sp.market = st.Location(), st.Location().String(), ch, market
	sp.scope = store.FigureScope{ChannelID: ch.ID}
	if ch.ID == 0 {
		sp.scope.Market = market
	} else {
		sp.market = ch.Market
	}
	now := q.Now.In(sp.loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, sp.loc)
	last := today
	if in.To != "" {
		t, err := time.ParseInLocation(dateLayout, in.To, sp.loc)
		if err != nil {
			return sp, core.Invalid("to")
		}
		last = t
	}
	first := last.AddDate(0, 0, -29)
	if in.From != "" {
		t, err := time.ParseInLocation(dateLayout, in.From, sp.loc)
		if err != nil {
			return sp, core.Invalid("from")
		}
		first = t
	}
	if last.Before(first) || last.Sub(first) > MaxDays*24*time.Hour {
		return sp, core.Invalid("range")
	}
	sp.from, sp.to = first, last.AddDate(0, 0, 1)
	switch in.Period {
	case "":
		sp.unit = "day"
	case "day", "week", "month", unitWhole:
		sp.unit = in.Period
	default:
		return sp, core.Invalid("period")
	}
	if sp.unit == "day" && sp.to.Sub(sp.from) > MaxDailyDays*24*time.Hour+time.Hour {
		return sp, core.Invalid("range")
	}
	return sp, nil
}

// cuts lists what a span reads: the UTC days [fromDay, toDay) from the day rows,
// except the days a bucket boundary (a local midnight, or the span's ends) falls
// inside, which are read hour by hour.
func (sp span) cuts() (fromDay, toDay int64, cut []int64, isCut map[int64]bool) {
	fromDay = sp.from.UnixMilli() / store.DayMs
	toDay = (sp.to.UnixMilli() + store.DayMs - 1) / store.DayMs
	isCut = map[int64]bool{}
	for _, b := range append(sp.buckets(), sp.to) {
		ms := b.UnixMilli()
		if d := ms / store.DayMs; ms%store.DayMs != 0 && !isCut[d] {
			isCut[d] = true
			cut = append(cut, d)
		}
	}
	return fromDay, toDay, cut, isCut
}

// inside reports whether the slot starting at ms lies in the span.
func (sp span) inside(ms int64) bool { return ms >= sp.from.UnixMilli() && ms < sp.to.UnixMilli() }

// bucket is the start of the series bucket holding the instant ms.
func (sp span) bucket(ms int64) time.Time {
	t := time.UnixMilli(ms).In(sp.loc)
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, sp.loc)
	switch sp.unit {
	case "week":
		wd := (int(d.Weekday()) + 6) % 7 // Monday first
		d = d.AddDate(0, 0, -wd)
	case "month":
		d = time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, sp.loc)
	case unitWhole:
		d = sp.from
	}
	if d.Before(sp.from) {
		d = sp.from
	}
	return d
}

// buckets lists every bucket start of the span in order.
func (sp span) buckets() []time.Time {
	if sp.unit == unitWhole {
		return []time.Time{sp.from}
	}
	var out []time.Time
	for d := sp.from; d.Before(sp.to); {
		out = append(out, d)
		switch sp.unit {
		case "week":
			wd := (int(d.Weekday()) + 6) % 7
			d = time.Date(d.Year(), d.Month(), d.Day()-wd+7, 0, 0, 0, 0, sp.loc)
		case "month":
			d = time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, sp.loc)
		default:
			d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, sp.loc)
		}
	}
	return out
}

// share is part of whole rounded to four places (0 when whole is 0).
func share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(int(float64(part)/float64(whole)*10000+0.5)) / 10000
}

// average is sum / n rounded to two places, nil when n is 0.
func average(sum, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := float64(int(float64(sum)/float64(n)*100+0.5)) / 100
	return &v
}
