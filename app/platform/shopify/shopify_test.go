package shopify_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
	"reviewd/app/platform/platformtest"
	"reviewd/app/platform/shopify"
)

var since = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

func creds(s *platformtest.Shopify) map[string]string {
	return map[string]string{"client_id": s.ClientID, "client_secret": s.ClientSecret}
}

// read runs one read against the fake and returns the pages it delivered (up to
// maxPages, 0 = all) and the read's error.
func read(t *testing.T, client *outbound.Client, base string, c map[string]string, maxPages int) ([]orders.PlatformPage, error) {
	t.Helper()
	var pages []orders.PlatformPage
	err := shopify.Reader{}.Read(context.Background(), orders.PlatformRead{Client: client, BaseURL: base, Credentials: c,
		Since: since, PageSize: 25}, func(p orders.PlatformPage) (bool, error) {
		pages = append(pages, p)
		return maxPages == 0 || len(pages) < maxPages, nil
	})
	return pages, err
}

func allOrders(pages []orders.PlatformPage) []orders.PlatformOrder {
	var out []orders.PlatformOrder
	for _, p := range pages {
		out = append(out, p.Orders...)
	}
	return out
}

const base = "https://" + platformtest.ShopifyHost

// lineView is what a test compares of a mapped line.
type lineView struct {
	Ref, Variant, Group, State, DeliveredAt string
	Qty                                     float64
}

type orderView struct {
	Payment, Language, Email string
	Lines                    []lineView
	Skip                     string
	Skipped                  map[string]int
}

func view(o orders.PlatformOrder) orderView {
	v := orderView{Payment: o.Order.PaymentState, Language: o.Order.Language, Email: o.Order.CustomerEmail, Skip: o.Skip,
		Skipped: o.Skipped}
	for _, l := range o.Order.Items {
		lv := lineView{Ref: l.LineReference, Variant: l.VariantKey, Group: l.GroupKey, State: l.FulfilmentState, DeliveredAt: l.DeliveredAt}
		if l.Quantity != nil {
			lv.Qty = *l.Quantity
		}
		v.Lines = append(v.Lines, lv)
	}
	return v
}

// TestReadRecordedOrders reads the recorded fixture through the GraphQL fake and
// checks the result of every order: field mapping, payment and line status mapping,
// shipment rules and skip keys.
func TestReadRecordedOrders(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	pages, err := read(t, s.Client, base, creds(s), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].More {
		t.Fatalf("pages = %d (more %v), want one complete page", len(pages), pages[0].More)
	}
	got := map[string]orderView{}
	var order []string
	for _, o := range allOrders(pages) {
		key := o.Order.ExternalID
		if key == "" {
			key = "skip:" + o.ChangedAt.Format(time.RFC3339)
		}
		got[key] = view(o)
		order = append(order, key)
	}
	// Sorted by change time, oldest first.
	wantOrder := []string{"#1002", "#1003", "#1004", "#1007", "#1008", "#1001", "#1005", "#1006", "#1010",
		"skip:2026-05-28T09:00:00Z", "skip:2026-05-28T09:30:00Z", "skip:2026-05-28T09:40:00Z", "#1014",
		"skip:2026-05-28T11:00:00Z", "#1009", "#1016"}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	l := func(ref, variant, group, state string, qty float64) lineView {
		return lineView{Ref: ref, Variant: variant, Group: group, State: state, Qty: qty}
	}
	bulk := make([]lineView, 50)
	for i := range bulk {
		bulk[i] = l(strconv.Itoa(14000+i), fmt.Sprintf("BULK-%02d", i), "3301", "placed", 1)
	}
	want := map[string]orderView{
		"#1001": {Payment: "paid", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{
			{Ref: "13001", Variant: "MUG-RED", Group: "3301", State: "delivered", DeliveredAt: "2026-05-25T16:40:00Z", Qty: 2},
			l("13002", "44020", "33020", "placed", 1)}}, // empty sku: the variant's legacyResourceId
		"#1002": {Payment: "pending", Language: "tr", Lines: []lineView{l("13003", "TEA-01", "3301", "placed", 1)}},
		"#1003": {Payment: "pending", Language: "de", Email: "ann.yilmaz@mail.example", Lines: []lineView{l("13004", "TEA-02", "3301", "preparing", 1)}},
		"#1004": {Payment: "pending", Email: "ann.yilmaz@mail.example", Lines: []lineView{l("13005", "POT-1", "3301", "preparing", 1)}},
		"#1005": {Payment: "partially_refunded", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{
			l("13006", "CUP-1", "3301", "shipped", 1),
			l("13007", "CUP-2", "3301", "returned", 2),    // refunded after shipping
			l("13008", "CUP-3", "3301", "cancelled", 1)}}, // removed before shipping
		"#1006": {Payment: "refunded", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{l("13009", "KET-1", "3301", "in_transit", 1)}},
		"#1007": {Payment: "voided", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{
			l("13010", "KET-2", "3301", "cancelled", 1), l("13011", "KET-3", "3301", "cancelled", 1)}},
		"#1008": {Payment: "voided", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{l("13012", "JAR-1", "3301", "placed", 1)}},
		"#1009": {Payment: "paid", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{
			// In transit in one shipment, picked up in another: the furthest, dated
			// by the shipment's updatedAt as deliveredAt is empty.
			{Ref: "13013", Variant: "BAG-1", Group: "3301", State: "delivered", DeliveredAt: "2026-05-29T17:20:00Z", Qty: 3}}},
		"#1010": {Payment: "paid", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{
			l("13014", "PLT-1", "3301", "placed", 1),    // its shipment has status CANCELLED
			l("13015", "PLT-2", "3301", "placed", 1),    // displayStatus CANCELED, and one with status ERROR
			l("13016", "PLT-3", "3301", "shipped", 1)}}, // empty displayStatus counts as FULFILLED
		"skip:2026-05-28T09:00:00Z": {Skip: orders.SkipStatusUnknown},
		"skip:2026-05-28T09:30:00Z": {Skip: orders.SkipOrderIncomplete},
		"skip:2026-05-28T09:40:00Z": {Skip: orders.SkipOrderIncomplete},
		"#1014": {Payment: "paid", Language: "en", Email: "ann.yilmaz@mail.example", Lines: []lineView{l("13019", "RUG-1", "3301", "placed", 1)},
			Skipped: map[string]int{orders.SkipStatusUnknown: 1}},
		"skip:2026-05-28T11:00:00Z": {Skip: orders.SkipOrderWithoutLines, Skipped: map[string]int{orders.SkipLineIncomplete: 2}},
		"#1016": {Payment: "paid", Language: "en", Email: "not-an-address", Lines: bulk,
			Skipped: map[string]int{orders.SkipLinesTruncated: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("mapped orders (-want +got):\n%s", diff)
	}
	o := allOrders(pages)[5]
	if o.Order.PlacedAt != "2026-05-20T08:15:02Z" || o.Order.CustomerPhone != "+905321234567" ||
		o.Order.Items[0].Title != "Stoneware mug - Red" || !o.ChangedAt.Equal(time.Date(2026, 5, 26, 14, 3, 11, 0, time.UTC)) {
		t.Fatalf("#1001 = %+v changed %v", o.Order, o.ChangedAt)
	}
}

// node builds an order node with one line (id 1) in the given shipments.
func node(fin string, shipments ...shopify.Fulfillment) shopify.Order {
	var o shopify.Order
	o.Name, o.CreatedAt, o.UpdatedAt = "#1", "2026-05-20T08:00:00Z", "2026-05-21T08:00:00Z"
	o.DisplayFinancialStatus = &fin
	o.LineItems = &struct {
		PageInfo struct {
			HasNextPage bool `json:"hasNextPage"`
		} `json:"pageInfo"`
		Nodes []shopify.LineItem `json:"nodes"`
	}{}
	sku, one := "SKU-1", 1.0
	o.LineItems.Nodes = []shopify.LineItem{{ID: "gid://shopify/LineItem/1", SKU: &sku, Name: "Item", Quantity: &one, CurrentQuantity: &one}}
	o.Fulfillments = shipments
	return o
}

func shipment(status, display string, lines ...string) shopify.Fulfillment {
	f := shopify.Fulfillment{Status: status}
	if display != "-" {
		f.DisplayStatus = &display
	}
	updated := "2026-05-22T08:00:00Z"
	f.UpdatedAt = &updated
	for _, l := range lines {
		f.FulfillmentLineItems.Nodes = append(f.FulfillmentLineItems.Nodes, struct {
			LineItem struct {
				ID string `json:"id"`
			} `json:"lineItem"`
		}{LineItem: struct {
			ID string `json:"id"`
		}{ID: l}})
	}
	return f
}

// TestPaymentMapping checks every row of spec 1's payment mapping; other values
// skip the order as status_unknown.
func TestPaymentMapping(t *testing.T) {
	for fin, want := range map[string]string{
		"PENDING": "pending", "AUTHORIZED": "pending", "PARTIALLY_PAID": "pending", "PAID": "paid",
		"PARTIALLY_REFUNDED": "partially_refunded", "REFUNDED": "refunded", "VOIDED": "voided", "EXPIRED": "voided",
	} {
		if got := shopify.MapOrder(node(fin)); got.Order.PaymentState != want || got.Skip != "" {
			t.Errorf("%s -> %q (skip %q), want %s", fin, got.Order.PaymentState, got.Skip, want)
		}
	}
	for _, fin := range []string{"", "UNKNOWN_STATUS", "paid"} {
		if got := shopify.MapOrder(node(fin)); got.Skip != orders.SkipStatusUnknown {
			t.Errorf("%q -> skip %q, want status_unknown", fin, got.Skip)
		}
	}
}

// TestLineStatusMapping checks every row of spec 1's line status mapping and the
// shipment rules.
func TestLineStatusMapping(t *testing.T) {
	const line = "gid://shopify/LineItem/1"
	rows := map[string][]string{
		"preparing":  {"SUBMITTED", "LABEL_PURCHASED", "LABEL_PRINTED", "LABEL_VOIDED"},
		"shipped":    {"FULFILLED", "MARKED_AS_FULFILLED", "CONFIRMED", "FAILURE", "-"},
		"in_transit": {"CARRIER_PICKED_UP", "IN_TRANSIT", "OUT_FOR_DELIVERY", "DELAYED", "ATTEMPTED_DELIVERY", "NOT_DELIVERED", "READY_FOR_PICKUP"},
		"delivered":  {"DELIVERED", "PICKED_UP"},
	}
	for want, displays := range rows {
		for _, d := range displays {
			got := shopify.MapOrder(node("PAID", shipment("SUCCESS", d, line)))
			if len(got.Order.Items) != 1 || got.Order.Items[0].FulfilmentState != want {
				t.Errorf("displayStatus %q -> %+v, want %s", d, got.Order.Items, want)
			}
		}
	}
	one, zero := 1.0, 0.0
	cancelledAt := "2026-05-21T08:00:00Z"
	delivered := "2026-05-23T12:00:00Z"
	tests := []struct {
		name  string
		order func() shopify.Order
		state string
		at    string
		skip  map[string]int
	}{
		{"unfulfilled line", func() shopify.Order { return node("PAID") }, "placed", "", nil},
		{"order cancelled", func() shopify.Order {
			o := node("VOIDED", shipment("SUCCESS", "DELIVERED", line))
			o.CancelledAt = &cancelledAt
			return o
		}, "cancelled", "", nil},
		{"removed before shipping", func() shopify.Order {
			o := node("PARTIALLY_REFUNDED")
			o.LineItems.Nodes[0].CurrentQuantity = &zero
			return o
		}, "cancelled", "", nil},
		{"refunded after shipping", func() shopify.Order {
			o := node("PARTIALLY_REFUNDED", shipment("SUCCESS", "DELIVERED", line))
			o.LineItems.Nodes[0].CurrentQuantity = &zero
			return o
		}, "returned", "", nil},
		{"shipment status CANCELLED ignored", func() shopify.Order { return node("PAID", shipment("CANCELLED", "DELIVERED", line)) }, "placed", "", nil},
		{"shipment status ERROR ignored", func() shopify.Order { return node("PAID", shipment("ERROR", "IN_TRANSIT", line)) }, "placed", "", nil},
		{"shipment status FAILURE ignored", func() shopify.Order { return node("PAID", shipment("FAILURE", "IN_TRANSIT", line)) }, "placed", "", nil},
		{"displayStatus CANCELED ignored", func() shopify.Order { return node("PAID", shipment("SUCCESS", "CANCELED", line)) }, "placed", "", nil},
		{"furthest of several shipments", func() shopify.Order {
			return node("PAID", shipment("SUCCESS", "LABEL_PRINTED", line), shipment("SUCCESS", "OUT_FOR_DELIVERY", line),
				shipment("SUCCESS", "FULFILLED", line))
		}, "in_transit", "", nil},
		{"delivery date from deliveredAt", func() shopify.Order {
			f := shipment("SUCCESS", "DELIVERED", line)
			f.DeliveredAt = &delivered
			return node("PAID", f)
		}, "delivered", delivered, nil},
		{"delivery date from updatedAt", func() shopify.Order { return node("PAID", shipment("SUCCESS", "DELIVERED", line)) }, "delivered", "2026-05-22T08:00:00Z", nil},
		{"only the first 5 shipments", func() shopify.Order {
			return node("PAID", shipment("SUCCESS", "LABEL_PRINTED"), shipment("SUCCESS", "LABEL_PRINTED"), shipment("SUCCESS", "LABEL_PRINTED"),
				shipment("SUCCESS", "LABEL_PRINTED"), shipment("SUCCESS", "LABEL_PRINTED"), shipment("SUCCESS", "DELIVERED", line))
		}, "placed", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shopify.MapOrder(tt.order())
			if len(got.Order.Items) != 1 || got.Order.Items[0].FulfilmentState != tt.state || got.Order.Items[0].DeliveredAt != tt.at {
				t.Fatalf("lines = %+v, want %s at %q", got.Order.Items, tt.state, tt.at)
			}
		})
	}
	// An unknown shipment status skips the line; an order left without lines is
	// order_without_lines.
	got := shopify.MapOrder(node("PAID", shipment("SUCCESS", "LOST", line)))
	if got.Skip != orders.SkipOrderWithoutLines || got.Skipped[orders.SkipStatusUnknown] != 1 {
		t.Fatalf("unknown shipment status: %+v", got)
	}
	// currentQuantity is the quantity; quantity when it is zero.
	o := node("PAID")
	two := 2.0
	o.LineItems.Nodes[0].Quantity, o.LineItems.Nodes[0].CurrentQuantity = &two, &one
	if got := shopify.MapOrder(o); *got.Order.Items[0].Quantity != 1 {
		t.Fatalf("quantity = %v", *got.Order.Items[0].Quantity)
	}
}

// TestRequests checks what the store receives: a client-credentials token request,
// then GraphQL POSTs to the 2026-10 endpoint with the token, sorted by change time
// and filtered by updated_at.
func TestRequests(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	if _, err := read(t, s.Client, base+"/admin", creds(s), 0); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Kind != "token" || reqs[1].Kind != "graphql" {
		t.Fatalf("requests = %+v", reqs)
	}
	if diff := cmp.Diff(map[string]string{"grant_type": "client_credentials", "client_id": "shop-client",
		"client_secret": "shpss_shop-secret"}, reqs[0].Form); diff != "" {
		t.Fatalf("token form (-want +got):\n%s", diff)
	}
	g := reqs[1]
	if !strings.HasPrefix(g.Token, "shpat_") || g.Variables.First != 25 || g.Variables.After != nil ||
		g.Variables.Query != "updated_at:>='2026-05-02T10:00:00Z'" {
		t.Fatalf("graphql request = %+v", g)
	}
	for _, want := range []string{"sortKey: UPDATED_AT", "lineItems(first: 50)", "fulfillments(first: 5)", "displayFinancialStatus",
		"currentQuantity", "legacyResourceId", "customerLocale", "cancelledAt", "deliveredAt"} {
		if !strings.Contains(g.Query, want) {
			t.Errorf("query lacks %q", want)
		}
	}
	if strings.Contains(g.Query, "customer {") || strings.Contains(g.Query, "Address") {
		t.Error("the query reads the customer record or addresses")
	}
}

// TestOlderAccessToken: without client_id, client_secret is used as the token and
// no token is requested.
func TestOlderAccessToken(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.ClientID = ""
	s.AddOrders(platformtest.ShopifyOrder(1, since.Add(time.Hour), since.Add(2*time.Hour)))
	pages, err := read(t, s.Client, base, map[string]string{"client_secret": s.AccessToken}, 0)
	if err != nil || len(allOrders(pages)) != 1 {
		t.Fatalf("pages %v, err %v", pages, err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Token != s.AccessToken {
		t.Fatalf("requests = %+v", reqs)
	}
	// A 401 with an older token stops the read.
	s.Reset()
	s.Faults[1] = platformtest.Fault{ExpireToken: true}
	s.AccessToken = "shpat_rotated"
	if _, err := read(t, s.Client, base, map[string]string{"client_secret": "shpat_legacy-token"}, 0); orders.FailureCode(err) != orders.FailCredentialsRefused {
		t.Fatalf("err = %v", err)
	}
}

func many(n int, from time.Time) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		at := from.Add(time.Duration(i) * time.Minute)
		out[i] = platformtest.ShopifyOrder(i+1, at, at)
	}
	return out
}

// TestPagingAndTokenRefresh reads three pages; the token expires before the second
// page, so one new token is requested and the read goes on.
func TestPagingAndTokenRefresh(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.SetOrders(many(60, since.Add(time.Hour)))
	s.Faults[2] = platformtest.Fault{ExpireToken: true}
	pages, err := read(t, s.Client, base, creds(s), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || len(allOrders(pages)) != 60 || !pages[0].More || !pages[1].More || pages[2].More {
		t.Fatalf("pages = %d, orders = %d", len(pages), len(allOrders(pages)))
	}
	var kinds []string
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]string{"token", "graphql", "graphql", "token", "graphql", "graphql"}, kinds); diff != "" {
		t.Fatalf("requests (-want +got):\n%s", diff)
	}
	g := s.GraphQLRequests()
	if g[1].Token == g[2].Token || g[2].Token != g[3].Token || g[2].Variables.After == nil || *g[2].Variables.After != *g[1].Variables.After {
		t.Fatal("the refused page was not asked again with the new token")
	}
	// A second 401 right after a new token ends the read.
	s.Reset()
	s.Faults[1] = platformtest.Fault{Status: 401, Body: `{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}`}
	s.Faults[2] = platformtest.Fault{Status: 401, Body: `{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}`}
	if _, err := read(t, s.Client, base, creds(s), 0); orders.FailureCode(err) != orders.FailCredentialsRefused {
		t.Fatalf("err = %v", err)
	}
}

// TestCostlyPage: a page refused for its query cost is asked again with fewer
// orders, and the rest of the read keeps the smaller size.
func TestCostlyPage(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.OrderCost = 100 // 25 orders cost 2502 > 1000
	s.SetOrders(many(20, since.Add(time.Hour)))
	pages, err := read(t, s.Client, base, creds(s), 0)
	if err != nil {
		t.Fatal(err)
	}
	var firsts []int
	for _, g := range s.GraphQLRequests() {
		firsts = append(firsts, g.Variables.First)
	}
	if diff := cmp.Diff([]int{25, 9, 9, 9}, firsts); diff != "" {
		t.Fatalf("page sizes (-want +got):\n%s", diff)
	}
	if len(allOrders(pages)) != 20 || len(pages) != 3 {
		t.Fatalf("pages %d orders %d", len(pages), len(allOrders(pages)))
	}
}

// TestThrottled: the platform's request limit on the first page fails the read; on a
// later page the pages before it were delivered and the read stops there.
func TestThrottled(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.SetOrders(many(30, since.Add(time.Hour)))
	s.Faults[1] = platformtest.Fault{Throttle: true}
	pages, err := read(t, s.Client, base, creds(s), 0)
	if orders.FailureCode(err) != orders.FailThrottled || len(pages) != 0 {
		t.Fatalf("first page: pages %d, err %v", len(pages), err)
	}
	s.Reset()
	s.Faults[2] = platformtest.Fault{Throttle: true}
	pages, err = read(t, s.Client, base, creds(s), 0)
	if orders.FailureCode(err) != orders.FailThrottled || len(pages) != 1 || len(pages[0].Orders) != 25 {
		t.Fatalf("later page: pages %d, err %v", len(pages), err)
	}
	if n := len(s.GraphQLRequests()); n != 2 {
		t.Fatalf("graphql requests = %d, the read did not stop at the throttled page", n)
	}
	// A 429 answer counts the same.
	s.Reset()
	s.Faults[1] = platformtest.Fault{Status: 429, Body: `{"errors":"Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service."}`}
	if _, err := read(t, s.Client, base, creds(s), 0); orders.FailureCode(err) != orders.FailThrottled {
		t.Fatalf("429: %v", err)
	}
}

// TestFailures checks the stable code of every failure reason a Shopify read can
// meet.
func TestFailures(t *testing.T) {
	s := platformtest.StartShopify(t)
	s.SetOrders(many(3, since.Add(time.Hour)))
	big := `{"data":{"orders":{"pageInfo":{"hasNextPage":false},"nodes":[]}},"pad":"` + strings.Repeat("x", orders.PlatformMaxBytes) + `"}`
	tests := []struct {
		name   string
		base   string
		creds  map[string]string
		setup  func()
		want   string
		noCall bool
	}{
		{"custom domain", "https://shop.example", creds(s), nil, orders.FailShopAddressInvalid, true},
		{"admin host", "https://admin.shopify.com/store/acme", creds(s), nil, orders.FailShopAddressInvalid, true},
		{"client_secret empty", base, map[string]string{"client_id": "shop-client"}, nil, orders.FailAPICredentialsMissing, true},
		{"token refused", base, map[string]string{"client_id": "shop-client", "client_secret": "wrong"}, nil, orders.FailCredentialsRefused, false},
		{"token 401", base, creds(s), func() { s.TokenFaults[1] = platformtest.Fault{Status: 401, Body: `{}`} }, orders.FailCredentialsRefused, false},
		{"token 403", base, creds(s), func() { s.TokenFaults[1] = platformtest.Fault{Status: 403, Body: `{}`} }, orders.FailCredentialsRefused, false},
		{"token without read_orders", base, creds(s), func() { s.Scope = "read_products" }, orders.FailScopeMissing, false},
		{"access denied", base, creds(s), func() {
			s.Faults[1] = platformtest.Fault{Status: 200, Body: `{"errors":[{"message":"Access denied for orders field. Required access: ` + "`read_orders`" + ` access scope.","extensions":{"code":"ACCESS_DENIED","documentation":"https://shopify.dev/api/usage/access-scopes","requiredAccess":"` + "`read_orders`" + ` access scope."}}],"data":null}`}
		}, orders.FailScopeMissing, false},
		{"forbidden", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 403, Body: `{"errors":"Forbidden"}`} }, orders.FailScopeMissing, false},
		{"payment required", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 402, Body: `{"errors":"Unavailable Shop"}`} }, "http_status: 402", false},
		{"locked", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 423, Body: `{"errors":"Locked"}`} }, "http_status: 423", false},
		{"server error", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 503, Body: `{"errors":"Service Unavailable"}`} }, "http_status: 503", false},
		{"redirect", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Redirect: true} }, orders.FailRedirect, false},
		{"not JSON", base, creds(s), func() {
			s.Faults[1] = platformtest.Fault{Raw: true, Body: "<!DOCTYPE html><html><body>Maintenance</body></html>"}
		}, orders.FailAnswerInvalid, false},
		{"no order list", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 200, Body: `{"data":{"shop":{"name":"Acme"}}}`} }, orders.FailAnswerInvalid, false},
		{"over 20 MB", base, creds(s), func() { s.Faults[1] = platformtest.Fault{Status: 200, Body: big} }, orders.FailAnswerInvalid, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset()
			s.Scope = "read_orders"
			if tt.setup != nil {
				tt.setup()
			}
			_, err := read(t, s.Client, tt.base, tt.creds, 0)
			if got := orders.FailureCode(err); got != tt.want {
				t.Fatalf("code = %q (%v), want %q", got, err, tt.want)
			}
			if tt.noCall && len(s.Requests()) != 0 {
				t.Fatalf("requests sent: %+v", s.Requests())
			}
		})
	}
}

// TestTransportFailures: a closed port, an untrusted certificate and a store that
// does not answer in time.
func TestTransportFailures(t *testing.T) {
	s := platformtest.StartShopify(t)
	closed, err := outbound.New(outbound.Config{Resolve: []string{platformtest.ShopifyHost + ":443=127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read(t, closed, base, creds(s), 0); orders.FailureCode(err) != orders.FailConnection {
		t.Fatalf("closed port: %v", err)
	}
	untrusting, err := outbound.New(outbound.Config{Resolve: []string{platformtest.ShopifyHost + ":443=127.0.0.1:" + s.Port}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read(t, untrusting, base, creds(s), 0); orders.FailureCode(err) != orders.FailConnection {
		t.Fatalf("TLS failure: %v", err)
	}
	s.Faults[1] = platformtest.Fault{Hang: true}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = shopify.Reader{}.Read(ctx, orders.PlatformRead{Client: s.Client, BaseURL: base, Credentials: creds(s), Since: since, PageSize: 25},
		func(orders.PlatformPage) (bool, error) { return true, nil })
	if orders.FailureCode(err) != orders.FailTimeout {
		t.Fatalf("timeout: %v", err)
	}
}
