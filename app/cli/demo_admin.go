package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/catalogue"
	"reviewd/app/core/checks"
	"reviewd/app/core/feeds"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/privacy"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
)

// seedDemoTeam fills the panel's team, connection and rule pages: two more
// members, a domain waiting for its proof, two personal-data requests, watched
// terms, an order connection whose reads fail (its address is refused by the
// outbound client), and a marketplace file source whose second run held removals
// back for confirmation.
func seedDemoTeam(ctx context.Context, a *app.App, info *demoInfo) error {
	console := core.Console()
	for _, m := range []struct{ name, role string }{{"ayse", "moderator"}, {"mert", "viewer"}} {
		if _, err := a.Access.CreateUser(ctx, console, access.NewUser{Username: m.name, Email: m.name + "@localhost.example",
			Role: m.role, Password: core.RandomToken(15)}); err != nil {
			return demoErr("member", err)
		}
	}
	if _, err := a.Channels.AddDomain(ctx, console, info.Channels[1].Code, "shop.demo-ceramics.example"); err != nil {
		return demoErr("domain", err)
	}
	for _, r := range []privacy.NewRequest{{Kind: privacy.KindAccess, Identifier: demoEmail(info.Channels[0], 0), Note: "asked by e-mail"},
		{Kind: privacy.KindErasure, Identifier: demoEmail(info.Channels[1], 1), Note: "asked on the phone"}} {
		if _, err := a.Privacy.Open(ctx, console, r); err != nil {
			return demoErr("personal-data request", err)
		}
	}
	if _, err := a.Checks.AddTerms(ctx, console, []checks.TermInput{{Pattern: "free shipping", Label: "advert"},
		{Pattern: "whatsapp", Label: "contact details"}}); err != nil {
		return demoErr("terms", err)
	}
	if err := seedDemoConnection(ctx, a, info.Channels[0].Code); err != nil {
		return err
	}
	if err := seedDemoSharing(ctx, a, info.Channels[0].Code); err != nil {
		return err
	}
	return seedDemoMarketplace(ctx, a, info.Channels[0].Code)
}

// seedDemoSharing fills the invitation template, review feed and review pages: a
// template of the first channel's invitation, a masked review feed, and a seller
// reply with a resolution note under the newest published review.
func seedDemoSharing(ctx context.Context, a *app.App, channel string) error {
	console := core.Console()
	if _, _, err := a.Sending.SaveInviteTemplate(ctx, console, sending.InviteTemplateInput{Type: sending.MsgInvitation, Language: "en",
		Channel: channel, Subject: "How do you like {{products}}?",
		HTML: `<p>Hello {{customer_name}},</p><p>thank you for shopping at {{brand}}. How do you like {{products}}? ` +
			`A few words help the next customer.</p>{{review_button}}<p style="color:#57606a">Not interested? <a href="{{unsubscribe_url}}">Unsubscribe</a>.</p>`}); err != nil {
		return demoErr("invitation template", err)
	}
	in := feeds.Input{Name: "Google Shopping", Channel: channel, Names: feeds.NamesMasked, PublisherName: "Demo Ceramics"}
	if _, err := a.Feeds.CreateFeed(ctx, console, in); err != nil {
		return demoErr("review feed", err)
	}
	list, err := a.Reviews.ListAdminReviews(ctx, console, reviews.AdminReviewFilter{ListQuery: core.ListQuery{Page: 1, PageSize: 1, Sort: "newest"},
		State: core.ReviewPublished})
	if err == nil && len(list.Items) == 0 {
		err = core.ErrNotFound
	}
	if err != nil {
		return demoErr("published review", err)
	}
	id := list.Items[0].ID
	if _, err := a.Reviews.RespondToReview(ctx, console, id, reviews.NoteInput{Body: "Thank you for the kind words! " +
		"The glaze is made by hand, so each cup is a little different."}); err != nil {
		return demoErr("seller reply", err)
	}
	if _, err := a.Reviews.SetResolution(ctx, console, id, reviews.NoteInput{Body: "Sent a spare saucer with the next order."}); err != nil {
		return demoErr("resolution note", err)
	}
	return nil
}

// seedDemoConnection makes a WooCommerce connection and reads it once: the
// address is a loopback one, which the outbound client refuses, so the overview
// shows a failing connection and diagnostics its log.
func seedDemoConnection(ctx context.Context, a *app.App, channel string) error {
	body := map[string]json.RawMessage{}
	for k, v := range map[string]string{"platform": "woocommerce", "channel": channel, "base_url": "https://127.0.0.1",
		"consumer_key": "ck_demo", "consumer_secret": "cs_demo"} {
		body[k], _ = json.Marshal(v)
	}
	src, err := a.Orders.CreateOrderSource(ctx, core.Console(), body)
	if err != nil {
		return demoErr("order connection", err)
	}
	id, err := a.Orders.RequestOrderSourceRun(ctx, core.Console(), src.ID)
	if err != nil {
		return demoErr("order connection run", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, _ = a.Orders.ReadOrderSource(rctx, id, a.Clock.Now(), orders.TriggerManual) // fails by design
	return nil
}

// seedDemoMarketplace adds two products sold only on a marketplace (no demo
// page shows them), imports a Trendyol file of their reviews and then a smaller
// one: the second run holds the removal of the reviews it no longer lists.
func seedDemoMarketplace(ctx context.Context, a *app.App, channel string) error {
	console := core.Console()
	if _, err := a.Catalogue.IngestProducts(ctx, console, []catalogue.ProductInput{
		{VariantKey: "demo-vase", Name: "Ribbed Stoneware Vase", GTIN: "8690000000011"},
		{VariantKey: "demo-teapot", Name: "Glazed Teapot", GTIN: "8690000000028"}}, false); err != nil {
		return demoErr("catalogue", err)
	}
	platform, route, seller := "trendyol", marketplace.RouteFile, "DEMO-1"
	src, err := a.Marketplace.CreateSource(ctx, console, marketplace.SourceInput{Platform: &platform, Channel: &channel,
		SellerID: &seller, Route: &route})
	if err != nil {
		return demoErr("marketplace source", err)
	}
	rows := [][]string{
		{"TY-1", "8690000000011", "5", "Harika", "Rengi fotoğraftakinden bile güzel, çiçekler uzun dayanıyor.", "Elif K.", "2026-05-01", "", "", seller},
		{"TY-2", "8690000000011", "4", "", "Ağır ve sağlam, su sızdırmıyor.", "Burak", "2026-05-03", "", "", seller},
		{"TY-3", "8690000000028", "5", "Çok şık", "Demliği kolay dökülüyor, damlatmıyor.", "Selin", "2026-05-04", "", "", seller},
		{"TY-4", "8699999999999", "3", "", "Ürün başka.", "Can", "2026-05-05", "", "", seller},
	}
	for i, file := range [][][]string{rows, rows[2:]} {
		if err := demoMarketRun(ctx, a, src.ID, fmt.Sprintf("trendyol-%d.csv", i+1), file); err != nil {
			return err
		}
	}
	return nil
}

// demoMarketRun uploads one file and waits for its run to finish.
func demoMarketRun(ctx context.Context, a *app.App, src, name string, rows [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(marketplace.Columns)
	_ = w.WriteAll(rows)
	f, err := os.CreateTemp(a.Marketplace.TempDirPath(), "market-*.upload")
	if err != nil {
		return demoErr("marketplace file", err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return demoErr("marketplace file", err)
	}
	run, err := a.Marketplace.StartRun(ctx, core.Console(), src, marketplace.StartInput{FilePath: f.Name(), FileName: name})
	if err != nil {
		return demoErr("marketplace run", err)
	}
	a.Marketplace.Wait() // the run reads the file in the background
	runs, err := a.Marketplace.Runs(ctx, src)
	if err != nil {
		return demoErr("marketplace run", err)
	}
	for _, r := range runs.Items {
		if r.ID == run.ID && r.FinishedAt != nil {
			return nil
		}
	}
	return demoErr("marketplace run", fmt.Errorf("run %s did not finish", run.ID))
}
