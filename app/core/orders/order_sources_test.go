package orders_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/platform/platformtest"
	"reviewd/store"
)

// srcStart is the test clock's start (apptest): 2026-06-01T10:00:00Z.
var srcStart = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

// srcEnv is an installation with a TR channel web-tr and order connections read
// from platform fakes.
type srcEnv struct {
	t   *testing.T
	env *apptest.Env
	c   *orders.Service
	ctx context.Context
}

func newSrcEnv(t *testing.T) *srcEnv {
	t.Helper()
	env := apptest.New(t, nil)
	env.Channel("web-tr", "TR", "tr")
	return &srcEnv{t: t, env: env, c: env.App.Orders, ctx: context.Background()}
}

// panelOwner is a signed-in panel owner (connections are managed in the panel).
func panelOwner() *core.Actor {
	return &core.Actor{Via: core.ViaSession, ID: "1", Name: "owner", Role: "owner", Perms: core.PermsOfRole("owner")}
}

func rawBody(t *testing.T, fields map[string]any) map[string]json.RawMessage {
	t.Helper()
	m := map[string]json.RawMessage{}
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		m[k] = b
	}
	return m
}

func (e *srcEnv) create(fields map[string]any) orders.OrderSourceView {
	e.t.Helper()
	v, err := e.c.CreateOrderSource(e.ctx, panelOwner(), rawBody(e.t, fields))
	if err != nil {
		e.t.Fatalf("create %v: %v", fields, err)
	}
	return v
}

func (e *srcEnv) shopify() (*platformtest.Shopify, orders.OrderSourceView) {
	e.t.Helper()
	s := platformtest.StartShopify(e.t)
	e.c.Outbound = s.Client
	v := e.create(map[string]any{"platform": "shopify", "channel": "web-tr", "base_url": platformtest.ShopifyHost,
		"client_id": s.ClientID, "client_secret": s.ClientSecret})
	return s, v
}

// run runs the order-sources job at at.
func (e *srcEnv) run(at time.Time) orders.OrderSourcesRun {
	e.t.Helper()
	e.env.Clock.T = at
	r, err := e.c.RunOrderSources(e.ctx, at)
	if err != nil {
		e.t.Fatalf("run: %v", err)
	}
	return r
}

func (e *srcEnv) source(id string) orders.OrderSourceView {
	e.t.Helper()
	v, err := e.c.OrderSource(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

func (e *srcEnv) report(v orders.OrderSourceView) orders.ReadReport {
	e.t.Helper()
	var r orders.ReadReport
	if err := json.Unmarshal(v.LastReport, &r); err != nil {
		e.t.Fatalf("last_report %s: %v", v.LastReport, err)
	}
	return r
}

func (e *srcEnv) count(query string) int {
	e.t.Helper()
	var n int
	if err := e.c.DB.Read().QueryRowForTest(e.ctx, query, &n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *srcEnv) order(ext string) (store.Order, map[string]store.OrderLine) {
	e.t.Helper()
	q := e.c.DB.Read()
	o, err := q.OrderByExternalID(e.ctx, ext)
	if err != nil {
		e.t.Fatalf("order %s: %v", ext, err)
	}
	lines, err := q.LinesOfOrder(e.ctx, o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	m := map[string]store.OrderLine{}
	for _, l := range lines {
		m[l.LineReference] = l
	}
	return o, m
}

func (e *srcEnv) log() []orders.ConnectionLogRow {
	e.t.Helper()
	l, err := e.c.ListConnectionLog(e.ctx, orders.ConnectionLogFilter{ListQuery: core.ListQuery{Page: 1, PageSize: 100, Sort: "oldest"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return l.Items
}

func ptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestFirstReadWithBackfill: the first read asks for orders changed within
// backfill_days, saves every readable order through the order rules, counts the
// skip keys and moves the position to the read's start.
func TestFirstReadWithBackfill(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	r := e.run(srcStart)
	if r.Due != 1 || r.Read != 1 || r.Orders != 12 {
		t.Fatalf("run = %+v", r)
	}
	g := s.GraphQLRequests()
	if len(g) != 1 || g[0].Variables.Query != "updated_at:>='2026-05-02T10:00:00Z'" {
		t.Fatalf("requests = %+v", g)
	}
	v := e.source(src.ID)
	if ptr(v.LastRunAt) != "2026-06-01T10:00:00Z" || v.LastError != nil || ptr(v.NextRunAt) != "2026-06-01T10:15:00Z" || v.Failures != 0 {
		t.Fatalf("connection = %+v", v)
	}
	want := orders.ReadReport{Orders: 12, Read: 16, Pages: 1, Complete: true, Since: "2026-05-02T10:00:00Z", Skipped: map[string]int{
		orders.SkipStatusUnknown: 2, orders.SkipOrderIncomplete: 2, orders.SkipLineIncomplete: 2, orders.SkipOrderWithoutLines: 1,
		orders.SkipLinesTruncated: 1}}
	if diff := cmp.Diff(want, e.report(v)); diff != "" {
		t.Fatalf("last_report (-want +got):\n%s", diff)
	}
	if n := e.count(`SELECT count(*) FROM orders`); n != 12 {
		t.Fatalf("orders = %d", n)
	}
	o, lines := e.order("#1001")
	if o.PaymentState != "paid" || o.Market != "TR" || o.Language != "en" || o.CustomerEmail != "ann.yilmaz@mail.example" ||
		!o.PlacedAt.Equal(time.Date(2026, 5, 20, 8, 15, 2, 0, time.UTC)) {
		t.Fatalf("#1001 = %+v", o)
	}
	if l := lines["13001"]; l.FulfilmentState != "delivered" || !l.DeliveredAt.Equal(time.Date(2026, 5, 25, 16, 40, 0, 0, time.UTC)) ||
		l.VariantKey != "MUG-RED" || l.GroupKey != "3301" || l.Quantity != 2 || l.Title != "Stoneware mug - Red" {
		t.Fatalf("line 13001 = %+v", l)
	}
	// A delivered line gets its verified delivery record, as for ingested orders.
	if n := e.count(`SELECT count(*) FROM deliveries d JOIN order_lines l ON l.id = d.line_id WHERE l.line_reference = '13001' AND d.state = 'delivered' AND d.source = 'platform'`); n != 1 {
		t.Fatalf("delivery records of 13001 = %d", n)
	}
	if o, _ := e.order("#1003"); o.Language != "tr" { // de-DE is not a service language: the channel's
		t.Fatalf("#1003 language %q", o.Language)
	}
	if o, lines := e.order("#1016"); o.CustomerEmail != "" || len(lines) != 50 { // unusable address dropped
		t.Fatalf("#1016 = %+v, %d lines", o, len(lines))
	}
	if o, lines := e.order("#1005"); o.PaymentState != "partially_refunded" || lines["13007"].FulfilmentState != "returned" ||
		lines["13008"].FulfilmentState != "cancelled" {
		t.Fatalf("#1005 = %+v %+v", o, lines)
	}
	log := e.log()
	if len(log) != 1 || log[0].Outcome != "ok" || log[0].Orders != 12 || log[0].Trigger != "schedule" || log[0].Connection != src.ID {
		t.Fatalf("connection log = %+v", log)
	}
}

// TestIncrementalReadWithMargin: a later read is due one interval after the last
// and reads orders changed since 10 minutes before the last read started; saving
// an order again updates it.
func TestIncrementalReadWithMargin(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	e.run(srcStart)
	if r := e.run(srcStart.Add(14 * time.Minute)); r.Due != 0 {
		t.Fatalf("read before the interval: %+v", r)
	}
	// #1002 is paid and shipped meanwhile.
	o := platformtest.ShopifyOrder(2, srcStart.Add(-240*time.Hour), srcStart.Add(5*time.Minute))
	o["name"] = "#1002"
	o["lineItems"].(map[string]any)["nodes"].([]any)[0].(map[string]any)["id"] = "gid://shopify/LineItem/13003"
	s.AddOrders(o)
	s.Reset()
	r := e.run(srcStart.Add(16 * time.Minute))
	if r.Read != 1 || r.Orders != 1 {
		t.Fatalf("second run = %+v", r)
	}
	g := s.GraphQLRequests()
	if len(g) != 1 || g[0].Variables.Query != "updated_at:>='2026-06-01T09:50:00Z'" {
		t.Fatalf("requests = %+v", g)
	}
	if o, _ := e.order("#1002"); o.PaymentState != "paid" {
		t.Fatalf("#1002 = %+v", o)
	}
	v := e.source(src.ID)
	if ptr(v.NextRunAt) != "2026-06-01T10:31:00Z" || e.report(v).Since != "2026-06-01T09:50:00Z" {
		t.Fatalf("connection = %+v", v)
	}
	// Changing the interval reschedules from the last read.
	if _, err := e.c.UpdateOrderSource(e.ctx, panelOwner(), src.ID, rawBody(t, map[string]any{"interval_minutes": 60})); err != nil {
		t.Fatal(err)
	}
	if v := e.source(src.ID); ptr(v.NextRunAt) != "2026-06-01T11:16:00Z" {
		t.Fatalf("next_run_at = %v", ptr(v.NextRunAt))
	}
}

func shopifyOrders(n int, from time.Time) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		at := from.Add(time.Duration(i) * time.Minute)
		out[i] = platformtest.ShopifyOrder(i+1, at, at)
	}
	return out
}

// TestPageLimitAndResume: a read stops after 50 pages of 25 orders; the next read
// continues from the change time of the last order read, with the margin.
func TestPageLimitAndResume(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	from := srcStart.Add(-25 * 24 * time.Hour)
	s.SetOrders(shopifyOrders(1300, from))
	e.run(srcStart)
	v := e.source(src.ID)
	rep := e.report(v)
	if rep.Pages != 50 || rep.Orders != 1250 || rep.Complete || rep.Stopped != orders.StopPageLimit || v.LastError != nil {
		t.Fatalf("first read = %+v", rep)
	}
	if n := len(s.GraphQLRequests()); n != 50 {
		t.Fatalf("graphql requests = %d", n)
	}
	last := from.Add(1249 * time.Minute) // change time of the 1250th order
	s.Reset()
	e.run(srcStart.Add(15 * time.Minute))
	g := s.GraphQLRequests()
	if len(g) == 0 || g[0].Variables.Query != "updated_at:>='"+last.Add(-10*time.Minute).Format(time.RFC3339)+"'" {
		t.Fatalf("resume request = %+v", g)
	}
	rep = e.report(e.source(src.ID))
	if !rep.Complete || rep.Orders != 61 || rep.Stopped != "" { // 11 again (the margin) and the last 50
		t.Fatalf("second read = %+v", rep)
	}
	if n := e.count(`SELECT count(*) FROM orders`); n != 1300 {
		t.Fatalf("orders = %d", n)
	}
	log := e.log()
	if len(log) != 2 || log[0].Outcome != "partial" || log[1].Outcome != "ok" {
		t.Fatalf("log = %+v", log)
	}
}

// TestThrottledReads: the request limit on the first page fails the read and keeps
// the position; on a later page the read keeps what it read and the next one
// continues from its last order.
func TestThrottledReads(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	from := srcStart.Add(-2 * 24 * time.Hour)
	s.SetOrders(shopifyOrders(30, from))
	s.Faults[1] = platformtest.Fault{Throttle: true}
	e.run(srcStart)
	v := e.source(src.ID)
	if ptr(v.LastError) != orders.FailThrottled || v.Failures != 1 || e.count(`SELECT count(*) FROM orders`) != 0 {
		t.Fatalf("first page throttled: %+v", v)
	}
	s.Reset()
	s.Faults[2] = platformtest.Fault{Throttle: true}
	e.run(srcStart.Add(15 * time.Minute))
	g := s.GraphQLRequests()
	if g[0].Variables.Query != "updated_at:>='2026-05-02T10:15:00Z'" { // the same range again: backfill from this read
		t.Fatalf("retry request = %+v", g[0])
	}
	v = e.source(src.ID)
	rep := e.report(v)
	if v.LastError != nil || v.Failures != 0 || rep.Stopped != orders.StopThrottled || rep.Orders != 25 {
		t.Fatalf("later page throttled: %+v %+v", v, rep)
	}
	s.Reset()
	e.run(srcStart.Add(30 * time.Minute))
	g = s.GraphQLRequests()
	want := from.Add(24*time.Minute - 10*time.Minute).Format(time.RFC3339)
	if g[0].Variables.Query != "updated_at:>='"+want+"'" || e.count(`SELECT count(*) FROM orders`) != 30 {
		t.Fatalf("resume request = %+v", g[0])
	}
}

// TestFailedReadKeepsPosition: a failed read records its code and the next read
// retries the same range.
func TestFailedReadKeepsPosition(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	e.run(srcStart)
	s.Reset()
	s.Faults[1] = platformtest.Fault{Status: 503, Body: `{"errors":"Service Unavailable"}`}
	e.run(srcStart.Add(15 * time.Minute))
	v := e.source(src.ID)
	if ptr(v.LastError) != "http_status: 503" || v.Failures != 1 || ptr(v.LastRunAt) != "2026-06-01T10:15:00Z" {
		t.Fatalf("failed read: %+v", v)
	}
	s.Reset()
	e.run(srcStart.Add(30 * time.Minute))
	if g := s.GraphQLRequests(); g[0].Variables.Query != "updated_at:>='2026-06-01T09:50:00Z'" {
		t.Fatalf("retry = %+v", g[0])
	}
	if v := e.source(src.ID); v.LastError != nil || v.Failures != 0 {
		t.Fatalf("after retry: %+v", v)
	}
	log := e.log()
	if len(log) != 3 || log[1].Outcome != "failed" || ptr(log[1].Error) != "http_status: 503" {
		t.Fatalf("log = %+v", log)
	}
}

// TestRefusedOrders: an order the order rules refuse is counted as order_refused
// and the others are saved; when none can be saved the read fails.
func TestRefusedOrders(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	// Order #1001 exists in another channel already.
	e.env.Channel("web-gb", "GB", "en")
	if _, err := e.c.IngestOrders(e.ctx, core.Console(), orders.OrderRequest{Orders: []orders.OrderInput{{Channel: "web-gb",
		ExternalID: "#1001", PaymentState: "paid", PlacedAt: "2026-05-30T10:00:00Z",
		Items: []orders.LineInput{{LineReference: "1", VariantKey: "X"}}}}}); err != nil {
		t.Fatal(err)
	}
	e.run(srcStart)
	rep := e.report(e.source(src.ID))
	if rep.Orders != 2 || rep.Skipped[orders.SkipOrderRefused] != 1 {
		t.Fatalf("report = %+v", rep)
	}
	if o, _ := e.order("#1001"); o.Market != "GB" {
		t.Fatalf("#1001 moved to %s", o.Market)
	}
	// A channel whose market has no rules: nothing can be saved.
	e2 := newSrcEnv(t)
	e2.env.Channel("web-fr", "FR", "en")
	s2 := platformtest.StartShopify(t)
	e2.c.Outbound = s2.Client
	s2.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	src2 := e2.create(map[string]any{"platform": "shopify", "channel": "web-fr", "base_url": platformtest.ShopifyHost,
		"client_id": s2.ClientID, "client_secret": s2.ClientSecret})
	e2.run(srcStart)
	v := e2.source(src2.ID)
	if ptr(v.LastError) != orders.FailNothingSaved || e2.report(v).Skipped[orders.SkipOrderRefused] != 3 {
		t.Fatalf("nothing saved: %+v %s", v, v.LastReport)
	}
}

// TestPausedAndInactiveNeverRead: a paused connection and one of a channel that is
// off are never read, and a manual read of them is refused.
func TestPausedAndInactiveNeverRead(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	if _, err := e.c.UpdateOrderSource(e.ctx, panelOwner(), src.ID, rawBody(t, map[string]any{"enabled": false})); err != nil {
		t.Fatal(err)
	}
	if r := e.run(srcStart); r.Due != 0 || len(s.Requests()) != 0 {
		t.Fatalf("paused: %+v", r)
	}
	if _, err := e.c.RequestOrderSourceRun(e.ctx, panelOwner(), src.ID); !errors.Is(err, orders.ErrSourceInactive) {
		t.Fatalf("manual read of a paused connection: %v", err)
	}
	if _, err := e.c.UpdateOrderSource(e.ctx, panelOwner(), src.ID, rawBody(t, map[string]any{"enabled": true})); err != nil {
		t.Fatal(err)
	}
	ch, _ := e.c.DB.Read().ChannelByCode(e.ctx, "web-tr")
	if err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error { return tx.SetChannelActive(e.ctx, ch.ID, false) }); err != nil {
		t.Fatal(err)
	}
	if r := e.run(srcStart.Add(time.Hour)); r.Due != 0 || len(s.Requests()) != 0 {
		t.Fatalf("channel off: %+v", r)
	}
	if v := e.source(src.ID); v.ChannelActive {
		t.Fatal("channel_active is true")
	}
	if _, err := e.c.RequestOrderSourceRun(e.ctx, panelOwner(), src.ID); !errors.Is(err, orders.ErrChannelInactive) {
		t.Fatalf("manual read with the channel off: %v", err)
	}
	// A read asked for directly does nothing either.
	if out, err := e.c.ReadOrderSource(e.ctx, 1, srcStart.Add(time.Hour), orders.TriggerManual); err != nil || !out.Skipped {
		t.Fatalf("direct read: %+v %v", out, err)
	}
}

// TestOneReadAtATime: while another reader holds a connection's lease, a read of it
// does nothing.
func TestOneReadAtATime(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	id, _ := orders.ParseOrderSourceID(src.ID)
	err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		ok, err := tx.ClaimLease(e.ctx, "order-source:1", "another-runner", srcStart.Add(time.Hour))
		if !ok {
			return errors.New("lease not claimed")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.c.ReadOrderSource(e.ctx, id, srcStart, orders.TriggerManual)
	if err != nil || !out.Skipped || len(s.Requests()) != 0 {
		t.Fatalf("read under another lease: %+v %v", out, err)
	}
	// Once the lease has expired the connection reads again.
	if r := e.run(srcStart.Add(2 * time.Hour)); r.Read != 1 {
		t.Fatalf("after the lease: %+v", r)
	}
}

// TestUndecryptableCredentials: credentials the master key cannot open are a
// recorded failure asking to enter them again; entering them fixes the connection.
func TestUndecryptableCredentials(t *testing.T) {
	e := newSrcEnv(t)
	s, src := e.shopify()
	s.SetOrders(shopifyOrders(3, srcStart.Add(-time.Hour)))
	if err := e.c.DB.WithTx(e.ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(e.ctx, `UPDATE order_sources SET credentials_enc = x'00112233445566778899aabbccddeeff00112233'`)
	}); err != nil {
		t.Fatal(err)
	}
	e.run(srcStart)
	if v := e.source(src.ID); ptr(v.LastError) != orders.FailUndecryptable || !v.HasCredentials || len(s.Requests()) != 0 {
		t.Fatalf("connection = %+v", v)
	}
	_, err := e.c.CheckSavedOrderSource(e.ctx, panelOwner(), src.ID)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Status != 400 || ce.Code != "platform_refused" || ce.Detail != orders.FailUndecryptable {
		t.Fatalf("check = %v", err)
	}
	if _, err := e.c.UpdateOrderSource(e.ctx, panelOwner(), src.ID, rawBody(t, map[string]any{"client_id": s.ClientID,
		"client_secret": s.ClientSecret})); err != nil {
		t.Fatal(err)
	}
	e.run(srcStart.Add(15 * time.Minute))
	if v := e.source(src.ID); v.LastError != nil || e.report(v).Orders != 3 {
		t.Fatalf("after re-entering: %+v", v)
	}
}

// TestDryRunSavesNothing: a try reads the first page, answers counts, skip keys and
// a sample without e-mail addresses, and keeps nothing.
func TestDryRunSavesNothing(t *testing.T) {
	e := newSrcEnv(t)
	s := platformtest.StartShopify(t)
	e.c.Outbound = s.Client
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	out, err := e.c.CheckOrderSource(e.ctx, panelOwner(), rawBody(t, map[string]any{"platform": "shopify", "channel": "web-tr",
		"base_url": "https://" + platformtest.ShopifyHost + "/", "client_id": s.ClientID, "client_secret": s.ClientSecret}))
	if err != nil {
		t.Fatal(err)
	}
	if out.Orders != 12 || !out.Complete || out.Skipped[orders.SkipOrderIncomplete] != 2 || len(out.Sample) != 5 {
		t.Fatalf("check = %+v", out)
	}
	want := orders.SampleOrder{ExternalID: "#1002", PlacedAt: "2026-05-21T10:00:00Z", PaymentState: "pending", Lines: 1,
		States: []string{"placed"}, HasEmail: false}
	if diff := cmp.Diff(want, out.Sample[0]); diff != "" {
		t.Fatalf("sample (-want +got):\n%s", diff)
	}
	raw, _ := json.Marshal(out)
	if strings.Contains(string(raw), "@mail.example") || strings.Contains(string(raw), "customer_email") {
		t.Fatalf("the answer carries an address: %s", raw)
	}
	if n := e.count(`SELECT count(*) FROM orders`) + e.count(`SELECT count(*) FROM order_sources`) +
		e.count(`SELECT count(*) FROM order_source_runs`); n != 0 {
		t.Fatalf("the dry run kept %d rows", n)
	}
	acts, _, _ := e.c.DB.Read().ListActivity(e.ctx, store.ActivityFilter{Action: orders.ActOrderSourceTried})
	if len(acts) != 1 {
		t.Fatalf("activity = %+v", acts)
	}
	// Without a channel only the mapping is checked; a failure is 400
	// platform_refused / <code>.
	s.Reset()
	s.TokenFaults[1] = platformtest.Fault{Status: 401, Body: `{}`}
	_, err = e.c.CheckOrderSource(e.ctx, panelOwner(), rawBody(t, map[string]any{"platform": "shopify",
		"base_url": platformtest.ShopifyHost, "client_id": s.ClientID, "client_secret": s.ClientSecret}))
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != "platform_refused" || ce.Detail != orders.FailCredentialsRefused {
		t.Fatalf("refused check = %v", err)
	}
}

// TestWooCommerceReads: the first read of a WooCommerce connection asks for orders
// modified within backfill_days; the next one from 10 minutes before it started.
func TestWooCommerceReads(t *testing.T) {
	e := newSrcEnv(t)
	w := platformtest.StartWooCommerce(t)
	e.c.Outbound = w.Client
	w.SetOrders(platformtest.Fixture(t, platformtest.WooCommerceFixture))
	src := e.create(map[string]any{"platform": "woocommerce", "channel": "web-tr", "base_url": platformtest.WooBase + "/",
		"consumer_key": w.Key, "consumer_secret": w.Secret, "backfill_days": 45})
	e.run(srcStart)
	rep := e.report(e.source(src.ID))
	want := map[string]int{orders.SkipStatusUnknown: 1, orders.SkipOrderIncomplete: 1, orders.SkipLineIncomplete: 1,
		orders.SkipOrderWithoutLines: 1, orders.SkipLinesTruncated: 1}
	if rep.Orders != 13 || rep.Read != 16 || !rep.Complete || !cmp.Equal(want, rep.Skipped) {
		t.Fatalf("report = %+v", rep)
	}
	if q := w.Requests()[0].Query; q.Get("modified_after") != "2026-04-17T10:00:00" || q.Get("per_page") != "100" {
		t.Fatalf("first request %v", q)
	}
	if o, lines := e.order("7110"); o.PaymentState != "paid" || lines["811"].FulfilmentState != "delivered" || o.Language != "tr" {
		t.Fatalf("7110 = %+v %+v", o, lines)
	}
	w.Reset()
	e.run(srcStart.Add(15 * time.Minute))
	if q := w.Requests()[0].Query; q.Get("modified_after") != "2026-06-01T09:50:00" {
		t.Fatalf("second request %v", q)
	}
}

// TestMagentoReads: the first read of a Magento connection filters by updated_at
// and the store id of remote_channel; the next one from 10 minutes before it
// started.
func TestMagentoReads(t *testing.T) {
	e := newSrcEnv(t)
	m := platformtest.StartMagento(t)
	e.c.Outbound = m.Client
	m.SetOrders(platformtest.Fixture(t, platformtest.MagentoFixture))
	src := e.create(map[string]any{"platform": "magento", "channel": "web-tr", "base_url": platformtest.MagentoHost,
		"remote_channel": 1, "username": m.Username, "password": m.Password, "backfill_days": 20})
	if ptr(src.RemoteChannel) != "1" {
		t.Fatalf("remote_channel = %v", src.RemoteChannel)
	}
	e.run(srcStart)
	rep := e.report(e.source(src.ID))
	if rep.Orders != 13 || rep.Read != 16 || !rep.Complete || rep.Skipped[orders.SkipLinesTruncated] != 1 {
		t.Fatalf("report = %+v", rep)
	}
	q := m.OrderRequests()[0].Query
	if q.Get("searchCriteria[filter_groups][0][filters][0][value]") != "2026-05-12 10:00:00" ||
		q.Get("searchCriteria[filter_groups][1][filters][0][value]") != "1" || q.Get("searchCriteria[pageSize]") != "50" {
		t.Fatalf("first request %v", q)
	}
	if o, lines := e.order("000000102"); o.CustomerKey != "77" || lines["5003"].FulfilmentState != "shipped" {
		t.Fatalf("000000102 = %+v %+v", o, lines)
	}
	m.Reset()
	e.run(srcStart.Add(15 * time.Minute))
	if q := m.OrderRequests()[0].Query; q.Get("searchCriteria[filter_groups][0][filters][0][value]") != "2026-06-01 09:50:00" {
		t.Fatalf("second request %v", q)
	}
}

// TestPageBombDueAgainFirst: a connection whose store answers a 19 MB page of empty
// objects records answer_invalid, and it was due again before its page was
// requested, so a read that ends the process is not repeated at every start.
func TestPageBombDueAgainFirst(t *testing.T) {
	e := newSrcEnv(t)
	dueDuringRead := -1
	srv := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		due, _ := e.c.DB.Read().DueOrderSources(e.ctx, srcStart)
		dueDuringRead = len(due)
		platformtest.WriteRepeated(w, `[`, `{}`, true, 19<<20, `]`)
	}), platformtest.WooHost)
	e.c.Outbound = srv.Client
	src := e.create(map[string]any{"platform": "woocommerce", "channel": "web-tr", "base_url": platformtest.WooBase + "/",
		"consumer_key": "ck_1", "consumer_secret": "cs_1"})
	if r := e.run(srcStart); r.Failed != 1 || dueDuringRead != 0 {
		t.Fatalf("run %+v, due during the read: %d", r, dueDuringRead)
	}
	if v := e.source(src.ID); v.LastError == nil || *v.LastError != orders.FailAnswerInvalid {
		t.Fatalf("connection: %+v", v)
	}
}
