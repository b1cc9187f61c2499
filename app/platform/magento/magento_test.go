package magento_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
	"reviewd/app/platform/magento"
	"reviewd/app/platform/platformtest"
)

var since = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func creds(s *platformtest.Magento) map[string]string {
	return map[string]string{"username": s.Username, "password": s.Password}
}

func read(t *testing.T, client *outbound.Client, c map[string]string, size int) ([]orders.PlatformPage, error) {
	t.Helper()
	var pages []orders.PlatformPage
	err := magento.Reader{}.Read(context.Background(), orders.PlatformRead{Client: client, BaseURL: platformtest.MagentoBase,
		RemoteChannel: "1", Credentials: c, Since: since, PageSize: size}, func(p orders.PlatformPage) (bool, error) {
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
	Payment, Key, Phone string
	Lines               []lineView
	Skip                string
	Skipped             map[string]int
}

// TestReadRecordedOrders reads the recorded fixture of store 1 and checks every
// order: the state table, item counters, parent and child rows, the delivered
// status and the skip keys. The order of store 2 is never read.
func TestReadRecordedOrders(t *testing.T) {
	s := platformtest.StartMagento(t)
	s.SetOrders(platformtest.Fixture(t, platformtest.MagentoFixture))
	pages, err := read(t, s.Client, creds(s), 50)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]orderView{}
	for _, p := range pages {
		for _, o := range p.Orders {
			v := orderView{Payment: o.Order.PaymentState, Key: o.Order.CustomerKey, Phone: o.Order.CustomerPhone, Skip: o.Skip, Skipped: o.Skipped}
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
	l := func(ref, variant, group, state string, qty float64) lineView {
		return lineView{Ref: ref, Variant: variant, Group: group, State: state, Qty: qty}
	}
	const phone = "+90 232 555 0199"
	set := make([]lineView, 50)
	for i := range set {
		set[i] = l(strconv.Itoa(6000+i), fmt.Sprintf("SET-%02d", i), strconv.Itoa(600+i), "placed", 1)
	}
	want := map[string]orderView{
		// A configurable product: the parent row is the line; its child is not.
		"000000101": {Payment: "paid", Phone: phone, Lines: []lineView{l("5001", "TSHIRT-M-BLUE", "500", "preparing", 1)}},
		"000000102": {Payment: "paid", Key: "77", Phone: phone, Lines: []lineView{l("5003", "MUG-1", "510", "shipped", 1)}},
		"000000103": {Payment: "partially_refunded", Phone: phone, Lines: []lineView{l("5004", "MUG-2", "511", "returned", 1),
			l("5005", "MUG-3", "512", "shipped", 1)}},
		"000000104": {Payment: "refunded", Phone: phone, Lines: []lineView{l("5006", "BOWL-1", "520", "cancelled", 1)}},
		"000000105": {Payment: "voided", Phone: phone, Lines: []lineView{l("5007", "BOWL-2", "521", "cancelled", 1)}},
		"000000106": {Payment: "pending", Phone: phone, Lines: []lineView{l("5008", "PLATE-1", "530", "placed", 1)}},
		"000000107": {Payment: "pending", Phone: phone, Lines: []lineView{l("5009", "PLATE-2", "531", "placed", 1)}},
		"000000108": {Payment: "pending", Phone: phone, Lines: []lineView{l("5010", "PLATE-3", "532", "placed", 1)}},
		"000000109": {Payment: "pending", Phone: phone, Lines: []lineView{l("5011", "PLATE-4", "533", "preparing", 1)}},
		"000000110": {Payment: "paid", Phone: phone, Lines: []lineView{{Ref: "5012", Variant: "JUG-1", Group: "540", State: "delivered",
			DeliveredAt: "2026-05-25T10:30:00Z", Qty: 1}}},
		"skip:2026-05-25T16:00:00Z": {Skip: orders.SkipStatusUnknown},
		"skip:2026-05-25T17:10:00Z": {Skip: orders.SkipOrderIncomplete},
		"skip:2026-05-26T17:10:00Z": {Skip: orders.SkipOrderWithoutLines, Skipped: map[string]int{orders.SkipLineIncomplete: 1}},
		// A bundle shipped through its children.
		"000000114": {Payment: "paid", Phone: phone, Lines: []lineView{l("5016", "GIFTBOX", "550", "shipped", 1)}},
		"000000116": {Payment: "paid", Phone: phone, Lines: set, Skipped: map[string]int{orders.SkipLinesTruncated: 1}},
		"000000117": {Payment: "paid", Phone: phone, Lines: []lineView{l("5020", "TRAY-1", "570", "cancelled", 2),
			l("5021", "TRAY-2", "571", "preparing", 1)}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("mapped orders (-want +got):\n%s", diff)
	}
	first := pages[0].Orders[0]
	if first.Order.ExternalID != "000000101" || first.Order.PlacedAt != "2026-05-20T09:00:00Z" ||
		first.Order.CustomerEmail != "deniz.ak@mail.example" || first.Order.Items[0].Title != "Organic tee" {
		t.Fatalf("first order = %+v", first.Order)
	}
}

// TestSearchCriteria reads page by page with searchCriteria (updated_at gteq,
// store_id eq, sorted by updated_at) and stops at total_count.
func TestSearchCriteria(t *testing.T) {
	s := platformtest.StartMagento(t)
	var fake []map[string]any
	for i := range 25 {
		at := since.Add(time.Hour + time.Duration(i)*time.Minute)
		fake = append(fake, platformtest.MagentoOrder(i, at, at))
	}
	s.SetOrders(fake)
	pages, err := read(t, s.Client, creds(s), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || len(pages[2].Orders) != 5 || pages[2].More {
		t.Fatalf("pages = %d", len(pages))
	}
	reqs := s.Requests()
	if len(reqs) != 4 || reqs[0].Kind != "token" || reqs[0].Login["username"] != "reviewd-api" {
		t.Fatalf("requests = %+v", reqs)
	}
	q := reqs[1].Query
	want := map[string]string{
		"searchCriteria[filter_groups][0][filters][0][field]":          "updated_at",
		"searchCriteria[filter_groups][0][filters][0][value]":          "2026-05-02 10:00:00",
		"searchCriteria[filter_groups][0][filters][0][condition_type]": "gteq",
		"searchCriteria[filter_groups][1][filters][0][field]":          "store_id",
		"searchCriteria[filter_groups][1][filters][0][value]":          "1",
		"searchCriteria[filter_groups][1][filters][0][condition_type]": "eq",
		"searchCriteria[sortOrders][0][field]":                         "updated_at",
		"searchCriteria[sortOrders][0][direction]":                     "ASC",
		"searchCriteria[pageSize]":                                     "10",
		"searchCriteria[currentPage]":                                  "1",
		"fields":                                                       magento.Fields,
	}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	if reqs[3].Query.Get("searchCriteria[currentPage]") != "3" || reqs[3].Token != reqs[1].Token {
		t.Fatalf("last request %+v", reqs[3])
	}
}

// TestTokenRefresh: the admin token expires mid-read (401); one new token is
// requested and the same page asked again.
func TestTokenRefresh(t *testing.T) {
	s := platformtest.StartMagento(t)
	var fake []map[string]any
	for i := range 15 {
		at := since.Add(time.Hour + time.Duration(i)*time.Minute)
		fake = append(fake, platformtest.MagentoOrder(i, at, at))
	}
	s.SetOrders(fake)
	s.Faults[2] = platformtest.Fault{ExpireToken: true}
	pages, err := read(t, s.Client, creds(s), 10)
	if err != nil || len(pages) != 2 {
		t.Fatalf("pages %d, err %v", len(pages), err)
	}
	var kinds []string
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]string{"token", "orders", "orders", "token", "orders"}, kinds); diff != "" {
		t.Fatalf("requests (-want +got):\n%s", diff)
	}
	o := s.OrderRequests()
	if o[1].Query.Get("searchCriteria[currentPage]") != "2" || o[2].Query.Get("searchCriteria[currentPage]") != "2" || o[1].Token == o[2].Token {
		t.Fatal("the refused page was not asked again with a new token")
	}
}

// TestFailures checks the stable code of every failure a Magento read can meet.
func TestFailures(t *testing.T) {
	s := platformtest.StartMagento(t)
	at := since.Add(time.Hour)
	s.SetOrders([]map[string]any{platformtest.MagentoOrder(1, at, at)})
	tests := []struct {
		name   string
		creds  map[string]string
		setup  func()
		want   string
		noCall bool
	}{
		{"password empty", map[string]string{"username": "reviewd-api"}, nil, orders.FailCredentialsMissing, true},
		{"login refused", map[string]string{"username": "reviewd-api", "password": "wrong"}, nil, orders.FailLoginRefused, false},
		{"two-factor login", creds(s), func() {
			s.TokenFaults[1] = platformtest.Fault{Status: 401, Body: `{"message":"Please use the 2fa provider-specific endpoints to obtain a token.","parameters":{"active_providers":["google"]}}`}
		}, orders.FailLoginRefused, false},
		{"role without sales", creds(s), func() { s.NoSalesRole = true }, orders.FailScopeMissing, false},
		{"token refused twice", creds(s), func() {
			s.Faults[1] = platformtest.Fault{Status: 401, Body: `{"message":"Invalid token"}`}
			s.Faults[2] = platformtest.Fault{Status: 401, Body: `{"message":"Invalid token"}`}
		}, orders.FailCredentialsRefused, false},
		{"rate limited", creds(s), func() { s.Faults[1] = platformtest.Fault{Throttle: true} }, orders.FailThrottled, false},
		{"maintenance", creds(s), func() {
			s.Faults[1] = platformtest.Fault{Status: 503, Body: `{"message":"Service Unavailable"}`}
		}, "http_status: 503", false},
		{"redirect", creds(s), func() { s.TokenFaults[1] = platformtest.Fault{Redirect: true} }, orders.FailRedirect, false},
		{"token not a string", creds(s), func() { s.TokenFaults[1] = platformtest.Fault{Status: 200, Body: `{"token":"x"}`} }, orders.FailAnswerInvalid, false},
		{"no order list", creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 200, Body: `{"message":"ok"}`} }, orders.FailAnswerInvalid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset()
			s.NoSalesRole = false
			if tt.setup != nil {
				tt.setup()
			}
			_, err := read(t, s.Client, tt.creds, 50)
			if got := orders.FailureCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if tt.noCall != (len(s.Requests()) == 0) {
				t.Fatalf("requests = %d", len(s.Requests()))
			}
		})
	}
}

// TestPaymentTable pins the state table of docs/decisions.md.
func TestPaymentTable(t *testing.T) {
	want := map[string]string{"new": "pending", "pending_payment": "pending", "payment_review": "pending", "holded": "pending",
		"processing": "paid", "complete": "paid", "closed": "refunded", "canceled": "voided"}
	if diff := cmp.Diff(want, magento.PaymentStates); diff != "" {
		t.Fatalf("table (-want +got):\n%s", diff)
	}
}
