package docs_test

// accessOps describes the member, password and key routes of the management API.
func accessOps() []op {
	const tag = "admin"
	panelOp := func(method, path, summary string, query []param, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errPanel, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: panelOnly, query: query, body: b, ok: []answer{ok}, errs: e}
	}
	public := func(method, path, summary string, b *body, ok answer, errs ...string) op {
		return op{method: method, path: path, tag: tag, summary: summary, body: b, ok: []answer{ok},
			errs: cat(errBody, []string{"403 forbidden / cross_site_request", "400 invalid_json", "429 rate_limited"}, errs)}
	}
	member := obj(map[string]any{"id": integer(), "username": str(), "email": str(), "role": enum("owner", "manager", "moderator", "viewer"),
		"second_step": boolean(), "created_at": str(), "last_sign_in_at": nullable(str())},
		"id", "username", "email", "role", "second_step", "created_at", "last_sign_in_at")
	createdMember := obj(map[string]any{"id": integer(), "username": str(), "email": str(), "role": str(), "second_step": boolean(),
		"created_at": str(), "last_sign_in_at": nullable(str()), "mailed": boolean()}, "id", "username", "email", "role", "mailed")
	key := obj(map[string]any{"id": str(), "kind": enum("server", "site", "api"), "label": str(), "channel": nullable(str()),
		"scopes": arr(str()), "created_at": str(), "last_used_at": nullable(str()), "revoked_at": nullable(str()),
		"key": str()}, "id", "kind", "label", "channel", "scopes", "created_at", "last_used_at", "revoked_at")
	secret := obj(map[string]any{"id": str(), "purpose": enum("signing", "mail_events"), "channel": nullable(str()),
		"created_at": str(), "revoked_at": nullable(str()), "password": str()}, "id", "purpose", "channel", "created_at", "revoked_at")
	created := obj(map[string]any{"id": str(), "purpose": enum("signing", "mail_events"), "channel": nullable(str()),
		"created_at": str(), "revoked_at": nullable(str()), "password": str()}, "id", "purpose", "channel", "created_at", "revoked_at", "password")
	memberID := "/admin/v1/users/{id:[0-9]+}"
	pwErrs := []string{"400 invalid / password_guessable", "400 invalid / password_names_account"}
	return []op{
		panelOp("GET", "/admin/v1/users", "Panel members (users permission; logged as users.listed)", []param{pPage, pPageSize, pQ, pSort}, nil,
			listAnswer("Members.", member)),
		panelOp("POST", "/admin/v1/users", "Add a member; a set-password link valid 3 days is mailed (users permission)", nil,
			json(obj(map[string]any{"username": str(), "email": str(), "role": enum("owner", "manager", "moderator", "viewer")}, "username", "email", "role")),
			okJSON(201, "The member row and mailed (false when the mail server did not take the e-mail).", createdMember),
			"400 invalid / username", "400 invalid / username_taken", "400 invalid / email_required", "400 invalid / email_invalid", "400 invalid / role"),
		panelOp("PATCH", memberID, "Change a member's role (users permission) or one's own e-mail (with current_password)", nil,
			json(obj(map[string]any{"role": enum("owner", "manager", "moderator", "viewer"), "email": str(), "current_password": str()})),
			okJSON(200, "The member row.", member),
			"403 email_change_own_only", "400 invalid / current_password", "400 invalid / email_required", "400 invalid / email_invalid", "400 invalid / role", "409 last_owner", "404 not_found"),
		panelOp("DELETE", memberID, "Remove a member; their sessions end (users permission)", nil, nil, noContent("Removed."), "409 last_owner", "404 not_found"),
		panelOp("POST", memberID+"/password-link", "Mail a member a set-password link valid 1 hour (users permission)", nil, nil,
			okJSON(202, "mailed.", obj(map[string]any{"mailed": boolean()}, "mailed")), "400 invalid / email_required", "404 not_found"),
		panelOp("POST", "/admin/v1/session/password-change", "Change one's own password", nil,
			json(obj(map[string]any{"current_password": str(), "password": str()}, "current_password", "password")),
			okJSON(200, "Changed; the member's other sessions end.", obj(map[string]any{"changed": boolean()}, "changed")),
			cat([]string{"400 invalid / current_password"}, pwErrs)...),
		public("POST", "/admin/v1/session/password-reset", "Ask for a password reset link (no session)",
			json(obj(map[string]any{"email": str()}, "email")),
			okJSON(202, "Always requested true, answered before any link is written; a 1-hour link is mailed only to a member's address, at most 3 per hour.", obj(map[string]any{"requested": boolean()}, "requested")),
			"400 invalid / email_required"),
		public("POST", "/admin/v1/session/password", "Set a password with the token of a link (no session)",
			json(obj(map[string]any{"token": str(), "password": str()}, "token", "password")),
			okJSON(200, "Changed; every session of the member ends.", obj(map[string]any{"changed": boolean()}, "changed")),
			cat([]string{"400 invalid / token"}, pwErrs)...),
		panelOp("GET", "/admin/v1/keys", "Keys; never a server or API key's secret (change-settings)", []param{pPage, pPageSize, pQ, pSort}, nil,
			listAnswer("Keys; site keys carry key.", key)),
		panelOp("POST", "/admin/v1/keys", "Create a site key (change-settings)", nil,
			json(obj(map[string]any{"kind": enum("site"), "channel": str(), "label": str()}, "kind", "channel")),
			okJSON(201, "The key row with key.", key), "400 invalid / kind", "400 invalid / channel", "400 invalid / channel_required"),
		panelOp("DELETE", "/admin/v1/keys/{id:key_[0-9a-f]{16}}", "Revoke a key (change-settings)", nil, nil, noContent("Revoked."), "404 not_found"),
		panelOp("GET", "/admin/v1/secrets", "Signing and mail-event passwords; never the password (change-settings)", []param{pPage, pPageSize, pQ, pSort}, nil,
			listAnswer("Passwords, revoked ones with revoked_at.", secret)),
		panelOp("POST", "/admin/v1/secrets", "Create a signing (with channel) or mail-event password (change-settings)", nil,
			json(obj(map[string]any{"purpose": enum("signing", "mail_events"), "channel": str()}, "purpose")),
			okJSON(201, "The password row with password, shown this once.", created),
			"400 invalid / purpose", "400 invalid / purpose_required", "400 invalid / channel", "400 invalid / channel_required"),
		panelOp("DELETE", "/admin/v1/secrets/{id:pw_[0-9a-f]{16}}", "Revoke a password at once; requests signed with it answer secret_unknown (change-settings)",
			nil, nil, noContent("Revoked."), "404 not_found"),
	}
}
