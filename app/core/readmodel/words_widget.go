package readmodel

import (
	"reviewd/app/core/brand"
)

// Label texts of the page script's own parts: the writing flow, the order check,
// the dialogs, the lightbox and the questions section. They are added to the words
// object of the list answer (words.go) when the package starts, so the script shows
// every text in tr and en from that one object. Keys are wire names (page component
// contract 3): add keys, never rename them. A key words.go already has is left as
// words.go has it.

var widgetWords = map[string]map[string]string{
	"tr": {
		"form_intro":        "Deneyiminizi diğer müşterilerle paylaşın.",
		"feedback_title":    "Alışveriş deneyiminiz",
		"feedback_intro":    "Siparişinizin nasıl geçtiğini bize anlatın.",
		"revise_title":      "Değerlendirmenizi düzeltin",
		"order_check_intro": "Sipariş numaranızı ve siparişte kullandığınız e-posta adresini girin.",
		"order_number":      "Sipariş numarası",
		"email":             "E-posta adresi",
		"continue":          "Devam et",
		"not_eligible":      "Bu bilgilerle değerlendirmeye hazır bir sipariş bulunamadı. Bu sipariş zaten değerlendirildiyse ve değerlendirme hâlâ değiştirilebiliyorsa, değiştirme bağlantısını siparişin e-posta adresine gönderdik.",
		"too_many_attempts": "Çok fazla deneme yapıldı. Lütfen daha sonra tekrar deneyin.",
		"token_refused":     "Bu değerlendirme bağlantısı artık kullanılamıyor.",
		"your_rating":       "Puanınız",
		"rating_required":   "Lütfen en az bir ürün için puan seçin.",
		"aspect_required":   "Lütfen zorunlu özellikleri de puanlayın.",
		"review_title":      "Başlık",
		"review_body":       "Yorumunuz",
		"your_name":         "Adınız",
		"hide_name":         "Adımın yalnızca baş harfleri görünsün",
		"optional":          "isteğe bağlı",
		"add_media":         "Fotoğraf ve videolar",
		"media_hint":        "En fazla {n} dosya. Fotoğraflar yüklenmeden önce küçültülür.",
		"kept_media":        "Değerlendirmenizdeki dosyalar",
		"photo":             "Fotoğraf",
		"video":             "Video",
		"remove":            "Kaldır",
		"uploading":         "Yükleniyor…",
		"products_hint":     "Değerlendirmek istediğiniz ürünleri puanlayın; diğerleri gönderilmez.",
		"submit":            "Değerlendirmeyi gönder",
		"sending":           "Gönderiliyor…",
		"thanks":            "Teşekkürler! Değerlendirmeniz alındı.",
		"thanks_pending":    "Kontrol edildikten sonra sitede görünecek.",
		"error":             "Bir sorun oluştu. Lütfen tekrar deneyin.",
		"file_too_large":    "{name}: dosya çok büyük (en fazla {n} MB).",
		"file_too_long":     "{name}: video {n} saniyeden uzun.",
		"file_type":         "{name}: bu dosya türü veya biçimi desteklenmiyor.",
		"file_failed":       "{name}: dosya yüklenemedi.",
		"too_many_files":    "Bir değerlendirmeye en fazla {n} dosya eklenebilir.",
		"previous":          "Önceki",
		"next":              "Sonraki",
		"media_of":          "{n} / {m}",
		"clear_filters":     "Filtreleri temizle",
		"report_reason":     "Neden",
		"your_question":     "Sorunuz",
		"question_email":    "E-posta adresi (isteğe bağlı; cevaplandığında haber veririz)",
		"question_sent":     "Teşekkürler! Sorunuz alındı.",
		"your_answer":       "Cevabınız",
		"answer_intro":      "Yalnızca bu ürünü satın alan müşteriler cevap verebilir. Siparişinizi doğrulayın.",
		"answer_sent":       "Teşekkürler! Cevabınız alındı.",
		"not_a_buyer":       "Yalnızca bu ürünü satın alan müşteriler cevap verebilir.",
		"no_questions":      "Henüz soru sorulmadı.",
	},
	"en": {
		"form_intro":        "Share your experience with other customers.",
		"feedback_title":    "Your shopping experience",
		"feedback_intro":    "Tell us how your order went.",
		"revise_title":      "Correct your review",
		"order_check_intro": "Enter your order number and the e-mail address you used for the order.",
		"order_number":      "Order number",
		"email":             "E-mail address",
		"continue":          "Continue",
		"not_eligible":      "We could not find an order ready for review with these details. If this order was already reviewed and the review can still be changed, we have sent a link to change it to the order's e-mail address.",
		"too_many_attempts": "Too many attempts. Please try again later.",
		"token_refused":     "This review link can no longer be used.",
		"your_rating":       "Your rating",
		"rating_required":   "Please choose a rating for at least one product.",
		"aspect_required":   "Please rate the required features too.",
		"review_title":      "Title",
		"review_body":       "Your review",
		"your_name":         "Your name",
		"hide_name":         "Show only my initials",
		"optional":          "optional",
		"add_media":         "Photos and videos",
		"media_hint":        "Up to {n} files. Photos are made smaller before upload.",
		"kept_media":        "Files already on your review",
		"photo":             "Photo",
		"video":             "Video",
		"remove":            "Remove",
		"uploading":         "Uploading…",
		"products_hint":     "Rate the products you want to review; the others are not sent.",
		"submit":            "Send review",
		"sending":           "Sending…",
		"thanks":            "Thank you! Your review has been received.",
		"thanks_pending":    "It will appear on the site after a check.",
		"error":             "Something went wrong. Please try again.",
		"file_too_large":    "{name}: the file is too large (at most {n} MB).",
		"file_too_long":     "{name}: the video is longer than {n} seconds.",
		"file_type":         "{name}: this file type or format is not supported.",
		"file_failed":       "{name}: the file could not be uploaded.",
		"too_many_files":    "At most {n} files can be added to a review.",
		"previous":          "Previous",
		"next":              "Next",
		"media_of":          "{n} of {m}",
		"clear_filters":     "Clear filters",
		"report_reason":     "Reason",
		"your_question":     "Your question",
		"question_email":    "E-mail address (optional; we let you know when it is answered)",
		"question_sent":     "Thank you! Your question has been received.",
		"your_answer":       "Your answer",
		"answer_intro":      "Only customers who bought this product can answer. Please confirm your order.",
		"answer_sent":       "Thank you! Your answer has been received.",
		"not_a_buyer":       "Only customers who bought this product can answer.",
		"no_questions":      "No questions yet.",
	},
}

func init() {
	for lang, m := range widgetWords {
		for k, v := range m {
			if _, ok := brand.LabelWords[lang][k]; !ok {
				brand.LabelWords[lang][k] = v
			}
		}
	}
}
