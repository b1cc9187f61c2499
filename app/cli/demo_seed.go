package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"strconv"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/reviews"
	"reviewd/app/core/votes"
	"reviewd/jobs"
	"reviewd/store"
)

// The demo brand's content: products, delivered orders, reviews with photos and
// helpful votes, and questions with answers. Everything goes through the same core
// functions the HTTP endpoints call (order ingest, order check, media upload, review
// writing, the media job, votes, questions and answers), so the demo shows exactly
// what a real store would see. Review and answer times are the time of seeding: the
// write paths stamp them with the transaction clock.

// demoItem is one product variant the demo brand sells in every channel.
type demoItem struct {
	key, group string
	title      map[string]string // by language
	palette    [3]color.RGBA     // photo colours
}

// demoPage is one product page of the demo: a variant, or a group of variants.
type demoPage struct {
	code, scope string
	title       map[string]string
}

var demoItems = []demoItem{
	{key: "demo-mug-blue", title: bi("Mavi Sırlı Kupa", "Blue Glaze Mug"),
		palette: [3]color.RGBA{{24, 70, 150, 255}, {120, 190, 235, 255}, {250, 245, 235, 255}}},
	{key: "demo-mug-speckled", title: bi("Benekli Taş Kupa", "Speckled Stoneware Mug"),
		palette: [3]color.RGBA{{232, 220, 196, 255}, {150, 128, 104, 255}, {70, 60, 52, 255}}},
	{key: "demo-tshirt-s", group: "demo-tshirt", title: bi("Organik Pamuk Tişört, S beden", "Organic Cotton T-shirt, size S"),
		palette: [3]color.RGBA{{86, 110, 72, 255}, {214, 204, 150, 255}, {245, 240, 225, 255}}},
	{key: "demo-tshirt-m", group: "demo-tshirt", title: bi("Organik Pamuk Tişört, M beden", "Organic Cotton T-shirt, size M"),
		palette: [3]color.RGBA{{60, 66, 84, 255}, {160, 176, 200, 255}, {240, 240, 245, 255}}},
	{key: "demo-candle", title: bi("İncir ve Sedir Mum", "Fig & Cedar Candle"),
		palette: [3]color.RGBA{{110, 40, 36, 255}, {242, 170, 76, 255}, {255, 236, 180, 255}}},
}

var demoPages = []demoPage{
	{code: "demo-mug-blue", scope: store.ScopeVariant, title: bi("Mavi Sırlı Kupa", "Blue Glaze Mug")},
	{code: "demo-mug-speckled", scope: store.ScopeVariant, title: bi("Benekli Taş Kupa", "Speckled Stoneware Mug")},
	{code: "demo-tshirt", scope: store.ScopeGroup, title: bi("Organik Pamuk Tişört", "Organic Cotton T-shirt")},
	{code: "demo-candle", scope: store.ScopeVariant, title: bi("İncir ve Sedir Mum", "Fig & Cedar Candle")},
}

func bi(tr, en string) map[string]string { return map[string]string{"tr": tr, "en": en} }

func demoItemByKey(key string) demoItem {
	for _, it := range demoItems {
		if it.key == key {
			return it
		}
	}
	panic("demo: unknown item " + key)
}

// demoReview is one review a demo customer writes. name "" is an anonymous review;
// photos is how many pictures the customer uploads; votes how many visitors find it
// helpful. A review whose text the automatic checks flag waits for a moderator.
type demoReview struct {
	item          string
	rating        int
	title, body   string
	name          string
	hide          bool
	aspects       map[string]int
	photos, votes int
}

// Topic values: q quality, v value for money (the general list); fit, q, c for the
// apparel list (fit 3 is true to size).
func qv(q, v int) map[string]int     { return map[string]int{"quality": q, "value": v} }
func fqc(f, q, c int) map[string]int { return map[string]int{"fit": f, "quality": q, "comfort": c} }

var demoReviews = map[string][]demoReview{
	"tr": {
		{"demo-mug-blue", 5, "Rengi fotoğraftakinden bile güzel", "Sırrın rengi çok canlı, her sabah kahvemi bu kupadan içiyorum. Elde tutuşu rahat, kulpu parmaklarımı yakmıyor. Bulaşık makinesinde de rengi hiç solmadı.", "Ayşe Yılmaz", true, qv(5, 4), 2, 4},
		{"demo-mug-blue", 5, "Hediye olarak aldım", "Anneme doğum günü hediyesi olarak aldım, paketleme çok özenliydi. Kupa ağır ve sağlam, sıradan kupalara hiç benzemiyor.", "Mehmet Kaya", false, qv(5, 5), 0, 2},
		{"demo-mug-blue", 4, "Güzel ama biraz küçük", "Kalitesi çok iyi, sırrı pürüzsüz. Tek eksisi hacmi: büyük bir filtre kahve için biraz küçük kalıyor, 300 ml civarında.", "Zeynep Demir", false, qv(5, 3), 1, 6},
		{"demo-mug-blue", 5, "Koleksiyonuma ekledim", "İkinci kupam oldu. El yapımı olduğu belli, her birinin rengi hafif farklı ve bu çok hoşuma gidiyor.", "Elif Şahin", false, qv(5, 4), 0, 0},
		{"demo-mug-blue", 4, "Kargo hızlıydı", "Siparişten iki gün sonra elimdeydi. Kulbun iç kısmında küçük bir sır damlası var ama göze batmıyor.", "Burak Çelik", false, qv(4, 4), 0, 1},
		{"demo-mug-blue", 2, "Dibinde çatlak vardı", "Kupanın dibinde ince bir kılcal çatlak vardı, sıcak su koyunca hafifçe sızdırdı. Müşteri hizmetleri hızlı dönüş yaptı ama ürün beklediğim gibi çıkmadı.", "Can Öztürk", true, qv(2, 2), 0, 3},
		{"demo-mug-blue", 5, "", "Rengi, ağırlığı, dokusu tam istediğim gibi. Çay için de kahve için de ideal.", "", false, qv(5, 5), 0, 0},

		{"demo-mug-speckled", 5, "Doğal ve sade", "Benekli doku yakından görünce daha da güzel. Mat yüzeyi elde çok hoş bir his bırakıyor, mutfağımın en sevdiğim parçası oldu.", "Selin Aydın", false, qv(5, 4), 1, 3},
		{"demo-mug-speckled", 4, "Şık ama özen istiyor", "Görünüşü harika. Mat dış yüzey kahve lekesi tutabiliyor, o yüzden elde yıkamayı tercih ediyorum.", "Deniz Arslan", false, qv(4, 4), 0, 1},
		{"demo-mug-speckled", 4, "Fiyatına göre iyi", "Özenli bir iş çıkarılmış. Seramik kalın, içecek uzun süre sıcak kalıyor.", "Emre Koç", true, qv(4, 5), 0, 0},
		{"demo-mug-speckled", 3, "Beklediğimden açık renk", "Fotoğraflarda daha koyu bej görünüyordu, gelen ürün neredeyse beyaz. Kalitesinde sorun yok ama rengi beni biraz hayal kırıklığına uğrattı.", "Gizem Yıldız", false, qv(4, 3), 0, 5},
		{"demo-mug-speckled", 5, "Seti tamamladım", "Dört tane aldım, hepsi sağlam ve özenle paketlenmiş geldi. Misafirler hep nereden aldığımı soruyor.", "Hakan Polat", false, qv(5, 4), 2, 2},

		{"demo-tshirt-s", 5, "Kumaşı çok yumuşak", "Organik pamuk olduğu hissediliyor, ilk yıkamadan sonra daha da yumuşadı. S beden tam oldu, boyum 1,65.", "Merve Aksoy", false, fqc(3, 5, 5), 1, 4},
		{"demo-tshirt-m", 4, "Biraz bol kesim", "Kaliteli bir tişört ama M beden bana biraz bol geldi. Normalde M giyiyorum, bir beden küçüğü alınabilir.", "Oğuz Karaca", false, fqc(4, 4, 5), 0, 7},
		{"demo-tshirt-m", 5, "Günlük kullanım için ideal", "Rengi yıkamada solmadı, yakası da bozulmadı. İkinci bir rengini de sipariş edeceğim.", "Cem Erdem", true, fqc(3, 5, 5), 1, 1},
		{"demo-tshirt-s", 4, "Güzel ama az çekti", "İlk yıkamada çok az çekti, 30 derecede yıkamanızı öneririm. Kumaşı kaliteli.", "İpek Güneş", false, fqc(2, 4, 4), 0, 2},
		{"demo-tshirt-m", 1, "Dikiş söküldü", "İkinci giyişte yan dikişi söküldü. Değişim için başvurdum, ürünün kendisinden memnun kalmadım.", "Serkan Tekin", false, fqc(3, 1, 3), 0, 2},
		{"demo-tshirt-s", 4, "", "Rahat, nefes alan bir kumaş. Yaz ayları için çok uygun.", "Buse Kılıç", false, fqc(3, 4, 5), 0, 0},

		{"demo-candle", 5, "Evin kokusu değişti", "İncir ve sedir karışımı çok dengeli, baş ağrıtan yapay bir koku değil. Oturma odasını bir saatte tamamen dolduruyor.", "Damla Özkan", false, qv(5, 4), 1, 5},
		{"demo-candle", 5, "Uzun süre yanıyor", "Yaklaşık 40 saat yandı, fitil hiç is yapmadı. Cam kavanozunu şimdi kalemlik olarak kullanıyorum.", "Tolga Şen", false, qv(5, 5), 0, 2},
		{"demo-candle", 4, "Hoş ama hafif", "Kokusu çok güzel, yalnızca büyük odalarda biraz hafif kalıyor. Küçük odalar için mükemmel.", "Ece Yurt", false, qv(4, 4), 0, 1},
		{"demo-candle", 5, "Hediye için birebir", "Kutusu çok şık, arkadaşıma hediye ettim ve çok beğendi.", "Kerem Aslan", true, qv(5, 4), 0, 0},
		{"demo-candle", 3, "Kokusu beklediğimden farklı", "Sedir kokusu incirin önüne geçiyor, ben daha meyvemsi bir koku bekliyordum. Yanışı düzgün.", "Nazlı Çınar", false, qv(4, 3), 0, 3},
		{"demo-candle", 5, "", "Üçüncü kez alıyorum, kokusuna bayılıyorum.", "Aylin Kurt", false, qv(5, 5), 1, 0},
		// A link: the automatic checks hold it for a moderator.
		{"demo-candle", 4, "Güzel mum", "Kokusu güzel ama aynısını indirimlimum.com adresinde daha ucuza buldum.", "Berk Ateş", false, qv(4, 2), 0, 0},
	},
	"en": {
		{"demo-mug-blue", 5, "Even nicer than the photos", "The glaze is a deep, glossy blue that changes with the light. It sits nicely in the hand and the handle fits three fingers. Still looks new after plenty of runs through the dishwasher.", "Emma Clarke", true, qv(5, 4), 2, 5},
		{"demo-mug-blue", 5, "Lovely gift", "Bought this for my dad's birthday and it arrived beautifully wrapped. Heavy, solid and clearly hand-made.", "Oliver Bennett", false, qv(5, 5), 0, 2},
		{"demo-mug-blue", 4, "Great mug, a bit small", "Quality is excellent and the glaze is smooth. My only gripe is the size: it holds about 300 ml, so it is on the small side for a big morning coffee.", "Sophie Turner", false, qv(5, 3), 1, 7},
		{"demo-mug-blue", 5, "Second one for the collection", "Each one is slightly different in colour, which I love. Feels much more special than a high-street mug.", "James Walker", false, qv(5, 4), 0, 0},
		{"demo-mug-blue", 4, "Quick delivery", "Arrived two days after ordering. There is a tiny drip of glaze inside the handle but you would never notice it.", "Charlotte Hughes", false, qv(4, 4), 0, 1},
		{"demo-mug-blue", 2, "Hairline crack on the base", "Mine had a hairline crack on the base and leaked slightly with hot water. Customer service replied quickly, but I expected better quality control.", "Harry Evans", true, qv(2, 2), 0, 3},
		{"demo-mug-blue", 5, "", "Perfect weight, perfect colour. Tea tastes better from it, I swear.", "", false, qv(5, 5), 0, 0},

		{"demo-mug-speckled", 5, "Calm and understated", "The speckles look even better in person and the matte finish feels lovely. Probably my favourite thing in the kitchen now.", "Amelia Wright", false, qv(5, 4), 1, 3},
		{"demo-mug-speckled", 4, "Beautiful but needs care", "Looks fantastic. The matte outside can pick up coffee marks, so I wash it by hand.", "George Hall", false, qv(4, 4), 0, 1},
		{"demo-mug-speckled", 4, "Good value", "Thick walls keep drinks hot for ages. Nicely finished all round.", "Isla Green", true, qv(4, 5), 0, 0},
		{"demo-mug-speckled", 3, "Lighter than pictured", "The photos show a darker oatmeal colour, mine is almost white. Nothing wrong with the quality, but the colour was a little disappointing.", "Jack Robinson", false, qv(4, 3), 0, 4},
		{"demo-mug-speckled", 5, "Completed the set", "Ordered four and all of them arrived safe and very well packed. Guests always ask where they are from.", "Grace Lewis", false, qv(5, 4), 2, 2},

		{"demo-tshirt-s", 5, "Really soft fabric", "You can tell it is organic cotton and it got even softer after the first wash. Size S fits perfectly, I am 5'5\".", "Lily Cooper", false, fqc(3, 5, 5), 1, 4},
		{"demo-tshirt-m", 4, "Roomy cut", "Good quality tee, but the M is a bit roomy on me. I usually wear M, so consider sizing down.", "Thomas Ward", false, fqc(4, 4, 5), 0, 6},
		{"demo-tshirt-m", 5, "Everyday favourite", "The colour has not faded in the wash and the neckline keeps its shape. Ordering another colour.", "William Baker", true, fqc(3, 5, 5), 1, 1},
		{"demo-tshirt-s", 4, "Shrank slightly", "Shrank a touch on the first wash, so I would wash it at 30 degrees. Lovely fabric though.", "Ella Morris", false, fqc(2, 4, 4), 0, 2},
		{"demo-tshirt-m", 1, "Seam came apart", "The side seam split the second time I wore it. I have asked for an exchange, but I am not happy with the product itself.", "Daniel Cook", false, fqc(3, 1, 3), 0, 2},
		{"demo-tshirt-s", 4, "", "Comfortable and breathable, ideal for summer.", "Freya Price", false, fqc(3, 4, 5), 0, 0},

		{"demo-candle", 5, "Makes the whole flat smell lovely", "The fig and cedar blend is beautifully balanced, not a sickly synthetic scent. Fills the living room within an hour.", "Poppy Mitchell", false, qv(5, 4), 1, 5},
		{"demo-candle", 5, "Burns for ages", "Got about 40 hours out of it and the wick never smoked. I now use the glass jar as a pen pot.", "Alfie Scott", false, qv(5, 5), 0, 2},
		{"demo-candle", 4, "Lovely but subtle", "Smells great, just a bit faint in a large room. Perfect for a bedroom or study.", "Evie Young", false, qv(4, 4), 0, 1},
		{"demo-candle", 5, "Perfect gift", "The box is gorgeous. Gave it to a friend and she loved it.", "Noah Harris", true, qv(5, 4), 0, 0},
		{"demo-candle", 3, "Not quite what I expected", "The cedar overpowers the fig; I was hoping for something fruitier. It burns evenly though.", "Ruby King", false, qv(4, 3), 0, 3},
		{"demo-candle", 5, "", "Third time buying it. I adore this scent.", "Jacob Turner", false, qv(5, 5), 1, 0},
		// A link: the automatic checks hold it for a moderator.
		{"demo-candle", 4, "Nice candle", "Nice scent, but you can find it cheaper at candle-deals.co.uk if you look around.", "Max Bell", false, qv(4, 2), 0, 0},
	},
}

// demoQuestion is a visitor's question with the brand's and a buyer's answer (either
// may be empty). A question with a phone number waits for approval.
type demoQuestion struct {
	product, scope string
	name           string
	hide           bool
	body           string
	brand          string
	buyer          string
	buyerName      string
}

var demoQuestions = map[string][]demoQuestion{
	"tr": {
		{"demo-mug-blue", "variant", "Seda", false, "Bulaşık makinesinde yıkanabilir mi?",
			"Evet, kupalarımız bulaşık makinesinde ve mikrodalgada kullanılabilir. Sırrın parlaklığını uzun süre korumak için düşük ısıda yıkamanızı öneririz.",
			"Birkaç haftadır makinede yıkıyorum, rengi hiç değişmedi.", "Ayşe Yılmaz"},
		{"demo-mug-blue", "variant", "Okan Bilgin", true, "Kupanın hacmi kaç ml?",
			"Yaklaşık 300 ml; ağzına kadar doldurulduğunda 320 ml alır.", "", ""},
		{"demo-mug-blue", "variant", "Aslı", false, "Kurumsal hediye için 50 adet almak istiyoruz, 0532 123 45 67 numarasından bize dönebilir misiniz?",
			"", "", ""},
		{"demo-mug-speckled", "variant", "Berk", false, "Mikrodalgada kullanılabilir mi?",
			"Evet, sırlarımız metal içermez; kupa mikrodalgada güvenle kullanılabilir.", "", ""},
		{"demo-mug-speckled", "variant", "Pınar", false, "Her kupanın benekleri farklı mı?",
			"", "Evet, aldığım dört kupanın her biri biraz farklı; el yapımı oldukları belli.", "Hakan Polat"},
		{"demo-mug-speckled", "variant", "", false, "Aynı seriden tabak da var mı?", "", "", ""},
		{"demo-tshirt", "group", "Kaan", false, "Boyum 1,80, kilom 75. M mi L mi önerirsiniz?",
			"Kalıbımız normal kesimdir; ölçülerinize göre M beden uygun olacaktır. Daha bol bir görünüm isterseniz L seçebilirsiniz.",
			"Ben 1,78 boyundayım ve M aldım, rahat oldu.", "Oğuz Karaca"},
		{"demo-tshirt", "group", "Derya", true, "Yıkamada çeker mi?",
			"", "30 derecede yıkadığımda neredeyse hiç çekmedi.", "Merve Aksoy"},
		{"demo-candle", "variant", "Irmak", false, "Yanma süresi ne kadar?",
			"Yaklaşık 40-45 saat. İlk yakışta yüzeyin tamamı eriyene kadar yakmanızı öneririz.", "", ""},
		{"demo-candle", "variant", "Mert", false, "Kokusu çok yoğun mu?",
			"", "Orta yoğunlukta; küçük bir odada çok güzel yayılıyor.", "Damla Özkan"},
		{"demo-candle", "variant", "", false, "Yedek fitil satıyor musunuz?", "", "", ""},
	},
	"en": {
		{"demo-mug-blue", "variant", "Hannah", false, "Is it dishwasher safe?",
			"Yes, our mugs are dishwasher and microwave safe. A lower temperature programme keeps the glaze glossy for longer.",
			"I have put mine in the dishwasher many times and the colour has not changed at all.", "Emma Clarke"},
		{"demo-mug-blue", "variant", "Robert Lane", true, "How much does it hold?",
			"About 300 ml, or 320 ml filled to the brim.", "", ""},
		{"demo-mug-blue", "variant", "Claire", false, "We would like 50 of these as corporate gifts, could you call me on 07700 900123 please?",
			"", "", ""},
		{"demo-mug-speckled", "variant", "Ben", false, "Can it go in the microwave?",
			"Yes, our glazes contain no metal, so the mug is safe in the microwave.", "", ""},
		{"demo-mug-speckled", "variant", "Zara", false, "Are the speckles different on every mug?",
			"", "Yes, each of the four I bought is slightly different, you can tell they are hand-made.", "Grace Lewis"},
		{"demo-mug-speckled", "variant", "", false, "Is there a matching plate in this range?", "", "", ""},
		{"demo-tshirt", "group", "Sam", false, "I am 6 ft and 12 stone. Would you recommend M or L?",
			"The fit is regular, so M should suit your measurements. Choose L if you prefer a looser look.",
			"I am 5'10\" and went for M, it is comfortable.", "Thomas Ward"},
		{"demo-tshirt", "group", "Megan", true, "Does it shrink in the wash?",
			"", "Barely at all when I wash it at 30 degrees.", "Lily Cooper"},
		{"demo-candle", "variant", "Olivia", false, "How long does it burn?",
			"Around 40 to 45 hours. On the first burn, let the whole surface melt before putting it out.", "", ""},
		{"demo-candle", "variant", "Luke", false, "Is the scent very strong?",
			"", "Medium strength; it fills a small room beautifully.", "Poppy Mitchell"},
		{"demo-candle", "variant", "", false, "Do you sell replacement wicks?", "", "", ""},
	},
}

// demoProduct is one product page of the demo as demo.json keeps it.
type demoProduct struct {
	Code    string `json:"code"`
	Scope   string `json:"scope"`
	Channel string `json:"channel"`
	Market  string `json:"market"`
	Title   string `json:"title"`
}

// demoChannelState is what seeding one channel needs along the way.
type demoChannelState struct {
	dc        demoChannel
	ch        store.Channel
	site      *core.Actor
	tokens    map[string]string // order-check token by customer name (kept for answers)
	reviewIDs []string
}

// seedDemoContent fills the demo brand: settings, rating topics, then per channel
// delivered orders, reviews with photos, the media job, helpful votes, and questions
// with answers. It adds the product pages to info.
func seedDemoContent(ctx context.Context, a *app.App, info *demoInfo) error {
	c, console := a.Clock, core.Console()
	if _, err := a.Brand.UpdateSettings(ctx, console, map[string]json.RawMessage{
		"questions_enabled": json.RawMessage(`true`), "publishing_method": json.RawMessage(`"` + core.PublishAutomatic + `"`),
	}); err != nil {
		return demoErr("settings", err)
	}
	apparel := []brand.TemplateProduct{{Scope: store.ScopeGroup, Key: "demo-tshirt"}}
	if _, err := a.Brand.SaveAspectTemplate(ctx, console, brand.AspectTemplateInput{Key: "apparel", Products: &apparel}); err != nil {
		return demoErr("rating topics", err)
	}
	var states []*demoChannelState
	for i, dc := range info.Channels {
		st, err := seedDemoChannel(ctx, a, dc)
		if err != nil {
			return err
		}
		info.Channels[i].TryOrder, info.Channels[i].TryEmail = st.dc.TryOrder, st.dc.TryEmail
		states = append(states, st)
		for _, p := range demoPages {
			info.Catalog = append(info.Catalog, demoProduct{Code: p.code, Scope: p.scope, Channel: dc.Code, Market: dc.Market,
				Title: p.title[dc.Language]})
		}
	}
	// The media job prepares the photos (metadata-free JPEGs and renditions).
	summary, err := jobs.Media{Reviews: a.Reviews}.Run(ctx, c.Now())
	if err != nil {
		return demoErr("media", err)
	}
	a.Log.Info("demo photos processed", "result", summary)
	for _, st := range states {
		if err := seedDemoQuestions(ctx, a, st); err != nil {
			return err
		}
		if err := seedDemoWaiting(ctx, a, st); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoChannel ingests the channel's delivered orders and writes their reviews
// with the order check, as a customer on the store page would.
func seedDemoChannel(ctx context.Context, a *app.App, dc demoChannel) (*demoChannelState, error) {
	c := a.Clock
	srv, _, err := a.Access.LookupKey(ctx, dc.ServerKey)
	if err != nil {
		return nil, demoErr("server key", err)
	}
	acc, err := a.Access.VerifySiteKey(ctx, dc.SiteKey, "http://localhost", "", true)
	if err != nil {
		return nil, demoErr("site key", err)
	}
	st := &demoChannelState{dc: dc, ch: acc.Channel, site: access.KeyActor(acc.Key, core.ViaSiteKey), tokens: map[string]string{}}
	reviews := demoReviews[dc.Language]
	now := c.Now()
	req := orders.OrderRequest{Channel: dc.Code, Batch: true}
	for i, r := range reviews {
		it := demoItemByKey(r.item)
		delivered := now.Add(-time.Duration(2+(i*7)%26)*24*time.Hour - time.Duration(i%9)*time.Hour)
		req.Orders = append(req.Orders, orders.OrderInput{
			ExternalID: demoOrderID(dc, i), PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
			CustomerEmail: demoEmail(dc, i), Language: dc.Language,
			Items: []orders.LineInput{{LineReference: "1", VariantKey: it.key, GroupKey: it.group, CatalogID: it.key,
				Title: it.title[dc.Language], FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}},
		})
	}
	// One more delivered order that gets no review: the order to try the writing flow with.
	try := demoItemByKey("demo-mug-speckled")
	st.dc.TryOrder, st.dc.TryEmail = demoOrderID(dc, len(reviews)), demoEmail(dc, len(reviews))
	delivered := now.Add(-24 * time.Hour)
	req.Orders = append(req.Orders, orders.OrderInput{
		ExternalID: st.dc.TryOrder, PaymentState: core.PaymentPaid, PlacedAt: delivered.Add(-72 * time.Hour).Format(time.RFC3339),
		CustomerEmail: st.dc.TryEmail, Language: dc.Language,
		Items: []orders.LineInput{{LineReference: "1", VariantKey: try.key, GroupKey: try.group, CatalogID: try.key,
			Title: try.title[dc.Language], FulfilmentState: core.LineDelivered, DeliveredAt: delivered.Format(time.RFC3339)}},
	})
	if _, err := a.Orders.IngestOrders(ctx, access.KeyActor(srv, core.ViaServerKey), req); err != nil {
		return nil, demoErr("orders", err)
	}
	for i, r := range reviews {
		id, err := seedDemoReview(ctx, a, st, i, r)
		if err != nil {
			return nil, err
		}
		st.reviewIDs = append(st.reviewIDs, id)
	}
	return st, nil
}

func demoOrderID(dc demoChannel, i int) string { return dc.Market + "-" + strconv.Itoa(10401+i*7) }

func demoEmail(dc demoChannel, i int) string {
	return fmt.Sprintf("customer%02d.%s@example.com", i+1, dc.Code)
}

// seedDemoReview writes review i of the channel: the order check, photo uploads,
// the review itself and its helpful votes (once published).
func seedDemoReview(ctx context.Context, a *app.App, st *demoChannelState, i int, r demoReview) (string, error) {
	el, err := a.Buyer.CheckEligibility(ctx, st.site, st.ch, buyer.EligibilityInput{Order: demoOrderID(st.dc, i),
		Email: demoEmail(st.dc, i), Language: st.dc.Language})
	if err != nil {
		return "", demoErr("order check", err)
	}
	if r.name != "" {
		st.tokens[r.name] = el.Token
	}
	var media []string
	for p := 0; p < r.photos; p++ {
		id, err := demoUpload(ctx, a, st, el.Token, demoItemByKey(r.item), i*3+p)
		if err != nil {
			return "", err
		}
		if id != "" {
			media = append(media, id)
		}
	}
	row := reviews.ReviewInput{LineReference: "1", Rating: json.RawMessage(strconv.Itoa(r.rating)), Title: r.title, Body: r.body,
		Media: media, HideName: json.RawMessage(strconv.FormatBool(r.hide)), Aspects: map[string]json.RawMessage{}}
	if r.name != "" {
		name := r.name
		row.AuthorName = &name
	}
	for k, v := range r.aspects {
		row.Aspects[k] = json.RawMessage(strconv.Itoa(v))
	}
	out, err := a.Reviews.WriteReviews(ctx, st.site, st.ch, reviews.WriteInput{Token: el.Token, Language: st.dc.Language,
		Reviews: []reviews.ReviewInput{row}})
	if err != nil {
		return "", demoErr("review", err)
	}
	w := out[0]
	if w.State != core.ReviewPublished {
		return w.ID, nil
	}
	for v := 0; v < r.votes; v++ {
		if _, err := a.Votes.VoteHelpful(ctx, st.site, st.ch, w.ID, votes.VoteInput{Vote: votes.VoteUp,
			VisitorKey: "demo-visitor-" + strconv.Itoa(v+1)}); err != nil {
			return "", demoErr("helpful vote", err)
		}
	}
	return w.ID, nil
}

// demoUpload uploads one generated photo for the order's line through the same
// functions as POST /v1/media. A refusal (a virus scanner that cannot be reached,
// for one) leaves the review without that photo.
func demoUpload(ctx context.Context, a *app.App, st *demoChannelState, token string, it demoItem, n int) (string, error) {
	file, err := a.Reviews.ReceiveUpload(bytes.NewReader(demoPhoto(it.palette, n)))
	if err != nil {
		return "", demoErr("photo", err)
	}
	up, err := a.Reviews.UploadMedia(ctx, st.site, st.ch, reviews.UploadInput{Token: token, LineReference: "1", File: file})
	var ce *core.Error
	if errors.As(err, &ce) {
		a.Log.Warn("demo photo not uploaded", "code", ce.Code, "detail", ce.Detail)
		return "", nil
	}
	if err != nil {
		return "", demoErr("photo", err)
	}
	return up.ID, nil
}

// seedDemoQuestions asks the channel's questions as visitors, then answers them as
// the brand (the panel's brand answer) and as buyers (with the order-check token of
// a customer who bought the product).
func seedDemoQuestions(ctx context.Context, a *app.App, st *demoChannelState) error {
	console := core.Console()
	for _, q := range demoQuestions[st.dc.Language] {
		asked, err := a.QA.AskQuestion(ctx, st.site, st.ch, qa.QuestionInput{Product: q.product, Scope: q.scope, Name: q.name,
			Body: q.body, HideName: json.RawMessage(strconv.FormatBool(q.hide)), Language: st.dc.Language})
		if err != nil {
			return demoErr("question", err)
		}
		if asked.State != qa.QAPublished {
			continue // held by the checks: waits for a moderator
		}
		if q.brand != "" {
			if _, err := a.QA.AnswerAsBrand(ctx, console, asked.ID, qa.BrandAnswerInput{Body: q.brand}); err != nil {
				return demoErr("brand answer", err)
			}
		}
		if q.buyer != "" {
			tok, ok := st.tokens[q.buyerName]
			if !ok {
				return fmt.Errorf("demo: no order of %s", q.buyerName)
			}
			if _, err := a.QA.AnswerQuestion(ctx, st.site, st.ch, asked.ID, tok, qa.AnswerInput{Body: q.buyer,
				Name: q.buyerName, HideName: json.RawMessage(`true`), Language: st.dc.Language}); err != nil {
				return demoErr("buyer answer", err)
			}
		}
	}
	return nil
}

// demoPhoto draws a 960x720 JPEG: a diagonal gradient between the product's first
// two colours with a soft disc of the third, placed differently for each n.
func demoPhoto(p [3]color.RGBA, n int) []byte {
	const w, h = 960, 720
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cx := float64(w) * (0.3 + 0.4*float64((n*37)%10)/10)
	cy := float64(h) * (0.35 + 0.3*float64((n*53)%10)/10)
	radius := float64(h) * (0.22 + 0.05*float64(n%3))
	mix := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			t := (float64(x)/w + float64(y)/h) / 2
			if n%2 == 1 {
				t = 1 - t
			}
			r, g, b := mix(p[0].R, p[1].R, t), mix(p[0].G, p[1].G, t), mix(p[0].B, p[1].B, t)
			d := math.Hypot(float64(x)-cx, float64(y)-cy) / radius
			if d < 1.15 {
				s := 0.85
				if d > 1 {
					s = 0.85 * (1.15 - d) / 0.15 // soft edge
				}
				r, g, b = mix(r, p[2].R, s), mix(g, p[2].G, s), mix(b, p[2].B, s)
			}
			img.SetRGBA(x, y, color.RGBA{r, g, b, 255})
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	return buf.Bytes()
}
