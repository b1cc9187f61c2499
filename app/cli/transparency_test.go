package cli_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/core/transparency"
	"reviewd/store"
	"reviewd/store/storetest"

	_ "modernc.org/sqlite"
)

var bg = context.Background()

// logFx is a running installation whose reviews are decided by the review
// service, so every decision reaches the transparency log.
type logFx struct {
	*apptest.Env
	ch store.Channel
	n  int
}

func newLogFx(t *testing.T) *logFx {
	t.Helper()
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	ch, err := env.App.DB.Read().ChannelByCode(bg, "web")
	if err != nil {
		t.Fatal(err)
	}
	return &logFx{Env: env, ch: ch}
}

// pending stores a review awaiting approval and returns its public id.
func (f *logFx) pending(rating int) string {
	f.T.Helper()
	f.n++
	r := storetest.Review(f.ch, "r_"+strings.Repeat("a", 19)+string(rune('a'+f.n)), core.ReviewPending, f.Clock.T)
	r.Rating, r.VariantKey, r.Title, r.Body = rating, fmt.Sprintf("SKU-%d", f.n), "Fine", "Does the job."
	r.Experience, r.Origin = core.ExperienceProduct, core.OriginOwn
	return storetest.CreateReview(f.T, f.App.DB, r).PublicID
}

func (f *logFx) decide(id, event, reason string) {
	f.T.Helper()
	if _, err := f.App.Reviews.TransitionReview(bg, core.Console(), id, reviews.ReviewTransitionInput{Event: event, Reason: reason}); err != nil {
		f.T.Fatalf("%s %s: %v", event, id, err)
	}
}

func (f *logFx) sign() {
	f.T.Helper()
	if _, _, err := f.App.Transparency.SignCheckpoint(bg); err != nil {
		f.T.Fatal(err)
	}
}

// verify runs `reviewd transparency verify` against the installation.
func (f *logFx) verify(state string, extra ...string) result {
	f.T.Helper()
	args := append([]string{"transparency", "verify", "--url", f.URL, "--state", state}, extra...)
	return runCLI(f.T.(*testing.T), f.T.TempDir(), "", args...)
}

// raw opens the database file as another process would, for tampering.
func (f *logFx) raw() *sql.DB {
	f.T.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(f.App.Config.DataDir, app.DBFile)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		f.T.Fatal(err)
	}
	f.T.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestTransparencyVerify audits a log with `reviewd transparency verify` across
// runs: the kept checkpoint grows with the log; a tampered entry, a tampered
// column (the report), a rewritten history re-signed with the log's own key, a
// shrunk log and another key are each refused with a non-zero exit.
func TestTransparencyVerify(t *testing.T) {
	f := newLogFx(t)
	state := filepath.Join(t.TempDir(), "state.json")
	var ids []string
	for i := 1; i <= 4; i++ {
		ids = append(ids, f.pending(i))
		f.decide(ids[i-1], reviews.EventApprove, "")
	}
	f.sign()

	// The key printed by the console is the one the log serves.
	key := strings.TrimSpace(mustRun(t, f.App.Config.DataDir, "transparency", "key"))
	res, err := http.Get(f.URL + "/v1/transparency/key")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if key == "" || strings.TrimSpace(string(served)) != key || !strings.HasPrefix(key, "reviewd.test/transparency+") {
		t.Fatalf("key %q, served %q", key, served)
	}

	r := f.verify(state, "--key", key)
	if r.Error != nil || !strings.Contains(r.Out, "verified") || !strings.Contains(r.Out, ": 4 entries") {
		t.Fatalf("first verify: %v\n%s%s", r.Error, r.Out, r.Err)
	}
	var st transparency.AuditState
	b, _ := os.ReadFile(state)
	if err := json.Unmarshal(b, &st); err != nil || st.Size != 4 || st.Key != key {
		t.Fatalf("state after the first run: %v %s", err, b)
	}

	f.decide(ids[0], reviews.EventReject, "profanity")
	f.decide(ids[1], reviews.EventRemove, "fake")
	f.sign()
	if r := f.verify(state); r.Error != nil || !strings.Contains(r.Out, "consistent with the kept checkpoint of 4") {
		t.Fatalf("second verify: %v\n%s%s", r.Error, r.Out, r.Err)
	}
	kept, _ := os.ReadFile(state)

	db := f.raw()
	var data string
	if err := db.QueryRow(`SELECT data FROM transparency_entries WHERE idx = 2`).Scan(&data); err != nil {
		t.Fatal(err)
	}
	// One stored entry changed: the entries no longer hash to the signed root.
	mustExec(t, db, `UPDATE transparency_entries SET data = ? WHERE idx = 2`, strings.Replace(data, `"rating":3`, `"rating":5`, 1))
	if r := f.verify(state); r.Error == nil || !strings.Contains(r.Error.Error(), "the signed checkpoint of 6 says") {
		t.Fatalf("verify of a tampered entry: %v\n%s", r.Error, r.Out)
	}
	mustExec(t, db, `UPDATE transparency_entries SET data = ? WHERE idx = 2`, data)
	// A changed lookup column (the report counts from them): the next report no
	// longer matches the entries.
	mustExec(t, db, `UPDATE transparency_keys SET rating = 5 WHERE idx = 2`)
	f.decide(ids[3], reviews.EventHide, "")
	f.sign()
	if r := f.verify(state); r.Error == nil || !strings.Contains(r.Error.Error(), "report") {
		t.Fatalf("verify of a tampered report: %v\n%s", r.Error, r.Out)
	}
	mustExec(t, db, `UPDATE transparency_keys SET rating = 3 WHERE idx = 2`)
	f.decide(ids[3], reviews.EventUnhide, "")
	f.sign()
	if r := f.verify(state); r.Error != nil {
		t.Fatalf("verify after the repair: %v", r.Error)
	}

	// Another key of the same name: the signature is refused.
	_, other, _ := note.GenerateKey(rand.Reader, "reviewd.test/transparency")
	if r := f.verify(filepath.Join(t.TempDir(), "s.json"), "--key", other); r.Error == nil || !strings.Contains(r.Error.Error(), "signature") {
		t.Fatalf("verify with another key: %v\n%s", r.Error, r.Out)
	}
	// The key kept in the state wins over a different --key.
	if r := f.verify(state, "--key", other); r.Error == nil || !strings.Contains(r.Error.Error(), "differs") {
		t.Fatalf("verify with a key other than the kept one: %v", r.Error)
	}

	// A fork: the operator rewrites history (the rejection becomes a publication)
	// and signs the new tree, larger than the kept one, with the log's own key.
	os.WriteFile(state, kept, 0o600)
	mustExec(t, db, `DELETE FROM transparency_entries`)
	mustExec(t, db, `DELETE FROM transparency_hashes`)
	mustExec(t, db, `DELETE FROM transparency_checkpoints`)
	err = f.App.DB.WithTx(bg, func(tx *store.Tx) error {
		for i, id := range ids {
			r, err := tx.ReviewByPublicID(bg, id)
			if err != nil {
				return err
			}
			if err := f.App.Transparency.Append(bg, tx, transparency.Decision{ReviewID: r.ID, From: core.ReviewPending,
				To: core.ReviewPublished, Actor: core.Console()}); err != nil {
				return err
			}
			if i == 1 {
				if err := f.App.Transparency.Append(bg, tx, transparency.Decision{ReviewID: r.ID, From: core.ReviewPublished,
					To: core.ReviewRemoved, Reason: "fake", Actor: core.Console()}); err != nil {
					return err
				}
			}
		}
		for range 2 {
			if err := f.App.Transparency.Append(bg, tx, transparency.Decision{ReviewID: 1, From: core.ReviewPublished,
				To: core.ReviewHidden, Actor: core.Console()}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.sign()
	if r := f.verify(filepath.Join(t.TempDir(), "fresh.json"), "--key", key); r.Error != nil {
		t.Fatalf("the fork alone is a well-formed log, verify without history: %v", r.Error)
	}
	if r := f.verify(state); r.Error == nil || !strings.Contains(r.Error.Error(), "history rewritten: the first 6 entries") {
		t.Fatalf("verify of a fork against the kept checkpoint: %v\n%s", r.Error, r.Out)
	}

	// A log cut back below the kept checkpoint.
	mustExec(t, db, `DELETE FROM transparency_entries WHERE idx >= 3`)
	mustExec(t, db, `DELETE FROM transparency_checkpoints`)
	f.sign()
	if r := f.verify(state); r.Error == nil || !strings.Contains(r.Error.Error(), "shrank") {
		t.Fatalf("verify of a shrunk log: %v\n%s", r.Error, r.Out)
	}
}

// crashEnv names the data folder of the crash test's child process and where it
// crashes: "before" the log entry (after the decision's writes) or "after" it
// (before the commit).
const crashEnv = "REVIEWD_TEST_TRANSPARENCY_CRASH"

// crashingLog kills its own process with SIGKILL around the log append, inside
// the decision's transaction.
type crashingLog struct {
	reviews.DecisionLog
	when string
}

func (c crashingLog) Append(ctx context.Context, tx *store.Tx, d transparency.Decision) error {
	if c.when == "before" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	err := c.DecisionLog.Append(ctx, tx, d)
	if c.when == "after" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return err
}

// TestTransparencyCrash kills a process with SIGKILL while it approves a review,
// once between the decision's writes and its log entry and once between the
// entry and the commit: after each, the review is still pending and the log
// empty; neither a decision without its entry nor an entry without its decision
// is left. An approval that completes leaves both.
func TestTransparencyCrash(t *testing.T) {
	if spec := os.Getenv(crashEnv); spec != "" {
		crashChild(t, spec)
		return
	}
	f := newLogFx(t)
	id := f.pending(2)
	dir := f.App.Config.DataDir
	for _, when := range []string{"before", "after"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTransparencyCrash$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+when+","+dir+","+id)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("child (%s): want killed by SIGKILL, got %v\n%s", when, err, out)
		}
		q := f.App.DB.Read()
		r, err := q.ReviewByPublicID(bg, id)
		if err != nil {
			t.Fatal(err)
		}
		hist, _ := q.ReviewEvents(bg, r.ID)
		n, _ := q.TransparencySize(bg)
		if r.State != core.ReviewPending || len(hist) != 0 || n != 0 {
			t.Fatalf("after a crash %s the entry: state %s, %d history entries, %d log entries", when, r.State, len(hist), n)
		}
	}
	f.decide(id, reviews.EventApprove, "")
	r, _ := f.App.DB.Read().ReviewByPublicID(bg, id)
	if n, _ := f.App.DB.Read().TransparencySize(bg); r.State != core.ReviewPublished || n != 1 {
		t.Fatalf("approval: state %s, %d log entries", r.State, n)
	}
}

// crashChild opens the data folder and approves the review with the crashing log.
func crashChild(t *testing.T, spec string) {
	parts := strings.SplitN(spec, ",", 3)
	a, err := app.Open(bg, app.Config{DataDir: parts[1], PublicURL: "http://reviewd.test"}, storetest.SchemaSQL(t),
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	a.Reviews.Decisions = crashingLog{DecisionLog: a.Reviews.Decisions, when: parts[0]}
	_, err = a.Reviews.TransitionReview(bg, core.Console(), parts[2], reviews.ReviewTransitionInput{Event: reviews.EventApprove})
	t.Fatalf("the approval returned (%v) instead of crashing", err)
}

// TestTransparencyKeyInBackup: the transparency job is listed and runs; the log's
// key is derived from secret.key and its name is in the database, so a restored
// backup signs as the same log.
func TestTransparencyKeyInBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	key := mustRun(t, dir, "transparency", "key")
	var run map[string]any
	mustJSON(t, dir, &run, "jobs", "run", "transparency")
	if run["name"] != "transparency" || run["outcome"] != "ok" {
		t.Fatalf("jobs run transparency: %v", run)
	}
	if out := mustRun(t, dir, "jobs", "list"); !strings.Contains(out, "transparency") || !strings.Contains(out, "@every 1m") {
		t.Fatalf("jobs list:\n%s", out)
	}
	archive := filepath.Join(t.TempDir(), "backup.tar.gz")
	mustRun(t, dir, "backup", "create", archive)
	target := filepath.Join(t.TempDir(), "restored")
	mustRun(t, target, "backup", "restore", archive)
	if got := mustRun(t, target, "transparency", "key"); got != key || !strings.Contains(key, "/transparency+") {
		t.Fatalf("key after restore %q, before %q", got, key)
	}
}
