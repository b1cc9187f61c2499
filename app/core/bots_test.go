package core_test

import (
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/readmodel"
)

// TestBotTable: real user agents, and every line of core.BotTable deciding as it
// says when its text appears in a user agent.
func TestBotTable(t *testing.T) {
	for _, c := range []struct {
		ua      string
		counted bool
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", true},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", true},
		{"Mozilla/5.0 (Linux; Android 12; CUBOT KingKong 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36", true},
		{"Mozilla/5.0 (Linux; Android 10; CUBOT_X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0 Mobile Safari/537.36", true},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 312.0.0.0 (iPhone14,2; iOS 17_0; tr_TR)", true},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/430.0.0;FBBV/1]", true},
		{"Mozilla/5.0 (Linux; Android 13; SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0 Mobile Safari/537.36 musical_ly_2023 BytedanceWebview/d8a21c6", true},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", false},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0 Safari/537.36", false},
		{"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", false},
		{"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", false},
		{"Twitterbot/1.0", false},
		{"WhatsApp/2.23.20.0", false},
		{"TelegramBot (like TwitterBot)", false},
		{"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", false},
		{"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", false},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0 Safari/537.36", false},
		{"curl/8.5.0", false},
		{"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", false},
		{"Mozilla/5.0 (compatible; SomeNewCrawler/1.0)", false},
		{"", false},
	} {
		if got := !core.IsBot(c.ua); got != c.counted {
			t.Errorf("%q: counted %v, want %v", c.ua, got, c.counted)
		}
	}
	for _, r := range core.BotTable {
		ua := "Mozilla/5.0 (X11) " + r.Match + "/1.0"
		if got := !core.IsBot(ua); got != r.Counted {
			t.Errorf("rule %q (%s): counted %v, want %v", r.Match, r.Why, got, r.Counted)
		}
	}
	for _, c := range []struct {
		purpose, sec, moz, xp string
		prefetch              bool
	}{
		{"prefetch", "", "", "", true},
		{"", "prefetch", "", "", true},
		{"", "prefetch;prerender", "", "", true},
		{"", "", "prefetch", "", true},
		{"", "", "", "preview", true},
		{"", "", "", "", false},
	} {
		if got := core.IsPrefetch(c.purpose, c.sec, c.moz, c.xp); got != c.prefetch {
			t.Errorf("%+v: prefetch %v", c, got)
		}
	}
}

// TestSearchFold: one normalisation for indexing and queries.
func TestSearchFold(t *testing.T) {
	for in, want := range map[string]string{
		"KIRMIZI": "kirmizi", "kırmızı": "kirmizi", "KİRMİZİ": "kirmizi", "İstanbul": "istanbul", "IĞDIR": "igdir",
		"Çağrı Şöför Ödül Ünlü": "cagri sofor odul unlu", "Straße": "strasse", "Crème brûlée": "creme brulee",
	} {
		if got := readmodel.SearchFold(in); got != want {
			t.Errorf("SearchFold(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStarsFilled: halves rounded up.
func TestStarsFilled(t *testing.T) {
	for avg, want := range map[float64]float64{0: 0, 1: 1, 4.2: 4, 4.24: 4, 4.25: 4.5, 4.5: 4.5, 4.74: 4.5, 4.75: 5, 5: 5} {
		if got := readmodel.StarsFilled(avg); got != want {
			t.Errorf("StarsFilled(%v) = %v, want %v", avg, got, want)
		}
	}
}
