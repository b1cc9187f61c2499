package storefront

import (
	"bytes"
	"encoding/json"
	"html/template"
	"mime"
	"net/http"
	"strings"

	"reviewd/app/core/transparency"
	"reviewd/assets"
)

// The human-readable receipt: GET /v1/transparency/receipt/<id>?token=T answers
// this page to a client that asks for text/html before JSON (a browser opening
// the link of the confirmation e-mail), the JSON receipt to anyone else. One
// address serves both, so the link a writer keeps is the one a program reads.

var receiptPage = template.Must(template.ParseFS(assets.Templates(), "receipt/page.html"))

// receiptWords are the page's sentences by language (lang=tr|en, default en).
type receiptWords struct {
	Title, Intro, Events, None, Proven, Waiting, Verify, HowHash, HowProof, HowJSON, Report string
}

var receiptText = map[string]receiptWords{
	"en": {
		Title:    "Your review's receipt",
		Intro:    "Every decision that makes a review visible or not is recorded in this installation's public transparency log. These are the records of your review.",
		Events:   "Recorded decisions",
		None:     "No decision about your review is recorded yet: it is waiting to be checked.",
		Proven:   "in the signed log",
		Waiting:  "in the next signed checkpoint (within about a minute)",
		Verify:   "How to verify",
		HowHash:  "The log names your review only by a salted hash. The hash is HMAC-SHA-256 of the review id under this salt; each record of your review carries it.",
		HowProof: "Each record comes with an inclusion proof leading from the SHA-256 of 0x00, the record and a newline to the root of this signed checkpoint:",
		HowJSON:  "A program reads the receipt with its proofs at the same address; `reviewd transparency verify` audits the whole log.",
		Report:   "Transparency report",
	},
	"tr": {
		Title:    "Yorumunuzun makbuzu",
		Intro:    "Bir yorumu görünür kılan ya da kılmayan her karar bu kurulumun herkese açık şeffaflık kaydına yazılır. Bunlar yorumunuzun kayıtlarıdır.",
		Events:   "Kaydedilen kararlar",
		None:     "Yorumunuz hakkında henüz kaydedilmiş bir karar yok: incelenmeyi bekliyor.",
		Proven:   "imzalı kayıtta",
		Waiting:  "bir sonraki imzalı kontrol noktasında (yaklaşık bir dakika içinde)",
		Verify:   "Nasıl doğrulanır",
		HowHash:  "Kayıt yorumunuzu yalnızca tuzlanmış bir özetle anar. Özet, yorum kimliğinin bu tuzla HMAC-SHA-256 değeridir; yorumunuzun her kaydı onu taşır.",
		HowProof: "Her kayıt, 0x00, kayıt ve satır sonunun SHA-256 değerinden bu imzalı kontrol noktasının köküne giden bir dahil olma kanıtıyla gelir:",
		HowJSON:  "Bir program makbuzu kanıtlarıyla aynı adresten okur; `reviewd transparency verify` kaydın tamamını denetler.",
		Report:   "Şeffaflık raporu",
	},
}

// receiptRow is one record as the page shows it.
type receiptRow struct {
	transparency.Entry
	Proven bool
}

// wantsHTML reports whether the client asks for text/html before JSON.
func wantsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			return true
		case "application/json", "*/*":
			return false
		}
	}
	return false
}

// writeReceiptPage renders the receipt page.
func (h *Handler) writeReceiptPage(w http.ResponseWriter, r *http.Request, rc transparency.Receipt) error {
	lang := r.URL.Query().Get("lang")
	if lang != "tr" {
		lang = "en"
	}
	var rows []receiptRow
	for _, e := range rc.Entries {
		var row receiptRow
		if err := json.Unmarshal(e.Entry, &row.Entry); err != nil {
			return err
		}
		row.Proven = e.Hashes != nil
		rows = append(rows, row)
	}
	q := r.URL.Query()
	q.Del("lang")
	var b bytes.Buffer
	if err := receiptPage.Execute(&b, map[string]any{"Lang": lang, "W": receiptText[lang], "R": rc, "Entries": rows,
		"StyleURL": statementStyleURL, "ReportURL": statementReportURL,
		"JSONURL": strings.TrimRight(h.Transparency.PublicURL, "/") + r.URL.Path + "?" + q.Encode()}); err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", statementCSP)
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
	return nil
}
