package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// AuditFileInput is the body of POST /admin/v1/audit-file: market, channel, start,
// end. Neither market nor channel: every channel; market only: its channels;
// channel: that channel (its market is taken from it). start and end are RFC 3339
// times or dates (YYYY-MM-DD); the period runs from start up to end, and a date as
// end includes that whole day.
type AuditFileInput struct {
	Market  string `json:"market"`
	Channel string `json:"channel"`
	Start   string `json:"start"`
	End     string `json:"end"`
}

// AuditFileRow is a stored audit report.
type AuditFileRow struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"`
	Market    string    `json:"market"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	CreatedAt time.Time `json:"created_at"`
}

// AuditFilePublicID is the id clients see.
func AuditFilePublicID(id int64) string { return "af_" + strconv.FormatInt(id, 10) }

func parseAuditFileID(s string) (int64, bool) { return core.ParseID("af_", s) }

var reMarket = regexp.MustCompile(`^[A-Z]{2}$`)

// MaxAuditPeriod is the longest period of one audit file.
const MaxAuditPeriod = 3 * 366 * 24 * time.Hour

// parsePeriodTime reads an RFC 3339 time or a date; a date as end means the end of
// that day.
func parsePeriodTime(s string, end bool) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), true
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, false
	}
	if end {
		t = t.AddDate(0, 0, 1)
	}
	return t, true
}

func fileRow(f store.AuditFile) AuditFileRow {
	return AuditFileRow{ID: AuditFilePublicID(f.ID), Channel: f.Channel, Market: f.Market, Start: f.Start.UTC(), End: f.End.UTC(),
		CreatedAt: f.CreatedAt.UTC()}
}

// CreateAuditFile stores an audit report's scope (POST /admin/v1/audit-file).
// Errors: invalid / market (not two upper-case letters), channel (unknown),
// channel_market_mismatch, start, end (missing, unreadable, not after start, or a
// period over three years).
func (s *Service) CreateAuditFile(ctx context.Context, a *core.Actor, in AuditFileInput) (AuditFileRow, error) {
	if in.Market != "" && !reMarket.MatchString(in.Market) {
		return AuditFileRow{}, core.Invalid("market")
	}
	ch, err := core.ChannelFilter(ctx, s.DB.Read(), in.Channel, in.Market)
	if err != nil {
		return AuditFileRow{}, err
	}
	f := store.AuditFile{Channel: ch.Code, Market: in.Market, CreatedBy: a.Name}
	if ch.ID != 0 {
		f.Market = ch.Market
	}
	var ok bool
	if f.Start, ok = parsePeriodTime(in.Start, false); !ok {
		return AuditFileRow{}, core.Invalid("start")
	}
	if f.End, ok = parsePeriodTime(in.End, true); !ok || !f.End.After(f.Start) || f.End.Sub(f.Start) > MaxAuditPeriod {
		return AuditFileRow{}, core.Invalid("end")
	}
	err = s.DB.WithTx(ctx, func(tx *store.Tx) error {
		if f, err = tx.CreateAuditFile(ctx, f); err != nil {
			return err
		}
		return core.WriteActivity(ctx, tx, s.Keys, a, "audit_file.created", "audit_file", AuditFilePublicID(f.ID),
			map[string]any{"channel": f.Channel, "market": f.Market, "start": utc(f.Start), "end": utc(f.End)})
	})
	return fileRow(f), err
}

// The audit file document. Every list is in a fixed order and every time is
// RFC 3339 UTC, so the same data gives the same bytes.
type fileDoc struct {
	Report   fileReport    `json:"report"`
	Channels []fileChannel `json:"channels"`
	Summary  fileSummary   `json:"summary"`
	Reviews  []fileReview  `json:"reviews"`
}

type fileReport struct {
	ID        string `json:"id"`
	Service   string `json:"service"`
	Channel   string `json:"channel"`
	Market    string `json:"market"`
	Start     string `json:"start"`
	End       string `json:"end"`
	CreatedAt string `json:"created_at"`
}

type fileChannel struct {
	Code     string `json:"code"`
	Market   string `json:"market"`
	Language string `json:"language"`
	Label    string `json:"label"`
}

type fileSummary struct {
	Reviews   int            `json:"reviews"`
	States    map[string]int `json:"states"`
	Origins   map[string]int `json:"origins"`
	Verified  int            `json:"verified"`
	Flagged   int            `json:"flagged"`
	Moderated int            `json:"moderated"`
}

type fileReview struct {
	ID          string           `json:"id"`
	Channel     string           `json:"channel"`
	Market      string           `json:"market"`
	Language    string           `json:"language"`
	Product     string           `json:"product"`
	ProductName string           `json:"product_name"`
	Experience  string           `json:"experience"`
	Rating      int              `json:"rating"`
	Collected   fileCollected    `json:"collected"`
	Checks      []fileCheck      `json:"checks"`
	Moderation  []fileModeration `json:"moderation"`
	Shown       fileShown        `json:"shown"`
}

type fileCollected struct {
	Origin         string      `json:"origin"`
	Method         string      `json:"method"`
	Proof          string      `json:"proof"`
	OrderReference string      `json:"order_reference"`
	SubmittedAt    string      `json:"submitted_at"`
	Source         *fileSource `json:"source"`
}

type fileSource struct {
	Platform string `json:"platform"`
	Name     string `json:"name"`
	ReviewID string `json:"review_id"`
	URL      string `json:"url"`
}

type fileCheck struct {
	Kind       string `json:"kind"`
	Outcome    string `json:"outcome"`
	Finding    string `json:"finding"`
	Field      string `json:"field"`
	At         string `json:"at"`
	Resolution string `json:"resolution"`
	ResolvedAt string `json:"resolved_at"`
}

type fileModeration struct {
	Event     string `json:"event"`
	From      string `json:"from"`
	To        string `json:"to"`
	Reason    string `json:"reason"`
	ActorType string `json:"actor_type"`
	Actor     string `json:"actor"`
	At        string `json:"at"`
}

type fileShown struct {
	State       string `json:"state"`
	PublishedAt string `json:"published_at"`
	ReturnedAt  string `json:"returned_at"`
	NameHidden  bool   `json:"name_hidden"`
	Anonymized  bool   `json:"anonymized"`
	Media       int    `json:"media"`
}

// collectionMethod names how a review came in: the kind of review link it was
// written with, or imported.
func collectionMethod(r store.AuditReview) string {
	switch {
	case r.Origin == core.OriginImported:
		return "imported"
	case r.TokenKind != "":
		return r.TokenKind + "_link"
	}
	return "order_check"
}

// buildFile reads the audit file document of f.
func (s *Service) buildFile(ctx context.Context, f store.AuditFile) (fileDoc, error) {
	q := s.DB.Read()
	doc := fileDoc{Report: fileReport{ID: AuditFilePublicID(f.ID), Service: s.PublicURL, Channel: f.Channel, Market: f.Market,
		Start: utc(f.Start), End: utc(f.End), CreatedAt: utc(f.CreatedAt)}, Channels: []fileChannel{}, Reviews: []fileReview{},
		Summary: fileSummary{States: map[string]int{}, Origins: map[string]int{}}}
	chans, err := q.ListChannels(ctx)
	if err != nil {
		return doc, err
	}
	var ids []int64
	for _, c := range chans {
		if (f.Channel != "" && c.Code != f.Channel) || (f.Market != "" && c.Market != f.Market) {
			continue
		}
		ids = append(ids, c.ID)
		doc.Channels = append(doc.Channels, fileChannel{Code: c.Code, Market: c.Market, Language: c.Language, Label: c.Label})
	}
	if len(ids) == 0 {
		return doc, nil
	}
	rows, err := q.AuditReviews(ctx, ids, f.Start, f.End)
	if err != nil || len(rows) == 0 {
		return doc, err
	}
	reviewIDs := make([]int64, len(rows))
	for i, r := range rows {
		reviewIDs[i] = r.ID
	}
	checks, err := q.ChecksOfReviews(ctx, reviewIDs)
	if err != nil {
		return doc, err
	}
	events, err := q.EventsOfReviews(ctx, reviewIDs)
	if err != nil {
		return doc, err
	}
	media, err := q.MediaOfReviews(ctx, reviewIDs)
	if err != nil {
		return doc, err
	}
	checksOf, eventsOf, mediaOf := map[int64][]fileCheck{}, map[int64][]fileModeration{}, map[int64]int{}
	for _, c := range checks {
		checksOf[c.ReviewID] = append(checksOf[c.ReviewID], fileCheck{Kind: c.Kind, Outcome: c.Outcome, Finding: c.Finding,
			Field: c.Field, At: utc(c.At), Resolution: c.Resolution, ResolvedAt: utc(c.ResolvedAt)})
	}
	for _, e := range events {
		eventsOf[e.ReviewID] = append(eventsOf[e.ReviewID], fileModeration{Event: e.Event, From: e.FromState, To: e.ToState,
			Reason: e.Reason, ActorType: e.ActorType, Actor: e.ActorName, At: utc(e.At)})
	}
	for _, m := range media {
		if m.State == store.MediaReady {
			mediaOf[m.ReviewID]++
		}
	}
	for _, r := range rows {
		fr := fileReview{ID: r.PublicID, Channel: r.ChannelCode, Market: r.Market, Language: r.Language, Product: r.VariantKey,
			ProductName: r.ProductName, Experience: r.Experience, Rating: r.Rating,
			Collected: fileCollected{Origin: r.Origin, Method: collectionMethod(r), Proof: r.VerificationMethod,
				OrderReference: r.OrderRef, SubmittedAt: utc(r.SubmittedAt)},
			Checks: checksOf[r.ID], Moderation: eventsOf[r.ID],
			Shown: fileShown{State: r.State, PublishedAt: utc(r.PublishedAt), ReturnedAt: utc(r.ReturnedAt), NameHidden: r.HideName,
				Anonymized: !r.AnonymizedAt.IsZero(), Media: mediaOf[r.ID]}}
		if r.OrderErased && r.OrderID != 0 {
			fr.Collected.OrderReference = s.Keys.ErasedOrderRef(r.OrderID)
		}
		if r.Origin == core.OriginImported {
			fr.Collected.Source = &fileSource{Platform: r.SourcePlatform, Name: r.SourceName, ReviewID: r.SourceReviewID, URL: r.SourceURL}
		}
		if fr.Checks == nil {
			fr.Checks = []fileCheck{}
		}
		if fr.Moderation == nil {
			fr.Moderation = []fileModeration{}
		}
		doc.Reviews = append(doc.Reviews, fr)
		doc.Summary.Reviews++
		doc.Summary.States[r.State]++
		doc.Summary.Origins[r.Origin]++
		if r.VerificationMethod != "" {
			doc.Summary.Verified++
		}
		for _, c := range fr.Checks {
			if c.Outcome == "flagged" {
				doc.Summary.Flagged++
				break
			}
		}
		for _, e := range fr.Moderation {
			if e.ActorType == core.ViaSession || e.ActorType == core.ViaAPIKey || e.ActorType == core.ViaConsole {
				doc.Summary.Moderated++
				break
			}
		}
	}
	return doc, nil
}

// DownloadAuditFile builds a stored audit report (GET /admin/v1/audit-file/<id>)
// as json, csv or xlsx (invalid / format). The file's Fingerprint, the verification
// code, is the SHA-256 of the JSON form, whatever the format: the same data gives
// the same bytes and the same code, and any change to a review of the period
// changes it. The download is recorded as audit_file.downloaded. Unknown ids: 404.
func (s *Service) DownloadAuditFile(ctx context.Context, a *core.Actor, publicID, format string) (File, error) {
	if format == "" {
		format = FormatJSON
	}
	if !ValidFormat(format) {
		return File{}, core.Invalid("format")
	}
	id, ok := parseAuditFileID(publicID)
	if !ok {
		return File{}, core.ErrNotFound
	}
	f, err := s.DB.Read().AuditFileByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return File{}, core.ErrNotFound
	}
	if err != nil {
		return File{}, err
	}
	doc, err := s.buildFile(ctx, f)
	if err != nil {
		return File{}, err
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return File{}, err
	}
	sum := sha256.Sum256(body)
	fp := hex.EncodeToString(sum[:])
	name := "audit-file-" + AuditFilePublicID(f.ID)
	var out File
	if format == FormatJSON {
		out = File{Name: name + ".json", ContentType: "application/json; charset=utf-8", Body: body}
	} else if out, err = Build(format, name, nil, fileTables(doc, fp)...); err != nil {
		return out, err
	}
	out.Fingerprint = fp
	err = s.record(ctx, a, "audit_file.downloaded", "audit_file", AuditFilePublicID(f.ID),
		map[string]any{"format": format, "fingerprint": fp, "reviews": doc.Summary.Reviews})
	return out, err
}

// fileTables lays the document out as tables: one row per review (the CSV), and in
// Excel also the checks, the moderation steps and the report with its fingerprint.
func fileTables(doc fileDoc, fp string) []Table {
	reviews := Table{Sheet: "reviews", Header: []string{"review_id", "channel", "market", "language", "product", "product_name",
		"experience", "rating", "origin", "collection_method", "proof", "order_reference", "source_platform", "source_review_id",
		"submitted_at", "checks", "flagged", "moderation", "state", "published_at", "returned_at", "name_hidden", "anonymized",
		"media"}, Rows: [][]string{}}
	checks := Table{Sheet: "checks", Header: []string{"review_id", "kind", "outcome", "finding", "field", "at", "resolution",
		"resolved_at"}, Rows: [][]string{}}
	steps := Table{Sheet: "moderation", Header: []string{"review_id", "event", "from", "to", "reason", "actor_type", "actor",
		"at"}, Rows: [][]string{}}
	for _, r := range doc.Reviews {
		var cs, ms []string
		flagged := false
		for _, c := range r.Checks {
			cs = append(cs, c.Kind+":"+c.Outcome)
			flagged = flagged || c.Outcome == "flagged"
			checks.Rows = append(checks.Rows, []string{r.ID, c.Kind, c.Outcome, c.Finding, c.Field, c.At, c.Resolution, c.ResolvedAt})
		}
		for _, e := range r.Moderation {
			ms = append(ms, e.At+" "+e.Event+" "+e.From+">"+e.To)
			steps.Rows = append(steps.Rows, []string{r.ID, e.Event, e.From, e.To, e.Reason, e.ActorType, e.Actor, e.At})
		}
		src := fileSource{}
		if r.Collected.Source != nil {
			src = *r.Collected.Source
		}
		reviews.Rows = append(reviews.Rows, []string{r.ID, r.Channel, r.Market, r.Language, r.Product, r.ProductName, r.Experience,
			strconv.Itoa(r.Rating), r.Collected.Origin, r.Collected.Method, r.Collected.Proof, r.Collected.OrderReference,
			src.Platform, src.ReviewID, r.Collected.SubmittedAt, strings.Join(cs, "; "), strconv.FormatBool(flagged),
			strings.Join(ms, "; "), r.Shown.State, r.Shown.PublishedAt, r.Shown.ReturnedAt, strconv.FormatBool(r.Shown.NameHidden),
			strconv.FormatBool(r.Shown.Anonymized), strconv.Itoa(r.Shown.Media)})
	}
	rep := doc.Report
	report := Table{Sheet: "report", Header: []string{"field", "value"}, Rows: [][]string{{"id", rep.ID}, {"service", rep.Service},
		{"channel", rep.Channel}, {"market", rep.Market}, {"start", rep.Start}, {"end", rep.End}, {"created_at", rep.CreatedAt},
		{"reviews", strconv.Itoa(doc.Summary.Reviews)}, {"fingerprint", fp}}}
	return []Table{reviews, checks, steps, report}
}
