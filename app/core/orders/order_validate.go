package orders

import (
	"math"
	"reviewd/app/core"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

func unmapped(path, field, value string) error {
	return core.Invalidf("status_unmapped", path+field+"/"+core.TruncateRunes(value, 64))
}

// timestamp reads an ISO 8601 time with zone; zero when empty and not required.
func timestamp(field, v string, required bool) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		if required {
			return time.Time{}, core.Invalidf("field_missing", field)
		}
		return time.Time{}, nil
	}
	t, ok := core.ParseTimestamp(v)
	if !ok || t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, core.Invalidf("field_invalid", field)
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

// orderEmail reports whether s looks like a deliverable customer address: one @, a
// local part of up to 64 characters and a domain with at least one dot, no spaces or
// control characters, no empty labels.
func orderEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at < 1 || at == len(s)-1 || strings.Count(s, "@") != 1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if utf8.RuneCountInString(local) > 64 || strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") ||
		strings.Contains(local, "..") || !strings.Contains(domain, ".") {
		return false
	}
	for _, r := range local {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`()<>[]:;\,"`, r) || unicode.IsSpace(r) {
			return false
		}
	}
	for _, label := range strings.Split(domain, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 0x80 && unicode.IsLetter(r) || r >= 0x80 && unicode.IsDigit(r)) {
				return false
			}
		}
	}
	return true
}

// orderIn is a validated order.
type orderIn struct {
	channel, externalID, paymentState, market, language string
	email, customerKey, phone                           string
	placedAt                                            time.Time
	lines                                               []lineIn
	sentID                                              string // external_id as sent, for the answer
}

type lineIn struct {
	ref, variantKey, groupKey, catalogID, title string
	quantity                                    float64
	hasQuantity                                 bool
	state                                       string
	deliveredAt                                 time.Time
	incentive                                   *bool
}

// validateOrder checks every field rule of one order (spec 1, "Order" and "Order
// line"); path prefixes status_unmapped values ("orders[2]." in a batch).
func validateOrder(in OrderInput, path string) (orderIn, error) {
	var o orderIn
	var err error
	o.sentID = in.ExternalID
	if o.channel, err = core.Text("channel", in.Channel, core.MaxChannelLen, false); err != nil {
		return o, err
	}
	if o.externalID, err = core.Text("external_id", in.ExternalID, core.MaxIDLen, true); err != nil {
		return o, err
	}
	o.paymentState = strings.TrimSpace(in.PaymentState)
	if o.paymentState == "" {
		return o, core.Invalidf("field_missing", "payment_state")
	}
	if !core.PaymentStates[o.paymentState] {
		return o, unmapped(path, "payment_state", o.paymentState)
	}
	if m := strings.TrimSpace(in.Market); m != "" {
		o.market = strings.ToUpper(m)
		if !core.ReMarket.MatchString(o.market) {
			return o, core.Invalidf("field_invalid", "market")
		}
	}
	if l := strings.TrimSpace(in.Language); l != "" {
		if l != "tr" && l != "en" {
			return o, core.Invalidf("field_invalid", "language")
		}
		o.language = l
	}
	if o.placedAt, err = timestamp("placed_at", in.PlacedAt, true); err != nil {
		return o, err
	}
	if o.email, err = core.Text("customer_email", in.CustomerEmail, core.MaxEmailLen, false); err != nil {
		return o, err
	}
	if o.email != "" && !orderEmail(o.email) {
		return o, core.Invalidf("field_invalid", "customer_email")
	}
	if o.customerKey, err = core.Text("customer_key", in.CustomerKey, core.MaxIDLen, false); err != nil {
		return o, err
	}
	if o.phone, err = core.Text("customer_phone", in.CustomerPhone, core.MaxPhoneLen, false); err != nil {
		return o, err
	}
	if len(in.Items) == 0 {
		return o, core.Invalidf("field_missing", "items")
	}
	seen := make(map[string]bool, len(in.Items))
	o.lines = make([]lineIn, 0, len(in.Items))
	for i, it := range in.Items {
		l, err := validateLine(it, path+"items["+strconv.Itoa(i)+"].")
		if err != nil {
			return o, err
		}
		if seen[l.ref] {
			return o, core.Invalidf("field_invalid", "line_reference")
		}
		seen[l.ref] = true
		o.lines = append(o.lines, l)
	}
	return o, nil
}

func validateLine(in LineInput, path string) (lineIn, error) {
	var l lineIn
	var err error
	if l.ref, err = core.Text("line_reference", in.LineReference, core.MaxIDLen, true); err != nil {
		return l, err
	}
	if l.variantKey, err = core.Text("variant_key", in.VariantKey, core.MaxIDLen, true); err != nil {
		return l, err
	}
	if l.groupKey, err = core.Text("group_key", in.GroupKey, core.MaxIDLen, false); err != nil {
		return l, err
	}
	if l.catalogID, err = core.Text("catalog_id", in.CatalogID, core.MaxIDLen, false); err != nil {
		return l, err
	}
	if l.title, err = core.Title(in.Title); err != nil {
		return l, err
	}
	if in.Quantity != nil {
		q := *in.Quantity
		if math.IsNaN(q) || math.IsInf(q, 0) || q < 0 || q > maxQuantity {
			return l, core.Invalidf("field_invalid", "quantity")
		}
		l.quantity, l.hasQuantity = q, true
	}
	l.state = core.LinePlaced
	if s := strings.TrimSpace(in.FulfilmentState); s != "" {
		if !core.LineStates[s] {
			return l, unmapped(path, "fulfilment_state", s)
		}
		l.state = s
	}
	if l.deliveredAt, err = timestamp("delivered_at", in.DeliveredAt, false); err != nil {
		return l, err
	}
	l.incentive = in.Incentive
	return l, nil
}
