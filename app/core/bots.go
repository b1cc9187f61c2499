package core

import "strings"

// Which requests count as a view of the review component (POST /v1/views). Views
// from bots, link preview tools and prefetch requests are not counted; in-app
// browsers and phone brands with "bot" in their name are (spec 2).

// uaRule is one line of the user-agent table: when the lower-cased user agent
// contains Match, Counted decides.
type uaRule struct {
	Match   string
	Counted bool
	Why     string
}

// BotTable is THE list of user-agent rules, tried in order; the first match
// decides, and a user agent no rule matches is counted. Counted rules come first so
// in-app browsers and phones whose names contain a bot word are never caught by the
// generic rules at the end. Tested line by line in bots_test.go.
var BotTable = []uaRule{
	// Phones and in-app browsers: real people.
	{"cubot", true, "phone brand"},
	{"fban/", true, "Facebook app browser"},
	{"fbav/", true, "Facebook app browser"},
	{"instagram", true, "Instagram app browser"},
	{"micromessenger", true, "WeChat app browser"},
	{" line/", true, "LINE app browser"},
	{"snapchat", true, "Snapchat app browser"},
	{"bytedancewebview", true, "TikTok app browser"},
	{"musical_ly", true, "TikTok app browser"},
	{"pinterest/", true, "Pinterest app browser"},
	{"twitter for", true, "X (Twitter) app browser"},
	{"gsa/", true, "Google app browser"},
	// Search engine crawlers.
	{"googlebot", false, "crawler"},
	{"google-inspectiontool", false, "crawler"},
	{"adsbot-google", false, "crawler"},
	{"mediapartners-google", false, "crawler"},
	{"storebot-google", false, "crawler"},
	{"bingbot", false, "crawler"},
	{"bingpreview", false, "link preview"},
	{"yandex", false, "crawler"},
	{"baiduspider", false, "crawler"},
	{"duckduckbot", false, "crawler"},
	{"slurp", false, "crawler"},
	{"applebot", false, "crawler"},
	{"petalbot", false, "crawler"},
	{"seznambot", false, "crawler"},
	{"ahrefsbot", false, "crawler"},
	{"semrushbot", false, "crawler"},
	{"mj12bot", false, "crawler"},
	{"dotbot", false, "crawler"},
	{"bytespider", false, "crawler"},
	{"gptbot", false, "crawler"},
	{"ccbot", false, "crawler"},
	// Link preview tools.
	{"facebookexternalhit", false, "link preview"},
	{"facebookcatalog", false, "link preview"},
	{"meta-externalagent", false, "link preview"},
	{"twitterbot", false, "link preview"},
	{"slackbot", false, "link preview"},
	{"slack-imgproxy", false, "link preview"},
	{"whatsapp", false, "link preview"},
	{"telegrambot", false, "link preview"},
	{"discordbot", false, "link preview"},
	{"linkedinbot", false, "link preview"},
	{"skypeuripreview", false, "link preview"},
	{"vkshare", false, "link preview"},
	{"redditbot", false, "link preview"},
	{"embedly", false, "link preview"},
	{"iframely", false, "link preview"},
	{"viber", false, "link preview"},
	{"pinterestbot", false, "link preview"},
	{"google-pagerenderer", false, "link preview"},
	// Automation, monitoring and HTTP libraries.
	{"headlesschrome", false, "headless browser"},
	{"phantomjs", false, "headless browser"},
	{"lighthouse", false, "page test"},
	{"pagespeed", false, "page test"},
	{"gtmetrix", false, "page test"},
	{"pingdom", false, "monitoring"},
	{"uptimerobot", false, "monitoring"},
	{"curl/", false, "HTTP library"},
	{"wget/", false, "HTTP library"},
	{"python-requests", false, "HTTP library"},
	{"python-urllib", false, "HTTP library"},
	{"aiohttp", false, "HTTP library"},
	{"go-http-client", false, "HTTP library"},
	{"java/", false, "HTTP library"},
	{"okhttp", false, "HTTP library"},
	{"node-fetch", false, "HTTP library"},
	{"axios/", false, "HTTP library"},
	{"postmanruntime", false, "HTTP library"},
	// Generic words crawlers put in their names.
	{"bot", false, "generic"},
	{"crawler", false, "generic"},
	{"spider", false, "generic"},
	{"crawl", false, "generic"},
	{"preview", false, "generic"},
	{"scraper", false, "generic"},
}

// IsBot reports whether a user agent is a bot, link preview tool or other client
// whose views are not counted (an empty user agent too).
func IsBot(userAgent string) bool {
	ua := strings.ToLower(strings.TrimSpace(userAgent))
	if ua == "" {
		return true
	}
	for _, r := range BotTable {
		if strings.Contains(ua, r.Match) {
			return !r.Counted
		}
	}
	return false
}

// IsPrefetch reports whether a request is a prefetch (or preview) rather than a
// page being shown, from its Purpose, Sec-Purpose, X-Moz and X-Purpose headers.
func IsPrefetch(purpose, secPurpose, xMoz, xPurpose string) bool {
	for _, v := range []string{purpose, secPurpose, xMoz, xPurpose} {
		v = strings.ToLower(v)
		if strings.Contains(v, "prefetch") || strings.Contains(v, "prerender") || strings.Contains(v, "preview") {
			return true
		}
	}
	return false
}
