// Package woocommerce reads orders from a WooCommerce store (the open-source
// store-plugin platform of spec 1) through the REST API v3 (/wp-json/wc/v3) with a
// consumer key and secret (HTTP Basic over https), and maps them to
// core.OrderInput. Every call goes through the SSRF-safe outbound client of the
// read (core.PlatformCall). It imports app/core and app/outbound only.
package woocommerce

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
)

// Reader is the WooCommerce order reader.
type Reader struct{}

// Code is the platform code.
func (Reader) Code() string { return orders.PlatformWooCommerce }

// OrdersPath is the order list of the REST API, after the store's address.
const OrdersPath = "/wp-json/wc/v3/orders"

// maxPerPage is the API's largest page.
const maxPerPage = 100

// Fields limits the answer to what reviewd reads (WordPress _fields, nested since
// WordPress 5.3): no names, addresses, prices or payment details are transferred.
const Fields = "id,number,status,customer_id,date_created_gmt,date_modified_gmt,date_completed_gmt,billing.email," +
	"billing.phone,line_items,refunds,meta_data"

// Read reads the orders modified since r.Since (GMT), oldest change first, page by
// page (see core.PlatformReader). Paging follows the X-WP-TotalPages header.
func (Reader) Read(ctx context.Context, r orders.PlatformRead, page func(orders.PlatformPage) (bool, error)) error {
	ctx = outbound.WithTarget(ctx, Reader{}.Code())
	key, secret := r.Credentials["consumer_key"], r.Credentials["consumer_secret"]
	if key == "" || secret == "" {
		return orders.Failure(orders.FailAPICredentialsMissing, nil)
	}
	per := r.PageSize
	if per <= 0 || per > maxPerPage {
		per = maxPerPage
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(key+":"+secret))
	for n := 1; ; n++ {
		v := url.Values{
			"modified_after": {r.Since.UTC().Format("2006-01-02T15:04:05")},
			"dates_are_gmt":  {"true"},
			"orderby":        {"modified"},
			"order":          {"asc"},
			"per_page":       {strconv.Itoa(per)},
			"page":           {strconv.Itoa(n)},
			"_fields":        {Fields},
		}
		resp, err := orders.PlatformCall(ctx, r.Client, outbound.Request{URL: strings.TrimRight(r.BaseURL, "/") + OrdersPath + "?" + v.Encode(),
			Header: http.Header{"Authorization": {auth}, "Accept": {"application/json"}}})
		if err != nil {
			return err
		}
		if err := statusFailure(resp); err != nil {
			return err
		}
		var got []Order
		if err := json.Unmarshal(resp.Body, &got); err != nil || got == nil {
			return orders.Failure(orders.FailAnswerInvalid, err)
		}
		more := len(got) == per
		if total, err := strconv.Atoi(resp.Header.Get("X-WP-TotalPages")); err == nil {
			more = n < total
		}
		out := orders.PlatformPage{Orders: make([]orders.PlatformOrder, 0, len(got)), More: more && len(got) > 0}
		for _, o := range got {
			out.Orders = append(out.Orders, MapOrder(o))
		}
		cont, err := page(out)
		if err != nil || !cont || !out.More {
			return err
		}
	}
}

// apiError is the WordPress REST error body.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// statusFailure maps an answer's status: 401 is a refused key, except a key
// without read permission (api_scope_missing, as is 403); 429 is the request
// limit.
func statusFailure(resp *outbound.Response) error {
	switch resp.Status {
	case http.StatusOK:
		return nil
	case http.StatusUnauthorized:
		var e apiError
		_ = json.Unmarshal(resp.Body, &e)
		if strings.Contains(e.Message, "read permission") || e.Code == "woocommerce_rest_cannot_view" {
			return orders.Failure(orders.FailScopeMissing, nil)
		}
		return orders.Failure(orders.FailCredentialsRefused, nil)
	case http.StatusForbidden:
		return orders.Failure(orders.FailScopeMissing, nil)
	case http.StatusTooManyRequests:
		return orders.Failure(orders.FailThrottled, nil)
	default:
		return orders.StatusFailure(resp.Status)
	}
}
