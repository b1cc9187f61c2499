package ai

import "strings"

// Reply tones (setting reply_tone, draft request tone).
const (
	ToneFormal = "formal"
	ToneWarm   = "warm"
)

// draftTemplates: language -> tone -> band (positive, neutral, negative) ->
// greeting with {name}, greeting without a name, body. {brand} is the brand's name.
var draftTemplates = map[string]map[string]map[string][3]string{
	"en": {
		ToneFormal: {
			"positive": {"Dear {name},", "Dear customer,", "Thank you for your review. We are pleased that the product met your expectations, and we appreciate you taking the time to share your experience. Kind regards, {brand}"},
			"neutral":  {"Dear {name},", "Dear customer,", "Thank you for your review. We value your comments and will take them into account as we improve our products. Kind regards, {brand}"},
			"negative": {"Dear {name},", "Dear customer,", "Thank you for your review, and we are sorry that the product did not meet your expectations. Please contact our customer service so that we can look into the matter and find a solution. Kind regards, {brand}"},
		},
		ToneWarm: {
			"positive": {"Hi {name}!", "Hi there!", "Thank you so much for your lovely review! We're really happy you're enjoying it, and it means a lot that you shared it. Warm wishes from all of us at {brand}"},
			"neutral":  {"Hi {name},", "Hi there,", "Thanks a lot for your honest review! Your thoughts help us do better, and we'd love to hear more if you have ideas. Best wishes, {brand}"},
			"negative": {"Hi {name},", "Hi there,", "We're really sorry this didn't work out as you hoped, and thank you for telling us. Please get in touch with our support team and we'll do our best to put it right. {brand}"},
		},
	},
	"tr": {
		ToneFormal: {
			"positive": {"Sayın {name},", "Değerli müşterimiz,", "Değerlendirmeniz için teşekkür ederiz. Ürünün beklentilerinizi karşılamasından memnuniyet duyduk; deneyiminizi paylaşmak için zaman ayırdığınız için teşekkür ederiz. Saygılarımızla, {brand}"},
			"neutral":  {"Sayın {name},", "Değerli müşterimiz,", "Değerlendirmeniz için teşekkür ederiz. Görüşleriniz bizim için değerlidir; ürünlerimizi geliştirirken dikkate alacağız. Saygılarımızla, {brand}"},
			"negative": {"Sayın {name},", "Değerli müşterimiz,", "Değerlendirmeniz için teşekkür ederiz; ürünün beklentilerinizi karşılamamasından dolayı üzgünüz. Konuyu inceleyip çözüm bulabilmemiz için lütfen müşteri hizmetlerimizle iletişime geçin. Saygılarımızla, {brand}"},
		},
		ToneWarm: {
			"positive": {"Merhaba {name}!", "Merhaba!", "Güzel yorumunuz için çok teşekkür ederiz! Ürünü sevmenize çok sevindik, paylaştığınız için ayrıca teşekkürler. {brand} ekibinden sevgiler"},
			"neutral":  {"Merhaba {name},", "Merhaba,", "İçten yorumunuz için çok teşekkürler! Düşünceleriniz daha iyisini yapmamıza yardımcı oluyor; önerileriniz varsa duymayı çok isteriz. Sevgiler, {brand}"},
			"negative": {"Merhaba {name},", "Merhaba,", "Beklediğiniz gibi olmadığı için gerçekten üzgünüz, bize yazdığınız için teşekkür ederiz. Destek ekibimize ulaşırsanız durumu düzeltmek için elimizden geleni yaparız. {brand}"},
		},
	},
}

// TemplateDraft writes a reply draft from the templates: the review's language
// (tr, else en), the tone, and the band of its rating (4-5, 3, 1-2).
func TemplateDraft(in DraftInput) string {
	lang := in.Language
	if _, ok := draftTemplates[lang]; !ok {
		lang = "en"
	}
	tone := in.Tone
	if tone != ToneWarm {
		tone = ToneFormal
	}
	band := "neutral"
	switch {
	case in.Rating >= 4:
		band = "positive"
	case in.Rating > 0 && in.Rating <= 2:
		band = "negative"
	}
	t := draftTemplates[lang][tone][band]
	greeting := t[1]
	if name := strings.TrimSpace(in.AuthorName); name != "" {
		greeting = strings.ReplaceAll(t[0], "{name}", name)
	}
	body := t[2]
	if strings.TrimSpace(in.Brand) == "" {
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(body, "{brand}"), " "))
		body = strings.TrimSuffix(body, ",")
		if !strings.HasSuffix(body, ".") && !strings.HasSuffix(body, "!") {
			body += "."
		}
		body = strings.ReplaceAll(body, " {brand} ekibinden sevgiler", " Sevgiler")
		body = strings.ReplaceAll(body, " {brand}", "")
	}
	return greeting + "\n\n" + strings.ReplaceAll(body, "{brand}", in.Brand)
}
