package channels

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/mail"
	"net/url"
	"sort"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Domain proof: a file at https://<domain>ProofPath whose body holds the token, or
// a TXT record at ProofPrefix.<domain> holding it.
const (
	ProofPath   = "/.well-known/service-verification.txt"
	ProofPrefix = "_service-verification"
)

// Proof failure details of 400 proof_refused.
const (
	ProofNotFound    = "proof_not_found"
	ProofMismatch    = "token_mismatch"
	DNSValueMismatch = "dns_value_mismatch"
	DNSUnreachable   = "dns_unreachable"
)

// proofFileMax is the largest verification file read; proofTimeout bounds its fetch.
const (
	proofFileMax = 16 << 10
	proofTimeout = 10 * time.Second
)

// PendingDomain is a domain as added: its proof token and where to put it.
type PendingDomain struct {
	Domain   string `json:"domain"`
	Verified bool   `json:"verified"`
	Token    string `json:"token"`
	Path     string `json:"path"`
	DNSName  string `json:"dns_name"`
}

func pending(d store.ChannelDomain) PendingDomain {
	return PendingDomain{Domain: d.Domain, Verified: d.Verified(), Token: d.Token, Path: ProofPath,
		DNSName: ProofPrefix + "." + d.Domain}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// AddDomain adds a domain to a channel, unverified, with a new proof token. Adding
// a domain the channel already has answers its current row (a domain recorded by
// the operator without a token gets one). Errors: 404 not_found, invalid / domain.
func (s *Service) AddDomain(ctx context.Context, a *core.Actor, code, domain string) (PendingDomain, error) {
	domain = core.NormalizeDomain(domain)
	if !core.ValidDomain(domain) || domain == "localhost" {
		return PendingDomain{}, core.Invalid("domain")
	}
	var out PendingDomain
	err := s.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := channelByCode(ctx, tx.Q, code)
		if err != nil {
			return err
		}
		d, err := tx.ChannelDomainOf(ctx, ch.ID, domain)
		if err == nil && d.Token != "" {
			out = pending(d)
			return nil
		}
		token := "reviewd-verification=" + randomHex(16)
		switch {
		case err == nil:
			if err := tx.SetDomainToken(ctx, ch.ID, domain, token); err != nil {
				return err
			}
			d.Token = token
		case errors.Is(err, store.ErrNotFound):
			if err := tx.AddPendingDomain(ctx, ch.ID, domain, token); err != nil {
				return err
			}
			d = store.ChannelDomain{ChannelID: ch.ID, Domain: domain, Token: token}
		default:
			return err
		}
		out = pending(d)
		return s.record(ctx, tx, a, "domain.added", "channel", ch.Code, map[string]any{"domain": domain})
	})
	return out, err
}

// Verified is the answer of a passed proof.
type Verified struct {
	Domain   string `json:"domain"`
	Verified bool   `json:"verified"`
}

// VerifyDomain checks a domain's proof by method file or dns. A refused proof is
// 400 proof_refused / proof_not_found, token_mismatch, dns_value_mismatch or
// dns_unreachable carrying path, dns_name and token. Errors also: 404 not_found,
// invalid / method.
func (s *Service) VerifyDomain(ctx context.Context, a *core.Actor, code, domain, method string) (Verified, error) {
	domain = core.NormalizeDomain(domain)
	if method != "file" && method != "dns" {
		return Verified{}, core.Invalid("method")
	}
	q := s.DB.Read()
	ch, err := channelByCode(ctx, q, code)
	if err != nil {
		return Verified{}, err
	}
	d, err := q.ChannelDomainOf(ctx, ch.ID, domain)
	if errors.Is(err, store.ErrNotFound) {
		return Verified{}, core.ErrNotFound
	} else if err != nil {
		return Verified{}, err
	}
	if d.Verified() {
		return Verified{Domain: domain, Verified: true}, nil
	}
	// The proof is checked outside the transaction: it calls the network.
	var detail string
	if method == "file" {
		detail = s.checkFile(ctx, d)
	} else {
		detail = s.checkTXT(ctx, d)
	}
	if detail != "" {
		p := pending(d)
		return Verified{}, core.E(400, "proof_refused", detail).With(map[string]any{"path": p.Path, "dns_name": p.DNSName, "token": p.Token})
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		// The domain may have been removed while the proof was checked.
		if err := tx.MarkDomainVerified(ctx, ch.ID, domain); errors.Is(err, store.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		return s.record(ctx, tx, a, "domain.verified", "channel", ch.Code, map[string]any{"domain": domain, "method": method})
	})
	if err != nil {
		return Verified{}, err
	}
	return Verified{Domain: domain, Verified: true}, nil
}

// checkFile fetches the verification file over the SSRF-safe client: "" when its
// body holds the token, else the refusal detail.
func (s *Service) checkFile(ctx context.Context, d store.ChannelDomain) string {
	if s.Outbound == nil {
		return ProofNotFound
	}
	res, err := s.Outbound.Do(outbound.WithTarget(ctx, "domain_proof"), outbound.Request{URL: "https://" + d.Domain + ProofPath,
		Timeout: proofTimeout, MaxBytes: proofFileMax})
	if err != nil || res.Status != 200 {
		return ProofNotFound
	}
	if !bytes.Contains(res.Body, []byte(d.Token)) {
		return ProofMismatch
	}
	return ""
}

// checkTXT asks for the TXT record: "" when one holds the token, else the refusal
// detail.
func (s *Service) checkTXT(ctx context.Context, d store.ChannelDomain) string {
	txt, err := s.DNS.TXT(ctx, ProofPrefix+"."+d.Domain)
	switch {
	case errors.Is(err, errNoRecord):
		return ProofNotFound
	case err != nil:
		return DNSUnreachable
	}
	for _, v := range txt {
		if strings.TrimSpace(v) == d.Token {
			return ""
		}
	}
	return DNSValueMismatch
}

// DeleteDomain removes a domain from a channel. Refused while the domain carries
// something: 409 domain_in_statement / <channel>/<language> (a method statement's
// own address), 409 domain_in_use / channels: <codes> (a channel's landing
// address), 409 sender_domain_refused / sender_domain_in_use (a channel's or the
// settings' sender address would lose its verified domain). 404 not_found.
func (s *Service) DeleteDomain(ctx context.Context, a *core.Actor, code, domain string) error {
	domain = core.NormalizeDomain(domain)
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		ch, err := channelByCode(ctx, tx.Q, code)
		if err != nil {
			return err
		}
		d, err := tx.ChannelDomainOf(ctx, ch.ID, domain)
		if errors.Is(err, store.ErrNotFound) {
			return core.ErrNotFound
		} else if err != nil {
			return err
		}
		if d.Verified() {
			if err := s.domainFree(ctx, tx.Q, ch, domain); err != nil {
				return err
			}
		}
		if err := tx.DeleteChannelDomain(ctx, ch.ID, domain); err != nil {
			return err
		}
		return s.record(ctx, tx, a, "domain.removed", "channel", ch.Code, map[string]any{"domain": domain})
	})
}

// domainFree checks that nothing depends on ch's verified domain.
func (s *Service) domainFree(ctx context.Context, q *store.Q, ch store.Channel, domain string) error {
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return err
	}
	// after: every channel's verified domains once the domain is gone from ch.
	after := map[int64][]string{}
	var all []string
	for _, c := range chans {
		for _, d := range c.Domains {
			if c.ID == ch.ID && d == domain {
				continue
			}
			after[c.ID] = append(after[c.ID], d)
			all = append(all, d)
		}
	}
	stmts, err := q.ListMethodStatements(ctx)
	if err != nil {
		return err
	}
	for _, m := range stmts {
		if m.ChannelID != ch.ID || m.ExternalURL == "" {
			continue
		}
		if h := hostOf(m.ExternalURL); core.DomainVerified(h, []string{domain}) && !core.DomainVerified(h, after[ch.ID]) {
			return core.Conflict("domain_in_statement", ch.Code+"/"+m.Language)
		}
	}
	var using []string
	for _, c := range chans {
		if c.LandingURL == "" {
			continue
		}
		// Only ch's landing address can lose its verified domain.
		if h := hostOf(c.LandingURL); c.ID == ch.ID && core.DomainVerified(h, []string{domain}) && !core.DomainVerified(h, after[c.ID]) {
			using = append(using, c.Code)
		}
	}
	if len(using) > 0 {
		sort.Strings(using)
		return core.Conflict("domain_in_use", "channels: "+strings.Join(using, ", "))
	}
	senders := []string{}
	for _, c := range chans {
		senders = append(senders, c.SenderAddress)
	}
	var settings struct {
		SenderAddress string `json:"sender_address"`
	}
	if err := q.Setting(ctx, "brand_settings", &settings); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	senders = append(senders, settings.SenderAddress)
	for _, addr := range senders {
		if h := senderDomain(addr); h != "" && core.DomainVerified(h, []string{domain}) && !core.DomainVerified(h, all) {
			return core.Conflict("sender_domain_refused", "sender_domain_in_use")
		}
	}
	return nil
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// senderDomain is the domain of an address, "" when it is not a plain address.
func senderDomain(address string) string {
	if address == "" || len(address) > 254 {
		return ""
	}
	a, err := mail.ParseAddress(address)
	if err != nil || a.Address != address || a.Name != "" {
		return ""
	}
	return core.NormalizeDomain(address[strings.LastIndexByte(address, '@')+1:])
}

// CheckSender checks a sender address (the settings' one) as a channel's is
// checked.
func (s *Service) CheckSender(ctx context.Context, address string) error {
	return s.checkSender(ctx, s.DB.Read(), address)
}

// checkSender checks a channel's sender address: a plain address (invalid /
// sender_address) on a verified domain of one of the brand's channels. A verified
// domain itself passes; a subdomain of one must be set up for mail in DNS (an MX
// or TXT record), else 400 invalid / sender_domain_unverified; when DNS cannot be
// asked, 502 sender_domain_check_failed / dns_unreachable.
func (s *Service) checkSender(ctx context.Context, q *store.Q, address string) error {
	domain := senderDomain(address)
	if domain == "" {
		return core.Invalid("sender_address")
	}
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return err
	}
	var verified []string
	for _, c := range chans {
		verified = append(verified, c.Domains...)
	}
	for _, d := range verified {
		if d == domain {
			return nil
		}
	}
	if !core.DomainVerified(domain, verified) {
		return core.Invalid("sender_domain_unverified")
	}
	switch err := s.DNS.HasMail(ctx, domain); {
	case errors.Is(err, errNoRecord):
		return core.Invalid("sender_domain_unverified")
	case err != nil:
		return core.E(502, "sender_domain_check_failed", DNSUnreachable)
	}
	return nil
}

// ChannelProof is a domain of a channel waiting for its proof.
type ChannelProof struct {
	Channel string
	PendingDomain
}

// PendingProofs lists the domains added but not verified yet that carry a proof
// token, with the file and DNS record that prove them (what AddDomain answered).
func (s *Service) PendingProofs(ctx context.Context) ([]ChannelProof, error) {
	q := s.DB.Read()
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return nil, err
	}
	var out []ChannelProof
	for _, ch := range chans {
		ds, err := q.ChannelDomainRows(ctx, ch.ID)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if !d.Verified() && d.Token != "" {
				out = append(out, ChannelProof{Channel: ch.Code, PendingDomain: pending(d)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Channel+" "+out[i].Domain < out[j].Channel+" "+out[j].Domain })
	return out, nil
}
