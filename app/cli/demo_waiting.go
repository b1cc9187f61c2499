package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
)

// seedDemoWaiting writes the channel's waiting reviews under the manual publishing
// method, then restores the method the demo uses.
func seedDemoWaiting(ctx context.Context, a *app.App, st *demoChannelState) error {
	console := core.Console()
	set := func(method string) error {
		_, err := a.Brand.UpdateSettings(ctx, console, map[string]json.RawMessage{"publishing_method": json.RawMessage(`"` + method + `"`)})
		return err
	}
	if err := set(core.PublishManual); err != nil {
		return demoErr("settings", err)
	}
	srv, _, err := a.Access.LookupKey(ctx, st.dc.ServerKey)
	if err != nil {
		return demoErr("server key", err)
	}
	list := demoWaiting[st.dc.Language]
	now := a.Clock.Now()
	req := orders.OrderRequest{Channel: st.dc.Code, Batch: true}
	id := func(i int) string { return st.dc.Market + "-W" + strconv.Itoa(501+i) }
	email := func(i int) string { return "waiting" + strconv.Itoa(i+1) + "." + st.dc.Code + "@example.com" }
	for i, r := range list {
		it := demoItemByKey(r.Item)
		delivered := now.Add(-time.Duration(1+i) * 24 * time.Hour)
		req.Orders = append(req.Orders, orders.OrderInput{ExternalID: id(i), PaymentState: core.PaymentPaid,
			PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339), CustomerEmail: email(i), Language: st.dc.Language,
			Items: []orders.LineInput{{LineReference: "1", VariantKey: it.key, GroupKey: it.group, CatalogID: it.key,
				Title: it.title[st.dc.Language], FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}}})
	}
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srv, core.ViaServerKey), req); err != nil {
		return demoErr("orders", err)
	}
	for i, r := range list {
		el, err := a.Buyer.CheckEligibility(ctx, st.site, st.ch, buyer.EligibilityInput{Order: id(i), Email: email(i),
			Language: st.dc.Language})
		if err != nil {
			return demoErr("order check", err)
		}
		name := r.Name
		row := reviews.ReviewInput{LineReference: "1", Rating: json.RawMessage(strconv.Itoa(r.Rating)), Title: r.Title,
			Body: r.Body, AuthorName: &name, HideName: json.RawMessage("false"), Aspects: map[string]json.RawMessage{}}
		for k, v := range r.Aspects {
			row.Aspects[k] = json.RawMessage(strconv.Itoa(v))
		}
		if _, err := a.Reviews.WriteReviews(ctx, st.site, st.ch, reviews.WriteInput{Token: el.Token, Language: st.dc.Language,
			Reviews: []reviews.ReviewInput{row}}); err != nil {
			return demoErr("review", err)
		}
	}
	if err := set(core.PublishAutomatic); err != nil {
		return demoErr("settings", err)
	}
	return nil
}
