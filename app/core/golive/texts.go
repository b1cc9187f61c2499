package golive

import (
	"context"
	"fmt"
	"strings"
	"time"

	"reviewd/app/mail"
	"reviewd/store"
)

// texts are the alerts in plain words, tr and en: the panel's overview and the
// owners' e-mail say the same. Each holds its title (with the alert's figures)
// and what ends it.
var texts = map[string]map[string][2]string{
	"en": {
		AlertMailOff: {"%[2]d invitations are waiting because e-mail sending is not set up.",
			"Set the outgoing mail server under Settings › Mail server (or smtp.host, smtp.port, smtp.username, smtp.password, smtp.from in the configuration). The waiting invitations are then sent on their next attempt; nothing is lost."},
		AlertOriginUnverified: {"Your reviews are not shown on %[1]s: verify the domain.",
			"Requests from pages on %[1]s refused so far: %[2]d. The domain is not verified for channel %[3]s. Add it under Team and access › Channels and domains and put the file or DNS record there."},
		AlertRevokedKeyUsed: {"A revoked site key is still in use: %[1]s.",
			"Requests with this key refused so far: %[2]d. Those pages show no reviews. Replace it in the page's snippet with a key in use (Keys and secrets)."},
		AlertKeyUnused: {"Site key %[1]s has not been used in %[2]d days.",
			"No product page has loaded reviews with it yet. Put the snippet from Keys and secrets on your product and listing pages."},
		AlertClamdMissing: {"Virus scanning of photos and videos is off.",
			"clamd is not set up (clamd.address). Uploads are accepted unscanned until it is."},
		AlertFFmpegMissing: {"Videos cannot be processed: ffmpeg is missing.",
			"Install ffmpeg and ffprobe on the server (or set ffmpeg.ffmpeg and ffmpeg.ffprobe). Uploaded videos wait until then."},
		AlertReplicaLag: {"The replica is %[2]d minutes behind.",
			"The copy of your data on the replica was last brought up to date at %[4]s. Check the replica's address and credentials (replica.*) and the server log."},
		AlertConnectionFailed: {"The store connection %[1]s keeps failing (failed reads in a row: %[2]d).",
			"Its last read failed: %[5]s. New orders from it wait; check the connection's address and credentials."},
	},
	"tr": {
		AlertMailOff: {"E-posta gönderimi kurulmadığı için %[2]d davet bekliyor.",
			"Giden posta sunucusunu Ayarlar › Posta sunucusu altında girin (ya da yapılandırmada smtp.host, smtp.port, smtp.username, smtp.password, smtp.from). Bekleyen davetler bir sonraki denemede gönderilir; hiçbiri kaybolmaz."},
		AlertOriginUnverified: {"Yorumlarınız %[1]s üzerinde gösterilmiyor: alan adını doğrulayın.",
			"%[1]s sayfalarından reddedilen istek sayısı: %[2]d. Alan adı %[3]s kanalı için doğrulanmamış. Ekip ve erişim › Kanallar ve alan adları altında ekleyin ve dosyayı ya da DNS kaydını oluşturun."},
		AlertRevokedKeyUsed: {"İptal edilmiş bir site anahtarı hâlâ kullanılıyor: %[1]s.",
			"Bu anahtarla reddedilen istek sayısı: %[2]d. O sayfalar yorum göstermiyor. Sayfadaki kod parçasında geçerli bir anahtarla değiştirin (Anahtarlar ve parolalar)."},
		AlertKeyUnused: {"%[1]s site anahtarı %[2]d gündür hiç kullanılmadı.",
			"Henüz hiçbir ürün sayfası bu anahtarla yorum yüklemedi. Anahtarlar ve parolalar sayfasındaki kod parçasını ürün ve liste sayfalarınıza ekleyin."},
		AlertClamdMissing: {"Fotoğraf ve videoların virüs taraması kapalı.",
			"clamd kurulmamış (clamd.address). Kurulana kadar yüklemeler taranmadan kabul edilir."},
		AlertFFmpegMissing: {"Videolar işlenemiyor: ffmpeg eksik.",
			"Sunucuya ffmpeg ve ffprobe kurun (ya da ffmpeg.ffmpeg ve ffmpeg.ffprobe ayarlayın). Yüklenen videolar o zamana kadar bekler."},
		AlertReplicaLag: {"Yedek kopya %[2]d dakika geride.",
			"Verilerinizin yedek kopyası en son %[4]s tarihinde güncellendi. Yedeğin adresini ve erişim bilgilerini (replica.*) ve sunucu günlüğünü kontrol edin."},
		AlertConnectionFailed: {"%[1]s mağaza bağlantısı başarısız olmaya devam ediyor (art arda başarısız okuma: %[2]d).",
			"Son okuma başarısız oldu: %[5]s. Yeni siparişleri bekliyor; bağlantının adresini ve erişim bilgilerini kontrol edin."},
	},
}

// Text is an alert's title and what ends it in lang (tr or en; others get en).
func Text(lang string, al Alert) (title, todo string) {
	t, ok := texts[lang]
	if !ok {
		t = texts["en"]
	}
	pair := t[al.Kind]
	at := ""
	if !al.At.IsZero() {
		at = al.At.UTC().Format("2006-01-02 15:04 UTC")
	}
	channel := al.Channel
	if channel == "" {
		channel = "—"
	}
	args := []any{al.Subject, al.Count, channel, at, al.Detail}
	return clean(fmt.Sprintf(pair[0], args...)), clean(fmt.Sprintf(pair[1], args...))
}

// clean drops the "%!(EXTRA ...)" fmt adds for arguments a text does not use.
func clean(s string) string {
	if i := strings.Index(s, "%!(EXTRA"); i >= 0 {
		return s[:i]
	}
	return s
}

// MailDay is how often at most one alert kind is mailed.
const MailDay = 24 * time.Hour

// MailAlerts mails the owners (panel users of role owner) the alerts holding at
// now, at most once a day per kind, through the mailer every e-mail takes; it
// reports the kinds mailed. Without a working mailer nothing is claimed, so the
// alert goes out once sending works.
func (s *Service) MailAlerts(ctx context.Context, now time.Time) ([]string, error) {
	if !s.Sending.Mailer.Enabled() {
		return nil, nil
	}
	alerts, err := s.Alerts(ctx)
	if err != nil || len(alerts) == 0 {
		return nil, err
	}
	users, err := s.DB.Read().ListUsers(ctx)
	if err != nil {
		return nil, err
	}
	var to []string
	for _, u := range users {
		if u.DisabledAt.IsZero() && u.Email != "" && u.Role == "owner" {
			to = append(to, u.Email)
		}
	}
	if len(to) == 0 {
		return nil, nil
	}
	byKind := map[string][]Alert{}
	var kinds []string
	for _, al := range alerts {
		if byKind[al.Kind] == nil {
			kinds = append(kinds, al.Kind)
		}
		byKind[al.Kind] = append(byKind[al.Kind], al)
	}
	var mailed []string
	for _, kind := range kinds {
		var claimed bool
		err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
			tx.Now = now
			var err error
			claimed, err = tx.ClaimOwnerAlertMail(ctx, kind, now.Add(-MailDay))
			return err
		})
		if err != nil {
			return mailed, err
		}
		if !claimed {
			continue
		}
		subject, text := s.alertMail(byKind[kind])
		sent := 0
		for _, addr := range to {
			if _, err := s.Sending.Mailer.Send(ctx, mail.Message{To: addr, Subject: subject, Text: text}); err != nil {
				s.Log.Warn("owner alert e-mail not sent", "kind", kind, "err", err)
				continue
			}
			sent++
		}
		if sent == 0 {
			// Nothing went out: give the day back, the next run tries again.
			if err := s.DB.WithTx(context.WithoutCancel(ctx), func(tx *store.Tx) error {
				return tx.UnclaimOwnerAlertMail(ctx, kind, now)
			}); err != nil {
				return mailed, err
			}
			continue
		}
		mailed = append(mailed, kind)
	}
	return mailed, nil
}

// alertMail is the e-mail of the alerts of one kind, in English and Turkish.
func (s *Service) alertMail(als []Alert) (subject, text string) {
	title, _ := Text("en", als[0])
	subject = "reviewd: " + title
	var b strings.Builder
	for _, lang := range []string{"en", "tr"} {
		for _, al := range als {
			t, todo := Text(lang, al)
			fmt.Fprintf(&b, "%s\n%s\n\n", t, todo)
		}
		if s.PublicURL != "" {
			fmt.Fprintf(&b, "%s/panel/\n\n", strings.TrimRight(s.PublicURL, "/"))
		}
		if lang == "en" {
			b.WriteString("-- \n\n")
		}
	}
	b.WriteString("You receive this at most once a day while the condition holds, because you are an owner of this reviewd.\n")
	b.WriteString("Bu e-postayı, durum sürdüğü sürece günde en fazla bir kez, bu reviewd'nin sahibi olduğunuz için alıyorsunuz.\n")
	return subject, b.String()
}
