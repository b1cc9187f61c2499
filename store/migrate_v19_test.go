package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"reviewd/store"
	"reviewd/store/storetest"
)

// TestUpgradeToV19KeepsMessageLog: version 19 rebuilds send_logs and opt_outs (their
// channel_kind takes whatsapp); an upgraded database keeps their rows and the mail
// events' links to their sends, and the new kind is accepted.
func TestUpgradeToV19KeepsMessageLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v18.db")
	sections, err := store.Sections(storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(strings.Join(sections[:18], "\n") + "\nPRAGMA user_version = 18;"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO channels (id, code, market, language, label, brand_name, created_at) VALUES (1, 'web', 'TR', 'tr', 'Web', 'Acme', 1)`,
		`INSERT INTO orders (id, channel_id, external_id, market, language, payment_state, placed_at, customer_email, payment_changed_at,
			created_at, updated_at) VALUES (1, 1, 'A-1', 'TR', 'tr', 'paid', 1, 'a@mail.example', 1, 1, 1)`,
		`INSERT INTO invitations (id, kind, order_id, channel_id, language, state, created_at, updated_at)
			VALUES (1, 'invitation', 1, 1, 'tr', 'sent', 1, 1)`,
		`INSERT INTO send_logs (id, invitation_id, channel_kind, recipient, event_id, message_id, status, attempt, at)
			VALUES (7, 1, 'email', 'a@mail.example', 'evt_1', 'm1@shop.example', 'sent', 1, 1)`,
		`INSERT INTO mail_events (source, event_id, type, send_log_id, outcome, created_at) VALUES ('generic', 'e1', 'delivered', 7, 'matched', 1)`,
		`INSERT INTO opt_outs (address, channel_kind, reason, created_at) VALUES ('b@mail.example', 'email', 'unsubscribe_link', 1)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err := store.Open(ctx, path, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	logs, err := db.Read().SendLogsOfInvitation(ctx, 1)
	if err != nil || len(logs) != 1 || logs[0].ID != 7 || logs[0].MessageID != "m1@shop.example" {
		t.Fatalf("send logs = %+v, %v", logs, err)
	}
	events, err := db.Read().MailEventsOfSendLog(ctx, 7)
	if err != nil || len(events) != 1 {
		t.Fatalf("mail events of the send = %+v, %v", events, err)
	}
	if out, err := db.Read().OptedOut(ctx, "b@mail.example"); err != nil || !out {
		t.Fatalf("opt-out lost: %v", err)
	}
	err = db.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.AddOptOut(ctx, store.OptOut{Address: "+905321234567", ChannelKind: "whatsapp", Reason: "stop_word"}); err != nil {
			return err
		}
		_, err := tx.AddSendLog(ctx, store.SendLog{InvitationID: 1, ChannelKind: "whatsapp", EventID: "evt_2", MessageID: "wamid.X",
			Status: "sent", Attempt: 2})
		return err
	})
	if err != nil {
		t.Fatalf("whatsapp rows: %v", err)
	}
	db.Close()
	check, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var problems int
	if err := check.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&problems); err != nil || problems != 0 {
		t.Fatalf("foreign key problems = %d, %v", problems, err)
	}
}
