package storefront_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/storefront"
	"reviewd/store"
)

// An independent RFC 6962 / RFC 9162 implementation: the log's answers are
// checked with it, not with the tlog package the log is built on.

type h32 = [32]byte

func rfcLeaf(d []byte) h32 { return sha256.Sum256(append([]byte{0}, d...)) }

func rfcNode(l, r h32) h32 {
	b := append([]byte{1}, l[:]...)
	return sha256.Sum256(append(b, r[:]...))
}

// rfcRoot is MTH(D[n]) of RFC 6962 section 2.1.
func rfcRoot(leaves []h32) h32 {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return rfcNode(rfcRoot(leaves[:k]), rfcRoot(leaves[k:]))
}

// rfcInclusion is RFC 9162 section 2.1.3.2.
func rfcInclusion(index, size int64, leaf h32, path []h32, root h32) bool {
	if index >= size {
		return false
	}
	fn, sn, r := index, size-1, leaf
	for _, p := range path {
		if sn == 0 {
			return false
		}
		if fn&1 == 1 || fn == sn {
			r = rfcNode(p, r)
			for fn&1 == 0 && fn != 0 {
				fn, sn = fn>>1, sn>>1
			}
		} else {
			r = rfcNode(r, p)
		}
		fn, sn = fn>>1, sn>>1
	}
	return sn == 0 && r == root
}

// rfcConsistency is RFC 9162 section 2.1.4.2.
func rfcConsistency(first, second int64, firstHash, secondHash h32, path []h32) bool {
	if first == second {
		return len(path) == 0 && firstHash == secondHash
	}
	if first < 1 || first > second || len(path) == 0 && first&(first-1) != 0 {
		return false
	}
	if first&(first-1) == 0 {
		path = append([]h32{firstHash}, path...)
	}
	fn, sn := first-1, second-1
	for fn&1 == 1 {
		fn, sn = fn>>1, sn>>1
	}
	fr, sr := path[0], path[0]
	for _, c := range path[1:] {
		if sn == 0 {
			return false
		}
		if fn&1 == 1 || fn == sn {
			fr, sr = rfcNode(c, fr), rfcNode(c, sr)
			for fn&1 == 0 && fn != 0 {
				fn, sn = fn>>1, sn>>1
			}
		} else {
			sr = rfcNode(sr, c)
		}
		fn, sn = fn>>1, sn>>1
	}
	return fr == firstHash && sr == secondHash && sn == 0
}

func b64(t *testing.T, s string) h32 {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("hash %q: %v", s, err)
	}
	return h32(b)
}

func b64s(t *testing.T, v any) []h32 {
	t.Helper()
	var out []h32
	for _, s := range v.([]any) {
		out = append(out, b64(t, s.(string)))
	}
	return out
}

// logGet reads a transparency route without credentials.
func (f *fx) logGet(path string) (int, http.Header, []byte) {
	f.T.Helper()
	res, err := http.Get(f.URL + path)
	if err != nil {
		f.T.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

func (f *fx) logJSON(path string) map[string]any {
	f.T.Helper()
	st, _, b := f.logGet(path)
	if st != 200 {
		f.T.Fatalf("GET %s: %d %s", path, st, b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		f.T.Fatalf("GET %s: %v", path, err)
	}
	return m
}

// checkpoint reads and verifies the signed checkpoint with the key the log
// serves: size and root.
func (f *fx) checkpoint() (int64, h32) {
	f.T.Helper()
	_, _, key := f.logGet("/v1/transparency/key")
	v, err := note.NewVerifier(strings.TrimSpace(string(key)))
	if err != nil {
		f.T.Fatal(err)
	}
	st, hd, b := f.logGet("/v1/transparency/checkpoint")
	if st != 200 || !strings.HasPrefix(hd.Get("Content-Type"), "text/plain") {
		f.T.Fatalf("checkpoint: %d %v", st, hd)
	}
	n, err := note.Open(b, note.VerifierList(v))
	if err != nil {
		f.T.Fatalf("checkpoint signature: %v\n%s", err, b)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[0] != "reviewd.test/transparency" || lines[3] != "" {
		f.T.Fatalf("checkpoint text %q", n.Text)
	}
	size, _ := strconv.ParseInt(lines[1], 10, 64)
	return size, b64(f.T.(*testing.T), lines[2])
}

func (f *fx) sign() {
	f.T.Helper()
	if _, _, err := f.App.Transparency.SignCheckpoint(ctx); err != nil {
		f.T.Fatal(err)
	}
}

func (f *fx) decide(id, event, reason string) {
	f.T.Helper()
	if _, err := f.App.Reviews.TransitionReview(ctx, core.Console(), id, reviews.ReviewTransitionInput{Event: event, Reason: reason}); err != nil {
		f.T.Fatalf("%s %s: %v", event, id, err)
	}
}

// tileReader is tlog.TileReader over the tile route.
type tileReader struct{ f *fx }

func (tileReader) Height() int { return 8 }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	var out [][]byte
	for _, t := range tiles {
		st, _, b := r.f.logGet("/v1/transparency/" + t.Path())
		if st != 200 {
			return nil, fmt.Errorf("tile %s: %d", t.Path(), st)
		}
		out = append(out, b)
	}
	return out, nil
}

func (tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// TestTransparencyLog writes and moderates reviews, then checks every public
// route of the log with the independent RFC 6962 verifier above: the signed
// checkpoint, the entries, inclusion and consistency proofs, tiles, the report
// and a writer's receipt.
func TestTransparencyLog(t *testing.T) {
	f := newFx(t)
	// Before any decision: the empty tree, signed.
	if size, root := f.checkpoint(); size != 0 || root != sha256.Sum256(nil) {
		t.Fatalf("empty log: size %d root %x", size, root)
	}
	var ids, receipts []string
	for i := 1; i <= 5; i++ {
		ext := fmt.Sprintf("T-%d", i)
		f.order(ext, "buyer@example.com")
		res := f.write(f.issue("invitation", ext, "1"), row("1", map[string]any{"rating": i}))
		if res.Status != 201 {
			t.Fatalf("write: %s", res)
		}
		w := res.JSON["reviews"].([]any)[0].(map[string]any)
		if w["state"] != "published" || w["receipt"] == "" {
			t.Fatalf("written review: %v", w)
		}
		ids, receipts = append(ids, w["id"].(string)), append(receipts, w["receipt"].(string))
	}
	f.sign()
	size5, root5 := f.checkpoint()
	if size5 != 5 {
		t.Fatalf("checkpoint size %d, want 5", size5)
	}
	f.decide(ids[0], reviews.EventReject, "profanity")
	f.decide(ids[1], reviews.EventHide, "asked by Ayşe Yılmaz") // free text is never logged
	f.decide(ids[1], reviews.EventUnhide, "")
	f.decide(ids[2], reviews.EventRemove, "fake")
	f.sign()
	size, root := f.checkpoint()
	if size != 9 {
		t.Fatalf("checkpoint size %d, want 9", size)
	}

	st, hd, body := f.logGet("/v1/transparency/entries?start=0&end=9")
	if st != 200 || !strings.HasPrefix(hd.Get("Content-Type"), "application/jsonl") ||
		hd.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("entries: %d %v %s", st, hd, body)
	}
	lines := bytes.SplitAfter(body, []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) != 9 {
		t.Fatalf("entries: %d lines\n%s", len(lines), body)
	}
	var leaves []h32
	var events []string
	for i, l := range lines {
		var e map[string]any
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		if int(e["index"].(float64)) != i || len(e) != 8 {
			t.Fatalf("entry %d: %s", i, l)
		}
		events = append(events, fmt.Sprintf("%s/%s/%s/%v", e["event"], e["reason"], e["actor"], e["rating"]))
		leaves = append(leaves, rfcLeaf(l))
	}
	want := []string{"published//automatic/1", "published//automatic/2", "published//automatic/3", "published//automatic/4",
		"published//automatic/5", "rejected/profanity/moderator/1", "hidden//moderator/2", "restored//moderator/2",
		"removed/fake/moderator/3"}
	if strings.Join(events, " ") != strings.Join(want, " ") {
		t.Fatalf("events\n%v\nwant\n%v", events, want)
	}
	if strings.Contains(string(body), "Ayşe") || strings.Contains(string(body), ids[0]) || strings.Contains(string(body), "SKU-1") {
		t.Fatalf("entries carry personal data or plain ids:\n%s", body)
	}
	if rfcRoot(leaves) != root || rfcRoot(leaves[:5]) != root5 {
		t.Fatalf("the entries do not hash to the signed roots")
	}

	for n := int64(1); n <= size; n++ {
		for i := int64(0); i < n; i++ {
			p := f.logJSON(fmt.Sprintf("/v1/transparency/proof/inclusion?index=%d&size=%d", i, n))
			if !rfcInclusion(i, n, leaves[i], b64s(t, p["hashes"]), rfcRoot(leaves[:n])) {
				t.Fatalf("inclusion proof of %d in %d fails: %v", i, n, p)
			}
		}
		for m := int64(1); m <= n; m++ {
			p := f.logJSON(fmt.Sprintf("/v1/transparency/proof/consistency?from=%d&to=%d", m, n))
			if !rfcConsistency(m, n, rfcRoot(leaves[:m]), rfcRoot(leaves[:n]), b64s(t, p["hashes"])) {
				t.Fatalf("consistency proof %d to %d fails: %v", m, n, p)
			}
		}
	}
	// A wrong leaf does not pass the same proof.
	p := f.logJSON("/v1/transparency/proof/inclusion?index=3&size=9")
	if rfcInclusion(3, 9, leaves[4], b64s(t, p["hashes"]), root) {
		t.Fatal("the verifier accepts a wrong leaf")
	}

	// Tiles in the tlog layout: the level-0 hash tile holds the leaf hashes, the
	// data tile the records.
	st, hd, tile := f.logGet("/v1/transparency/tile/8/0/000.p/9")
	if st != 200 || len(tile) != 9*32 || hd.Get("Cache-Control") == "public, max-age=31536000, immutable" {
		t.Fatalf("hash tile: %d %d bytes %v", st, len(tile), hd)
	}
	for i := range 9 {
		if h32(tile[i*32:(i+1)*32]) != leaves[i] {
			t.Fatalf("hash tile: hash %d is not the leaf hash", i)
		}
	}
	if st, _, data := f.logGet("/v1/transparency/tile/8/data/000.p/9"); st != 200 || !bytes.Equal(data, body) {
		t.Fatalf("data tile: %d\n%s", st, data)
	}
	// tlog's own client reads the tiles: it checks them against the signed root
	// and proves a record from them.
	thr := tlog.TileHashReader(tlog.Tree{N: size, Hash: tlog.Hash(root)}, tileReader{f})
	if p, err := tlog.ProveRecord(size, 4, thr); err != nil || tlog.CheckRecord(p, size, tlog.Hash(root), 4, tlog.Hash(leaves[4])) != nil {
		t.Fatalf("tlog over the served tiles: %v", err)
	}
	for _, path := range []string{"8/0/000.p/10", "8/0/000", "8/1/000.p/1"} {
		if st, _, b := f.logGet("/v1/transparency/tile/" + path); st != 404 {
			t.Fatalf("tile %s beyond the checkpoint: %d %s", path, st, b)
		}
	}

	// The report counts the entries by event, reason and rating.
	rep := f.logJSON("/v1/transparency/report?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z")
	evs := rep["events"].(map[string]any)
	if rep["entries"] != float64(9) || rep["size"] != float64(9) || evs["published"].(map[string]any)["4"] != float64(1) ||
		evs["rejected"].(map[string]any)["1"] != float64(1) || evs["erased"].(map[string]any)["5"] != float64(0) {
		t.Fatalf("report: %v", rep)
	}
	rs, _ := json.Marshal(rep["reasons"])
	if string(rs) != `[{"count":1,"event":"rejected","rating":1,"reason":"profanity"},{"count":1,"event":"removed","rating":3,"reason":"fake"}]` {
		t.Fatalf("report reasons: %s", rs)
	}
	if r := f.logJSON("/v1/transparency/report?from=2027-01-01T00:00:00Z&to=2028-01-01T00:00:00Z"); r["entries"] != float64(0) {
		t.Fatalf("report of an empty window: %v", r)
	}

	// The writer's receipt: the entries of the review, each proved against the
	// checkpoint, and the salt that ties the id to the hash.
	rc := f.logJSON("/v1/transparency/receipt/" + ids[1] + "?token=" + receipts[1])
	salt, _ := hex.DecodeString(rc["salt"].(string))
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(ids[1]))
	if rc["hash"] != hex.EncodeToString(m.Sum(nil)) || rc["size"] != float64(9) {
		t.Fatalf("receipt: %v", rc)
	}
	es := rc["entries"].([]any)
	if len(es) != 3 {
		t.Fatalf("receipt of a published, hidden and restored review: %v", es)
	}
	for _, x := range es {
		e := x.(map[string]any)
		raw, _ := json.Marshal(e["entry"])
		var ent struct {
			Index  int64
			Review string
		}
		_ = json.Unmarshal(raw, &ent)
		if ent.Review != rc["hash"] || !rfcInclusion(ent.Index, 9, leaves[ent.Index], b64s(t, e["hashes"]), root) {
			t.Fatalf("receipt entry %s does not prove", raw)
		}
	}
	for _, c := range []struct {
		path   string
		status int
		code   string
	}{
		{"/v1/transparency/receipt/" + ids[1] + "?token=" + receipts[0], 403, "token_refused / token_unknown"},
		{"/v1/transparency/receipt/" + ids[1], 401, "token_required / token_required"},
		{"/v1/transparency/receipt/r_aaaaaaaaaaaaaaaaaaaa?token=" + receipts[1], 403, "token_refused / token_unknown"},
		{"/v1/transparency/entries?start=x&end=3", 400, "invalid / start"},
		{"/v1/transparency/entries?start=3&end=2", 400, "invalid / end"},
		{"/v1/transparency/entries?start=0", 400, "invalid / end"},
		{"/v1/transparency/proof/inclusion?index=9&size=9", 400, "invalid / index"},
		{"/v1/transparency/proof/inclusion?index=0&size=10", 400, "invalid / size"},
		{"/v1/transparency/proof/inclusion?index=-1&size=3", 400, "invalid / index"},
		{"/v1/transparency/proof/consistency?from=0&to=3", 400, "invalid / from"},
		{"/v1/transparency/proof/consistency?from=4&to=3", 400, "invalid / from"},
		{"/v1/transparency/proof/consistency?from=1&to=10", 400, "invalid / to"},
		{"/v1/transparency/report?from=yesterday", 400, "invalid / from"},
		{"/v1/transparency/report?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", 400, "invalid / to"},
		{"/v1/transparency/tile/8/0/00", 400, "invalid / tile"},
		{"/v1/transparency/tile/4/0/000.p/3", 400, "invalid / tile"},
	} {
		st, _, b := f.logGet(c.path)
		var e map[string]string
		_ = json.Unmarshal(b, &e)
		got := e["error"]
		if e["detail"] != "" {
			got += " / " + e["detail"]
		}
		if st != c.status || got != c.code {
			t.Errorf("GET %s: %d %s, want %d %s", c.path, st, b, c.status, c.code)
		}
	}
	// Entries are cut at 1000 and at the checkpoint.
	// and a page cut short may grow: it is not cached for long.
	if _, hd, b := f.logGet("/v1/transparency/entries?start=7&end=5000"); bytes.Count(b, []byte("\n")) != 2 ||
		hd.Get("Cache-Control") != "public, max-age=10" {
		t.Fatalf("entries past the checkpoint: %v %s", hd, b)
	}
}

// TestTransparencyReadLimit: entry pages and tiles have a per-IP allowance of
// their own, ten times the other routes', so a full audit is not held back; the
// other routes stop at theirs.
func TestTransparencyReadLimit(t *testing.T) {
	f := newFx(t)
	f.sign()
	for i := 0; i < storefront.TransparencyPerMinute+100; i++ {
		if st, _, b := f.logGet("/v1/transparency/entries?start=0&end=0"); st != 200 {
			t.Fatalf("entries request %d: %d %s", i+1, st, b)
		}
	}
	if st, _, b := f.logGet("/v1/transparency/tile/8/0/000.p/1"); st == 429 {
		t.Fatalf("tile after %d entry pages: %d %s", storefront.TransparencyPerMinute+100, st, b)
	}
	for i := 0; i < storefront.TransparencyPerMinute; i++ {
		if st, _, b := f.logGet("/v1/transparency/checkpoint"); st != 200 {
			t.Fatalf("checkpoint request %d: %d %s", i+1, st, b)
		}
	}
	if st, _, b := f.logGet("/v1/transparency/checkpoint"); st != 429 || !bytes.Contains(b, []byte("rate_limited")) {
		t.Fatalf("checkpoint past the limit: %d %s", st, b)
	}
}

// TestTransparencyErasure: an erasure is logged under the review's salt, then
// the salt is deleted: the entries stay, the receipt is refused and nothing ties
// them to the review any more.
func TestTransparencyErasure(t *testing.T) {
	f := newFx(t)
	f.order("E-1", "buyer@example.com")
	res := f.write(f.issue("invitation", "E-1", "1"), row("1", map[string]any{"rating": 2}))
	w := res.JSON["reviews"].([]any)[0].(map[string]any)
	id, receipt := w["id"].(string), w["receipt"].(string)
	erase := func() {
		t.Helper()
		if err := f.App.DB.WithTx(ctx, func(tx *store.Tx) error {
			_, err := f.App.Reviews.EraseReviewAuthor(ctx, tx, core.Console(), f.review(id), nil, true)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	erase()
	erase() // a second request about the same person adds no entry
	r := f.review(id)
	f.sign()
	_, _, body := f.logGet("/v1/transparency/entries?start=0&end=10")
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"event":"erased","reason":"data_subject_request","actor":"erasure"`) {
		t.Fatalf("entries after an erasure:\n%s", body)
	}
	var e0, e1 map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &e0)
	_ = json.Unmarshal([]byte(lines[1]), &e1)
	if e0["review"] != e1["review"] {
		t.Fatalf("the erasure entry is not under the review's hash: %s", body)
	}
	if salt, err := f.App.DB.Read().TransparencySalt(ctx, r.ID); err != nil || salt != nil {
		t.Fatalf("salt after erasure: %x %v", salt, err)
	}
	if st, _, b := f.logGet("/v1/transparency/receipt/" + id + "?token=" + receipt); st != 403 {
		t.Fatalf("receipt after erasure: %d %s", st, b)
	}
	// A later decision about the erased review is logged, under a hash that ties it
	// to nothing.
	f.decide(id, reviews.EventRemove, "legal_order")
	f.sign()
	_, _, body = f.logGet("/v1/transparency/entries?start=0&end=10")
	lines = strings.Split(strings.TrimSpace(string(body)), "\n")
	var e2 map[string]any
	if len(lines) == 3 {
		_ = json.Unmarshal([]byte(lines[2]), &e2)
	}
	if e2["event"] != "removed" || e2["review"] == e0["review"] {
		t.Fatalf("entries after removing an erased review:\n%s", body)
	}
}

// TestTransparencyHeldReview: a review held for approval changes nothing a shopper
// sees, so the log stays empty; its receipt lists no entries yet.
func TestTransparencyHeldReview(t *testing.T) {
	f := newFx(t)
	f.setMethod("manual")
	f.order("H-1", "buyer@example.com")
	res := f.write(f.issue("invitation", "H-1", "1"), row("1"))
	w := res.JSON["reviews"].([]any)[0].(map[string]any)
	if w["state"] != "pending" || len(w) != 4 {
		t.Fatalf("written review: %v", w)
	}
	f.sign()
	if size, _ := f.checkpoint(); size != 0 {
		t.Fatalf("log of a held review: %d entries", size)
	}
	rc := f.logJSON("/v1/transparency/receipt/" + w["id"].(string) + "?token=" + w["receipt"].(string))
	if len(rc["entries"].([]any)) != 0 {
		t.Fatalf("receipt: %v", rc)
	}
	f.decide(w["id"].(string), reviews.EventApprove, "")
	// Logged, not yet in a checkpoint (nor keyed by the signer): listed without proof.
	rc = f.logJSON("/v1/transparency/receipt/" + w["id"].(string) + "?token=" + w["receipt"].(string))
	if es := rc["entries"].([]any); len(es) != 1 || !strings.Contains(fmt.Sprint(es[0]), "event:published") ||
		es[0].(map[string]any)["hashes"] != nil {
		t.Fatalf("receipt before the next checkpoint: %v", rc)
	}
	f.sign()
	rc = f.logJSON("/v1/transparency/receipt/" + w["id"].(string) + "?token=" + w["receipt"].(string))
	if es := rc["entries"].([]any); len(es) != 1 || !strings.Contains(fmt.Sprint(es[0]), "event:published") ||
		!strings.Contains(fmt.Sprint(es[0]), "actor:moderator") {
		t.Fatalf("receipt after approval: %v", rc)
	}
}
