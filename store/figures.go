package store

import (
	"context"
	"database/sql"
	"strconv"
	"time"
)

// Brand figures (review_figures, invite_figures, site_figures, topic_figures and
// product_stats), kept by triggers; these reads sum them. Hours are UTC hours since
// the epoch (ms / 3600000).

// FigureScope limits figures to one channel (ChannelID), the channels of one
// market, or (both zero) every channel.
type FigureScope struct {
	ChannelID int64
	Market    string
}

const qScope = `(? = 0 OR channel_id = ?) AND (? = '' OR channel_id IN (SELECT id FROM channels WHERE market = ?))`

func (s FigureScope) args() []any { return []any{s.ChannelID, s.ChannelID, s.Market, s.Market} }

// Figure units: the rows of a figure table are kept per UTC hour and per UTC day.
const (
	HourMs = int64(3600000)
	DayMs  = 24 * HourMs
)

// ReviewSlot is the review figures of one hour or day (Start, ms).
type ReviewSlot struct {
	Start      int64
	Received   int
	Imported   int
	Published  int
	RatingSum  int
	Ratings    [5]int
	WithMedia  int
	Decided    int
	DecidedMs  int64
	Decided24h int
}

const qReviewSums = `sum(received), sum(imported), sum(published), sum(rating_sum), sum(rating_1), sum(rating_2), sum(rating_3),
	sum(rating_4), sum(rating_5), sum(with_media), sum(decided), sum(decided_ms), sum(decided_24h)`

// ReviewDays sums the review figures of each UTC day in [from, to) (day numbers).
func (q *Q) ReviewDays(ctx context.Context, s FigureScope, from, to int64) ([]ReviewSlot, error) {
	return q.reviewSlots(ctx, `SELECT day * 86400000, `+qReviewSums+` FROM review_days
		WHERE day >= ? AND day < ? AND `+qScope+` GROUP BY day ORDER BY day`, append([]any{from, to}, s.args()...)...)
}

// ReviewHoursOf sums the review figures of each hour of the UTC days listed (day
// numbers).
func (q *Q) ReviewHoursOf(ctx context.Context, s FigureScope, days []int64) ([]ReviewSlot, error) {
	if len(days) == 0 {
		return nil, nil
	}
	return q.reviewSlots(ctx, `WITH d(day) AS (SELECT value FROM json_each(?))
		SELECT hour * 3600000, `+qReviewSums+` FROM d CROSS JOIN review_figures ON hour >= d.day * 24 AND hour < d.day * 24 + 24
		WHERE `+qScope+` GROUP BY hour ORDER BY hour`, append([]any{dayList(days)}, s.args()...)...)
}

func dayList(days []int64) string {
	b := make([]byte, 0, len(days)*7+2)
	b = append(b, '[')
	for i, d := range days {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	return string(append(b, ']'))
}

func (q *Q) reviewSlots(ctx context.Context, query string, args ...any) ([]ReviewSlot, error) {
	rows, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []ReviewSlot
	for rows.Next() {
		var h ReviewSlot
		if err := rows.Scan(&h.Start, &h.Received, &h.Imported, &h.Published, &h.RatingSum, &h.Ratings[0], &h.Ratings[1],
			&h.Ratings[2], &h.Ratings[3], &h.Ratings[4], &h.WithMedia, &h.Decided, &h.DecidedMs, &h.Decided24h); err != nil {
			return nil, translate(err)
		}
		out = append(out, h)
	}
	return out, translate(rows.Err())
}

// InviteSlot is the invitation figures of one hour or day (Start, ms).
type InviteSlot struct {
	Start    int64
	Sent     int
	Opened   int
	Reviewed int
}

// InviteDays sums the invitation figures of each UTC day in [from, to).
func (q *Q) InviteDays(ctx context.Context, s FigureScope, from, to int64) ([]InviteSlot, error) {
	return q.inviteSlots(ctx, `SELECT day * 86400000, sum(sent), sum(opened), sum(reviewed) FROM invite_days
		WHERE day >= ? AND day < ? AND `+qScope+` GROUP BY day ORDER BY day`, append([]any{from, to}, s.args()...)...)
}

// InviteHoursOf sums the invitation figures of each hour of the UTC days listed.
func (q *Q) InviteHoursOf(ctx context.Context, s FigureScope, days []int64) ([]InviteSlot, error) {
	if len(days) == 0 {
		return nil, nil
	}
	return q.inviteSlots(ctx, `WITH d(day) AS (SELECT value FROM json_each(?))
		SELECT hour * 3600000, sum(sent), sum(opened), sum(reviewed) FROM d CROSS JOIN invite_figures ON hour >= d.day * 24 AND hour < d.day * 24 + 24
		WHERE `+qScope+` GROUP BY hour ORDER BY hour`, append([]any{dayList(days)}, s.args()...)...)
}

func (q *Q) inviteSlots(ctx context.Context, query string, args ...any) ([]InviteSlot, error) {
	rows, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []InviteSlot
	for rows.Next() {
		var h InviteSlot
		if err := rows.Scan(&h.Start, &h.Sent, &h.Opened, &h.Reviewed); err != nil {
			return nil, translate(err)
		}
		out = append(out, h)
	}
	return out, translate(rows.Err())
}

// Waiting is the moderation queue: reviews awaiting approval, those submitted
// before a limit, and the oldest submission time (zero when none waits).
// WaitingReviews gives it.
type Waiting struct {
	Count  int
	Older  int
	Oldest time.Time
}

// WaitingReviews reads the queue of scope from the figures: the pending count per
// day, the days before before's day, the reviews of before's day submitted before it,
// and the oldest submission (its hour from the figures, the time from the few
// reviews of that hour).
func (q *Q) WaitingReviews(ctx context.Context, s FigureScope, before time.Time) (Waiting, error) {
	var w Waiting
	var oldestDay sql.NullInt64
	cut := Ms(before) / DayMs
	err := q.c.QueryRowContext(ctx, `SELECT coalesce(sum(pending), 0), coalesce(sum(CASE WHEN day < ? THEN pending ELSE 0 END), 0),
			min(CASE WHEN pending > 0 THEN day END)
		FROM review_days WHERE `+qScope, append([]any{cut}, s.args()...)...).Scan(&w.Count, &w.Older, &oldestDay)
	if err != nil || w.Count == 0 {
		return w, translate(err)
	}
	var n int
	err = q.c.QueryRowContext(ctx, `SELECT count(*) FROM reviews WHERE state = 'pending' AND submitted_at >= ? AND submitted_at < ? AND `+qScope,
		append([]any{cut * DayMs, Ms(before)}, s.args()...)...).Scan(&n)
	if err != nil {
		return w, translate(err)
	}
	w.Older += n
	if !oldestDay.Valid {
		return w, nil
	}
	var hour sql.NullInt64
	err = q.c.QueryRowContext(ctx, `SELECT min(hour) FROM review_figures WHERE hour >= ? AND hour < ? AND pending > 0 AND `+qScope,
		append([]any{oldestDay.Int64 * 24, oldestDay.Int64*24 + 24}, s.args()...)...).Scan(&hour)
	if err != nil || !hour.Valid {
		return w, translate(err)
	}
	var oldest sql.NullInt64
	err = q.c.QueryRowContext(ctx, `SELECT min(submitted_at) FROM reviews WHERE state = 'pending' AND submitted_at >= ? AND submitted_at < ? AND `+qScope,
		append([]any{hour.Int64 * HourMs, (hour.Int64 + 1) * HourMs}, s.args()...)...).Scan(&oldest)
	w.Oldest = NullTime(oldest)
	return w, translate(err)
}

// TopProduct is one product's figures in one market.
type TopProduct struct {
	ProductKey string
	Market     string
	Name       string
	Reviews    int
	RatingSum  int
}

// TopProducts lists the variants with the most published reviews (in market, or
// product-market pairs across every market).
func (q *Q) TopProducts(ctx context.Context, market string, limit int) ([]TopProduct, error) {
	// Ordered by the index alone (ties in index order), so only limit rows are read.
	query := `SELECT product_key, market, product_name, reviews, rating_sum FROM product_stats
		WHERE scope = 'variant' ORDER BY reviews DESC LIMIT ?`
	args := []any{limit}
	if market != "" {
		query = `SELECT product_key, market, product_name, reviews, rating_sum FROM product_stats
		WHERE scope = 'variant' AND market = ? ORDER BY reviews DESC LIMIT ?`
		args = []any{market, limit}
	}
	rows, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []TopProduct
	for rows.Next() {
		var p TopProduct
		if err := rows.Scan(&p.ProductKey, &p.Market, &p.Name, &p.Reviews, &p.RatingSum); err != nil {
			return nil, translate(err)
		}
		if p.Reviews > 0 {
			out = append(out, p)
		}
	}
	return out, translate(rows.Err())
}

// Topic is a word of published reviews with the number of reviews containing it.
type Topic struct {
	Word    string
	Reviews int
}

// TopTopics lists the most frequent words in market ("" for every market).
func (q *Q) TopTopics(ctx context.Context, market string, limit int) ([]Topic, error) {
	rows, err := q.c.QueryContext(ctx, `SELECT form, reviews FROM topic_figures WHERE market = ? AND reviews > 0
		ORDER BY reviews DESC LIMIT ?`, market, limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	var out []Topic
	for rows.Next() {
		var t Topic
		if err := rows.Scan(&t.Word, &t.Reviews); err != nil {
			return nil, translate(err)
		}
		out = append(out, t)
	}
	return out, translate(rows.Err())
}

// SiteCalls is a channel's transfer figures: calls and refused calls since an
// hour, and the newest call ever (zero when none).
type SiteCalls struct {
	Calls   int
	Refused int
	LastAt  time.Time
}

// SiteFigures reads the transfer figures of the channel code since hour.
func (q *Q) SiteFigures(ctx context.Context, channel string, since int64) (SiteCalls, error) {
	var c SiteCalls
	var last sql.NullInt64
	err := q.c.QueryRowContext(ctx, `SELECT coalesce(sum(calls), 0), coalesce(sum(refused), 0),
			(SELECT last_at FROM site_figures WHERE channel = ? ORDER BY hour DESC LIMIT 1)
		FROM site_figures WHERE channel = ? AND hour >= ?`, channel, channel, since).Scan(&c.Calls, &c.Refused, &last)
	c.LastAt = NullTime(last)
	return c, translate(err)
}

// MarketplaceAttention counts the marketplace connections (of channelID, or all
// with 0) whose newest read ended in state (held or failed), with the newest end.
func (q *Q) MarketplaceAttention(ctx context.Context, channelID int64, state string) (int, time.Time, error) {
	var n int
	var at sql.NullInt64
	err := q.c.QueryRowContext(ctx, `SELECT count(*), max(coalesce(r.finished_at, r.created_at)) FROM marketplace_sources s
		JOIN marketplace_runs r ON r.id = (SELECT max(id) FROM marketplace_runs WHERE source_id = s.id)
		WHERE r.state = ? AND (? = 0 OR s.channel_id = ?)`, state, channelID, channelID).Scan(&n, &at)
	return n, NullTime(at), translate(err)
}
