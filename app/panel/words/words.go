// Package words holds the words the panel shows for the domain's codes, a review's
// fallback heading and byte sizes as people read them, in English and Turkish.
package words

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"reviewd/app/core/brand"
)

// Codes is the one table of the words the panel shows for the codes the
// domain stores: by group, then code, the English and Turkish text. A code
// without a text is shown as it is (TestCodeWords keeps every code the domain
// can produce covered). Reasons come from the brand's reason lists first.
var Codes = map[string]map[string][2]string{
	"check": {
		"personal_data": {"Personal data", "Kişisel veri"},
		"link":          {"Web address", "Web adresi"},
		"profanity":     {"Offensive language", "Uygunsuz dil"},
		"health_claim":  {"Health claim", "Sağlık iddiası"},
		"brand_term":    {"Watched term", "İzlenen terim"},
		"duplicate":     {"Same text as another review", "Başka bir yorumla aynı metin"},
	},
	"outcome": {
		"passed":  {"nothing found", "sorun bulunmadı"},
		"flagged": {"found something", "bir şey bulundu"},
	},
	"finding": {
		"email": {"an e-mail address", "bir e-posta adresi"},
		"phone": {"a phone number", "bir telefon numarası"},
		"url":   {"a web address", "bir web adresi"},
	},
	"field": {
		"title":       {"in the title", "başlıkta"},
		"body":        {"in the text", "metinde"},
		"author_name": {"in the name", "isimde"},
	},
	"state": {
		"pending":   {"Waiting for approval", "Onay bekliyor"},
		"published": {"Published", "Yayında"},
		"rejected":  {"Rejected", "Reddedildi"},
		"hidden":    {"Hidden", "Gizlendi"},
		"removed":   {"Removed", "Kaldırıldı"},
	},
	"event": {
		"submitted":                 {"Written", "Yazıldı"},
		"revised":                   {"Corrected by the customer", "Müşteri tarafından düzeltildi"},
		"anonymized":                {"Personal data erased", "Kişisel veriler silindi"},
		"returned":                  {"Product returned", "Ürün iade edildi"},
		"media_removed":             {"Photo or video removed", "Fotoğraf veya video kaldırıldı"},
		"reports_resolved":          {"Reports closed", "Bildirimler kapatıldı"},
		"approve":                   {"Approved", "Onaylandı"},
		"reject":                    {"Rejected", "Reddedildi"},
		"hide":                      {"Hidden", "Gizlendi"},
		"unhide":                    {"Shown again", "Yeniden gösterildi"},
		"remove":                    {"Removed", "Kaldırıldı"},
		"review.imported":           {"Imported", "İçe aktarıldı"},
		"review.source_updated":     {"Updated from its source", "Kaynağından güncellendi"},
		"review.source_removed":     {"Removed at its source", "Kaynağında kaldırıldı"},
		"seller_response_published": {"Reply published", "Yanıt yayımlandı"},
		"seller_response_changed":   {"Reply changed", "Yanıt değiştirildi"},
		"seller_response_withdrawn": {"Reply withdrawn", "Yanıt geri çekildi"},
		"resolution_created":        {"Resolution note added", "Çözüm notu eklendi"},
		"resolution_withdrawn":      {"Resolution note removed", "Çözüm notu kaldırıldı"},
		"featured":                  {"Pinned to the top", "En üste sabitlendi"},
		"unfeatured":                {"Unpinned", "Sabitleme kaldırıldı"},
	},
	"proof": {
		"tokenized_invite": {"Written from an invitation to the order's customer", "Siparişin müşterisine gönderilen davetle yazıldı"},
		"order_check":      {"Order number and e-mail checked on the product page", "Ürün sayfasında sipariş numarası ve e-posta doğrulandı"},
		"source_platform":  {"Read from the marketplace", "Pazaryerinden okundu"},
	},
	"actor": {
		"session":    {"a team member", "bir ekip üyesi"},
		"api_key":    {"an API key", "bir API anahtarı"},
		"server_key": {"the store's server", "mağazanın sunucusu"},
		"site_key":   {"the product page", "ürün sayfası"},
		"signature":  {"a signed request", "imzalı bir istek"},
		"console":    {"the server's command line", "sunucunun komut satırı"},
		"system":     {"reviewd itself", "reviewd'nin kendisi"},
		"mail_code":  {"a link in an e-mail", "e-postadaki bir bağlantı"},
		"customer":   {"the customer", "müşteri"},
	},
	"notice": {
		"sent":          {"e-mail sent", "e-posta gönderildi"},
		"no_address":    {"no e-mail address to write to", "yazılacak e-posta adresi yok"},
		"opted_out":     {"the customer asked for no e-mails", "müşteri e-posta istemiyor"},
		"mail_disabled": {"not sent: e-mail sending is not set up", "gönderilmedi: e-posta gönderimi kurulmamış"},
		"failed":        {"not sent", "gönderilemedi"},
	},
	// Reasons of a failed e-mail (mail.SendError.Reason).
	"mail_failure": {
		"connection_failed": {"the mail server could not be reached", "e-posta sunucusuna ulaşılamadı"},
		"address_invalid":   {"the address cannot receive e-mail", "adres e-posta alamıyor"},
		"message_invalid":   {"the mail server refused the message", "e-posta sunucusu iletiyi reddetti"},
		"mail_disabled":     {"e-mail sending is not set up", "e-posta gönderimi kurulmamış"},
		"smtp_status":       {"the mail server answered", "e-posta sunucusunun yanıtı"},
	},
	// Why an order connection's read failed (orders.FailureCodes).
	"read_failure": {
		"shop_address_invalid":      {"the shop address is not valid", "mağaza adresi geçerli değil"},
		"credentials_missing":       {"the login details are missing", "giriş bilgileri eksik"},
		"api_credentials_missing":   {"the API login details are missing", "API giriş bilgileri eksik"},
		"login_refused":             {"the shop refused the login", "mağaza girişi reddetti"},
		"api_credentials_refused":   {"the shop refused the API login details", "mağaza API giriş bilgilerini reddetti"},
		"api_scope_missing":         {"the API key may not read orders", "API anahtarı siparişleri okuyamıyor"},
		"throttled":                 {"the shop asked to slow down", "mağaza yavaşlamayı istedi"},
		"host_unresolved":           {"the shop's address was not found", "mağazanın adresi bulunamadı"},
		"address_refused":           {"the shop's address may not be reached from here (a private or local address)", "mağazanın adresine buradan erişilemez (özel veya yerel adres)"},
		"port_refused":              {"the shop's port may not be reached from here", "mağazanın bağlantı noktasına buradan erişilemez"},
		"connection_failed":         {"the shop could not be reached", "mağazaya ulaşılamadı"},
		"timeout":                   {"the shop did not answer in time", "mağaza zamanında yanıt vermedi"},
		"redirect_refused":          {"the shop sent the request elsewhere", "mağaza isteği başka yere yönlendirdi"},
		"answer_invalid":            {"the shop's answer could not be read", "mağazanın yanıtı okunamadı"},
		"credentials_undecryptable": {"the stored login details cannot be opened (another secret key?)", "saklanan giriş bilgileri açılamıyor (başka bir gizli anahtar mı?)"},
		"no_order_saved":            {"no order could be saved", "hiçbir sipariş kaydedilemedi"},
		"unexpected":                {"an unexpected error", "beklenmeyen bir hata"},
		"http_status":               {"the shop answered with HTTP status", "mağaza şu HTTP durumuyla yanıt verdi:"},
	},
	"report_state": {
		"open":   {"open", "açık"},
		"closed": {"closed", "kapandı"},
	},
	"media_state": {
		"uploaded":    {"uploaded", "yüklendi"},
		"processing":  {"being prepared", "hazırlanıyor"},
		"ready":       {"ready", "hazır"},
		"failed":      {"could not be prepared", "hazırlanamadı"},
		"quarantined": {"held by the virus scan", "virüs taramasında tutuldu"},
		"removed":     {"removed", "kaldırıldı"},
	},
	"media_kind": {
		"image": {"Photo", "Fotoğraf"},
		"video": {"Video", "Video"},
	},
	"reason": {
		"source_removed": {"Removed at its source", "Kaynağında kaldırıldı"},
	},
}

// Code is the words for code in group in lang (tr, else English); the
// reason group reads the brand's reason lists first. An unknown code is itself.
func Code(group, code, lang string) string {
	if code == "" {
		return ""
	}
	i := 0
	if lang == "tr" {
		i = 1
	}
	if group == "notice" {
		// "failed: <reason>" is the failure with the mail's reason.
		if reason, ok := strings.CutPrefix(code, "failed: "); ok {
			status, smtp := strings.CutPrefix(reason, "smtp_status: ")
			if smtp {
				reason = "smtp_status"
			}
			why := Code("mail_failure", reason, lang)
			if smtp {
				why += " " + status
			}
			return Codes["notice"]["failed"][i] + ": " + why
		}
	}
	if group == "read_failure" {
		if status, ok := strings.CutPrefix(code, "http_status: "); ok {
			return Code(group, "http_status", lang) + " " + status
		}
	}
	if group == "reason" {
		for _, kind := range brand.ReasonKinds {
			for _, r := range brand.Reasons(kind, lang) {
				if r.Code == code {
					return r.Label
				}
			}
		}
	}
	if w, ok := Codes[group][code]; ok {
		return w[i]
	}
	return code
}

// excerptRunes is how much of a review's text stands for a missing title.
const excerptRunes = 60

// Heading is a review's title, or when it has none the start of its text (about
// 60 characters, cut at a word, with "…").
func Heading(title, body string) string {
	if t := strings.TrimSpace(title); t != "" {
		return t
	}
	b := strings.Join(strings.Fields(body), " ")
	if utf8.RuneCountInString(b) <= excerptRunes {
		return b
	}
	cut := string([]rune(b)[:excerptRunes])
	if i := strings.LastIndex(cut, " "); i > excerptRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// Size is a byte count as people read it, in lang's number format: bytes
// below 1 KB, else KB, MB or GB (1024-based) with one decimal below 10
// ("762237" is "744 KB"; 1536 is "1.5 KB", in Turkish "1,5 KB").
func Size(n int64, lang string) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KB", "MB", "GB", "TB"}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	var s string
	if f < 10 {
		s = strconv.FormatFloat(math.Round(f*10)/10, 'f', 1, 64)
		s = strings.TrimSuffix(s, ".0")
	} else {
		s = strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	}
	if lang == "tr" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + " " + units[u]
}
