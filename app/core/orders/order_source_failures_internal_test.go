package orders

import (
	"context"
	"errors"
	"net"
	"testing"

	"reviewd/app/outbound"
)

// TestOutboundFailureCodes maps every outbound failure to the stable failure code
// of a platform read (the DNS case cannot be provoked without the network).
func TestOutboundFailureCodes(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "acme.myshopify.com", IsNotFound: true}
	for code, want := range map[string]string{
		outbound.CodeHostUnresolved:   FailHostUnresolved,
		outbound.CodeConnectionFailed: FailConnection,
		outbound.CodeTLSFailed:        FailConnection,
		outbound.CodeTimeout:          FailTimeout,
		outbound.CodeRedirectRefused:  FailRedirect,
		outbound.CodeTooLarge:         FailAnswerInvalid,
		outbound.CodeAddressRefused:   FailAddressRefused,
		outbound.CodeSchemeRefused:    FailAddressRefused,
		outbound.CodeURLInvalid:       FailAddressRefused,
		outbound.CodePortRefused:      FailPortRefused,
		outbound.CodeCanceled:         FailUnexpected,
		outbound.CodeRequestInvalid:   FailUnexpected,
	} {
		err := outboundFailure(&outbound.Error{Code: code, Err: dns})
		if err.Code != want || !errors.Is(err, dns) {
			t.Errorf("%s -> %q, want %q", code, err.Code, want)
		}
	}
	if got := FailureCode(errors.New("disk full")); got != FailUnexpected {
		t.Errorf("plain error -> %q", got)
	}
	if _, err := PlatformCall(context.Background(), nil, outbound.Request{URL: "https://example.com/"}); FailureCode(err) != FailConnection {
		t.Errorf("no client -> %v", err)
	}
}
