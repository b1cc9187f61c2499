package platformtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// WooHost is the store host the WooCommerce fake answers for; the store lives under
// /shop (a WordPress in a sub-folder).
const (
	WooHost = "woo.shop.example"
	WooBase = "https://" + WooHost + "/shop"
)

// WooRequest is one request the WooCommerce fake received.
type WooRequest struct {
	Query url.Values
	Auth  string // "key:secret" from Basic auth
}

// WooCommerce plays a store's REST API v3 order list with consumer-key Basic auth
// and the WordPress paging headers.
type WooCommerce struct {
	*TLSServer
	t  testing.TB
	mu sync.Mutex
	// Key and Secret are the consumer key and secret of a read key.
	Key, Secret string
	// Faults by request number (1-based).
	Faults   map[int]Fault
	orders   []map[string]any
	requests []WooRequest
}

// StartWooCommerce starts the fake.
func StartWooCommerce(t testing.TB) *WooCommerce {
	t.Helper()
	s := &WooCommerce{t: t, Key: "ck_4f1c0e3b9a7d2e6f8a1b3c5d7e9f0a2b4c6d8e0f", Secret: "cs_9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d",
		Faults: map[int]Fault{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /shop/wp-json/wc/v3/orders", s.list)
	s.TLSServer = StartTLS(t, mux, WooHost)
	return s
}

// SetOrders replaces the store's orders.
func (s *WooCommerce) SetOrders(orders []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders = orders
}

// Requests returns what the fake received so far.
func (s *WooCommerce) Requests() []WooRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WooRequest(nil), s.requests...)
}

// Reset forgets requests and faults.
func (s *WooCommerce) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.Faults = nil, map[int]Fault{}
}

func (s *WooCommerce) list(w http.ResponseWriter, r *http.Request) {
	req := WooRequest{Query: r.URL.Query()}
	if k, sec, ok := r.BasicAuth(); ok {
		req.Auth = k + ":" + sec
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	f, faulty := s.Faults[len(s.requests)]
	orders := append([]map[string]any(nil), s.orders...)
	s.mu.Unlock()
	if faulty && f.write(w, r) {
		return
	}
	if faulty && f.Throttle {
		writeJSON(w, http.StatusTooManyRequests, []byte(`{"code":"rest_rate_limited","message":"Too many requests. Please wait and try again.","data":{"status":429}}`))
		return
	}
	if req.Auth != s.Key+":"+s.Secret {
		writeJSON(w, http.StatusUnauthorized, []byte(`{"code":"woocommerce_rest_authentication_error","message":"Consumer key is invalid.","data":{"status":401}}`))
		return
	}
	q := req.Query
	per, _ := strconv.Atoi(q.Get("per_page"))
	page, _ := strconv.Atoi(q.Get("page"))
	if per < 1 || per > 100 {
		writeJSON(w, http.StatusBadRequest, []byte(`{"code":"rest_invalid_param","message":"Invalid parameter(s): per_page","data":{"status":400,"params":{"per_page":"per_page must be between 1 (inclusive) and 100 (inclusive)"}}}`))
		return
	}
	if page < 1 {
		page = 1
	}
	if q.Get("dates_are_gmt") != "true" || q.Get("orderby") != "modified" || q.Get("order") != "asc" {
		s.t.Errorf("woocommerce fake: query %v does not sort by modified (GMT) ascending", q)
	}
	since, err := time.Parse("2006-01-02T15:04:05", q.Get("modified_after"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, []byte(`{"code":"rest_invalid_param","message":"Invalid parameter(s): modified_after","data":{"status":400}}`))
		return
	}
	var match []map[string]any
	for _, o := range orders {
		// modified_after is exclusive at WooCommerce.
		if m, err := time.Parse("2006-01-02T15:04:05", fmt.Sprint(o["date_modified_gmt"])); err == nil && m.After(since) {
			match = append(match, o)
		}
	}
	sort.SliceStable(match, func(i, j int) bool {
		return fmt.Sprint(match[i]["date_modified_gmt"]) < fmt.Sprint(match[j]["date_modified_gmt"])
	})
	pages := (len(match) + per - 1) / per
	start := min((page-1)*per, len(match))
	end := min(start+per, len(match))
	body, _ := json.Marshal(append([]map[string]any{}, match[start:end]...))
	w.Header().Set("X-WP-Total", strconv.Itoa(len(match)))
	w.Header().Set("X-WP-TotalPages", strconv.Itoa(pages))
	if page < pages {
		next := *r.URL
		nq := next.Query()
		nq.Set("page", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", `<https://`+WooHost+next.RequestURI()+`>; rel="next"`)
	}
	writeJSON(w, http.StatusOK, body)
}

// WooAuthHeader is the Authorization header of the fake's key.
func (s *WooCommerce) WooAuthHeader() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(s.Key+":"+s.Secret))
}

// WooOrder builds a plain processing order with one line: number <n>, created and
// modified at the given times (GMT).
func WooOrder(n int, created, modified time.Time) map[string]any {
	return map[string]any{
		"id": 7000 + n, "parent_id": 0, "number": strconv.Itoa(7000 + n), "order_key": "wc_order_" + strings.Repeat("x", 8),
		"status": "processing", "currency": "EUR", "total": "29.90", "customer_id": 0,
		"date_created": created.Format("2006-01-02T15:04:05"), "date_created_gmt": created.UTC().Format("2006-01-02T15:04:05"),
		"date_modified": modified.Format("2006-01-02T15:04:05"), "date_modified_gmt": modified.UTC().Format("2006-01-02T15:04:05"),
		"date_completed_gmt": nil, "date_paid_gmt": created.UTC().Format("2006-01-02T15:04:05"),
		"billing": map[string]any{"first_name": "Ada", "last_name": "Demir", "email": fmt.Sprintf("ada%d@mail.example", n), "phone": ""},
		"line_items": []any{map[string]any{"id": 90000 + n, "name": "Linen napkin", "product_id": 311, "variation_id": 0,
			"quantity": 2, "sku": "NAP-1", "meta_data": []any{}}},
		"refunds": []any{}, "meta_data": []any{},
	}
}
