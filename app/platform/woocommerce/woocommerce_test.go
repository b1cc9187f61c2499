package woocommerce_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
	"reviewd/app/platform/platformtest"
	"reviewd/app/platform/woocommerce"
)

var since = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func creds(s *platformtest.WooCommerce) map[string]string {
	return map[string]string{"consumer_key": s.Key, "consumer_secret": s.Secret}
}

func read(t *testing.T, client *outbound.Client, base string, c map[string]string, per int) ([]orders.PlatformPage, error) {
	t.Helper()
	var pages []orders.PlatformPage
	err := woocommerce.Reader{}.Read(context.Background(), orders.PlatformRead{Client: client, BaseURL: base, Credentials: c,
		Since: since, PageSize: per}, func(p orders.PlatformPage) (bool, error) {
		pages = append(pages, p)
		return true, nil
	})
	return pages, err
}

type lineView struct {
	Ref, Variant, Group, State, DeliveredAt string
	Qty                                     float64
}

type orderView struct {
	Payment, Key, Language string
	Lines                  []lineView
	Skip                   string
	Skipped                map[string]int
}

// TestReadRecordedOrders reads the recorded fixture and checks every order: the
// status table (payment and line state), refunds, the delivered status of tracking
// plugins, line identifiers and the skip keys.
func TestReadRecordedOrders(t *testing.T) {
	s := platformtest.StartWooCommerce(t)
	s.SetOrders(platformtest.Fixture(t, platformtest.WooCommerceFixture))
	pages, err := read(t, s.Client, platformtest.WooBase, creds(s), 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]orderView{}
	for _, p := range pages {
		for _, o := range p.Orders {
			v := orderView{Payment: o.Order.PaymentState, Key: o.Order.CustomerKey, Language: o.Order.Language, Skip: o.Skip, Skipped: o.Skipped}
			for _, l := range o.Order.Items {
				lv := lineView{Ref: l.LineReference, Variant: l.VariantKey, Group: l.GroupKey, State: l.FulfilmentState, DeliveredAt: l.DeliveredAt}
				if l.Quantity != nil {
					lv.Qty = *l.Quantity
				}
				v.Lines = append(v.Lines, lv)
			}
			key := o.Order.ExternalID
			if key == "" {
				key = "skip:" + o.ChangedAt.Format(time.RFC3339)
			}
			got[key] = v
		}
	}
	l := func(ref, variant, group, state string) lineView {
		return lineView{Ref: ref, Variant: variant, Group: group, State: state, Qty: 1}
	}
	sample := make([]lineView, 50)
	for i := range sample {
		sample[i] = l(strconv.Itoa(900+i), fmt.Sprintf("SMP-%02d", i), strconv.Itoa(400+i), "preparing")
	}
	want := map[string]orderView{
		"7101": {Payment: "paid", Language: "tr", Lines: []lineView{l("801", "NAP-1", "311", "preparing"),
			{Ref: "802", Variant: "3121", Group: "312", State: "preparing", Qty: 2}}}, // no sku: the variation id
		"7102": {Payment: "paid", Key: "12", Lines: []lineView{l("803", "OIL-1", "320", "shipped")}},
		"7103": {Payment: "partially_refunded", Lines: []lineView{{Ref: "804", Variant: "SOAP-1", Group: "330", State: "shipped", Qty: 3}}},
		"7104": {Payment: "pending", Lines: []lineView{l("805", "TWL-1", "340", "placed")}},
		"7105": {Payment: "pending", Lines: []lineView{l("806", "TWL-2", "341", "placed")}},
		"7106": {Payment: "voided", Lines: []lineView{l("807", "BSK-1", "350", "cancelled")}},
		"7107": {Payment: "refunded", Lines: []lineView{l("808", "BLK-1", "360", "returned")}},  // completed before
		"7108": {Payment: "refunded", Lines: []lineView{l("809", "PIL-1", "370", "cancelled")}}, // never completed
		"7109": {Payment: "voided", Lines: []lineView{l("810", "RUG-1", "380", "placed")}},
		"7110": {Payment: "paid", Lines: []lineView{{Ref: "811", Variant: "LNT-1", Group: "390", State: "delivered",
			DeliveredAt: "2026-05-27T16:45:00Z", Qty: 1}}},
		"7111":                      {Payment: "paid", Lines: []lineView{l("812", "LNT-2", "391", "shipped")}},
		"7112":                      {Payment: "pending", Lines: []lineView{l("813", "CND-1", "392", "placed")}},
		"skip:2026-05-28T12:30:00Z": {Skip: orders.SkipStatusUnknown},
		"skip:2026-05-28T13:30:00Z": {Skip: orders.SkipOrderIncomplete},
		"skip:2026-05-28T14:30:00Z": {Skip: orders.SkipOrderWithoutLines, Skipped: map[string]int{orders.SkipLineIncomplete: 1}},
		"7116":                      {Payment: "paid", Lines: sample, Skipped: map[string]int{orders.SkipLinesTruncated: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("mapped orders (-want +got):\n%s", diff)
	}
	first := pages[0].Orders[0]
	if first.Order.ExternalID != "7101" || first.Order.PlacedAt != "2026-05-20T09:00:00Z" ||
		first.Order.CustomerEmail != "selin.arslan@mail.example" || first.Order.CustomerPhone != "+90 532 000 1122" ||
		first.Order.Items[0].Title != "Linen napkin" {
		t.Fatalf("first order = %+v", first.Order)
	}
}

// TestPagingHeaders reads page by page as X-WP-TotalPages says, with the change-time
// filter in GMT and Basic auth.
func TestPagingHeaders(t *testing.T) {
	s := platformtest.StartWooCommerce(t)
	var fake []map[string]any
	for i := range 45 {
		at := since.Add(time.Hour + time.Duration(i)*time.Minute)
		fake = append(fake, platformtest.WooOrder(i, at, at))
	}
	s.SetOrders(fake)
	pages, err := read(t, s.Client, platformtest.WooBase, creds(s), 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || !pages[0].More || !pages[1].More || pages[2].More || len(pages[2].Orders) != 5 {
		t.Fatalf("pages = %d", len(pages))
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d", len(reqs))
	}
	for i, r := range reqs {
		want := map[string]string{"modified_after": "2026-05-02T10:00:00", "dates_are_gmt": "true", "orderby": "modified",
			"order": "asc", "per_page": "20", "page": strconv.Itoa(i + 1), "_fields": woocommerce.Fields}
		for k, v := range want {
			if r.Query.Get(k) != v {
				t.Errorf("request %d: %s = %q, want %q", i, k, r.Query.Get(k), v)
			}
		}
		if r.Auth != s.Key+":"+s.Secret {
			t.Errorf("request %d auth %q", i, r.Auth)
		}
	}
}

// TestFailures checks the stable code of every failure a WooCommerce read can meet.
func TestFailures(t *testing.T) {
	s := platformtest.StartWooCommerce(t)
	s.SetOrders([]map[string]any{platformtest.WooOrder(1, since.Add(time.Hour), since.Add(time.Hour))})
	tests := []struct {
		name   string
		creds  map[string]string
		fault  platformtest.Fault
		want   string
		noCall bool
	}{
		{"secret empty", map[string]string{"consumer_key": "ck_1"}, platformtest.Fault{}, orders.FailAPICredentialsMissing, true},
		{"key refused", map[string]string{"consumer_key": "ck_wrong", "consumer_secret": "cs_wrong"}, platformtest.Fault{}, orders.FailCredentialsRefused, false},
		{"write-only key", creds(s), platformtest.Fault{Status: 401, Body: `{"code":"woocommerce_rest_authentication_error","message":"The API key provided does not have read permissions.","data":{"status":401}}`}, orders.FailScopeMissing, false},
		{"cannot view", creds(s), platformtest.Fault{Status: 403, Body: `{"code":"woocommerce_rest_cannot_view","message":"Sorry, you cannot list resources.","data":{"status":403}}`}, orders.FailScopeMissing, false},
		{"rate limited", creds(s), platformtest.Fault{Throttle: true}, orders.FailThrottled, false},
		{"no REST route", creds(s), platformtest.Fault{Status: 404, Body: `{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`}, "http_status: 404", false},
		{"redirect", creds(s), platformtest.Fault{Redirect: true}, orders.FailRedirect, false},
		{"not JSON", creds(s), platformtest.Fault{Raw: true, Body: "<html><body>Please log in</body></html>"}, orders.FailAnswerInvalid, false},
		{"no order list", creds(s), platformtest.Fault{Status: 200, Body: `{"namespace":"wc/v3","routes":{}}`}, orders.FailAnswerInvalid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset()
			if tt.fault != (platformtest.Fault{}) {
				s.Faults[1] = tt.fault
			}
			_, err := read(t, s.Client, platformtest.WooBase, tt.creds, 100)
			if got := orders.FailureCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if tt.noCall != (len(s.Requests()) == 0) {
				t.Fatalf("requests = %d", len(s.Requests()))
			}
		})
	}
	// A private address is refused before any connection.
	if _, err := read(t, s.Client, "https://10.1.2.3/shop", creds(s), 100); orders.FailureCode(err) != orders.FailAddressRefused {
		t.Fatalf("private address: %v", err)
	}
	// A throttled later page is reported after the pages before it.
	var fake []map[string]any
	for i := range 30 {
		at := since.Add(time.Hour + time.Duration(i)*time.Minute)
		fake = append(fake, platformtest.WooOrder(i, at, at))
	}
	s.SetOrders(fake)
	s.Reset()
	s.Faults[2] = platformtest.Fault{Throttle: true}
	pages, err := read(t, s.Client, platformtest.WooBase, creds(s), 20)
	if orders.FailureCode(err) != orders.FailThrottled || len(pages) != 1 {
		t.Fatalf("later page: %d pages, %v", len(pages), err)
	}
}

// TestStatusTable pins the status table of docs/decisions.md.
func TestStatusTable(t *testing.T) {
	var rows []string
	for st, m := range woocommerce.Statuses {
		rows = append(rows, st+"="+m.Payment+"/"+m.Line)
	}
	want := "cancelled=voided/cancelled checkout-draft=pending/placed completed=paid/shipped delivered=paid/delivered " +
		"failed=voided/placed on-hold=pending/placed pending=pending/placed processing=paid/preparing " +
		"refunded=refunded/returned shipped=paid/shipped"
	slices.Sort(rows)
	if got := strings.Join(rows, " "); got != want {
		t.Fatalf("table = %s", got)
	}
}
