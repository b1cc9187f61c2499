// Package magento reads orders from a Magento 2 / Adobe Commerce store (the
// enterprise platform of spec 1) through its REST API: an admin token from the
// connection's username and password at the start of each read, then
// GET /rest/V1/orders with searchCriteria (changed since, the store id of
// remote_channel, sorted by updated_at). Orders are mapped to core.OrderInput.
// Every call goes through the SSRF-safe outbound client of the read
// (core.PlatformCall). It imports app/core and app/outbound only.
package magento

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
)

// Reader is the Magento order reader.
type Reader struct{}

// Code is the platform code.
func (Reader) Code() string { return orders.PlatformMagento }

// Paths of the REST API after the store's address.
const (
	TokenPath  = "/rest/V1/integration/admin/token"
	OrdersPath = "/rest/V1/orders"
)

// Fields limits the answer to what reviewd reads (the fields query parameter): no
// names, addresses, prices or payment details are transferred.
const Fields = "items[entity_id,increment_id,store_id,created_at,updated_at,state,status,customer_email,customer_id," +
	"customer_is_guest,total_refunded,billing_address[telephone],items[item_id,parent_item_id,product_id,product_type,sku," +
	"name,qty_ordered,qty_invoiced,qty_shipped,qty_refunded,qty_canceled]],total_count"

// TimeLayout is how Magento writes times (UTC, no zone).
const TimeLayout = "2006-01-02 15:04:05"

type session struct {
	client    *outbound.Client
	base      string
	user      string
	pass      string
	token     string
	refreshed bool
}

// Read reads the orders of store r.RemoteChannel updated since r.Since, oldest
// change first (see core.PlatformReader).
func (Reader) Read(ctx context.Context, r orders.PlatformRead, page func(orders.PlatformPage) (bool, error)) error {
	ctx = outbound.WithTarget(ctx, Reader{}.Code())
	s := &session{client: r.Client, base: strings.TrimRight(r.BaseURL, "/"), user: r.Credentials["username"],
		pass: r.Credentials["password"]}
	if s.user == "" || s.pass == "" {
		return orders.Failure(orders.FailCredentialsMissing, nil)
	}
	if _, err := strconv.ParseUint(r.RemoteChannel, 10, 32); err != nil {
		return orders.Failure(orders.FailUnexpected, errors.New("remote_channel is not a store id"))
	}
	if err := s.login(ctx); err != nil {
		return err
	}
	size := r.PageSize
	if size <= 0 {
		size = 50
	}
	for n := 1; ; n++ {
		list, err := s.orders(ctx, SearchCriteria(r.Since.UTC().Format(TimeLayout), r.RemoteChannel, size, n))
		if err != nil {
			return err
		}
		out := orders.PlatformPage{Orders: make([]orders.PlatformOrder, 0, len(list.Items)),
			More: n*size < list.TotalCount && len(list.Items) > 0}
		for _, o := range list.Items {
			out.Orders = append(out.Orders, MapOrder(o))
		}
		cont, err := page(out)
		if err != nil || !cont || !out.More {
			return err
		}
	}
}

// SearchCriteria builds the query of one page: updated_at at or after since AND
// store_id equal to the store, sorted by updated_at then entity_id, only the
// fields reviewd reads.
func SearchCriteria(since, storeID string, size, page int) url.Values {
	return url.Values{
		"searchCriteria[filter_groups][0][filters][0][field]":          {"updated_at"},
		"searchCriteria[filter_groups][0][filters][0][value]":          {since},
		"searchCriteria[filter_groups][0][filters][0][condition_type]": {"gteq"},
		"searchCriteria[filter_groups][1][filters][0][field]":          {"store_id"},
		"searchCriteria[filter_groups][1][filters][0][value]":          {storeID},
		"searchCriteria[filter_groups][1][filters][0][condition_type]": {"eq"},
		"searchCriteria[sortOrders][0][field]":                         {"updated_at"},
		"searchCriteria[sortOrders][0][direction]":                     {"ASC"},
		"searchCriteria[sortOrders][1][field]":                         {"entity_id"},
		"searchCriteria[sortOrders][1][direction]":                     {"ASC"},
		"searchCriteria[pageSize]":                                     {strconv.Itoa(size)},
		"searchCriteria[currentPage]":                                  {strconv.Itoa(page)},
		"fields":                                                       {Fields},
	}
}

// login requests an admin token (a bare JSON string, valid 4 hours by default; never
// stored). 400 and 401 mean the username or password was refused.
func (s *session) login(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"username": s.user, "password": s.pass})
	resp, err := orders.PlatformCall(ctx, s.client, outbound.Request{Method: http.MethodPost, URL: s.base + TokenPath,
		Header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, Body: body})
	if err != nil {
		return err
	}
	switch resp.Status {
	case http.StatusOK:
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		return orders.Failure(orders.FailLoginRefused, nil)
	case http.StatusTooManyRequests:
		return orders.Failure(orders.FailThrottled, nil)
	default:
		return orders.StatusFailure(resp.Status)
	}
	var tok string
	if err := json.Unmarshal(resp.Body, &tok); err != nil || strings.TrimSpace(tok) == "" {
		return orders.Failure(orders.FailAnswerInvalid, errors.New("token answer is not a string"))
	}
	s.token = strings.TrimSpace(tok)
	return nil
}

// OrderList is the answer of GET /V1/orders.
type OrderList struct {
	Items      []Order `json:"items"`
	TotalCount int     `json:"total_count"`
}

type apiError struct {
	Message string `json:"message"`
}

// orders requests one page. A 401 gets one new token (the old one expired); a 401
// with the new token is a role without the sales resource (api_scope_missing) or a
// refused token (api_credentials_refused).
func (s *session) orders(ctx context.Context, q url.Values) (*OrderList, error) {
	for {
		resp, err := orders.PlatformCall(ctx, s.client, outbound.Request{URL: s.base + OrdersPath + "?" + q.Encode(),
			Header: http.Header{"Authorization": {"Bearer " + s.token}, "Accept": {"application/json"}}})
		if err != nil {
			return nil, err
		}
		switch resp.Status {
		case http.StatusOK:
		case http.StatusUnauthorized:
			// Magento answers an expired token and a role without the sales
			// resource alike ("The consumer isn't authorized to access
			// %resources."): only a 401 with a token just issued is the role.
			if s.refreshed {
				var e apiError
				_ = json.Unmarshal(resp.Body, &e)
				if strings.Contains(e.Message, "isn't authorized to access") {
					return nil, orders.Failure(orders.FailScopeMissing, nil)
				}
				return nil, orders.Failure(orders.FailCredentialsRefused, nil)
			}
			s.refreshed = true
			if err := s.login(ctx); err != nil {
				return nil, err
			}
			continue
		case http.StatusForbidden:
			return nil, orders.Failure(orders.FailScopeMissing, nil)
		case http.StatusTooManyRequests:
			return nil, orders.Failure(orders.FailThrottled, nil)
		default:
			return nil, orders.StatusFailure(resp.Status)
		}
		var raw struct {
			Items      *[]Order `json:"items"`
			TotalCount *int     `json:"total_count"`
		}
		if err := json.Unmarshal(resp.Body, &raw); err != nil || raw.TotalCount == nil || (raw.Items == nil && *raw.TotalCount > 0) {
			return nil, orders.Failure(orders.FailAnswerInvalid, err)
		}
		out := &OrderList{TotalCount: *raw.TotalCount}
		if raw.Items != nil {
			out.Items = *raw.Items
		}
		return out, nil
	}
}
