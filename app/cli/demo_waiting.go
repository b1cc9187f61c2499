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

// demoWaiting are reviews that wait for approval in the web panel's moderation
// queue: they are written while the publishing method is manual.
var demoWaiting = map[string][]demoReview{
	"en": {
		{"demo-mug-blue", 5, "Lovely weight", "Feels solid in the hand and the blue is even deeper in daylight.", "Harriet Cole", false, qv(5, 4), 0, 0},
		{"demo-mug-speckled", 4, "Nice speckles", "The speckles are subtle and pretty. Slightly smaller than I expected.", "Owen Price", false, qv(4, 3), 0, 0},
		{"demo-candle", 5, "Smells like autumn", "Fig and cedar fill the room within minutes; burns evenly.", "Priya Shah", false, qv(5, 4), 0, 0},
		{"demo-mug-blue", 3, "Good, not great", "The glaze has a small bubble near the rim. Still use it daily.", "Tom Reed", false, qv(3, 3), 0, 0},
		{"demo-candle", 2, "Weak scent", "Hardly smell it unless I stand right next to it.", "Grace Lin", false, qv(2, 2), 0, 0},
		{"demo-mug-speckled", 5, "Second one bought", "Bought a second to make a pair. Matches perfectly.", "Sam Ortiz", false, qv(5, 5), 0, 0},
		{"demo-mug-blue", 4, "Great gift", "Gave it to my dad and he uses it every morning.", "Nina Patel", false, qv(4, 4), 0, 0},
	},
	"tr": {
		{"demo-mug-blue", 5, "Çok şık", "Masamda en çok iltifat alan kupa oldu, rengi çok canlı.", "Ahmet Er", false, qv(5, 4), 0, 0},
		{"demo-mug-speckled", 4, "Sade ve güzel", "Benekleri çok hoş, sadece biraz küçük.", "Merve Tan", false, qv(4, 3), 0, 0},
		{"demo-candle", 5, "Kokusu harika", "İncir ve sedir kokusu odayı hemen sarıyor.", "Kerem Ak", false, qv(5, 4), 0, 0},
		{"demo-mug-blue", 3, "Fena değil", "Kenarında küçük bir kabarcık var ama işimi görüyor.", "Seda Gül", false, qv(3, 3), 0, 0},
		{"demo-candle", 2, "Kokusu zayıf", "Yanına gitmeden kokusunu pek almıyorum.", "Ozan Kar", false, qv(2, 2), 0, 0},
		{"demo-mug-speckled", 5, "İkincisini aldım", "Takım olsun diye bir tane daha aldım, birebir aynı.", "Ece Naz", false, qv(5, 5), 0, 0},
	},
}

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
		it := demoItemByKey(r.item)
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
		name := r.name
		row := reviews.ReviewInput{LineReference: "1", Rating: json.RawMessage(strconv.Itoa(r.rating)), Title: r.title,
			Body: r.body, AuthorName: &name, HideName: json.RawMessage("false"), Aspects: map[string]json.RawMessage{}}
		for k, v := range r.aspects {
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
