package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/store"
)

// MaxExportRows is the most entries one audit-log export holds (spec 3 limits).
const MaxExportRows = 10000

// AuditFilter is the query of the audit log beside the list contract: action,
// actor (id or name), via (how the actor came: session, api_key, console, ...),
// target_type, target_id, from and to (RFC 3339; to is exclusive) and sessions
// (sign-ins are listed only when set).
type AuditFilter struct {
	Action     string `json:"action"`
	Actor      string `json:"actor"`
	Via        string `json:"via"`
	TargetType string `json:"target_type"`
	TargetID   string `json:"target_id"`
	From       string `json:"from"`
	To         string `json:"to"`
	Q          string `json:"q"`
	Sessions   bool   `json:"sessions"`
}

func (f AuditFilter) store() (store.AuditFilter, error) {
	sf := store.AuditFilter{Action: f.Action, Actor: f.Actor, Via: f.Via, TargetType: f.TargetType, TargetID: f.TargetID,
		Q: f.Q, Sessions: f.Sessions}
	for _, v := range []struct {
		name, s string
		t       *time.Time
	}{{"from", f.From, &sf.From}, {"to", f.To, &sf.To}} {
		if v.s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, v.s)
		if err != nil {
			return sf, core.Invalid(v.name)
		}
		*v.t = t
	}
	for name, v := range map[string]string{"action": f.Action, "actor": f.Actor, "via": f.Via, "target_type": f.TargetType,
		"target_id": f.TargetID, "q": f.Q} {
		if utf8.RuneCountInString(v) > 200 || !core.StorableText(v) {
			return sf, core.Invalid(name)
		}
	}
	return sf, nil
}

// AuditRow is one activity-history entry as the audit log shows it.
type AuditRow struct {
	ID         int64           `json:"id"`
	At         time.Time       `json:"at"`
	Action     string          `json:"action"`
	Via        string          `json:"via"`
	ActorID    string          `json:"actor_id"`
	ActorName  string          `json:"actor_name"`
	TargetType string          `json:"target_type"`
	TargetID   string          `json:"target_id"`
	Changes    json.RawMessage `json:"changes"`
	RequestID  string          `json:"request_id"`
	IPHash     string          `json:"ip_hash"`
	UserAgent  string          `json:"user_agent"`
}

func auditRow(a store.Activity) AuditRow {
	d := json.RawMessage(a.Detail)
	if !json.Valid(d) {
		d = json.RawMessage("{}")
	}
	return AuditRow{ID: a.ID, At: a.At.UTC(), Action: a.Action, Via: a.ActorType, ActorID: a.ActorID, ActorName: a.ActorName,
		TargetType: a.TargetType, TargetID: a.TargetID, Changes: d, RequestID: a.RequestID, IPHash: a.IPHash, UserAgent: a.UserAgent}
}

// AuditPage is one page of the audit log.
type AuditPage struct {
	Items    []AuditRow `json:"items"`
	Total    int        `json:"total"`
	Page     int        `json:"page"`
	Pages    int        `json:"pages"`
	PageSize int        `json:"page_size"`
}

// AuditLog lists the activity history, newest first (sort oldest reverses). Panel
// sign-ins (session.*) are listed only with f.Sessions. Bad filters: invalid /
// <name>.
func (s *Service) AuditLog(ctx context.Context, l core.ListQuery, f AuditFilter) (AuditPage, error) {
	sf, err := f.store()
	if err != nil {
		return AuditPage{}, err
	}
	sf.Oldest, sf.Limit, sf.Offset = l.Sort == "oldest", l.PageSize, l.Offset()
	rows, total, err := s.DB.Read().ListAuditLog(ctx, sf)
	if err != nil {
		return AuditPage{}, err
	}
	p := AuditPage{Items: []AuditRow{}, Total: total, Page: l.Page, Pages: core.PageCount(total, l.PageSize), PageSize: l.PageSize}
	for _, a := range rows {
		p.Items = append(p.Items, auditRow(a))
	}
	return p, nil
}

// auditColumns are the columns of an audit-log export, in order; changes (the
// entry's detail) is added only when asked for.
var auditColumns = []string{"id", "at", "action", "via", "actor_id", "actor_name", "target_type", "target_id", "request_id",
	"ip_hash", "user_agent"}

func (r AuditRow) cell(col string) string {
	switch col {
	case "id":
		return strconv.FormatInt(r.ID, 10)
	case "at":
		return utc(r.At)
	case "action":
		return r.Action
	case "via":
		return r.Via
	case "actor_id":
		return r.ActorID
	case "actor_name":
		return r.ActorName
	case "target_type":
		return r.TargetType
	case "target_id":
		return r.TargetID
	case "request_id":
		return r.RequestID
	case "ip_hash":
		return r.IPHash
	case "user_agent":
		return r.UserAgent
	case "changes":
		return string(r.Changes)
	}
	return ""
}

// ExportInput is the body of POST /admin/v1/audit-log/export. Every field is
// optional: format csv (default), xlsx or json; title (up to 200 characters);
// filters as the list's query; columns (a subset of the row's columns, in the
// order wanted); labels (column -> header text); changes (add each entry's
// changes); rows (the ids of chosen entries; without it every entry the filters
// select).
type ExportInput struct {
	Format  string          `json:"format"`
	Title   string          `json:"title"`
	Filters json.RawMessage `json:"filters"`
	Columns json.RawMessage `json:"columns"`
	Labels  json.RawMessage `json:"labels"`
	Changes json.RawMessage `json:"changes"`
	Rows    json.RawMessage `json:"rows"`
}

// exportPlan is a checked ExportInput.
type exportPlan struct {
	format, title string
	filter        store.AuditFilter
	columns       []string
	labels        map[string]string
}

func (in ExportInput) plan() (exportPlan, error) {
	p := exportPlan{format: in.Format, title: core.SingleLine(in.Title), labels: map[string]string{}}
	if p.format == "" {
		p.format = FormatCSV
	}
	if !ValidFormat(p.format) {
		return p, core.Invalid("format")
	}
	if utf8.RuneCountInString(p.title) > 200 || !core.StorableText(p.title) {
		return p, core.Invalid("title")
	}
	if p.title == "" {
		p.title = "Audit log"
	}
	var f AuditFilter
	if !core.IsNull(in.Filters) {
		dec := json.NewDecoder(bytes.NewReader(in.Filters))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return p, core.Invalid("filters")
		}
	}
	var err error
	if p.filter, err = f.store(); err != nil {
		return p, core.Invalid("filters")
	}
	changes := false
	if !core.IsNull(in.Changes) && json.Unmarshal(in.Changes, &changes) != nil {
		return p, core.Invalid("changes")
	}
	known := append(slices.Clone(auditColumns), "changes")
	if core.IsNull(in.Columns) {
		p.columns = slices.Clone(auditColumns)
	} else if json.Unmarshal(in.Columns, &p.columns) != nil || len(p.columns) == 0 || len(p.columns) > len(known) {
		return p, core.Invalid("columns")
	}
	for i, c := range p.columns {
		if !slices.Contains(known, c) || slices.Contains(p.columns[:i], c) {
			return p, core.Invalid("columns")
		}
	}
	if changes && !slices.Contains(p.columns, "changes") {
		p.columns = append(p.columns, "changes")
	}
	if !core.IsNull(in.Labels) && json.Unmarshal(in.Labels, &p.labels) != nil {
		return p, core.Invalid("labels")
	}
	for k, v := range p.labels {
		if !slices.Contains(p.columns, k) || utf8.RuneCountInString(v) > 100 || !core.StorableText(v) {
			return p, core.Invalid("labels")
		}
	}
	if !core.IsNull(in.Rows) {
		var ids []json.Number
		dec := json.NewDecoder(bytes.NewReader(in.Rows))
		dec.UseNumber()
		if dec.Decode(&ids) != nil || len(ids) == 0 {
			return p, core.Invalid("rows")
		}
		if len(ids) > MaxExportRows {
			return p, core.Invalid("rows_over_limit")
		}
		p.filter.IDs = make([]int64, 0, len(ids))
		for _, n := range ids {
			id, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil || id < 1 {
				return p, core.Invalid("rows")
			}
			p.filter.IDs = append(p.filter.IDs, id)
		}
	}
	return p, nil
}

// ExportAuditLog builds an audit-log file (POST /admin/v1/audit-log/export): the
// entries are read on the server, at most 10,000 (more: invalid / rows_over_limit;
// chosen rows that are not entries the filters select: invalid / rows). The
// download is recorded as audit_log.downloaded with the format, the row count and
// the SHA-256 fingerprint of the file, which is also the file's Fingerprint.
func (s *Service) ExportAuditLog(ctx context.Context, a *core.Actor, in ExportInput) (File, error) {
	p, err := in.plan()
	if err != nil {
		return File{}, err
	}
	q := s.DB.Read()
	n, err := q.CountAuditLog(ctx, p.filter)
	if err != nil {
		return File{}, err
	}
	if n > MaxExportRows {
		return File{}, core.Invalid("rows_over_limit")
	}
	if p.filter.IDs != nil && n != len(uniq(p.filter.IDs)) {
		return File{}, core.Invalid("rows")
	}
	p.filter.Oldest = true
	acts, _, err := q.ListAuditLog(ctx, p.filter)
	if err != nil {
		return File{}, err
	}
	label := func(c string) string {
		if l := p.labels[c]; l != "" {
			return l
		}
		return c
	}
	t := Table{Sheet: "audit-log", Rows: [][]string{}}
	type column struct {
		Key   string `json:"key"`
		Label string `json:"label"`
	}
	doc := struct {
		Title   string           `json:"title"`
		Columns []column         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}{Title: p.title, Columns: []column{}, Rows: []map[string]any{}}
	for _, c := range p.columns {
		t.Header = append(t.Header, label(c))
		doc.Columns = append(doc.Columns, column{c, label(c)})
	}
	for _, act := range acts {
		r := auditRow(act)
		cells, obj := make([]string, len(p.columns)), map[string]any{}
		for i, c := range p.columns {
			cells[i] = r.cell(c)
			switch c {
			case "id":
				obj[c] = r.ID
			case "changes":
				obj[c] = r.Changes
			default:
				obj[c] = cells[i]
			}
		}
		t.Rows = append(t.Rows, cells)
		doc.Rows = append(doc.Rows, obj)
	}
	f, err := Build(p.format, fileName(p.title), doc, t)
	if err != nil {
		return f, err
	}
	sum := sha256.Sum256(f.Body)
	f.Fingerprint = hex.EncodeToString(sum[:])
	err = s.record(ctx, a, "audit_log.downloaded", "audit_log", "", map[string]any{"format": p.format, "rows": len(acts),
		"sha256": f.Fingerprint, "title": p.title})
	return f, err
}

func uniq(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// fileName makes a download name of a title: lower-case letters, digits and
// dashes.
func fileName(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	name := strings.TrimSuffix(b.String(), "-")
	if name == "" {
		name = "audit-log"
	}
	return name
}
