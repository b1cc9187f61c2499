package admin

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/web"
	"reviewd/store"
)

// keyBodyLimit is the largest body the key endpoints read.
const keyBodyLimit = 16 << 10

func scopeList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func optCode(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// keyJSON is a key row (CONTRACT, "Management resources"): never the secret of a
// server or API key; a site key is public and shown in key.
func keyJSON(k store.Key, channel string) map[string]any {
	out := map[string]any{"id": k.PublicID, "kind": k.Kind, "label": k.Label, "channel": optCode(channel),
		"scopes": scopeList(k.Scopes), "created_at": k.CreatedAt.UTC().Format(time.RFC3339),
		"last_used_at": optTime(k.LastUsedAt), "revoked_at": optTime(k.RevokedAt)}
	if k.Kind == access.KindSite && k.SiteKey != "" {
		out["key"] = k.SiteKey
	}
	return out
}

// handleKeyList serves GET /admin/v1/keys (shared list contract; q matches id,
// label, kind or channel).
func (h *Handler) handleKeyList(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	keys, err := h.Access.ListKeys(r.Context())
	if err != nil {
		return err
	}
	q := strings.ToLower(l.Q)
	var rows []map[string]any
	for _, k := range keys {
		if q != "" && !strings.Contains(strings.ToLower(k.PublicID+" "+k.Label+" "+k.Kind+" "+k.Channel), q) {
			continue
		}
		rows = append(rows, keyJSON(k.Key, k.Channel))
	}
	return writeListPage(w, l, rows)
}

// handleKeyCreate serves POST /admin/v1/keys: a site key of a channel (server and
// API keys are made with POST /admin/v1/channels, kind api_key).
func (h *Handler) handleKeyCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Kind    string `json:"kind"`
		Channel string `json:"channel"`
		Label   string `json:"label"`
	}
	if err := web.DecodeJSON(r, keyBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Kind != access.KindSite {
		return core.Invalid("kind")
	}
	k, err := h.Access.CreateKey(r.Context(), a, access.NewKey{Kind: access.KindSite, ChannelCode: in.Channel, Label: in.Label})
	if err != nil {
		return err
	}
	out := keyJSON(k.Key, k.Channel)
	out["key"] = k.Secret
	return web.JSON(w, http.StatusCreated, out)
}

// handleKeyDelete serves DELETE /admin/v1/keys/<id>: the key then answers
// revoked_key / revoked_site_key.
func (h *Handler) handleKeyDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Access.RevokeKeyByID(r.Context(), a, mux.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}
