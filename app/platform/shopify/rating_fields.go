package shopify

// The store's product rating fields: the standard metafields reviews.rating (type
// rating) and reviews.rating_count (type number_integer) that themes and the Shop
// app read, written with metafieldsSet (at most 25 metafields a call) within the
// Admin API's cost-based request limit.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"reviewd/app/core/orders"
	"reviewd/app/outbound"
)

// MaxMetafields is how many metafields one metafieldsSet call may set.
const MaxMetafields = 25

// ProductsPerCall is how many products' two rating fields go into one call.
const ProductsPerCall = MaxMetafields / 2

// WriteScope is the permission the app needs to write product metafields.
const WriteScope = "write_products"

// throttleTries is how many times a call refused as THROTTLED is sent again.
const throttleTries = 5

// mutationCost is the assumed cost of a call before Shopify named one.
const mutationCost = 10.0

const scopesQuery = `query ReviewdScopes { currentAppInstallation { accessScopes { handle } } }`

const metafieldsDeleteMutation = `mutation ReviewdRatingsGone($metafields: [MetafieldIdentifierInput!]!) {
  metafieldsDelete(metafields: $metafields) {
    deletedMetafields { ownerId namespace key }
    userErrors { field message }
  }
}`

const metafieldsSetMutation = `mutation ReviewdRatings($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    metafields { ownerType key namespace }
    userErrors { field message code elementIndex }
  }
}`

// metafieldInput is one MetafieldsSetInput.
type metafieldInput struct {
	OwnerID   string `json:"ownerId"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
	Type      string `json:"type"`
	Value     string `json:"value"`
}

// ratingInputs are a product's two rating fields (ProductGID: gid://shopify/Product/<id>).
func ratingInputs(r orders.ProductRating) []metafieldInput {
	owner := "gid://shopify/Product/" + r.ProductID
	rating, _ := json.Marshal(struct {
		Value    string `json:"value"`
		ScaleMin string `json:"scale_min"`
		ScaleMax string `json:"scale_max"`
	}{r.AverageText(), "1.0", "5.0"})
	return []metafieldInput{
		{OwnerID: owner, Namespace: "reviews", Key: "rating", Type: "rating", Value: string(rating)},
		{OwnerID: owner, Namespace: "reviews", Key: "rating_count", Type: "number_integer", Value: strconv.Itoa(r.Count)},
	}
}

// writeAnswer is the answer of a scopes query or a metafieldsSet call.
type writeAnswer struct {
	Data *struct {
		CurrentAppInstallation *struct {
			AccessScopes []struct {
				Handle string `json:"handle"`
			} `json:"accessScopes"`
		} `json:"currentAppInstallation"`
		MetafieldsDelete *struct {
			UserErrors []struct {
				Field   []string `json:"field"`
				Message string   `json:"message"`
			} `json:"userErrors"`
		} `json:"metafieldsDelete"`
		MetafieldsSet *struct {
			UserErrors []struct {
				Field        []string `json:"field"`
				Message      string   `json:"message"`
				Code         string   `json:"code"`
				ElementIndex *int     `json:"elementIndex"`
			} `json:"userErrors"`
		} `json:"metafieldsSet"`
	} `json:"data"`
	Errors     []gqlError `json:"errors"`
	Extensions *struct {
		Cost *Cost `json:"cost"`
	} `json:"extensions"`
}

func (a writeAnswer) code(code string) bool { return gqlAnswer{Errors: a.Errors}.code(code) }

// bucket follows the store's cost bucket from the answers' throttleStatus.
type bucket struct {
	known              bool
	available, restore float64
	lastRequested      float64
	wait               func(context.Context, time.Duration) error
}

// note takes the cost extension of an answer. A call's requested cost is kept as
// the estimate of the next call only from mutations (the scopes query costs far
// less).
func (b *bucket) note(c *Cost, mutation bool) {
	if c == nil || c.ThrottleStatus.RestoreRate <= 0 {
		return
	}
	b.known, b.available, b.restore = true, c.ThrottleStatus.CurrentlyAvailable, c.ThrottleStatus.RestoreRate
	if mutation && c.RequestedQueryCost > 0 {
		b.lastRequested = c.RequestedQueryCost
	}
}

// need is the time until cost points are available again.
func (b *bucket) need(cost float64) time.Duration {
	if !b.known || b.available >= cost {
		return 0
	}
	return time.Duration(math.Ceil((cost-b.available)/b.restore*1000)) * time.Millisecond
}

// before waits, when the last answer left fewer points than a call costs.
func (b *bucket) before(ctx context.Context) error {
	cost := b.lastRequested
	if cost <= 0 {
		cost = mutationCost
	}
	if d := b.need(cost); d > 0 {
		return b.wait(ctx, d)
	}
	return nil
}

// WriteRatings writes the rating fields of w.Ratings (see orders.RatingWriter):
// it checks that the app holds write_products (else FailScopeMissing, and nothing
// is sent), then sends the products ProductsPerCall at a time, waiting for the
// cost bucket as throttleStatus reports it and sending a THROTTLED call again
// after a growing pause. Products named by userErrors are left out of their call,
// which is sent again without them, and counted as refused. Products whose last
// review is gone (Count 0) have both fields removed with metafieldsDelete (a
// field the store no longer holds is no error).
func (Reader) WriteRatings(ctx context.Context, w orders.RatingWrite) (orders.RatingWriteResult, error) {
	var res orders.RatingWriteResult
	ctx = outbound.WithTarget(ctx, Reader{}.Code())
	host, ok := ShopHost(w.BaseURL)
	if !ok {
		return res, orders.Failure(orders.FailShopAddressInvalid, nil)
	}
	s := &session{client: w.Client, host: host, clientID: w.Credentials["client_id"], secret: w.Credentials["client_secret"]}
	if s.secret == "" {
		return res, orders.Failure(orders.FailAPICredentialsMissing, nil)
	}
	s.token = s.secret
	if s.clientID != "" {
		if err := s.requestToken(ctx); err != nil {
			return res, err
		}
	}
	b := &bucket{wait: w.Wait}
	if b.wait == nil {
		b.wait = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	a, err := s.write(ctx, b, scopesQuery, nil)
	if err != nil {
		return res, err
	}
	if a.Data == nil || a.Data.CurrentAppInstallation == nil {
		return res, orders.Failure(orders.FailAnswerInvalid, errors.New("no access scopes in the answer"))
	}
	granted := false
	for _, sc := range a.Data.CurrentAppInstallation.AccessScopes {
		granted = granted || sc.Handle == WriteScope
	}
	if !granted {
		return res, orders.Failure(orders.FailScopeMissing, nil)
	}
	var set, gone []orders.ProductRating
	for _, r := range w.Ratings {
		if r.Count == 0 {
			gone = append(gone, r)
		} else {
			set = append(set, r)
		}
	}
	for start := 0; start < len(set); start += ProductsPerCall {
		batch := set[start:min(start+ProductsPerCall, len(set))]
		for len(batch) > 0 {
			var in []metafieldInput
			for _, r := range batch {
				in = append(in, ratingInputs(r)...)
			}
			if err := b.before(ctx); err != nil {
				return res, err
			}
			a, err := s.write(ctx, b, metafieldsSetMutation, map[string]any{"metafields": in})
			if err != nil {
				return res, err
			}
			res.Batches++
			if a.Data == nil || a.Data.MetafieldsSet == nil {
				return res, orders.Failure(orders.FailAnswerInvalid, errors.New("no metafieldsSet in the answer"))
			}
			ue := a.Data.MetafieldsSet.UserErrors
			if len(ue) == 0 {
				if err := w.Written(batch); err != nil {
					return res, err
				}
				break
			}
			// The call is atomic: nothing was set. Leave out the products named and
			// send the rest again.
			refused := map[int]bool{}
			for _, e := range ue {
				if e.ElementIndex == nil || *e.ElementIndex < 0 || *e.ElementIndex >= len(in) {
					return res, orders.Failure(orders.FailAnswerInvalid, fmt.Errorf("metafieldsSet: %s %s", e.Code, e.Message))
				}
				refused[*e.ElementIndex/2] = true
			}
			kept := batch[:0:0]
			for i, r := range batch {
				if !refused[i] {
					kept = append(kept, r)
				}
			}
			res.Refused += len(batch) - len(kept)
			batch = kept
		}
	}
	for start := 0; start < len(gone); start += ProductsPerCall {
		batch := gone[start:min(start+ProductsPerCall, len(gone))]
		var ids []map[string]string
		for _, r := range batch {
			for _, m := range ratingInputs(r) {
				ids = append(ids, map[string]string{"ownerId": m.OwnerID, "namespace": m.Namespace, "key": m.Key})
			}
		}
		if err := b.before(ctx); err != nil {
			return res, err
		}
		a, err := s.write(ctx, b, metafieldsDeleteMutation, map[string]any{"metafields": ids})
		if err != nil {
			return res, err
		}
		res.Batches++
		if a.Data == nil || a.Data.MetafieldsDelete == nil {
			return res, orders.Failure(orders.FailAnswerInvalid, errors.New("no metafieldsDelete in the answer"))
		}
		if ue := a.Data.MetafieldsDelete.UserErrors; len(ue) > 0 {
			return res, orders.Failure(orders.FailAnswerInvalid, fmt.Errorf("metafieldsDelete: %s", ue[0].Message))
		}
		if err := w.Written(batch); err != nil {
			return res, err
		}
	}
	return res, nil
}

// write sends one GraphQL call: a 401 with a client_id gets one new token, a
// THROTTLED answer (or a 429) is sent again after the pause the bucket names,
// doubled each time, up to throttleTries times.
func (s *session) write(ctx context.Context, b *bucket, query string, vars map[string]any) (writeAnswer, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	pause := time.Second
	for try := 0; ; try++ {
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"},
			"X-Shopify-Access-Token": {s.token}}
		resp, err := orders.PlatformCall(ctx, s.client, outbound.Request{Method: http.MethodPost,
			URL: "https://" + s.host + "/admin/api/" + APIVersion + "/graphql.json", Header: h, Body: body})
		if err != nil {
			return writeAnswer{}, err
		}
		var a writeAnswer
		throttled := resp.Status == http.StatusTooManyRequests
		switch resp.Status {
		case http.StatusOK, http.StatusTooManyRequests:
		case http.StatusUnauthorized:
			if s.clientID == "" || s.refreshed {
				return a, orders.Failure(orders.FailCredentialsRefused, nil)
			}
			s.refreshed = true
			if err := s.requestToken(ctx); err != nil {
				return a, err
			}
			try--
			continue
		case http.StatusForbidden:
			return a, orders.Failure(orders.FailScopeMissing, nil)
		default:
			return a, orders.StatusFailure(resp.Status)
		}
		if err := json.NewDecoder(bytes.NewReader(resp.Body)).Decode(&a); err != nil && !throttled {
			return a, orders.Failure(orders.FailAnswerInvalid, err)
		}
		if a.Extensions != nil {
			b.note(a.Extensions.Cost, vars != nil)
		}
		switch {
		case throttled || a.code("THROTTLED"):
			if try+1 >= throttleTries {
				return a, orders.Failure(orders.FailThrottled, nil)
			}
			need := mutationCost
			if a.Extensions != nil && a.Extensions.Cost != nil && a.Extensions.Cost.RequestedQueryCost > 0 {
				need = a.Extensions.Cost.RequestedQueryCost
			}
			d := max(b.need(need), pause)
			if err := b.wait(ctx, d); err != nil {
				return a, err
			}
			b.available += d.Seconds() * b.restore // restored while waiting
			pause *= 2
			continue
		case a.code("ACCESS_DENIED"):
			return a, orders.Failure(orders.FailScopeMissing, nil)
		case len(a.Errors) > 0:
			return a, orders.Failure(orders.FailAnswerInvalid, errors.New(a.Errors[0].Message))
		}
		return a, nil
	}
}
