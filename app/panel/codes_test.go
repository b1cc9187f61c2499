package panel

import (
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/checks"
	"reviewd/app/core/orders"
	"reviewd/app/core/reviews"
	"reviewd/store"
)

// TestCodeWords: every code the domain can produce and the panel shows (checks,
// outcomes, findings, fields, review states, history events, proofs, actors,
// reply e-mail outcomes, report and media states, reasons) has words in English
// and in Turkish (the Turkish differs from the code, and neither is a code with "_").
func TestCodeWords(t *testing.T) {
	groups := map[string][]string{
		"check":        checks.CheckKinds,
		"outcome":      checks.CheckOutcomes,
		"finding":      checks.FindingWords,
		"field":        checks.CheckFields,
		"state":        core.ReviewStates,
		"event":        reviews.HistoryEvents,
		"proof":        core.ProofMethods,
		"actor":        core.ActorKinds,
		"notice":       append(append([]string{}, reviews.ResponseNotices...), "failed: mail_disabled", "failed: connection_failed", "failed: address_invalid", "failed: message_invalid", "failed: smtp_status: 550"),
		"report_state": {"open", "closed"},
		"media_state":  {store.MediaUploaded, store.MediaProcessing, store.MediaReady, store.MediaFailed, store.MediaQuarantined, store.MediaRemoved},
		"media_kind":   {"image", "video"},
		"reason":       {brand.MediaRemovalSource},
		"read_failure": append(append([]string{}, orders.FailureCodes...), "http_status: 503"),
	}
	for _, kind := range brand.ReasonKinds {
		for _, r := range brand.Reasons(kind, "en") {
			groups["reason"] = append(groups["reason"], r.Code)
		}
	}
	for group, codes := range groups {
		for _, code := range codes {
			en, tr := codeText(group, code, "en"), codeText(group, code, "tr")
			if tr == code || en == "" || tr == "" || strings.Contains(en, "_") || strings.Contains(tr, "_") {
				t.Errorf("%s %q has no words: en %q, tr %q", group, code, en, tr)
			}
		}
	}
	if got := heading("", "Short text."); got != "Short text." {
		t.Errorf("heading of a short text = %q", got)
	}
	if got := heading("  ", "Şöyle uzun bir yorum metni ki altmış karakterden fazla tutuyor ve burada kesilmeli."); got != "Şöyle uzun bir yorum metni ki altmış karakterden fazla…" {
		t.Errorf("heading of a long text = %q", got)
	}
}

// TestHumanSize: byte counts in the units people read, in both languages.
func TestHumanSize(t *testing.T) {
	for _, c := range []struct {
		n      int64
		en, tr string
	}{{0, "0 B", "0 B"}, {1023, "1023 B", "1023 B"}, {1536, "1.5 KB", "1,5 KB"}, {762237, "744 KB", "744 KB"},
		{5 << 20, "5 MB", "5 MB"}, {3 << 29, "1.5 GB", "1,5 GB"}} {
		if en, tr := humanSize(c.n, "en"), humanSize(c.n, "tr"); en != c.en || tr != c.tr {
			t.Errorf("humanSize(%d) = %q, %q; want %q, %q", c.n, en, tr, c.en, c.tr)
		}
	}
}
