package orders

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"path"
	"reviewd/app/core"
	"reviewd/store"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sourceBody is a connection body as sent: JSON members by name (null counts as
// not sent).
type sourceBody map[string]json.RawMessage

func (b sourceBody) has(name string) bool {
	raw, ok := b[name]
	return ok && strings.TrimSpace(string(raw)) != "null"
}

// str reads a string member: invalid / <name> when it is not a string or holds
// characters that cannot be stored.
func (b sourceBody) str(name string, max int) (string, bool, error) {
	if !b.has(name) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(b[name], &s); err != nil {
		return "", true, core.Invalid(name)
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max || !core.StorableText(s) {
		return "", true, core.Invalid(name)
	}
	return s, true, nil
}

// integer reads a whole number in [min, max]: invalid / <name> otherwise.
func (b sourceBody) integer(name string, min, max int) (int, bool, error) {
	if !b.has(name) {
		return 0, false, nil
	}
	var f float64
	if err := json.Unmarshal(b[name], &f); err != nil || f != float64(int(f)) || int(f) < min || int(f) > max {
		return 0, true, core.Invalid(name)
	}
	return int(f), true, nil
}

func (b sourceBody) boolean(name string) (bool, bool, error) {
	if !b.has(name) {
		return false, false, nil
	}
	var v bool
	if err := json.Unmarshal(b[name], &v); err != nil {
		return false, true, core.Invalid(name)
	}
	return v, true, nil
}

// NormalizeBaseURL applies the address rules of a connection: https only (added
// when the scheme is omitted), no user details, query string or fragment, port 443
// only. It returns https://host[/path] without a trailing slash.
func NormalizeBaseURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", core.Invalid("base_url_required")
	}
	if utf8.RuneCountInString(s) > maxBaseURLLen || strings.ContainsAny(s, " \t\r\n\\") || !core.StorableText(s) {
		return "", core.Invalid("base_url")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Opaque != "" || u.User != nil || u.RawQuery != "" ||
		u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") || strings.Contains(s, "@") {
		return "", core.Invalid("base_url")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" || (u.Port() != "" && u.Port() != "443") || strings.HasSuffix(u.Host, ":") {
		return "", core.Invalid("base_url")
	}
	if ip := net.ParseIP(host); ip == nil {
		for _, label := range strings.Split(host, ".") {
			if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
				return "", core.Invalid("base_url")
			}
			for _, r := range label {
				if !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 0x80) {
					return "", core.Invalid("base_url")
				}
			}
		}
		if !strings.Contains(host, ".") {
			return "", core.Invalid("base_url")
		}
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	p := u.EscapedPath()
	if p != "" {
		p = path.Clean("/" + p)
		if p == "/" {
			p = ""
		}
	}
	return "https://" + host + p, nil
}

func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Host
}

// sourceFields is a validated connection body.
type sourceFields struct {
	def           PlatformDef
	channel       store.Channel
	hasChannel    bool
	baseURL       string
	hasBaseURL    bool
	remoteChannel string
	hasRemote     bool
	creds         map[string]string // credential fields sent (non-empty, or client_id "")
	backfill      int
	hasBackfill   bool
	interval      int
	hasInterval   bool
	enabled       bool
	hasEnabled    bool
}

// parseSourceBody validates every field sent. platform is required unless known
// (PATCH); the channel is looked up when sent.
func (c *Service) parseSourceBody(ctx context.Context, q *store.Q, b sourceBody, known string) (sourceFields, error) {
	var f sourceFields
	code, sent, err := b.str("platform", 32)
	if err != nil {
		return f, err
	}
	switch {
	case known != "" && sent && code != known:
		return f, core.Invalid("platform")
	case known != "":
		code = known
	case code == "":
		return f, core.Invalid("platform_required")
	}
	def, ok := platformDef(code)
	if !ok {
		return f, core.Invalid("platform")
	}
	f.def = def
	chCode, sent, err := b.str("channel", core.MaxChannelLen)
	if err != nil {
		return f, err
	}
	if sent && chCode != "" {
		ch, err := q.ChannelByCode(ctx, chCode)
		if errors.Is(err, store.ErrNotFound) {
			return f, errOrderSourceBadChannel
		} else if err != nil {
			return f, err
		}
		f.channel, f.hasChannel = ch, true
	}
	raw, sent, err := b.str("base_url", maxBaseURLLen+16)
	if err != nil {
		return f, core.Invalid("base_url")
	}
	if sent {
		if f.baseURL, err = NormalizeBaseURL(raw); err != nil {
			return f, err
		}
		if err := def.checkHost(f.baseURL); err != nil {
			return f, err
		}
		f.hasBaseURL = true
	}
	if def.Code == PlatformMagento {
		rc, sent, err := b.remoteChannel()
		if err != nil {
			return f, err
		}
		f.remoteChannel, f.hasRemote = rc, sent
	}
	f.creds = map[string]string{}
	for _, cf := range def.credentialFields() {
		v, sent, err := b.str(cf.Name, maxCredentialLen)
		if err != nil {
			return f, err
		}
		// An empty value is "not sent", except for an optional field, which it clears.
		if sent && (v != "" || !cf.Required) {
			f.creds[cf.Name] = v
		}
	}
	if f.backfill, f.hasBackfill, err = b.integer("backfill_days", 1, MaxBackfillDays); err != nil {
		return f, err
	}
	if f.interval, f.hasInterval, err = b.integer("interval_minutes", MinIntervalMinutes, MaxIntervalMinutes); err != nil {
		return f, err
	}
	if f.enabled, f.hasEnabled, err = b.boolean("enabled"); err != nil {
		return f, err
	}
	return f, nil
}

// remoteChannel reads the enterprise platform's store id: digits, given as a string
// or a number.
func (b sourceBody) remoteChannel() (string, bool, error) {
	if !b.has("remote_channel") {
		return "", false, nil
	}
	raw := strings.TrimSpace(string(b["remote_channel"]))
	var s string
	if err := json.Unmarshal(b["remote_channel"], &s); err != nil {
		s = raw // a JSON number
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true, core.Invalid("remote_channel_required")
	}
	if len(s) > maxRemoteChannelLen {
		return "", true, core.Invalid("remote_channel")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return "", true, core.Invalid("remote_channel")
		}
	}
	n, _ := strconv.Atoi(s)
	return strconv.Itoa(n), true, nil
}
