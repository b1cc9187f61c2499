package platformtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// MagentoHost is the store host the Magento fake answers for.
const (
	MagentoHost = "magento.shop.example"
	MagentoBase = "https://" + MagentoHost
)

// MagentoRequest is one request the Magento fake received.
type MagentoRequest struct {
	Kind  string // token or orders
	Token string // bearer token of an orders request
	Query url.Values
	Login map[string]string // body of a token request
}

// Magento plays Magento 2 / Adobe Commerce REST: the admin token endpoint and the
// order list with searchCriteria.
type Magento struct {
	*TLSServer
	t  testing.TB
	mu sync.Mutex
	// Username and Password of the integration's admin user.
	Username, Password string
	// NoSalesRole makes every order list answer the ACL refusal.
	NoSalesRole bool
	// Faults by orders request number and token request number (1-based).
	Faults      map[int]Fault
	TokenFaults map[int]Fault
	orders      []map[string]any
	tokens      map[string]bool
	issued      int
	requests    []MagentoRequest
	list        int
	logins      int
}

// StartMagento starts the fake.
func StartMagento(t testing.TB) *Magento {
	t.Helper()
	s := &Magento{t: t, Username: "reviewd-api", Password: "Sup3r-Secret-Pass", Faults: map[int]Fault{},
		TokenFaults: map[int]Fault{}, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /rest/V1/integration/admin/token", s.token)
	mux.HandleFunc("GET /rest/V1/orders", s.orderList)
	s.TLSServer = StartTLS(t, mux, MagentoHost)
	return s
}

// SetOrders replaces the store's orders.
func (s *Magento) SetOrders(orders []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders = orders
}

// Requests returns what the fake received so far.
func (s *Magento) Requests() []MagentoRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]MagentoRequest(nil), s.requests...)
}

// OrderRequests returns the order list requests received so far.
func (s *Magento) OrderRequests() []MagentoRequest {
	var out []MagentoRequest
	for _, r := range s.Requests() {
		if r.Kind == "orders" {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets requests and faults.
func (s *Magento) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.list, s.logins = nil, 0, 0
	s.Faults, s.TokenFaults = map[int]Fault{}, map[int]Fault{}
}

const magentoUnauthorized = `{"message":"The consumer isn't authorized to access %resources.","parameters":{"resources":"Magento_Sales::actions_view"}}`

func (s *Magento) token(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var login map[string]string
	_ = json.Unmarshal(raw, &login)
	s.mu.Lock()
	s.logins++
	s.requests = append(s.requests, MagentoRequest{Kind: "token", Login: login})
	f, faulty := s.TokenFaults[s.logins]
	s.mu.Unlock()
	if faulty && f.write(w, r) {
		return
	}
	if login["username"] != s.Username || login["password"] != s.Password {
		writeJSON(w, http.StatusUnauthorized, []byte(`{"message":"The account sign-in was incorrect or your account is disabled temporarily. Please wait and try again later."}`))
		return
	}
	s.mu.Lock()
	s.issued++
	tok := fmt.Sprintf("eyJraWQiOiIxIiwiYWxnIjoiSFMyNTYifQ.%06d.c2lnbmF0dXJl", s.issued)
	s.tokens[tok] = true
	s.mu.Unlock()
	body, _ := json.Marshal(tok)
	writeJSON(w, http.StatusOK, body)
}

// criteria reads searchCriteria filter group g, filter 0.
func criteria(q url.Values, g int) (field, value, cond string) {
	p := fmt.Sprintf("searchCriteria[filter_groups][%d][filters][0]", g)
	return q.Get(p + "[field]"), q.Get(p + "[value]"), q.Get(p + "[condition_type]")
}

func (s *Magento) orderList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	s.list++
	s.requests = append(s.requests, MagentoRequest{Kind: "orders", Token: tok, Query: q})
	f, faulty := s.Faults[s.list]
	if faulty && f.ExpireToken {
		s.tokens = map[string]bool{}
	}
	valid, noRole := s.tokens[tok], s.NoSalesRole
	orders := append([]map[string]any(nil), s.orders...)
	s.mu.Unlock()
	if faulty && f.write(w, r) {
		return
	}
	if faulty && f.Throttle {
		writeJSON(w, http.StatusTooManyRequests, []byte(`{"message":"Too Many Requests"}`))
		return
	}
	if !valid || noRole {
		writeJSON(w, http.StatusUnauthorized, []byte(magentoUnauthorized))
		return
	}
	if _, ok := q["searchCriteria[pageSize]"]; !ok {
		writeJSON(w, http.StatusBadRequest, []byte(`{"message":"\"%fieldName\" is required. Enter and try again.","parameters":{"fieldName":"searchCriteria"}}`))
		return
	}
	f0, since, c0 := criteria(q, 0)
	f1, store, c1 := criteria(q, 1)
	if f0 != "updated_at" || c0 != "gteq" || f1 != "store_id" || c1 != "eq" ||
		q.Get("searchCriteria[sortOrders][0][field]") != "updated_at" || q.Get("searchCriteria[sortOrders][0][direction]") != "ASC" {
		s.t.Errorf("magento fake: unexpected searchCriteria %v", q)
	}
	size, _ := strconv.Atoi(q.Get("searchCriteria[pageSize]"))
	page, _ := strconv.Atoi(q.Get("searchCriteria[currentPage]"))
	if size < 1 {
		size = 20
	}
	if page < 1 {
		page = 1
	}
	var match []map[string]any
	for _, o := range orders {
		if fmt.Sprint(o["updated_at"]) >= since && fmt.Sprint(o["store_id"]) == store {
			match = append(match, o)
		}
	}
	sort.SliceStable(match, func(i, j int) bool {
		return fmt.Sprint(match[i]["updated_at"]) < fmt.Sprint(match[j]["updated_at"])
	})
	start := (page - 1) * size
	if start >= len(match) && len(match) > 0 {
		start = ((len(match) - 1) / size) * size // Magento repeats the last page past the end
	}
	start = min(start, len(match))
	end := min(start+size, len(match))
	crit := map[string]any{"filter_groups": []any{
		map[string]any{"filters": []any{map[string]any{"field": f0, "value": since, "condition_type": c0}}},
		map[string]any{"filters": []any{map[string]any{"field": f1, "value": store, "condition_type": c1}}},
	}, "sort_orders": []any{map[string]any{"field": "updated_at", "direction": "ASC"}}, "page_size": size, "current_page": page}
	body, _ := json.Marshal(map[string]any{"items": append([]map[string]any{}, match[start:end]...),
		"search_criteria": crit, "total_count": len(match)})
	writeJSON(w, http.StatusOK, body)
}

// MagentoOrder builds a plain invoiced order of store 1 with one simple item: number
// 0000001<n>, created and updated at the given times.
func MagentoOrder(n int, created, updated time.Time) map[string]any {
	return map[string]any{
		"entity_id": 3000 + n, "increment_id": fmt.Sprintf("%09d", 100000000+n), "store_id": 1,
		"created_at": created.UTC().Format("2006-01-02 15:04:05"), "updated_at": updated.UTC().Format("2006-01-02 15:04:05"),
		"state": "processing", "status": "processing", "customer_email": fmt.Sprintf("cem%d@mail.example", n),
		"customer_is_guest": 1, "total_refunded": 0,
		"billing_address": map[string]any{"telephone": "+90 212 555 0101", "firstname": "Cem", "lastname": "Kaya"},
		"items": []any{map[string]any{"item_id": 8000 + n, "order_id": 3000 + n, "product_id": 2041, "product_type": "simple",
			"sku": "CANDLE-L", "name": "Soy candle large", "qty_ordered": 1, "qty_invoiced": 1, "qty_shipped": 0,
			"qty_refunded": 0, "qty_canceled": 0}},
	}
}
