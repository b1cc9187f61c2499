package docs_test

// panelOps describes the web panel (/panel/): HTML pages and HTML forms for people,
// signed in with the panel session cookie. Forms carry the session's CSRF token in
// the csrf field (the sign-in forms the sign-in cookie's); refusals are HTML pages
// with the admin API's status and code.
func panelOps() []op {
	page := func(path, summary string, query ...param) op {
		return op{method: "GET", path: path, tag: "panel", summary: summary, auth: panelOnly, query: query,
			ok:   []answer{okType(200, "HTML page; without a session a 303 to /panel/sign-in?next=<path>.", "text/html")},
			errs: []string{"403 forbidden / scope_missing", "404 not_found", "400 invalid / q", "400 invalid / page"}, errHTML: true}
	}
	form := func(path, summary string, fields map[string]any, errs ...string) op {
		props := map[string]any{"csrf": str(), "back": str()}
		for k, v := range fields {
			props[k] = v
		}
		return op{method: "POST", path: path, tag: "panel", summary: summary, auth: panelOnly,
			body: &body{ctype: "application/x-www-form-urlencoded", schema: obj(props, "csrf")},
			ok:   []answer{{status: 303, desc: "Done: back to the page (back, a /panel/ path) with notice=<what>."}},
			errs: append([]string{"403 forbidden / csrf_missing", "403 forbidden / scope_missing", "404 not_found"}, errs...), errHTML: true}
	}
	q := func(name, desc string) param { return param{name: name, desc: desc, schema: str()} }
	signIn := obj(map[string]any{"csrf": str(), "username": str(), "password": str(), "next": str()}, "csrf")
	passcode := obj(map[string]any{"csrf": str(), "passcode": str(), "next": str()}, "csrf")
	return []op{
		{method: "GET", path: `/panel/assets/{name:panel\.(?:js|css)}`, tag: "panel", summary: "The panel's script and style sheet",
			ok: []answer{okType(200, "JavaScript or CSS.", "text/javascript")}, errs: []string{"404 not_found"}, errHTML: true},
		{method: "GET", path: "/panel/sign-in", tag: "panel", summary: "Sign-in page (step=passcode: the second step)",
			query: []param{q("next", "Panel path to open after sign-in."), q("step", "passcode")},
			ok:    []answer{okType(200, "HTML form; sets the sign-in CSRF cookie.", "text/html")}, errHTML: true},
		{method: "POST", path: "/panel/sign-in", tag: "panel", summary: "Password step of sign-in (as POST /admin/v1/session)",
			body: &body{ctype: "application/x-www-form-urlencoded", schema: signIn},
			ok:   []answer{{status: 303, desc: "Signed in (to next) or, with two-step sign-in on, to the passcode step; sets the session cookie."}},
			errs: []string{"401 refused / credentials_invalid", "403 forbidden / csrf_missing", "403 forbidden / cross_site_request", "429 rate_limited"}, errHTML: true},
		{method: "POST", path: "/panel/sign-in/passcode", tag: "panel", summary: "Second step of sign-in (as POST /admin/v1/session/passcode)",
			body: &body{ctype: "application/x-www-form-urlencoded", schema: passcode},
			ok:   []answer{{status: 303, desc: "Signed in; to next."}},
			errs: []string{"400 invalid_passcode", "400 second_step_expired", "403 forbidden / csrf_missing", "403 forbidden / cross_site_request"}, errHTML: true},
		{method: "GET", path: "/panel/password", tag: "panel", summary: "Set-password page that a member's e-mail link opens (token in the fragment)",
			ok: []answer{okType(200, "HTML form; sets the sign-in CSRF cookie.", "text/html")}, errHTML: true},
		{method: "POST", path: "/panel/password", tag: "panel", summary: "Set a password with a link's token (as POST /admin/v1/session/password)",
			body: &body{ctype: "application/x-www-form-urlencoded", schema: obj(map[string]any{"csrf": str(), "link_token": str(), "password": str()}, "csrf", "link_token", "password")},
			ok:   []answer{{status: 303, desc: "Set; to /panel/sign-in?notice=password_set."}},
			errs: []string{"400 invalid / token", "400 invalid / password_guessable", "400 invalid / password_names_account", "403 forbidden / csrf_missing", "403 forbidden / cross_site_request"}, errHTML: true},
		{method: "GET", path: "/panel/password-reset", tag: "panel", summary: "Password reset request page",
			ok: []answer{okType(200, "HTML form; sets the sign-in CSRF cookie.", "text/html")}, errHTML: true},
		{method: "POST", path: "/panel/password-reset", tag: "panel", summary: "Ask for a reset link (as POST /admin/v1/session/password-reset)",
			body: &body{ctype: "application/x-www-form-urlencoded", schema: obj(map[string]any{"csrf": str(), "email": str()}, "csrf", "email")},
			ok:   []answer{okType(200, "The same page whatever the address: a 1-hour link is mailed only to a member's address.", "text/html")},
			errs: []string{"400 invalid / email_required", "403 forbidden / csrf_missing", "403 forbidden / cross_site_request"}, errHTML: true},
		{method: "POST", path: "/panel/language", tag: "panel", summary: "Choose the panel language (tr or en; kept in a cookie)",
			body: &body{ctype: "application/x-www-form-urlencoded", schema: obj(map[string]any{"lang": enum("tr", "en"), "back": str()}, "lang")},
			ok:   []answer{{status: 303, desc: "Back to the page."}}, errs: []string{"400 invalid / lang"}, errHTML: true},
		form("/panel/sign-out", "Sign out (as DELETE /admin/v1/session)", nil),
		page("/panel/", "Overview: what needs attention and charts"),
		page("/panel/queue", "Moderation queue", q("mode", "list or one"), q("at", "Focused review id."), q("q", "Search."), q("page", "Page.")),
		page("/panel/queue/item/{id}", "The focused review of the queue (HTML fragment for the script)"),
		form("/panel/queue/bulk", "Bulk approve or reject (as POST /admin/v1/moderation/bulk)",
			map[string]any{"ids": arr(str()), "action": enum("approve", "reject"), "reason": str()}, "400 invalid / ids_required", "400 invalid / reason_required"),
		page("/panel/reviews", "Review list with the admin list's filters", q("q", "Search."), q("state", "Review state."),
			q("rating", "1 to 5."), q("channel", "Channel code."), q("market", "Market."), q("flag_open", "1: open check findings."),
			q("reported", "1: open reports."), q("page", "Page."), q("sort", "newest or oldest.")),
		page("/panel/reviews/{id}", "Review detail: proof, history, checks, reports, media"),
		form("/panel/reviews/{id}/transition", "Moderation event (as POST /admin/v1/reviews/<id>/transition)",
			map[string]any{"event": str(), "reason": str()}, "400 invalid / event", "400 invalid / reason_required", "409 invalid_transition"),
		form("/panel/reviews/{id}/media/{file_id}/remove", "Remove a photo or video (as DELETE /admin/v1/reviews/<id>/media/<file_id>)",
			map[string]any{"reason": str()}, "400 invalid / reason"),
		form("/panel/reviews/{id}/reports/resolve", "Close the review's reports (as POST /admin/v1/reviews/<id>/reports/resolve)",
			map[string]any{"note": strMax(1000)}),
		{method: "GET", path: "/admin/reviews/{id}", tag: "panel", summary: "Open-in-panel address of the exports: redirects to /panel/reviews/<id>",
			auth: panelOnly, ok: []answer{{status: 303, desc: "To the panel's review page."}}, errHTML: true},
		page("/panel/questions", "Question list with counters", q("q", "Search."), q("state", "Question state."), q("unanswered", "1: unanswered."), q("page", "Page.")),
		page("/panel/questions/{id}", "Question detail with answers and the brand answer form"),
		form("/panel/questions/{id}/answer", "Brand answer (as POST /admin/v1/questions/<id>/answer)",
			map[string]any{"body": str()}, "400 invalid / body_required", "409 answer_refused / question_not_published"),
		form("/panel/questions/{id}/transition", "Question event (as POST /admin/v1/questions/<id>/transition)",
			map[string]any{"event": str(), "reason": str()}, "400 invalid / event_required"),
		page("/panel/invitations", "Invitations with counters and the latest send log", q("state", "queued, sent, failed or skipped."), q("q", "Search."), q("page", "Page.")),
		page("/panel/settings", "Settings form (change-settings)"),
		form("/panel/settings", "Save the changed settings (as POST /admin/v1/settings)",
			map[string]any{"invite_delay_days": str(), "send_window": str(), "daily_limit": str(), "reminder_after_days": str(),
				"publishing_method": str(), "time_zone": str(), "questions_enabled": str(), "questions_enabled_shown": str(),
				"invite_delivery": str(), "reminder_delivery": str(), "webhook_url": str(), "support_url": str(), "sender_address": str()},
			"400 invalid / <field>"),
	}
}
