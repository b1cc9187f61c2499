package whatsapp_test

import (
	"testing"

	"reviewd/app/whatsapp"
)

func TestIsStopWord(t *testing.T) {
	for _, s := range []string{"STOP", "stop", "Stop", " stop! ", "DUR", "dur", "Dur.", "IPTAL", "iptal", "İPTAL", "İptal",
		"ıptal", "iPTAL", "i\u0307ptal"} {
		if !whatsapp.IsStopWord(s) {
			t.Errorf("%q is a stop word", s)
		}
	}
	for _, s := range []string{"", "stopp", "stop please", "durum", "iptal et", "İPTALLER", "halt"} {
		if whatsapp.IsStopWord(s) {
			t.Errorf("%q is not a stop word", s)
		}
	}
}

func TestSignatureValid(t *testing.T) {
	body := []byte(`{"object":"whatsapp_business_account"}`)
	sig := whatsapp.Sign("secret", body)
	if !whatsapp.SignatureValid("secret", body, sig) {
		t.Fatal("own signature refused")
	}
	for _, bad := range []string{"", sig[7:], "sha256=", "sha256=00", whatsapp.Sign("other", body), "SHA256=" + sig[7:]} {
		if whatsapp.SignatureValid("secret", body, bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	if whatsapp.SignatureValid("", body, whatsapp.Sign("", body)) {
		t.Error("an empty secret accepted a signature")
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		code, status int
		reason       string
		temporary    bool
	}{
		{130429, 400, "rate_limited: 130429", true},
		{131056, 400, "rate_limited: 131056", true},
		{80007, 400, "rate_limited: 80007", true},
		{131047, 400, "reengagement_window: 131047", false},
		{131026, 400, "undeliverable: 131026", false},
		{190, 401, "token_invalid: 190", false},
		{132001, 404, "template_invalid: 132001", false},
		{131000, 500, "service_unavailable: 131000", true},
		{99999, 500, "whatsapp_error: 99999", true},
		{99999, 400, "whatsapp_error: 99999", false},
	}
	for _, c := range cases {
		r := whatsapp.Classify(c.code, c.status)
		if r.Reason != c.reason || r.Temporary != c.temporary {
			t.Errorf("Classify(%d, %d) = %+v", c.code, c.status, r)
		}
	}
}
