// Package shopify reads orders from a Shopify store (the hosted-store platform of
// spec 1) through the GraphQL Admin API, version 2026-10, and maps them to
// core.OrderInput. Every call goes through the SSRF-safe outbound client of the
// read (core.PlatformCall: 30 s, 20 MB, https on port 443, no redirects). It
// imports app/core and app/outbound only.
package shopify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
)

// APIVersion is the Admin API version orders are read from.
const APIVersion = "2026-10"

// Reader is the Shopify order reader.
type Reader struct{}

// Code is the platform code.
func (Reader) Code() string { return orders.PlatformShopify }

// reShop is the platform's own store domain; custom domains and admin.shopify.com
// are refused before any request is sent.
var reShop = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*\.myshopify\.com$`)

// ShopHost returns <store>.myshopify.com from a connection address, or false when
// the address is not a store's own domain.
func ShopHost(base string) (string, bool) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "https" || (u.Port() != "" && u.Port() != "443") {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	return host, reShop.MatchString(host)
}

// ordersQuery reads one page of orders changed since a time, oldest change first:
// the first 50 lines and the first 5 shipments of each order.
const ordersQuery = `query ReviewdOrders($first: Int!, $after: String, $query: String!) {
  orders(first: $first, after: $after, sortKey: UPDATED_AT, query: $query) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id
      name
      createdAt
      updatedAt
      cancelledAt
      email
      phone
      customerLocale
      displayFinancialStatus
      lineItems(first: 50) {
        pageInfo { hasNextPage }
        nodes {
          id
          sku
          name
          quantity
          currentQuantity
          variant { legacyResourceId }
          product { legacyResourceId }
        }
      }
      fulfillments(first: 5) {
        status
        displayStatus
        deliveredAt
        updatedAt
        fulfillmentLineItems(first: 50) { nodes { lineItem { id } } }
      }
    }
  }
}`

// session is one read: the store, its credentials and the token of this read.
type session struct {
	client    *outbound.Client
	host      string
	clientID  string
	secret    string
	token     string
	refreshed bool
}

// Read reads the orders changed since r.Since (see core.PlatformReader). With a
// client_id a token is requested with the client-credentials grant at the start of
// the read (and once more on a 401); without one, client_secret is an older access
// token used as it is.
func (Reader) Read(ctx context.Context, r orders.PlatformRead, page func(orders.PlatformPage) (bool, error)) error {
	ctx = outbound.WithTarget(ctx, Reader{}.Code())
	host, ok := ShopHost(r.BaseURL)
	if !ok {
		return orders.Failure(orders.FailShopAddressInvalid, nil)
	}
	s := &session{client: r.Client, host: host, clientID: r.Credentials["client_id"], secret: r.Credentials["client_secret"]}
	if s.secret == "" {
		return orders.Failure(orders.FailAPICredentialsMissing, nil)
	}
	s.token = s.secret
	if s.clientID != "" {
		if err := s.requestToken(ctx); err != nil {
			return err
		}
	}
	first := r.PageSize
	if first <= 0 || first > 25 {
		first = 25
	}
	search := fmt.Sprintf("updated_at:>='%s'", r.Since.UTC().Format(time.RFC3339))
	after := ""
	for {
		conn, size, err := s.ordersPage(ctx, first, after, search)
		if err != nil {
			return err
		}
		first = size // a page too costly at 25 orders stays smaller for the rest of the read
		out := orders.PlatformPage{Orders: make([]orders.PlatformOrder, 0, len(conn.Nodes)), More: conn.PageInfo.HasNextPage}
		for _, o := range conn.Nodes {
			out.Orders = append(out.Orders, MapOrder(o))
		}
		more, err := page(out)
		if err != nil || !more || !out.More {
			return err
		}
		if conn.PageInfo.EndCursor == "" {
			return orders.Failure(orders.FailAnswerInvalid, errors.New("no end cursor"))
		}
		after = conn.PageInfo.EndCursor
	}
}

// tokenAnswer is the answer of the client-credentials grant.
type tokenAnswer struct {
	AccessToken string `json:"access_token"`
	Scope       string `json:"scope"`
	ExpiresIn   int    `json:"expires_in"`
}

// requestToken asks the store for an access token (valid about 24 hours, never
// stored). 400, 401 and 403 mean the app's credentials were refused.
func (s *session) requestToken(ctx context.Context) error {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {s.clientID}, "client_secret": {s.secret}}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	resp, err := orders.PlatformCall(ctx, s.client, outbound.Request{Method: http.MethodPost,
		URL: "https://" + s.host + "/admin/oauth/access_token", Header: h, Body: []byte(form.Encode())})
	if err != nil {
		return err
	}
	switch resp.Status {
	case http.StatusOK:
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return orders.Failure(orders.FailCredentialsRefused, nil)
	case http.StatusTooManyRequests:
		return orders.Failure(orders.FailThrottled, nil)
	default:
		return orders.StatusFailure(resp.Status)
	}
	var t tokenAnswer
	if err := json.Unmarshal(resp.Body, &t); err != nil || t.AccessToken == "" {
		return orders.Failure(orders.FailAnswerInvalid, errors.New("token answer without access_token"))
	}
	if t.Scope != "" && !hasReadOrders(t.Scope) {
		return orders.Failure(orders.FailScopeMissing, nil)
	}
	s.token = t.AccessToken
	return nil
}

// hasReadOrders reports whether a granted scope list allows reading orders
// (write_orders includes read_orders).
func hasReadOrders(scope string) bool {
	for _, sc := range strings.Split(scope, ",") {
		switch strings.TrimSpace(sc) {
		case "read_orders", "write_orders":
			return true
		}
	}
	return false
}

// gqlAnswer is a GraphQL answer: data, errors and the cost extension.
type gqlAnswer struct {
	Data *struct {
		Orders *Connection `json:"orders"`
	} `json:"data"`
	Errors     []gqlError `json:"errors"`
	Extensions *struct {
		Cost *Cost `json:"cost"`
	} `json:"extensions"`
}

type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code    string  `json:"code"`
		Cost    float64 `json:"cost"`
		MaxCost float64 `json:"maxCost"`
	} `json:"extensions"`
}

// Cost is the query cost extension of an answer.
type Cost struct {
	RequestedQueryCost float64  `json:"requestedQueryCost"`
	ActualQueryCost    *float64 `json:"actualQueryCost"`
	ThrottleStatus     struct {
		MaximumAvailable   float64 `json:"maximumAvailable"`
		CurrentlyAvailable float64 `json:"currentlyAvailable"`
		RestoreRate        float64 `json:"restoreRate"`
	} `json:"throttleStatus"`
}

// Connection is the orders connection of one page.
type Connection struct {
	PageInfo struct {
		HasNextPage bool   `json:"hasNextPage"`
		EndCursor   string `json:"endCursor"`
	} `json:"pageInfo"`
	Nodes []Order `json:"nodes"`
}

func (a gqlAnswer) code(code string) bool {
	for _, e := range a.Errors {
		if e.Extensions.Code == code {
			return true
		}
	}
	return false
}

// tooCostly reports the "query cost above the single-query limit" refusal.
func (a gqlAnswer) tooCostly() bool {
	for _, e := range a.Errors {
		if e.Extensions.Code == "MAX_COST_EXCEEDED" || strings.Contains(e.Message, "exceeds the single query max cost limit") {
			return true
		}
	}
	return false
}

// smaller is the page size to ask for after a page of first orders was refused as
// too costly: in proportion to the cost and the limit the refusal names, else half,
// and always fewer than before.
func (a gqlAnswer) smaller(first int) int {
	n := first / 2
	for _, e := range a.Errors {
		if c, m := e.Extensions.Cost, e.Extensions.MaxCost; c > 0 && m > 0 {
			n = int(float64(first) * m / c)
		}
	}
	if n >= first {
		n = first - 1
	}
	if n < 1 {
		n = 1
	}
	return n
}

// ordersPage requests one page. A page refused as too costly is requested again
// with fewer orders (down to one); a 401 with a client_id gets one new token. It
// returns the page and the page size that worked.
func (s *session) ordersPage(ctx context.Context, first int, after, search string) (*Connection, int, error) {
	for {
		vars := map[string]any{"first": first, "query": search, "after": nil}
		if after != "" {
			vars["after"] = after
		}
		body, _ := json.Marshal(map[string]any{"query": ordersQuery, "variables": vars})
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"},
			"X-Shopify-Access-Token": {s.token}}
		resp, err := orders.PlatformCall(ctx, s.client, outbound.Request{Method: http.MethodPost,
			URL: "https://" + s.host + "/admin/api/" + APIVersion + "/graphql.json", Header: h, Body: body})
		if err != nil {
			return nil, first, err
		}
		switch resp.Status {
		case http.StatusOK:
		case http.StatusUnauthorized:
			if s.clientID == "" || s.refreshed {
				return nil, first, orders.Failure(orders.FailCredentialsRefused, nil)
			}
			s.refreshed = true
			if err := s.requestToken(ctx); err != nil {
				return nil, first, err
			}
			continue
		case http.StatusForbidden:
			return nil, first, orders.Failure(orders.FailScopeMissing, nil)
		case http.StatusTooManyRequests:
			return nil, first, orders.Failure(orders.FailThrottled, nil)
		default:
			return nil, first, orders.StatusFailure(resp.Status)
		}
		var a gqlAnswer
		dec := json.NewDecoder(bytes.NewReader(resp.Body))
		if err := dec.Decode(&a); err != nil {
			return nil, first, orders.Failure(orders.FailAnswerInvalid, err)
		}
		switch {
		case a.code("THROTTLED"):
			return nil, first, orders.Failure(orders.FailThrottled, nil)
		case a.tooCostly():
			if first == 1 {
				return nil, first, orders.Failure(orders.FailAnswerInvalid, errors.New("one order costs more than a query may"))
			}
			first = a.smaller(first)
			continue
		case a.code("ACCESS_DENIED"):
			return nil, first, orders.Failure(orders.FailScopeMissing, nil)
		case a.Data == nil || a.Data.Orders == nil:
			return nil, first, orders.Failure(orders.FailAnswerInvalid, errors.New("no order list in the answer"))
		}
		return a.Data.Orders, first, nil
	}
}
