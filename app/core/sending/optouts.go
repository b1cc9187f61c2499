package sending

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/store"
)

// Opt-out reasons (opt_outs.reason).
const (
	OptOutLink = "unsubscribe_link" // the stop link in a message (or its one-click POST)
)

// MaxOptOutCheck is the most addresses one opt-out lookup may name.
const MaxOptOutCheck = 1000

// unsubscribeVersion starts every unsubscribe token's plain text.
const unsubscribeVersion = "u1"

// UnsubscribeLink is what an unsubscribe token says.
type UnsubscribeLink struct {
	Address     string // lower-cased
	ChannelKind string // email or webhook: the route of the message carrying the link
	Language    string
}

// UnsubscribeToken seals an address into the token of a stop link. The token is
// encrypted and authenticated with the master key (AES-GCM), so it works without a
// database row, keeps working after the order is erased and cannot be forged or
// read.
func (c *Service) UnsubscribeToken(kind, lang, address string) string {
	plain := strings.Join([]string{unsubscribeVersion, kind, lang, strings.ToLower(strings.TrimSpace(address))}, "\x00")
	return base64.RawURLEncoding.EncodeToString(c.Keys.Encrypt([]byte(plain)))
}

// UnsubscribeURL is the stop link of a message: {public_url}/v1/unsubscribe?t=...
// GET shows a confirmation page, POST (also the RFC 8058 one-click POST) records
// the opt-out.
func (c *Service) UnsubscribeURL(kind, lang, address string) string {
	return c.PublicURL + "/v1/unsubscribe?t=" + url.QueryEscape(c.UnsubscribeToken(kind, lang, address))
}

// ErrUnsubscribeToken is returned for a stop link that cannot be read.
var ErrUnsubscribeToken = core.E(400, "invalid", "token_invalid").AsRefusal()

// ReadUnsubscribeToken opens a stop-link token.
func (c *Service) ReadUnsubscribeToken(t string) (UnsubscribeLink, error) {
	if t == "" || len(t) > 2048 {
		return UnsubscribeLink{}, ErrUnsubscribeToken
	}
	sealed, err := base64.RawURLEncoding.DecodeString(t)
	if err != nil {
		return UnsubscribeLink{}, ErrUnsubscribeToken
	}
	plain, err := c.Keys.Decrypt(sealed)
	if err != nil {
		return UnsubscribeLink{}, ErrUnsubscribeToken
	}
	parts := bytes.Split(plain, []byte{0})
	if len(parts) != 4 || string(parts[0]) != unsubscribeVersion {
		return UnsubscribeLink{}, ErrUnsubscribeToken
	}
	l := UnsubscribeLink{ChannelKind: string(parts[1]), Language: string(parts[2]), Address: string(parts[3])}
	if l.ChannelKind != brand.RouteEmail && l.ChannelKind != brand.RouteWebhook {
		l.ChannelKind = brand.RouteEmail
	}
	if l.Language != "tr" {
		l.Language = "en"
	}
	return l, nil
}

// Unsubscribe puts the address of a stop link on the opt-out list (once; a second
// use changes nothing) and records it in the activity history.
func (c *Service) Unsubscribe(ctx context.Context, a *core.Actor, token string) (UnsubscribeLink, error) {
	l, err := c.ReadUnsubscribeToken(token)
	if err != nil {
		return l, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.addOptOut(ctx, tx, a, store.OptOut{Address: l.Address, ChannelKind: l.ChannelKind, Reason: OptOutLink, Source: "link"})
	})
	return l, err
}

// addOptOut puts an address on the list and records the addition (not the
// address) in the activity history.
func (c *Service) addOptOut(ctx context.Context, tx *store.Tx, a *core.Actor, o store.OptOut) error {
	added, err := tx.AddOptOut(ctx, o)
	if err != nil || !added {
		return err
	}
	return c.Record(ctx, tx, a, "opt_out.added", "opt_out", "", map[string]any{"reason": o.Reason, "source": o.Source,
		"channel_kind": o.ChannelKind})
}

// OptOutRow is an opt-out row of the admin answers.
type OptOutRow struct {
	Address     string    `json:"address"`
	ChannelKind string    `json:"channel_kind"`
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
}

// OptOutExportRow is an opt-out row of the export: address_hash is the SHA-256 of
// the lower-cased address, or for a phone row (channel_kind whatsapp) the keyed
// hash of its E.164 number (core.Keyring.PhoneHash).
type OptOutExportRow struct {
	Address     string    `json:"address"`
	AddressHash string    `json:"address_hash"`
	ChannelKind string    `json:"channel_kind"`
	Reason      string    `json:"reason"`
	CreatedAt   time.Time `json:"created_at"`
}

var rePhone = regexp.MustCompile(`^\+?[0-9][0-9 ()./-]{3,30}$`)

// CheckOptOuts answers which of the given addresses are on the opt-out list (rows
// carry the address as sent). Addresses are e-mails or phone numbers: a number in
// international form is read as it is, one in local form is completed with the
// market of each channel (it matches when any completion is on the list). Errors:
// 400 invalid / addresses_required (none given), invalid / addresses (over 1000 or
// one unreadable). The lookup is written to the personal-data access log
// (opt_out.checked).
func (c *Service) CheckOptOuts(ctx context.Context, a *core.Actor, addresses []string) ([]OptOutRow, error) {
	if len(addresses) == 0 {
		return nil, core.Invalid("addresses_required")
	}
	if len(addresses) > MaxOptOutCheck {
		return nil, core.Invalid("addresses")
	}
	sent := map[string][]string{} // lower-cased e-mail or E.164 number -> forms as sent
	var keys []string
	add := func(k, raw string) {
		if _, ok := sent[k]; !ok {
			keys = append(keys, k)
		}
		sent[k] = append(sent[k], raw)
	}
	var markets []string
	for _, raw := range addresses {
		v := strings.TrimSpace(raw)
		switch {
		case v != "" && strings.Contains(v, "@") && core.ValidEmail(v):
			add(strings.ToLower(v), raw)
		case rePhone.MatchString(v) && countDigits(v) >= 5:
			if markets == nil {
				var err error
				if markets, err = c.channelMarkets(ctx); err != nil {
					return nil, err
				}
			}
			for _, k := range phoneForms(v, markets) {
				add(k, raw)
			}
		default:
			return nil, core.Invalid("addresses")
		}
	}
	rows := []OptOutRow{}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		found, err := tx.OptOutsByAddresses(ctx, keys)
		if err != nil {
			return err
		}
		for _, o := range found {
			for _, as := range sent[o.Address] {
				rows = append(rows, OptOutRow{Address: as, ChannelKind: o.ChannelKind, Reason: o.Reason, CreatedAt: o.CreatedAt})
			}
		}
		return c.LogAccess(ctx, tx, a, "opt_out.checked", "opt_out", "", len(rows))
	})
	return rows, err
}

func countDigits(s string) int {
	n := 0
	for _, ch := range s {
		if ch >= '0' && ch <= '9' {
			n++
		}
	}
	return n
}

// AddressHash is the address_hash of an e-mail address: hex SHA-256 of the
// lower-cased address.
func AddressHash(address string) string {
	s := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(address))))
	return hex.EncodeToString(s[:])
}

// ExportOptOuts returns the whole opt-out list for a download in format and records
// the download (opt_outs.downloaded with format and row count) in the activity
// history.
func (c *Service) ExportOptOuts(ctx context.Context, a *core.Actor, format string) ([]OptOutExportRow, error) {
	rows := []OptOutExportRow{}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		list, err := tx.ListOptOuts(ctx)
		if err != nil {
			return err
		}
		for _, o := range list {
			hash := AddressHash(o.Address)
			if o.ChannelKind == brand.RouteWhatsApp {
				hash = c.Keys.PhoneHash(o.Address)
			}
			rows = append(rows, OptOutExportRow{Address: o.Address, AddressHash: hash, ChannelKind: o.ChannelKind,
				Reason: o.Reason, CreatedAt: o.CreatedAt})
		}
		return c.Record(ctx, tx, a, "opt_outs.downloaded", "opt_out", "", map[string]any{"format": format, "rows": len(rows)})
	})
	return rows, err
}

// channelMarkets lists the markets of the channels (each once, never nil).
func (c *Service) channelMarkets(ctx context.Context) ([]string, error) {
	chans, err := c.DB.Read().ListChannels(ctx)
	if err != nil {
		return nil, err
	}
	out := []string{}
	seen := map[string]bool{}
	for _, ch := range chans {
		if !seen[ch.Market] {
			seen[ch.Market] = true
			out = append(out, ch.Market)
		}
	}
	return out, nil
}

// phoneForms are the E.164 numbers a phone lookup stands for: the number itself
// when it is in international form, else its completion in each market.
func phoneForms(v string, markets []string) []string {
	if p := core.PhoneE164(v, ""); p != "" {
		return []string{p}
	}
	var out []string
	for _, m := range markets {
		if p := core.PhoneE164(v, m); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
