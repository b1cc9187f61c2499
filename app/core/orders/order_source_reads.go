package orders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// Triggers of a read (order_source_runs.trigger).
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// Why a read ended before reading every changed order.
const (
	StopPageLimit = "page_limit"
	StopThrottled = "throttled"
)

// readLease bounds one read: its lease lasts a little longer than the read may.
const (
	readTimeout   = 30 * time.Minute
	readLease     = readTimeout + time.Minute
	runsRetention = 90 * 24 * time.Hour
	sampleSize    = 5
)

// ReadReport is the report of one read, kept as the connection's last_report and in
// the connection log.
type ReadReport struct {
	// Orders is how many orders were saved; Read how many the platform returned.
	Orders   int            `json:"orders"`
	Read     int            `json:"read"`
	Pages    int            `json:"pages"`
	Complete bool           `json:"complete"`
	Stopped  string         `json:"stopped,omitempty"`
	Skipped  map[string]int `json:"skipped"`
	Since    string         `json:"since"`
	// RatingFields is the write of the store's product rating fields after the
	// read (platforms that have them, Shopify).
	RatingFields *RatingFieldsReport `json:"rating_fields,omitempty"`
}

// OrderSourceCheck is the answer of a dry run (spec 3): orders that would be saved,
// whether the first page held every changed order, skip counts and a sample without
// e-mail addresses.
type OrderSourceCheck struct {
	Orders   int            `json:"orders"`
	Complete bool           `json:"complete"`
	Skipped  map[string]int `json:"skipped"`
	Sample   []SampleOrder  `json:"sample"`
}

// SampleOrder is one order of a dry run's sample.
type SampleOrder struct {
	ExternalID   string   `json:"external_id"`
	PlacedAt     string   `json:"placed_at"`
	PaymentState string   `json:"payment_state"`
	Lines        int      `json:"lines"`
	States       []string `json:"states"`
	HasEmail     bool     `json:"has_email"`
}

// readSpec is one read to do.
type readSpec struct {
	def      PlatformDef
	reader   PlatformReader
	baseURL  string
	remote   string
	creds    map[string]string
	since    time.Time
	maxPages int
	// channel receives the orders; nil in a dry run without a channel (mapping
	// only).
	channel *store.Channel
	dry     bool
	// ratingSource, when set, is the stored connection whose products (the lines'
	// group keys) are recorded for its product rating fields.
	ratingSource int64
}

type readResult struct {
	report   ReadReport
	position time.Time // change time of the last order read
	sample   []SampleOrder
}

// readPlatform runs one read: page by page through the platform reader, each
// readable order saved by SaveOrders in its own transaction (rolled back in a dry
// run), so a refused order is counted and the others are kept.
func (c *Service) readPlatform(ctx context.Context, a *core.Actor, rs readSpec) (readResult, error) {
	res := readResult{report: ReadReport{Skipped: map[string]int{}, Since: rfc3339(rs.since)}}
	if !rs.def.complete(rs.creds) {
		return res, Failure(rs.def.missing, nil)
	}
	req := PlatformRead{Client: c.Outbound, BaseURL: rs.baseURL, RemoteChannel: rs.remote, Credentials: rs.creds,
		Since: rs.since, PageSize: rs.def.PageSize}
	rep := &res.report
	err := rs.reader.Read(ctx, req, func(pg PlatformPage) (bool, error) {
		rep.Pages++
		for _, po := range pg.Orders {
			rep.Read++
			for k, n := range po.Skipped {
				rep.Skipped[k] += n
			}
			if po.ChangedAt.After(res.position) {
				res.position = po.ChangedAt
			}
			if po.Skip != "" {
				rep.Skipped[po.Skip]++
				continue
			}
			in := sanitizeOrder(po.Order, rep.Skipped)
			if len(in.Items) == 0 {
				rep.Skipped[SkipOrderWithoutLines]++
				continue
			}
			saved, err := c.savePlatformOrder(ctx, a, rs, in)
			if err != nil {
				return false, err
			}
			if !saved {
				rep.Skipped[SkipOrderRefused]++
				continue
			}
			rep.Orders++
			if len(res.sample) < sampleSize {
				res.sample = append(res.sample, sampleOf(in))
			}
		}
		if !pg.More {
			rep.Complete = true
			return false, nil
		}
		if rep.Pages >= rs.maxPages {
			if !rs.dry {
				rep.Stopped = StopPageLimit
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		if FailureCode(err) == FailThrottled && rep.Pages > 0 {
			rep.Stopped = StopThrottled
			return res, nil
		}
		return res, err
	}
	return res, nil
}

// errOtherChannel refuses an order whose number is stored under another channel.
var errOtherChannel = core.Invalid("order_channel_taken")

// savePlatformOrder saves one order read from a platform through SaveOrders, the
// path of ingested orders. It reports false when the order is refused (a *Error
// from the order rules); other errors end the read.
func (c *Service) savePlatformOrder(ctx context.Context, a *core.Actor, rs readSpec, in OrderInput) (bool, error) {
	if rs.channel == nil {
		return true, nil
	}
	in.Channel, in.Market = rs.channel.Code, ""
	save := func(tx *store.Tx) error {
		// Order numbers are unique brand-wide; an order of another channel with the
		// same number is never moved over by a platform read.
		stored, err := tx.OrdersByExternalIDs(ctx, []string{strings.TrimSpace(in.ExternalID)})
		if err != nil {
			return err
		}
		if len(stored) > 0 && stored[0].ChannelID != rs.channel.ID {
			return errOtherChannel
		}
		if _, err = c.SaveOrders(ctx, tx, a, OrderRequest{Orders: []OrderInput{in}}); err != nil || rs.ratingSource == 0 {
			return err
		}
		return tx.AddRatingProducts(ctx, rs.ratingSource, groupKeys(in))
	}
	var err error
	if rs.dry {
		err = c.dryRun(ctx, save)
	} else {
		err = c.DB.WithTx(ctx, save)
	}
	var refused *core.Error
	if errors.As(err, &refused) {
		return false, nil
	}
	return err == nil, err
}

// sanitizeOrder makes a mapped order fit the order rules where the platform's data
// is merely untidy: an unusable e-mail address, phone, language or customer key is
// dropped (no e-mail means no invitation), titles lose control characters and are
// cut to 300 characters, and lines whose identifiers cannot be stored are skipped
// (line_incomplete).
func sanitizeOrder(in OrderInput, skipped map[string]int) OrderInput {
	in.CustomerEmail = strings.TrimSpace(in.CustomerEmail)
	if in.CustomerEmail != "" && (utf8.RuneCountInString(in.CustomerEmail) > core.MaxEmailLen || !core.StorableText(in.CustomerEmail) ||
		!orderEmail(in.CustomerEmail)) {
		in.CustomerEmail = ""
	}
	if p := strings.TrimSpace(in.CustomerPhone); utf8.RuneCountInString(p) > core.MaxPhoneLen || !core.StorableText(p) {
		in.CustomerPhone = ""
	}
	if k := strings.TrimSpace(in.CustomerKey); utf8.RuneCountInString(k) > core.MaxIDLen || !core.StorableText(k) {
		in.CustomerKey = ""
	}
	if in.Language != "tr" && in.Language != "en" {
		in.Language = ""
	}
	lines := make([]LineInput, 0, len(in.Items))
	for _, l := range in.Items {
		if !idOK(l.LineReference) || !idOK(l.VariantKey) {
			skipped[SkipLineIncomplete]++
			continue
		}
		if !idOK(l.GroupKey) {
			l.GroupKey = ""
		}
		if !idOK(l.CatalogID) {
			l.CatalogID = ""
		}
		l.Title = cleanTitle(l.Title)
		lines = append(lines, l)
	}
	in.Items = lines
	return in
}

func idOK(s string) bool {
	s = strings.TrimSpace(s)
	return utf8.RuneCountInString(s) <= core.MaxIDLen && core.StorableText(s)
}

func cleanTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return core.TruncateRunes(strings.TrimSpace(s), core.MaxTitleLen)
}

func sampleOf(in OrderInput) SampleOrder {
	s := SampleOrder{ExternalID: strings.TrimSpace(in.ExternalID), PaymentState: in.PaymentState, Lines: len(in.Items),
		States: make([]string, 0, len(in.Items)), HasEmail: in.CustomerEmail != ""}
	if t, ok := core.ParseTimestamp(in.PlacedAt); ok {
		s.PlacedAt = rfc3339(t)
	}
	for _, l := range in.Items {
		st := l.FulfilmentState
		if st == "" {
			st = core.LinePlaced
		}
		s.States = append(s.States, st)
	}
	return s
}

// readSince is where a connection's next read starts: backfill_days before now on
// the first read, else ReadMargin before the stored position.
func readSince(s store.OrderSource, now time.Time) time.Time {
	if s.CursorAt.IsZero() {
		return now.AddDate(0, 0, -s.BackfillDays)
	}
	return s.CursorAt.Add(-ReadMargin)
}

// nextPosition is the position after a read that was not failed: the read's start
// when every changed order was read, else the change time of the last order read.
// When the margin would send the next read back to where this one began (a burst of
// orders changed within the margin), the next read starts at that change time.
func nextPosition(since, started time.Time, r readResult) time.Time {
	if r.report.Stopped == "" {
		return started
	}
	if r.position.IsZero() {
		return time.Time{} // nothing read: keep the position
	}
	if !r.position.Add(-ReadMargin).After(since) {
		return r.position.Add(ReadMargin)
	}
	return r.position
}

// ReadOutcome is what ReadOrderSource did.
type ReadOutcome struct {
	Skipped bool // another read holds the connection, or it may not read
	Failed  bool
	Error   string
	Report  ReadReport
}

// ReadOrderSource reads one connection now: the order-sources job's work for a due
// connection and the manual read's. One read runs at a time per connection (a lease
// in the leases table); a paused connection or one of a channel that is off does
// not read. A failed read keeps the position and records its failure code as
// last_error; the next read is due one interval after this one started either way.
func (c *Service) ReadOrderSource(ctx context.Context, id int64, now time.Time, trigger string) (ReadOutcome, error) {
	lease, holder := "order-source:"+fmt.Sprint(id), core.RandomToken(12)
	var claimed bool
	if err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		claimed, err = tx.ClaimLease(ctx, lease, holder, tx.Now.Add(readLease))
		return err
	}); err != nil {
		return ReadOutcome{}, err
	}
	if !claimed {
		return ReadOutcome{Skipped: true}, nil
	}
	// The outcome is written and the lease given back even when ctx ends (a
	// shutdown or the job's time limit).
	bg := context.WithoutCancel(ctx)
	defer func() {
		_ = c.DB.WithTx(bg, func(tx *store.Tx) error { return tx.ReleaseLease(bg, lease, holder) })
	}()
	s, err := c.DB.Read().OrderSourceByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return ReadOutcome{Skipped: true}, nil
	} else if err != nil {
		return ReadOutcome{}, err
	}
	if !s.Enabled || !s.ChannelActive {
		return ReadOutcome{Skipped: true}, nil
	}
	// Due again before the read starts, in its own write: a read that takes the
	// process down is not repeated at every start.
	next := now.Add(time.Duration(s.IntervalMinutes) * time.Minute)
	if err := c.DB.WithTx(ctx, func(tx *store.Tx) error { return tx.DeferOrderSource(ctx, s.ID, next) }); err != nil {
		return ReadOutcome{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	since := readSince(s, now)
	res, rerr := c.readSource(rctx, core.System("order-sources"), s, since, false)
	if rerr == nil && res.report.Read > 0 && res.report.Orders == 0 {
		rerr = Failure(FailNothingSaved, nil) // none of the orders read could be saved
	}
	res.report.Since = rfc3339(since)
	out := ReadOutcome{Report: res.report}
	fin := store.OrderSourceRead{LastRunAt: now, NextRunAt: next}
	run := store.OrderSourceRun{SourceID: s.ID, Platform: s.Platform, Channel: s.ChannelCode, Trigger: trigger,
		StartedAt: now, Orders: res.report.Orders, Outcome: "ok"}
	if rerr != nil {
		out.Failed, out.Error = true, FailureCode(rerr)
		fin.Failed, fin.LastError = true, out.Error
		run.Outcome, run.Error = "failed", out.Error
		if out.Error == FailUnexpected {
			c.Log.Warn("order connection read failed", "connection", OrderSourcePublicID(s.ID), "err", rerr)
		}
	} else {
		res.report.RatingFields = c.writeRatingFields(rctx, s)
		fin.CursorAt = nextPosition(since, now, res)
		if res.report.Stopped != "" {
			run.Outcome = "partial"
		}
	}
	rep, _ := json.Marshal(res.report)
	fin.LastReport, run.Report = string(rep), string(rep)
	err = c.DB.WithTx(bg, func(tx *store.Tx) error {
		run.FinishedAt = tx.Now
		if run.FinishedAt.Before(now) {
			run.FinishedAt = now
		}
		if err := tx.FinishOrderSourceRead(bg, s.ID, fin); err != nil {
			return err
		}
		return tx.AddOrderSourceRun(bg, run)
	})
	if err == nil {
		c.alertAfterRead(bg, s, out, now)
	}
	return out, err
}

// readSource reads a stored connection with its stored credentials.
func (c *Service) readSource(ctx context.Context, a *core.Actor, s store.OrderSource, since time.Time, dry bool) (readResult, error) {
	def, ok := platformDef(s.Platform)
	reader, has := c.Platforms.Reader(s.Platform)
	if !ok || !has {
		return readResult{report: ReadReport{Skipped: map[string]int{}}}, Failure(FailUnexpected, errors.New("no reader for "+s.Platform))
	}
	creds, err := c.openCredentials(s.CredentialsEnc)
	if err != nil {
		return readResult{report: ReadReport{Skipped: map[string]int{}}}, err
	}
	ch, err := c.DB.Read().ChannelByID(ctx, s.ChannelID)
	if err != nil {
		return readResult{report: ReadReport{Skipped: map[string]int{}}}, err
	}
	maxPages := def.MaxPages
	if dry {
		maxPages = 1
	}
	rs := readSpec{def: def, reader: reader, baseURL: s.BaseURL, remote: s.RemoteChannel,
		creds: creds, since: since, maxPages: maxPages, channel: &ch, dry: dry}
	if _, ok := reader.(RatingWriter); ok && !dry {
		rs.ratingSource = s.ID
	}
	return c.readPlatform(ctx, a, rs)
}

// OrderSourcesRun is the summary of one order-sources job run.
type OrderSourcesRun struct {
	Due, Read, Failed, Skipped, Orders int
}

func (r OrderSourcesRun) String() string {
	return fmt.Sprintf("due=%d read=%d failed=%d skipped=%d orders=%d", r.Due, r.Read, r.Failed, r.Skipped, r.Orders)
}

// RunOrderSources reads every due connection at now, one after the other (the
// order-sources job), and prunes connection-log rows older than 90 days.
func (c *Service) RunOrderSources(ctx context.Context, now time.Time) (OrderSourcesRun, error) {
	var run OrderSourcesRun
	due, err := c.DB.Read().DueOrderSources(ctx, now)
	if err != nil {
		return run, err
	}
	run.Due = len(due)
	for _, s := range due {
		if ctx.Err() != nil {
			break
		}
		out, err := c.ReadOrderSource(ctx, s.ID, now, TriggerSchedule)
		if err != nil {
			return run, err
		}
		switch {
		case out.Skipped:
			run.Skipped++
		case out.Failed:
			run.Failed++
		default:
			run.Read++
		}
		run.Orders += out.Report.Orders
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.DeleteOrderSourceRunsBefore(ctx, now.Add(-runsRetention))
		return err
	})
	return run, err
}

// checkAnswer turns a dry-run result into the answer, or a failure into 400
// platform_refused / <code>.
func checkAnswer(res readResult, err error) (OrderSourceCheck, error) {
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) {
			return OrderSourceCheck{}, err
		}
		if FailureCode(err) == FailUnexpected {
			var f *ReadFailure
			if !errors.As(err, &f) {
				return OrderSourceCheck{}, err // a database failure: 500
			}
		}
		return OrderSourceCheck{}, PlatformRefused(FailureCode(err))
	}
	out := OrderSourceCheck{Orders: res.report.Orders, Complete: res.report.Complete, Skipped: res.report.Skipped,
		Sample: res.sample}
	if out.Sample == nil {
		out.Sample = []SampleOrder{}
	}
	return out, nil
}

func (c *Service) recordTry(ctx context.Context, a *core.Actor, targetID string, detail map[string]any, err error, res readResult) error {
	detail["outcome"] = "ok"
	if err != nil {
		detail["outcome"] = FailureCode(err)
	}
	detail["orders"] = res.report.Orders
	bg := context.WithoutCancel(ctx)
	return c.DB.WithTx(bg, func(tx *store.Tx) error {
		return c.Record(bg, tx, a, ActOrderSourceTried, "order_source", targetID, detail)
	})
}

// CheckOrderSource is the dry run of an unsaved connection (POST
// /admin/v1/order-sources/check): the same body as a set-up, channel optional. It
// reads the first page of the first read (orders changed within backfill_days) and
// saves nothing; with a channel each order also runs through the order rules in a
// rolled-back transaction. Failures answer 400 platform_refused / <code>.
func (c *Service) CheckOrderSource(ctx context.Context, a *core.Actor, raw map[string]json.RawMessage) (OrderSourceCheck, error) {
	f, err := c.parseSourceBody(ctx, c.DB.Read(), sourceBody(raw), "")
	if err != nil {
		return OrderSourceCheck{}, err
	}
	if !f.hasBaseURL {
		return OrderSourceCheck{}, core.Invalid("base_url_required")
	}
	if f.def.Code == PlatformMagento && !f.hasRemote {
		return OrderSourceCheck{}, core.Invalid("remote_channel_required")
	}
	reader, ok := c.Platforms.Reader(f.def.Code)
	if !ok {
		return OrderSourceCheck{}, PlatformRefused(FailUnexpected)
	}
	backfill := DefaultBackfillDays
	if f.hasBackfill {
		backfill = f.backfill
	}
	creds := map[string]string{}
	for k, v := range f.creds {
		if v != "" {
			creds[k] = v
		}
	}
	rs := readSpec{def: f.def, reader: reader, baseURL: f.baseURL, remote: f.remoteChannel, creds: creds,
		since: c.Now().AddDate(0, 0, -backfill), maxPages: 1, dry: true}
	if f.hasChannel {
		rs.channel = &f.channel
	}
	rctx, cancel := context.WithTimeout(ctx, 2*PlatformTimeout)
	defer cancel()
	res, rerr := c.readPlatform(rctx, a, rs)
	detail := map[string]any{"platform": f.def.Code, "base_url": f.baseURL}
	if f.hasChannel {
		detail["channel"] = f.channel.Code
	}
	if err := c.recordTry(ctx, a, "", detail, rerr, res); err != nil {
		return OrderSourceCheck{}, err
	}
	return checkAnswer(res, rerr)
}

// CheckSavedOrderSource is the dry run of a saved connection (POST
// /admin/v1/order-sources/<id>/check): the first page of its next read, with its
// saved details and channel, saving nothing and leaving the position alone.
func (c *Service) CheckSavedOrderSource(ctx context.Context, a *core.Actor, id string) (OrderSourceCheck, error) {
	s, err := c.orderSourceByPublicID(ctx, c.DB.Read(), id)
	if err != nil {
		return OrderSourceCheck{}, err
	}
	// A saved address the platform's host rule refuses (stored before the rule
	// applied at set-up) is refused again, before any request.
	if def, ok := platformDef(s.Platform); ok {
		if err := def.checkHost(s.BaseURL); err != nil {
			return OrderSourceCheck{}, err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 2*PlatformTimeout)
	defer cancel()
	res, rerr := c.readSource(rctx, a, s, readSince(s, c.Now()), true)
	detail := map[string]any{"platform": s.Platform, "channel": s.ChannelCode, "base_url": s.BaseURL}
	if err := c.recordTry(ctx, a, OrderSourcePublicID(s.ID), detail, rerr, res); err != nil {
		return OrderSourceCheck{}, err
	}
	return checkAnswer(res, rerr)
}
