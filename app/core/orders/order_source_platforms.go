package orders

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/outbound"
)

// Platform codes of order connections (CONTRACT.md "platform codes").
const (
	PlatformShopify     = "shopify"
	PlatformWooCommerce = "woocommerce"
	PlatformMagento     = "magento"
)

// Limits of a platform read (spec 1, "Limits"); page sizes and page counts are per
// platform (PlatformDef).
const (
	PlatformTimeout  = 30 * time.Second
	PlatformMaxBytes = 20 << 20
	// ReadMargin is how far before the previous read's start (or the last order
	// read) the next read begins.
	ReadMargin = 10 * time.Minute
	// MaxPlatformLines is how many lines of one order are read.
	MaxPlatformLines = 50
	// PlatformMaxValues is how many JSON objects and arrays one answer may hold:
	// decoding each costs far more memory than its bytes, so an answer of
	// millions of empty objects is refused before it is decoded.
	PlatformMaxValues = 200000
)

// Skip keys: why an order or a line read from a platform was not saved (spec 1).
const (
	SkipOrderIncomplete   = "order_incomplete"
	SkipStatusUnknown     = "status_unknown"
	SkipLineIncomplete    = "line_incomplete"
	SkipOrderWithoutLines = "order_without_lines"
	SkipLinesTruncated    = "lines_truncated"
	SkipOrderRefused      = "order_refused"
)

// Failure codes of a platform read or connection try. A status other than 200 is
// "http_status: <code>" (StatusFailure).
const (
	FailShopAddressInvalid    = "shop_address_invalid"
	FailCredentialsMissing    = "credentials_missing"
	FailAPICredentialsMissing = "api_credentials_missing"
	FailLoginRefused          = "login_refused"
	FailCredentialsRefused    = "api_credentials_refused"
	FailScopeMissing          = "api_scope_missing"
	FailThrottled             = "throttled"
	FailHostUnresolved        = "host_unresolved"
	FailAddressRefused        = "address_refused"
	FailPortRefused           = "port_refused"
	FailConnection            = "connection_failed"
	FailTimeout               = "timeout"
	FailRedirect              = "redirect_refused"
	FailAnswerInvalid         = "answer_invalid"
	FailUndecryptable         = "credentials_undecryptable"
	FailNothingSaved          = "no_order_saved"
	FailUnexpected            = "unexpected"
)

// FailureCodes lists every Fail* code (besides "http_status: <code>").
var FailureCodes = []string{FailShopAddressInvalid, FailCredentialsMissing, FailAPICredentialsMissing, FailLoginRefused,
	FailCredentialsRefused, FailScopeMissing, FailThrottled, FailHostUnresolved, FailAddressRefused, FailPortRefused,
	FailConnection, FailTimeout, FailRedirect, FailAnswerInvalid, FailUndecryptable, FailNothingSaved, FailUnexpected}

// ReadFailure is why a platform read or a connection try failed. Code is one of the
// Fail* codes or "http_status: <code>"; Err is the cause, for logs only.
type ReadFailure struct {
	Code string
	Err  error
}

func (f *ReadFailure) Error() string {
	if f.Err == nil {
		return "platform: " + f.Code
	}
	return "platform: " + f.Code + ": " + f.Err.Error()
}

// Unwrap returns the cause.
func (f *ReadFailure) Unwrap() error { return f.Err }

// Failure builds a read failure.
func Failure(code string, err error) *ReadFailure { return &ReadFailure{Code: code, Err: err} }

// StatusFailure is the failure of an answer with an unexpected HTTP status.
func StatusFailure(status int) *ReadFailure {
	return &ReadFailure{Code: fmt.Sprintf("http_status: %d", status)}
}

// FailureCode returns the code of the first *ReadFailure in err's chain, "" for nil
// and "unexpected" for any other error.
func FailureCode(err error) string {
	if err == nil {
		return ""
	}
	var f *ReadFailure
	if errors.As(err, &f) {
		return f.Code
	}
	return FailUnexpected
}

// PlatformCall sends one platform request through the SSRF-safe client with the read
// limits (30 s, 20 MB, no redirects, https on port 443 of a public address) and turns
// a transport failure into a *ReadFailure. Any status comes back as a response.
func PlatformCall(ctx context.Context, client *outbound.Client, req outbound.Request) (*outbound.Response, error) {
	if client == nil {
		return nil, Failure(FailConnection, errors.New("no outbound client"))
	}
	req.Timeout, req.MaxBytes = PlatformTimeout, PlatformMaxBytes
	resp, err := client.Do(ctx, req)
	if err != nil {
		return nil, outboundFailure(err)
	}
	if n := jsonContainers(resp.Body, PlatformMaxValues); n > PlatformMaxValues {
		return nil, Failure(FailAnswerInvalid, fmt.Errorf("answer holds more than %d JSON objects and arrays", PlatformMaxValues))
	}
	return resp, nil
}

// jsonContainers counts the objects and arrays of a JSON text (brackets outside
// strings), stopping once past limit. It allocates nothing.
func jsonContainers(b []byte, limit int) int {
	n, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			if n++; n > limit {
				return n
			}
		}
	}
	return n
}

func outboundFailure(err error) *ReadFailure {
	switch code := outbound.Code(err); code {
	case outbound.CodeHostUnresolved:
		return Failure(FailHostUnresolved, err)
	case outbound.CodeConnectionFailed, outbound.CodeTLSFailed:
		return Failure(FailConnection, err)
	case outbound.CodeTimeout:
		return Failure(FailTimeout, err)
	case outbound.CodeRedirectRefused:
		return Failure(FailRedirect, err)
	case outbound.CodeTooLarge:
		return Failure(FailAnswerInvalid, err)
	case outbound.CodeAddressRefused, outbound.CodeSchemeRefused, outbound.CodeURLInvalid:
		return Failure(FailAddressRefused, err)
	case outbound.CodePortRefused:
		return Failure(FailPortRefused, err)
	default:
		return Failure(FailUnexpected, err)
	}
}

// PlatformField is one connection field of a platform.
type PlatformField struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	// Secret fields are credentials: stored encrypted, never returned.
	Secret bool `json:"secret"`
}

// PlatformDef describes a platform kind: its connection fields and read limits.
type PlatformDef struct {
	Code string `json:"code"`
	// Kind is hosted_store, open_source_plugin or enterprise.
	Kind   string          `json:"kind"`
	Fields []PlatformField `json:"fields"`
	// PageSize and MaxPages bound one read: orders per page, pages per read.
	PageSize int `json:"page_size"`
	MaxPages int `json:"max_pages"`
	// missing is the failure code of a connection without complete credentials.
	missing string
	// hostOK, when set, is the platform's rule for the address's host: a host it
	// refuses is invalid / base_url before any request is sent.
	hostOK func(host string) bool
}

// shopHost is the hosted store's own domain (<store>.myshopify.com); custom
// domains and the admin host (admin.shopify.com) do not serve its Admin API.
var shopHost = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*\.myshopify\.com$`)

// credentialFields lists the names of the secret fields.
func (d PlatformDef) credentialFields() []PlatformField {
	var out []PlatformField
	for _, f := range d.Fields {
		if f.Secret {
			out = append(out, f)
		}
	}
	return out
}

// platformDefs are the three platform kinds of spec 1, in the order the panel
// lists them.
var platformDefs = []PlatformDef{
	{Code: PlatformShopify, Kind: "hosted_store", PageSize: 25, MaxPages: 50, missing: FailAPICredentialsMissing, hostOK: shopHost.MatchString,
		Fields: []PlatformField{{Name: "base_url", Required: true}, {Name: "client_id", Secret: true},
			{Name: "client_secret", Required: true, Secret: true}}},
	{Code: PlatformWooCommerce, Kind: "open_source_plugin", PageSize: 100, MaxPages: 20, missing: FailAPICredentialsMissing,
		Fields: []PlatformField{{Name: "base_url", Required: true}, {Name: "consumer_key", Required: true, Secret: true},
			{Name: "consumer_secret", Required: true, Secret: true}}},
	{Code: PlatformMagento, Kind: "enterprise", PageSize: 50, MaxPages: 40, missing: FailCredentialsMissing,
		Fields: []PlatformField{{Name: "base_url", Required: true}, {Name: "remote_channel", Required: true},
			{Name: "username", Required: true, Secret: true}, {Name: "password", Required: true, Secret: true}}},
}

// PlatformDefs lists the platform kinds.
func PlatformDefs() []PlatformDef { return append([]PlatformDef(nil), platformDefs...) }

// checkHost applies the platform's host rule to a normalised address (invalid /
// base_url).
func (d PlatformDef) checkHost(base string) error {
	if d.hostOK == nil {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || !d.hostOK(strings.ToLower(u.Hostname())) {
		return core.Invalid("base_url")
	}
	return nil
}

// requiredMissing names the first required field a set-up lacks
// ("<field>_required"), "" when none is missing.
func (d PlatformDef) requiredMissing(f sourceFields) string {
	for _, pf := range d.Fields {
		if !pf.Required {
			continue
		}
		var ok bool
		switch {
		case pf.Name == "base_url":
			ok = f.hasBaseURL
		case pf.Name == "remote_channel":
			ok = f.hasRemote
		default:
			ok = f.creds[pf.Name] != ""
		}
		if !ok {
			return pf.Name + "_required"
		}
	}
	return ""
}

func platformDef(code string) (PlatformDef, bool) {
	for _, d := range platformDefs {
		if d.Code == code {
			return d, true
		}
	}
	return PlatformDef{}, false
}

// PlatformRead is one read request handed to a platform reader.
type PlatformRead struct {
	Client *outbound.Client
	// BaseURL is the connection's address (https, no query); RemoteChannel is the
	// enterprise platform's numeric store id.
	BaseURL       string
	RemoteChannel string
	Credentials   map[string]string
	// Since: orders changed at or after it, sorted by change time (oldest first).
	Since    time.Time
	PageSize int
}

// PlatformPage is one page of orders mapped from the platform's answer.
type PlatformPage struct {
	Orders []PlatformOrder
	// More reports that orders remain after this page.
	More bool
}

// PlatformOrder is one order read from a platform.
type PlatformOrder struct {
	// Order is the order as it will be saved (its channel is the connection's).
	Order OrderInput
	// ChangedAt is the order's change time at the platform (the read position).
	ChangedAt time.Time
	// Skip is the order's skip key when it cannot be saved at all.
	Skip string
	// Skipped counts line skips (status_unknown, line_incomplete) and
	// lines_truncated.
	Skipped map[string]int
}

// SkipLine counts one line-level skip key of the order.
func (o *PlatformOrder) SkipLine(key string) {
	if o.Skipped == nil {
		o.Skipped = map[string]int{}
	}
	o.Skipped[key]++
}

// PlatformReader reads orders from one platform kind; app/platform/<name> holds one
// each, and app.Open hands them to the order service (Platforms).
type PlatformReader interface {
	// Code is the platform code the reader serves.
	Code() string
	// Read reads the orders changed at or after r.Since in change-time order and
	// hands them to page one page at a time, until page returns false or an error,
	// or no orders remain. Failures are *ReadFailure values; a platform that
	// reports its request limit fails with FailThrottled.
	Read(ctx context.Context, r PlatformRead, page func(PlatformPage) (bool, error)) error
}

// Platforms holds the platform readers order connections read with, by platform
// code. app.Open builds it from the readers of app/platform; the order service holds
// it as a field.
type Platforms struct{ readers map[string]PlatformReader }

// NewPlatforms holds readers by their codes.
func NewPlatforms(readers ...PlatformReader) Platforms {
	p := Platforms{readers: map[string]PlatformReader{}}
	for _, r := range readers {
		p.readers[r.Code()] = r
	}
	return p
}

// Reader is the reader of platform code.
func (p Platforms) Reader(code string) (PlatformReader, bool) {
	r, ok := p.readers[code]
	return r, ok
}
