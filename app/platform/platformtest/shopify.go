package platformtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ShopifyHost is the store domain the Shopify fake answers for.
const ShopifyHost = "acme.myshopify.com"

// ShopifyRequest is one request the Shopify fake received.
type ShopifyRequest struct {
	Kind  string // token or graphql
	Token string // X-Shopify-Access-Token of a graphql request
	// Form of a token request.
	Form map[string]string
	// Query and Variables of a graphql request.
	Query     string
	Variables struct {
		First int     `json:"first"`
		After *string `json:"after"`
		Query string  `json:"query"`
		// Metafields of a metafieldsSet call.
		Metafields []ShopifyMetafield `json:"metafields"`
	}
}

// ShopifyMetafield is one MetafieldsSetInput of a metafieldsSet call.
type ShopifyMetafield struct {
	OwnerID   string `json:"ownerId"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
	Type      string `json:"type"`
	Value     string `json:"value"`
}

// Shopify plays a store's GraphQL Admin API 2026-10 and its client-credentials
// token endpoint.
type Shopify struct {
	*TLSServer
	t testing.TB

	mu sync.Mutex
	// ClientID and ClientSecret are the app's credentials; without ClientID the
	// store accepts AccessToken (an older token) directly.
	ClientID, ClientSecret, AccessToken string
	// Scope is the granted scope list of issued tokens (default read_orders).
	Scope string
	// OrderCost is the requested cost of one order node; a page costs
	// 2 + first*OrderCost and is refused over MaxCost (1000).
	OrderCost int
	// Faults by GraphQL request number (1-based) and for the token endpoint.
	Faults      map[int]Fault
	TokenFaults map[int]Fault
	// AccessScopes are the handles currentAppInstallation.accessScopes lists
	// (default read_orders).
	AccessScopes []string
	// Cost bucket of metafieldsSet calls: a call costs MutationCost points of
	// Available (at most Maximum), restored by Restore; a call with too few
	// points left is answered THROTTLED (counted in ThrottledCalls).
	Available, Maximum, RestoreRate, MutationCost float64
	ThrottledCalls                                int
	// DeletedProducts are product ids whose metafields the store refuses
	// (userErrors, the whole call is not applied).
	DeletedProducts map[string]bool
	// Metafields is what the store holds: "<product id>/<namespace>.<key>" -> value.
	Metafields map[string]string
	orders     []map[string]any
	tokens     map[string]bool
	issued     int
	requests   []ShopifyRequest
	graphql    int
	tokenCalls int
}

// MaxCost is the single-query cost limit of the fake.
const MaxCost = 1000

// StartShopify starts the fake with client credentials shop-client / shop-secret.
func StartShopify(t testing.TB) *Shopify {
	t.Helper()
	s := &Shopify{t: t, ClientID: "shop-client", ClientSecret: "shpss_shop-secret", AccessToken: "shpat_legacy-token",
		Scope: "read_orders", OrderCost: 30,
		AccessScopes: []string{"read_orders"}, Available: 2000, Maximum: 2000, RestoreRate: 100, MutationCost: 10,
		DeletedProducts: map[string]bool{}, Metafields: map[string]string{}, Faults: map[int]Fault{}, TokenFaults: map[int]Fault{}, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/oauth/access_token", s.token)
	mux.HandleFunc("POST /admin/api/2026-10/graphql.json", s.graphQL)
	s.TLSServer = StartTLS(t, mux, ShopifyHost, "shop.example", "admin.shopify.com")
	return s
}

// SetOrders replaces the store's orders (order nodes as the API returns them).
func (s *Shopify) SetOrders(orders []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders = orders
}

// AddOrders appends orders.
func (s *Shopify) AddOrders(orders ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders = append(s.orders, orders...)
}

// Requests returns what the fake received so far.
func (s *Shopify) Requests() []ShopifyRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ShopifyRequest(nil), s.requests...)
}

// GraphQLRequests returns the GraphQL requests received so far.
func (s *Shopify) GraphQLRequests() []ShopifyRequest {
	var out []ShopifyRequest
	for _, r := range s.Requests() {
		if r.Kind == "graphql" {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the requests and faults received so far (request numbers of
// Faults start again at 1).
func (s *Shopify) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.graphql, s.tokenCalls = nil, 0, 0
	s.Faults, s.TokenFaults = map[int]Fault{}, map[int]Fault{}
}

func (s *Shopify) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	s.mu.Lock()
	s.tokenCalls++
	f, faulty := s.TokenFaults[s.tokenCalls]
	req := ShopifyRequest{Kind: "token", Form: map[string]string{}}
	for k := range r.PostForm {
		req.Form[k] = r.PostForm.Get(k)
	}
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if faulty && f.write(w, r) {
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("client_id") != s.ClientID ||
		r.PostForm.Get("client_secret") != s.ClientSecret || s.ClientID == "" {
		writeJSON(w, http.StatusBadRequest, []byte(`{"error":"invalid_client","error_description":"Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method."}`))
		return
	}
	s.mu.Lock()
	s.issued++
	tok := fmt.Sprintf("shpat_%032d", s.issued)
	s.tokens[tok] = true
	scope := s.Scope
	s.mu.Unlock()
	body, _ := json.Marshal(map[string]any{"access_token": tok, "scope": scope, "expires_in": 86399})
	writeJSON(w, http.StatusOK, body)
}

var reUpdatedSince = regexp.MustCompile(`^updated_at:>='([^']+)'$`)

type gqlBody struct {
	Query     string          `json:"query"`
	Variables json.RawMessage `json:"variables"`
}

func (s *Shopify) graphQL(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var b gqlBody
	req := ShopifyRequest{Kind: "graphql", Token: r.Header.Get("X-Shopify-Access-Token")}
	if err := json.Unmarshal(raw, &b); err != nil || r.Header.Get("Content-Type") != "application/json" {
		writeJSON(w, http.StatusBadRequest, []byte(`{"errors":{"query":"Required parameter missing or invalid"}}`))
		return
	}
	req.Query = b.Query
	_ = json.Unmarshal(b.Variables, &req.Variables)
	s.mu.Lock()
	s.graphql++
	n := s.graphql
	s.requests = append(s.requests, req)
	f, faulty := s.Faults[n]
	if faulty && f.ExpireToken {
		s.tokens = map[string]bool{}
	}
	valid := s.tokens[req.Token] || (s.AccessToken != "" && req.Token == s.AccessToken && s.ClientID == "")
	orders := append([]map[string]any(nil), s.orders...)
	cost := s.OrderCost
	s.mu.Unlock()

	if faulty && f.write(w, r) {
		return
	}
	if !valid {
		writeJSON(w, http.StatusUnauthorized, []byte(`{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}`))
		return
	}
	first := req.Variables.First
	requested := 2 + first*cost
	if faulty && f.Throttle {
		writeJSON(w, http.StatusOK, []byte(fmt.Sprintf(`{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED","documentation":"https://shopify.dev/api/usage/rate-limits"}}],"extensions":{"cost":{"requestedQueryCost":%d,"actualQueryCost":null,"throttleStatus":{"maximumAvailable":2000.0,"currentlyAvailable":%d,"restoreRate":100.0}}}}`, requested, requested/3)))
		return
	}
	if strings.Contains(b.Query, "currentAppInstallation") {
		s.scopes(w)
		return
	}
	if strings.Contains(b.Query, "metafieldsDelete(") {
		s.metafieldsDelete(w, req)
		return
	}
	if strings.Contains(b.Query, "metafieldsSet(") {
		s.metafieldsSet(w, req)
		return
	}
	if requested > MaxCost {
		writeJSON(w, http.StatusOK, []byte(fmt.Sprintf(`{"errors":[{"message":"Query cost is %d, which exceeds the single query max cost limit (%d).\n\nSee https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n\nTo query larger amounts of data with fewer limits, bulk operations should be used instead.\nSee https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n","extensions":{"code":"MAX_COST_EXCEEDED","cost":%d,"maxCost":%d}}]}`, requested, MaxCost, requested, MaxCost)))
		return
	}
	if first < 1 || first > 250 || !strings.Contains(b.Query, "sortKey: UPDATED_AT") {
		writeJSON(w, http.StatusOK, []byte(`{"errors":[{"message":"Variable $first of type Int! was provided invalid value","extensions":{"code":"INVALID_VARIABLE"}}]}`))
		return
	}
	m := reUpdatedSince.FindStringSubmatch(req.Variables.Query)
	if m == nil {
		s.t.Errorf("shopify fake: search %q is not updated_at:>='...'", req.Variables.Query)
		writeJSON(w, http.StatusOK, []byte(`{"errors":[{"message":"Invalid search"}]}`))
		return
	}
	since, err := time.Parse(time.RFC3339, m[1])
	if err != nil {
		s.t.Errorf("shopify fake: search time %q: %v", m[1], err)
	}
	var match []map[string]any
	for _, o := range orders {
		if u, err := time.Parse(time.RFC3339, fmt.Sprint(o["updatedAt"])); err == nil && !u.Before(since) {
			match = append(match, o)
		}
	}
	sort.SliceStable(match, func(i, j int) bool {
		return fmt.Sprint(match[i]["updatedAt"]) < fmt.Sprint(match[j]["updatedAt"])
	})
	start := 0
	if req.Variables.After != nil {
		c, err := base64.StdEncoding.DecodeString(*req.Variables.After)
		var cur struct {
			LastIndex int `json:"last_index"`
		}
		if err != nil || json.Unmarshal(c, &cur) != nil {
			writeJSON(w, http.StatusOK, []byte(`{"errors":[{"message":"Invalid cursor for current pagination sort.","extensions":{"code":"BAD_REQUEST"}}]}`))
			return
		}
		start = cur.LastIndex + 1
	}
	end := min(start+first, len(match))
	page := []map[string]any{}
	if start < len(match) {
		page = match[start:end]
	}
	endCursor := any(nil)
	if len(page) > 0 {
		c, _ := json.Marshal(map[string]any{"last_index": end - 1, "last_id": page[len(page)-1]["id"]})
		endCursor = base64.StdEncoding.EncodeToString(c)
	}
	actual := 2 + len(page)*(cost/3+1)
	body, _ := json.Marshal(map[string]any{
		"data": map[string]any{"orders": map[string]any{
			"pageInfo": map[string]any{"hasNextPage": end < len(match), "endCursor": endCursor},
			"nodes":    page,
		}},
		"extensions": map[string]any{"cost": map[string]any{
			"requestedQueryCost": requested, "actualQueryCost": actual,
			"throttleStatus": map[string]any{"maximumAvailable": 2000.0, "currentlyAvailable": 2000 - actual, "restoreRate": 100.0},
		}},
	})
	writeJSON(w, http.StatusOK, body)
}

// ShopifyOrder builds a plain paid order node with one unfulfilled line: number
// #<n>, created and updated at the given times.
func ShopifyOrder(n int, created, updated time.Time) map[string]any {
	id := strconv.Itoa(5_000_000 + n)
	return map[string]any{
		"id": "gid://shopify/Order/" + id, "name": "#" + strconv.Itoa(1000+n),
		"createdAt": created.UTC().Format(time.RFC3339), "updatedAt": updated.UTC().Format(time.RFC3339),
		"cancelledAt": nil, "email": fmt.Sprintf("buyer%d@mail.example", n), "phone": nil, "customerLocale": "en-GB",
		"displayFinancialStatus": "PAID",
		"lineItems": map[string]any{"pageInfo": map[string]any{"hasNextPage": false}, "nodes": []any{
			map[string]any{"id": "gid://shopify/LineItem/" + strconv.Itoa(9_000_000+n), "sku": "MUG-RED", "name": "Mug - Red",
				"quantity": 1, "currentQuantity": 1, "variant": map[string]any{"legacyResourceId": "44010001"},
				"product": map[string]any{"legacyResourceId": "33010001"}},
		}},
		"fulfillments": []any{},
	}
}

// Restore adds the points the bucket regains in d.
func (s *Shopify) Restore(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Available = min(s.Maximum, s.Available+d.Seconds()*s.RestoreRate)
}

// MetafieldCalls returns the metafieldsSet and metafieldsDelete calls received so
// far (throttled ones included).
func (s *Shopify) MetafieldCalls() []ShopifyRequest {
	var out []ShopifyRequest
	for _, r := range s.GraphQLRequests() {
		if strings.Contains(r.Query, "metafieldsSet(") || strings.Contains(r.Query, "metafieldsDelete(") {
			out = append(out, r)
		}
	}
	return out
}

// Metafield returns the value the store holds for a product's metafield
// ("reviews.rating"), "" when none.
func (s *Shopify) Metafield(productID, key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Metafields[productID+"/"+key]
}

func (s *Shopify) costExtension(requested, actual any) map[string]any {
	return map[string]any{"cost": map[string]any{"requestedQueryCost": requested, "actualQueryCost": actual,
		"throttleStatus": map[string]any{"maximumAvailable": s.Maximum, "currentlyAvailable": s.Available, "restoreRate": s.RestoreRate}}}
}

func (s *Shopify) scopes(w http.ResponseWriter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	handles := []any{}
	for _, h := range s.AccessScopes {
		handles = append(handles, map[string]any{"handle": h})
	}
	body, _ := json.Marshal(map[string]any{
		"data":       map[string]any{"currentAppInstallation": map[string]any{"accessScopes": handles}},
		"extensions": s.costExtension(2, 2),
	})
	writeJSON(w, http.StatusOK, body)
}

var reProductGID = regexp.MustCompile(`^gid://shopify/Product/([0-9]+)$`)

// metafieldsSet plays the mutation: at most 25 inputs, atomic (a userError sets
// nothing), charged against the cost bucket.
func (s *Shopify) metafieldsSet(w http.ResponseWriter, req ShopifyRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cost := s.MutationCost
	if s.Available < cost {
		s.ThrottledCalls++
		body, _ := json.Marshal(map[string]any{
			"errors":     []any{map[string]any{"message": "Throttled", "extensions": map[string]any{"code": "THROTTLED", "documentation": "https://shopify.dev/api/usage/rate-limits"}}},
			"extensions": s.costExtension(cost, nil),
		})
		writeJSON(w, http.StatusOK, body)
		return
	}
	in := req.Variables.Metafields
	if len(in) > 25 {
		s.t.Errorf("shopify fake: metafieldsSet with %d metafields (at most 25)", len(in))
		body, _ := json.Marshal(map[string]any{"errors": []any{map[string]any{"message": "The input array size of " + strconv.Itoa(len(in)) + " is greater than the maximum allowed of 25.", "extensions": map[string]any{"code": "MAX_INPUT_SIZE_EXCEEDED"}}}})
		writeJSON(w, http.StatusOK, body)
		return
	}
	s.Available -= cost
	userErrors := []any{}
	for i, m := range in {
		id := reProductGID.FindStringSubmatch(m.OwnerID)
		switch {
		case id == nil:
			userErrors = append(userErrors, map[string]any{"field": []any{"metafields", strconv.Itoa(i), "ownerId"}, "message": "Owner type is invalid.", "code": "INVALID_TYPE", "elementIndex": i})
		case s.DeletedProducts[id[1]]:
			userErrors = append(userErrors, map[string]any{"field": []any{"metafields", strconv.Itoa(i), "ownerId"}, "message": "Owner does not exist.", "code": "INVALID", "elementIndex": i})
		case !validRatingField(m):
			s.t.Errorf("shopify fake: metafield %+v is not a reviews.rating / reviews.rating_count value", m)
			userErrors = append(userErrors, map[string]any{"field": []any{"metafields", strconv.Itoa(i), "value"}, "message": "Value is invalid.", "code": "INVALID_VALUE", "elementIndex": i})
		}
	}
	set := []any{}
	if len(userErrors) == 0 {
		for _, m := range in {
			id := reProductGID.FindStringSubmatch(m.OwnerID)[1]
			s.Metafields[id+"/"+m.Namespace+"."+m.Key] = m.Value
			set = append(set, map[string]any{"ownerType": "PRODUCT", "key": m.Key, "namespace": m.Namespace})
		}
	}
	body, _ := json.Marshal(map[string]any{
		"data":       map[string]any{"metafieldsSet": map[string]any{"metafields": set, "userErrors": userErrors}},
		"extensions": s.costExtension(cost, cost),
	})
	writeJSON(w, http.StatusOK, body)
}

// validRatingField checks a standard review metafield as Shopify validates it.
func validRatingField(m ShopifyMetafield) bool {
	if m.Namespace != "reviews" {
		return false
	}
	switch m.Key {
	case "rating":
		var v struct {
			Value    string `json:"value"`
			ScaleMin string `json:"scale_min"`
			ScaleMax string `json:"scale_max"`
		}
		if m.Type != "rating" || json.Unmarshal([]byte(m.Value), &v) != nil {
			return false
		}
		x, err1 := strconv.ParseFloat(v.Value, 64)
		lo, err2 := strconv.ParseFloat(v.ScaleMin, 64)
		hi, err3 := strconv.ParseFloat(v.ScaleMax, 64)
		return err1 == nil && err2 == nil && err3 == nil && lo <= x && x <= hi
	case "rating_count":
		n, err := strconv.Atoi(m.Value)
		return m.Type == "number_integer" && err == nil && n >= 0
	}
	return false
}

// metafieldsDelete plays the mutation: each identifier is deleted, null in
// deletedMetafields when the store held no such field.
func (s *Shopify) metafieldsDelete(w http.ResponseWriter, req ShopifyRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cost := s.MutationCost
	if s.Available < cost {
		s.ThrottledCalls++
		body, _ := json.Marshal(map[string]any{
			"errors":     []any{map[string]any{"message": "Throttled", "extensions": map[string]any{"code": "THROTTLED"}}},
			"extensions": s.costExtension(cost, nil),
		})
		writeJSON(w, http.StatusOK, body)
		return
	}
	s.Available -= cost
	deleted := []any{}
	for _, m := range req.Variables.Metafields {
		id := reProductGID.FindStringSubmatch(m.OwnerID)
		if id == nil || m.Type != "" || m.Value != "" {
			s.t.Errorf("shopify fake: metafieldsDelete identifier %+v", m)
			continue
		}
		k := id[1] + "/" + m.Namespace + "." + m.Key
		if _, ok := s.Metafields[k]; !ok {
			deleted = append(deleted, nil)
			continue
		}
		delete(s.Metafields, k)
		deleted = append(deleted, map[string]any{"ownerId": m.OwnerID, "namespace": m.Namespace, "key": m.Key})
	}
	body, _ := json.Marshal(map[string]any{
		"data":       map[string]any{"metafieldsDelete": map[string]any{"deletedMetafields": deleted, "userErrors": []any{}}},
		"extensions": s.costExtension(cost, cost),
	})
	writeJSON(w, http.StatusOK, body)
}
