package transparency

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"reviewd/app/core"
	"reviewd/store"
)

// The public reads of /v1/transparency/ (the storefront serves them). Every read
// is of the tree of the latest checkpoint: entries, proofs and tiles beyond it
// are not served until a checkpoint covers them.

// MaxEntries is the most entries one GET /v1/transparency/entries answers.
const MaxEntries = 1000

// index reads a non-negative decimal parameter; invalid / field otherwise.
func index(field, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, core.Invalid(field)
	}
	return n, nil
}

// Entries gives the records with start <= index < end, at most MaxEntries, within
// the latest checkpoint (an end past it is cut there), concatenated: one JSON line
// each, exactly as hashed. Errors: invalid / start, end (end below start).
func (s *Service) Entries(ctx context.Context, startS, endS string) (EntriesPage, error) {
	start, err := index("start", startS)
	if err != nil {
		return EntriesPage{}, err
	}
	end, err := index("end", endS)
	if err != nil || end < start {
		return EntriesPage{}, core.Invalid("end")
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return EntriesPage{}, err
	}
	want := end
	end = min(end, start+MaxEntries, cp.Tree.N)
	if start >= end {
		return EntriesPage{Data: []byte{}}, nil
	}
	es, err := s.DB.Read().TransparencyEntries(ctx, start, end)
	if err != nil {
		return EntriesPage{}, err
	}
	var b bytes.Buffer
	for _, e := range es {
		b.Write(e.Data)
	}
	return EntriesPage{Data: b.Bytes(), Complete: end == want && int64(len(es)) == end-start}, nil
}

// EntriesPage is the answer of GET /v1/transparency/entries.
type EntriesPage struct {
	Data []byte
	// Complete is true when every entry asked for is in Data: the answer can
	// never change (an entry, once in a checkpoint, never does).
	Complete bool
}

// InclusionProof is the answer of GET /v1/transparency/proof/inclusion.
type InclusionProof struct {
	Index  int64       `json:"index"`
	Size   int64       `json:"size"`
	Hashes []tlog.Hash `json:"hashes"`
}

// ProveInclusion proves that entry index is in the tree of size (at most the
// latest checkpoint's). Errors: invalid / index (not below size), size.
func (s *Service) ProveInclusion(ctx context.Context, indexS, sizeS string) (InclusionProof, error) {
	i, err := index("index", indexS)
	if err != nil {
		return InclusionProof{}, err
	}
	n, err := index("size", sizeS)
	if err != nil {
		return InclusionProof{}, err
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return InclusionProof{}, err
	}
	if n < 1 || n > cp.Tree.N {
		return InclusionProof{}, core.Invalid("size")
	}
	if i >= n {
		return InclusionProof{}, core.Invalid("index")
	}
	p, err := tlog.ProveRecord(n, i, hashReader(ctx, s.DB.Read()))
	if err != nil {
		return InclusionProof{}, err
	}
	return InclusionProof{Index: i, Size: n, Hashes: nonNil(p)}, nil
}

// ConsistencyProof is the answer of GET /v1/transparency/proof/consistency.
type ConsistencyProof struct {
	From   int64       `json:"from"`
	To     int64       `json:"to"`
	Hashes []tlog.Hash `json:"hashes"`
}

// ProveConsistency proves that the tree of size from is a prefix of the tree of
// size to (at most the latest checkpoint's). Errors: invalid / from (0 or above
// to), to.
func (s *Service) ProveConsistency(ctx context.Context, fromS, toS string) (ConsistencyProof, error) {
	m, err := index("from", fromS)
	if err != nil {
		return ConsistencyProof{}, err
	}
	n, err := index("to", toS)
	if err != nil {
		return ConsistencyProof{}, err
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return ConsistencyProof{}, err
	}
	if n < 1 || n > cp.Tree.N {
		return ConsistencyProof{}, core.Invalid("to")
	}
	if m < 1 || m > n {
		return ConsistencyProof{}, core.Invalid("from")
	}
	p, err := tlog.ProveTree(n, m, hashReader(ctx, s.DB.Read()))
	if err != nil {
		return ConsistencyProof{}, err
	}
	return ConsistencyProof{From: m, To: n, Hashes: nonNil(p)}, nil
}

func nonNil(hs []tlog.Hash) []tlog.Hash {
	if hs == nil {
		return []tlog.Hash{}
	}
	return hs
}

// Tile is one tile of the tree: its data, and whether it is full (full tiles
// never change).
type Tile struct {
	Data []byte
	Full bool
	// Records marks a data tile (records, text) rather than hashes.
	Records bool
}

// ReadTile serves GET /v1/transparency/tile/<path> in the layout of tlog (height
// TileHeight): hash tiles and data tiles (the records, concatenated). Errors:
// invalid / tile (a path tlog.ParseTilePath refuses or of another height);
// not_found for a tile the latest checkpoint does not cover.
func (s *Service) ReadTile(ctx context.Context, path string) (Tile, error) {
	t, err := tlog.ParseTilePath("tile/" + path)
	if err != nil || t.H != TileHeight {
		return Tile{}, core.Invalid("tile")
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return Tile{}, err
	}
	end := t.N<<uint(t.H) + int64(t.W) // one past the tile's last hash, at its level
	level := max(t.L, 0) * t.H
	if end > cp.Tree.N>>uint(level) {
		return Tile{}, store.ErrNotFound
	}
	out := Tile{Full: t.W == 1<<uint(t.H)}
	if t.L == -1 {
		out.Data, err = s.records(ctx, t.N<<uint(t.H), end)
		out.Records = true
		return out, err
	}
	out.Data, err = tlog.ReadTileData(t, hashReader(ctx, s.DB.Read()))
	return out, err
}

func (s *Service) records(ctx context.Context, start, end int64) ([]byte, error) {
	es, err := s.DB.Read().TransparencyEntries(ctx, start, end)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, e := range es {
		b.Write(e.Data)
	}
	return b.Bytes(), nil
}

// Report is the answer of GET /v1/transparency/report: the entries of the latest
// checkpoint (Size) whose time is in [From, To), counted by event and rating and
// by event, reason and rating. Anyone holding the entries can compute it again
// (CountEntries).
type Report struct {
	From    string                      `json:"from"`
	To      string                      `json:"to"`
	Size    int64                       `json:"size"`
	Entries int64                       `json:"entries"`
	Events  map[string]map[string]int64 `json:"events"`
	Reasons []ReasonCount               `json:"reasons"`
}

// ReasonCount is one row of a report's reasons.
type ReasonCount struct {
	Event  string `json:"event"`
	Reason string `json:"reason"`
	Rating int    `json:"rating"`
	Count  int64  `json:"count"`
}

// ReportWindow is the window a report counts when from or to is not given: the
// 30 days before to, to being now.
const ReportWindow = 30 * 24 * time.Hour

func newReport(from, to time.Time, size int64) Report {
	r := Report{From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339), Size: size,
		Events: map[string]map[string]int64{}, Reasons: []ReasonCount{}}
	for _, e := range Events {
		r.Events[e] = map[string]int64{"1": 0, "2": 0, "3": 0, "4": 0, "5": 0}
	}
	return r
}

func (r *Report) add(event, reason string, rating int, n int64) {
	r.Entries += n
	if r.Events[event] == nil {
		r.Events[event] = map[string]int64{}
	}
	r.Events[event][strconv.Itoa(rating)] += n
	if reason == "" {
		return
	}
	for i := range r.Reasons {
		if c := &r.Reasons[i]; c.Event == event && c.Reason == reason && c.Rating == rating {
			c.Count += n
			return
		}
	}
	r.Reasons = append(r.Reasons, ReasonCount{Event: event, Reason: reason, Rating: rating, Count: n})
}

// sortReasons orders the reasons by event, reason and rating.
func (r *Report) sortReasons() {
	rs := r.Reasons
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && lessReason(rs[j], rs[j-1]); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func lessReason(a, b ReasonCount) bool {
	if a.Event != b.Event {
		return a.Event < b.Event
	}
	if a.Reason != b.Reason {
		return a.Reason < b.Reason
	}
	return a.Rating < b.Rating
}

// ParseWindow reads a report's from and to (RFC 3339; defaults: to now, from
// ReportWindow before to). Errors: invalid / from, to (to before from).
func ParseWindow(fromS, toS string, now time.Time) (time.Time, time.Time, error) {
	to := now.UTC().Truncate(time.Second)
	if toS != "" {
		t, err := time.Parse(time.RFC3339, toS)
		if err != nil {
			return time.Time{}, time.Time{}, core.Invalid("to")
		}
		to = t.UTC()
	}
	from := to.Add(-ReportWindow)
	if fromS != "" {
		t, err := time.Parse(time.RFC3339, fromS)
		if err != nil {
			return time.Time{}, time.Time{}, core.Invalid("from")
		}
		from = t.UTC()
	}
	if to.Before(from) {
		return time.Time{}, time.Time{}, core.Invalid("to")
	}
	return from, to, nil
}

// Report counts the entries of the latest checkpoint in the window.
func (s *Service) Report(ctx context.Context, fromS, toS string) (Report, error) {
	from, to, err := ParseWindow(fromS, toS, s.Clock.Now())
	if err != nil {
		return Report{}, err
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return Report{}, err
	}
	// A report over a long window reads many entries: one is counted at a time,
	// and the last few are kept (the report of a given tree and window never
	// changes).
	key := fmt.Sprintf("%d %s %d %d", cp.Tree.N, cp.Tree.Hash, from.Unix(), to.Unix())
	s.reports.Lock()
	defer s.reports.Unlock()
	if r, ok := s.reports.m[key]; ok {
		return r, nil
	}
	rows, err := s.DB.Read().TransparencyReport(ctx, cp.Tree.N, from, to)
	if err != nil {
		return Report{}, err
	}
	r := newReport(from, to, cp.Tree.N)
	for _, c := range rows {
		r.add(c.Event, c.Reason, c.Rating, c.Count)
	}
	r.sortReasons()
	if s.reports.m == nil || len(s.reports.m) >= reportsKept {
		s.reports.m = map[string]Report{}
	}
	s.reports.m[key] = r
	return r, nil
}

// reportsKept is how many reports Report keeps before it starts again.
const reportsKept = 64

// ReportCounter computes a report entry by entry (the auditor's side of Report,
// which never holds the whole log).
type ReportCounter struct {
	r        Report
	from, to time.Time
}

// NewReportCounter counts the entries below size whose time is in [from, to).
func NewReportCounter(from, to time.Time, size int64) *ReportCounter {
	return &ReportCounter{r: newReport(from, to, size), from: from, to: to}
}

// Add counts one entry when it is in the window.
func (c *ReportCounter) Add(e Entry) {
	if e.Index >= c.r.Size {
		return
	}
	at, err := time.Parse(time.RFC3339, e.At)
	if err != nil || at.Before(c.from) || !at.Before(c.to) {
		return
	}
	c.r.add(e.Event, e.Reason, e.Rating, 1)
}

// Report is the report of the entries added.
func (c *ReportCounter) Report() Report {
	c.r.sortReasons()
	return c.r
}

// CountEntries computes the report of the window over entries.
func CountEntries(entries []Entry, from, to time.Time, size int64) Report {
	c := NewReportCounter(from, to, size)
	for _, e := range entries {
		c.Add(e)
	}
	return c.Report()
}

// Receipt is the answer of GET /v1/transparency/receipt/<review id>: the review's
// entries, each with its inclusion proof against the latest checkpoint (null
// while the entry is newer than the checkpoint), and the salt that ties the
// review's id to its hash.
type Receipt struct {
	Review     string         `json:"review"`
	Hash       string         `json:"hash"`
	Salt       string         `json:"salt"`
	Checkpoint string         `json:"checkpoint"`
	Size       int64          `json:"size"`
	Entries    []ReceiptEntry `json:"entries"`
}

// ReceiptEntry is one entry of a receipt with its inclusion proof.
type ReceiptEntry struct {
	Entry  json.RawMessage `json:"entry"`
	Hashes []tlog.Hash     `json:"hashes"`
}

// errReceiptRefused answers every receipt that cannot be given: an unknown review,
// a wrong token or an erased review, alike.
var errReceiptRefused = core.E(core.StatusForbidden, "token_refused", "token_unknown")

// ReadReceipt gives a review's receipt to the holder of its receipt token.
// Errors: 401 token_required; 403 token_refused / token_unknown.
func (s *Service) ReadReceipt(ctx context.Context, publicID, token string) (Receipt, error) {
	if strings.TrimSpace(token) == "" {
		return Receipt{}, core.ErrTokenRequired
	}
	q := s.DB.Read()
	r, err := q.ReviewByPublicID(ctx, publicID)
	if errors.Is(err, store.ErrNotFound) {
		return Receipt{}, errReceiptRefused
	}
	if err != nil {
		return Receipt{}, err
	}
	salt, err := q.TransparencySalt(ctx, r.ID)
	if errors.Is(err, store.ErrNotFound) || err == nil && salt == nil {
		return Receipt{}, errReceiptRefused
	}
	if err != nil {
		return Receipt{}, err
	}
	if subtle.ConstantTimeCompare([]byte(receiptToken(salt)), []byte(token)) != 1 {
		return Receipt{}, errReceiptRefused
	}
	cp, err := s.Latest(ctx)
	if err != nil {
		return Receipt{}, err
	}
	hash := ReviewHash(salt, r.PublicID)
	es, err := q.TransparencyEntriesOf(ctx, hash)
	if err != nil {
		return Receipt{}, err
	}
	out := Receipt{Review: r.PublicID, Hash: hash, Salt: hex.EncodeToString(salt), Checkpoint: string(cp.Note),
		Size: cp.Tree.N, Entries: []ReceiptEntry{}}
	for _, e := range es {
		re := ReceiptEntry{Entry: bytes.TrimSuffix(e.Data, []byte("\n"))}
		if e.Index < cp.Tree.N {
			p, err := tlog.ProveRecord(cp.Tree.N, e.Index, hashReader(ctx, q))
			if err != nil {
				return Receipt{}, err
			}
			re.Hashes = nonNil(p)
		}
		out.Entries = append(out.Entries, re)
	}
	return out, nil
}
