package texts

// Core are the texts of the panel's frame, sign-in, overview, moderation, review,
// question, invitation and settings pages in tr and en.
var Core = map[string]map[string]string{
	"en": {
		"ev_approve": "Approve", "ev_reject": "Reject", "ev_hide": "Hide", "ev_unhide": "Show again", "ev_remove": "Remove",
		"ev_publish": "Publish", "ev_restore": "Restore", "notice_approve": "Approved.", "notice_reject": "Rejected.",
		"notice_hide": "Hidden.", "notice_unhide": "Shown again.", "notice_remove": "Removed.", "notice_answered": "Answer published.",
		"notice_media_removed": "Media removed.", "notice_reports_resolved": "Reports closed.",
		"brand": "reviewd", "overview": "Overview", "queue": "Moderation", "reviews": "Reviews", "questions": "Questions",
		"invitations": "Invitations", "settings": "Settings", "sign_out": "Sign out", "language": "Language",
		"sign_in": "Sign in", "username": "Username", "password": "Password", "passcode": "Passcode from your authenticator app",
		"continue": "Continue", "second_step": "Two-step sign-in", "error": "Something went wrong",
		"attention": "Needs attention", "waiting": "Waiting reviews", "flagged": "Flagged by checks", "reported": "Reported",
		"q_waiting": "Questions waiting", "answers_waiting": "Answers waiting", "failed_invites": "Failed invitations",
		"per_week": "Reviews per week", "rating_dist": "Rating distribution (published)", "funnel": "Invitation funnel",
		"funnel_created": "Created", "funnel_sent": "Sent", "funnel_reviewed": "Reviewed",
		"approve": "Approve", "reject": "Reject", "reason": "Reason", "select": "Select", "bulk_approve": "Approve selected",
		"bulk_reject": "Reject selected", "one_at_a_time": "One at a time", "list": "List", "queue_empty": "Nothing waits for approval.",
		"keys_help":           "Keys: a approve · r reject · u undo · j/k next/previous · x select",
		"notice_held_approve": "Approved", "notice_held_reject": "Rejected", "undo": "Undo", "notice_undone": "Undone: the review is back where it was.", "remove_confirm": "I understand: remove this review for good", "checks": "Automatic checks", "no_checks": "No findings.",
		"reports": "Reports", "no_reports": "No reports.", "media": "Photos and videos", "history": "History",
		"proof": "Proof of purchase", "search": "Search", "filter": "Filter", "state": "State", "rating": "Rating",
		"all": "All", "export": "Export", "trace": "Download history", "remove_media": "Remove", "resolve_reports": "Close reports",
		"note": "Note", "prev": "Previous", "next": "Next", "total": "total", "page": "Page", "answer": "Answer",
		"brand_answer": "Answer as the brand", "send": "Send", "answers": "Answers", "events": "Actions",
		"invites": "Invitations", "send_log": "Send log", "queued": "Queued", "sent": "Sent", "failed": "Failed",
		"skipped": "Skipped", "conversion": "Conversion", "save": "Save", "time_zone": "Time zone",
		"send_window": "Send window (HH:MM-HH:MM)", "invite_delay_days": "Days after delivery before inviting",
		"daily_limit": "Invitations per customer per day", "reminder_after_days": "Reminder after days (0 = none)",
		"publishing_method": "Publishing method", "questions_enabled": "Questions on product pages",
		"invite_delivery": "Invitation route", "reminder_delivery": "Reminder route", "webhook_url": "Notification address",
		"support_url": "Support address", "sender_address": "Sender address", "sending": "Sending", "publishing": "Publishing",
		"notice_saved": "Saved.", "notice_unchanged": "Nothing changed.", "product": "Product", "author": "Author",
		"whatsapp_fallback_email": "E-mail when WhatsApp cannot reach the customer", "whatsapp_test": "Test message to (phone)",
		"notice_whatsapp_test_sent": "Test message sent.", "deliveries_by_route": "Messages by route (last 30 days)",
		"delivered": "Delivered", "read": "Read",
		"submitted": "Submitted", "channel": "Channel", "open": "Open", "none": "None", "verified": "Verified",
		"not_verified": "Not verified", "reject_reason": "Rejection reason",
		"mail_off_list": "See the waiting invitations", "remove_reason": "Removal reason", "choose_reason": "Choose a reason…",
		"destructive_help":    "Rejecting sends the customer the reason and a link to correct the review, after 10 seconds in which it can be undone; removing takes it down for good. Hiding (above) can be undone.",
		"err_reason_required": "Choose a reason first: nothing was changed.", "cancel": "Cancel", "selected": "selected",
		"flagged_only": "Flagged", "reported_only": "Reported", "when": "When", "recipient": "Recipient",
		"status": "Status", "kind": "Kind", "order": "Order", "attempts": "Attempts", "not_allowed": "Your role does not allow this.",
		"set_password": "Set your password", "new_password": "New password (at least 12 characters)",
		"link_code": "Code from the e-mail link", "forgot_password": "Forgot your password?",
		"reset_password": "Reset your password", "email": "E-mail address", "send_link": "Send me a link",
		"reset_requested":     "If the address belongs to a member, a link valid for one hour is on its way.",
		"notice_password_set": "Your password is set. Sign in with it.",
		"skip_link":           "Skip to content", "unanswered": "Unanswered", "moderation_time": "Waiting since", "reply_tone": "Reply tone",
		"ai_package": "AI features", "ai_provider": "Provider", "ai_usage": "Model calls today", "ai_queue": "Queue (waiting / running / failed)",
		"ai_last_error": "Last model error", "ai_summary_enabled": "Show review summaries and topic sentiment on product pages",
		"ai_translation_enabled": "Show translations of reviews written in another language", "tone_formal": "Formal", "tone_warm": "Warm",
		"reply_draft": "Suggest a draft", "reply_draft_note": "Draft only: check and edit it before publishing.",
	},
	"tr": {
		"ev_approve": "Onayla", "ev_reject": "Reddet", "ev_hide": "Gizle", "ev_unhide": "Yeniden göster", "ev_remove": "Kaldır",
		"ev_publish": "Yayınla", "ev_restore": "Geri al", "notice_approve": "Onaylandı.", "notice_reject": "Reddedildi.",
		"notice_hide": "Gizlendi.", "notice_unhide": "Yeniden gösteriliyor.", "notice_remove": "Kaldırıldı.", "notice_answered": "Cevap yayınlandı.",
		"notice_media_removed": "Medya kaldırıldı.", "notice_reports_resolved": "Bildirimler kapatıldı.",
		"brand": "reviewd", "overview": "Genel bakış", "queue": "Moderasyon", "reviews": "Yorumlar", "questions": "Sorular",
		"invitations": "Davetler", "settings": "Ayarlar", "sign_out": "Çıkış", "language": "Dil",
		"sign_in": "Giriş yap", "username": "Kullanıcı adı", "password": "Parola", "passcode": "Doğrulama uygulamasındaki kod",
		"continue": "Devam", "second_step": "İki adımlı giriş", "error": "Bir sorun oluştu",
		"attention": "İlgi bekleyenler", "waiting": "Onay bekleyen yorumlar", "flagged": "Denetimde işaretlenen", "reported": "Bildirilen",
		"q_waiting": "Bekleyen sorular", "answers_waiting": "Bekleyen cevaplar", "failed_invites": "Başarısız davetler",
		"per_week": "Haftalık yorum", "rating_dist": "Puan dağılımı (yayında)", "funnel": "Davet hunisi",
		"funnel_created": "Oluşturulan", "funnel_sent": "Gönderilen", "funnel_reviewed": "Yorumlanan",
		"approve": "Onayla", "reject": "Reddet", "reason": "Gerekçe", "select": "Seç", "bulk_approve": "Seçilenleri onayla",
		"bulk_reject": "Seçilenleri reddet", "one_at_a_time": "Tek tek", "list": "Liste", "queue_empty": "Onay bekleyen yorum yok.",
		"keys_help":           "Tuşlar: a onayla · r reddet · u geri al · j/k sonraki/önceki · x seç",
		"notice_held_approve": "Onaylandı", "notice_held_reject": "Reddedildi", "undo": "Geri al", "notice_undone": "Geri alındı: yorum eski yerinde.", "remove_confirm": "Anladım: bu yorumu kalıcı olarak kaldır", "checks": "Otomatik denetimler", "no_checks": "Bulgu yok.",
		"reports": "Bildirimler", "no_reports": "Bildirim yok.", "media": "Fotoğraf ve videolar", "history": "Geçmiş",
		"proof": "Satın alma kanıtı", "search": "Ara", "filter": "Süz", "state": "Durum", "rating": "Puan",
		"all": "Tümü", "export": "Dışa aktar", "trace": "Geçmişi indir", "remove_media": "Kaldır", "resolve_reports": "Bildirimleri kapat",
		"note": "Not", "prev": "Önceki", "next": "Sonraki", "total": "toplam", "page": "Sayfa", "answer": "Cevap",
		"brand_answer": "Marka olarak cevapla", "send": "Gönder", "answers": "Cevaplar", "events": "İşlemler",
		"invites": "Davetler", "send_log": "Gönderim kaydı", "queued": "Sırada", "sent": "Gönderildi", "failed": "Başarısız",
		"skipped": "Atlandı", "conversion": "Dönüşüm", "save": "Kaydet", "time_zone": "Saat dilimi",
		"send_window": "Gönderim aralığı (SS:DD-SS:DD)", "invite_delay_days": "Teslimattan sonra davet için gün",
		"daily_limit": "Müşteri başına günlük davet", "reminder_after_days": "Hatırlatma günü (0 = yok)",
		"publishing_method": "Yayın yöntemi", "questions_enabled": "Ürün sayfalarında sorular",
		"invite_delivery": "Davet yolu", "reminder_delivery": "Hatırlatma yolu", "webhook_url": "Bildirim adresi",
		"support_url": "Destek adresi", "sender_address": "Gönderen adresi", "sending": "Gönderim", "publishing": "Yayın",
		"notice_saved": "Kaydedildi.", "notice_unchanged": "Değişiklik yok.", "product": "Ürün", "author": "Yazan",
		"whatsapp_fallback_email": "WhatsApp ulaşamazsa e-posta gönder", "whatsapp_test": "Deneme mesajı (telefon)",
		"notice_whatsapp_test_sent": "Deneme mesajı gönderildi.", "deliveries_by_route": "Yola göre mesajlar (son 30 gün)",
		"delivered": "Teslim edilen", "read": "Okunan",
		"submitted": "Gönderildi", "channel": "Kanal", "open": "Aç", "none": "Yok", "verified": "Doğrulanmış",
		"not_verified": "Doğrulanmamış", "reject_reason": "Ret gerekçesi",
		"mail_off_list": "Bekleyen davetleri görün", "remove_reason": "Kaldırma gerekçesi", "choose_reason": "Bir gerekçe seçin…",
		"destructive_help":    "Reddetmek, geri alınabileceği 10 saniyenin ardından müşteriye gerekçeyi ve yorumu düzeltme bağlantısını gönderir; kaldırmak yorumu kalıcı olarak yayından alır. Gizlemek (yukarıda) geri alınabilir.",
		"err_reason_required": "Önce bir gerekçe seçin: hiçbir şey değişmedi.", "cancel": "Vazgeç", "selected": "seçili",
		"flagged_only": "İşaretli", "reported_only": "Bildirilen", "when": "Zaman", "recipient": "Alıcı",
		"status": "Durum", "kind": "Tür", "order": "Sipariş", "attempts": "Deneme", "not_allowed": "Rolünüz buna izin vermiyor.",
		"set_password": "Parolanızı belirleyin", "new_password": "Yeni parola (en az 12 karakter)",
		"link_code": "E-postadaki bağlantının kodu", "forgot_password": "Parolanızı mı unuttunuz?",
		"reset_password": "Parolanızı sıfırlayın", "email": "E-posta adresi", "send_link": "Bağlantı gönder",
		"reset_requested":     "Adres bir üyeye aitse bir saat geçerli bir bağlantı gönderildi.",
		"notice_password_set": "Parolanız belirlendi. Onunla giriş yapın.",
		"skip_link":           "İçeriğe geç", "unanswered": "Cevapsız", "moderation_time": "Bekliyor", "reply_tone": "Cevap üslubu",
		"ai_package": "Yapay zekâ özellikleri", "ai_provider": "Sağlayıcı", "ai_usage": "Bugünkü model çağrıları", "ai_queue": "Kuyruk (bekleyen / çalışan / başarısız)",
		"ai_last_error": "Son model hatası", "ai_summary_enabled": "Ürün sayfalarında yorum özetini ve konu duygusunu göster",
		"ai_translation_enabled": "Başka dilde yazılmış yorumların çevirisini göster", "tone_formal": "Resmî", "tone_warm": "Samimi",
		"reply_draft": "Taslak öner", "reply_draft_note": "Yalnızca taslak: yayımlamadan önce kontrol edip düzenleyin.",
	},
}

// Messages are all the panel's texts by language: Core, then Admin, Sharing and
// GoLive over it.
var Messages = merge(Core, Admin, Sharing, GoLive)

func merge(sets ...map[string]map[string]string) map[string]map[string]string {
	all := map[string]map[string]string{}
	for _, set := range sets {
		for lang, m := range set {
			if all[lang] == nil {
				all[lang] = map[string]string{}
			}
			for k, v := range m {
				all[lang][k] = v
			}
		}
	}
	return all
}

// T is the text of key in lang, else in en, else the key itself.
func T(lang, key string) string {
	if s, ok := Messages[lang][key]; ok {
		return s
	}
	if s, ok := Messages["en"][key]; ok {
		return s
	}
	return key
}
