package cli_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/store/storetest"
)

func TestMailEventsAddresses(t *testing.T) {
	dir := t.TempDir()
	var first, second []map[string]string
	mustJSON(t, dir, &first, "mail-events", "addresses")
	mustJSON(t, dir, &second, "mail-events", "addresses")
	if len(first) != 4 {
		t.Fatalf("addresses = %v", first)
	}
	var code string
	for i, p := range []string{"sendgrid", "mailgun", "postmark", "ses"} {
		prefix := "http://127.0.0.1:8080/v1/mail-events/" + p + "/"
		u := first[i]["url"]
		if first[i]["provider"] != p || !strings.HasPrefix(u, prefix) || len(u) < len(prefix)+40 {
			t.Fatalf("address %d = %v", i, first[i])
		}
		c := strings.TrimPrefix(u, prefix)
		if code != "" && c != code {
			t.Fatalf("providers carry different codes")
		}
		code = c
		if second[i]["url"] != u {
			t.Fatalf("the access code changed between runs: %s, then %s", u, second[i]["url"])
		}
	}
	if table := mustRun(t, dir, "mail-events", "addresses"); !strings.Contains(table, "postmark") || !strings.Contains(table, code) {
		t.Fatalf("table:\n%s", table)
	}

	// Stored encrypted, checked by the core.
	cfg := app.Config{Listen: "127.0.0.1:8080", PublicURL: "http://127.0.0.1:8080", DataDir: dir, SMTP: app.SMTP{Security: "none"}, Log: app.Log{Level: "error", Format: "text"}}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var stored string
	if err := a.DB.Read().Setting(context.Background(), "mail_events_access_code", &stored); err != nil || strings.Contains(stored, code) {
		t.Fatalf("setting = %q, %v", stored, err)
	}
	ctx := context.Background()
	if !a.Sending.CheckMailAccessCode(ctx, code) || a.Sending.CheckMailAccessCode(ctx, code[:len(code)-1]+"x") || a.Sending.CheckMailAccessCode(ctx, "") {
		t.Fatalf("CheckMailAccessCode does not tell the code from others")
	}
}

func mustUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}
