package admin

import (
	"net/http"
	"strconv"

	"reviewd/app/core"
	"reviewd/app/web"
)

// readListQuery reads the shared list contract: page (default 1), page_size
// (default 25, at most 200), q (at most 200 characters) and sort (newest, the
// default, or oldest). Bad values answer 400 invalid / <parameter>.
func readListQuery(r *http.Request) (core.ListQuery, error) {
	l := core.ListQuery{Page: 1, PageSize: 25, Sort: "newest"}
	v := r.URL.Query()
	if s := v.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000 {
			return l, core.Invalid("page")
		}
		l.Page = n
	}
	if s := v.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > core.MaxPageSize {
			return l, core.Invalid("page_size")
		}
		l.PageSize = n
	}
	q, err := web.Query(r, "q")
	if err != nil || len([]rune(q)) > 200 {
		return l, core.Invalid("q")
	}
	l.Q = q
	switch s := v.Get("sort"); s {
	case "":
	case "newest", "oldest":
		l.Sort = s
	default:
		return l, core.Invalid("sort")
	}
	return l, nil
}

// writeListPage answers one page of rows held in memory, newest first, in the
// shared list contract (items, total, page, pages, page_size); sort oldest reverses
// them.
func writeListPage(w http.ResponseWriter, l core.ListQuery, rows []map[string]any) error {
	if l.Sort == "oldest" {
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
	items := []map[string]any{}
	if off := l.Offset(); off < len(rows) {
		items = rows[off:min(off+l.PageSize, len(rows))]
	}
	return web.JSON(w, http.StatusOK, map[string]any{"items": items, "total": len(rows), "page": l.Page,
		"pages": core.PageCount(len(rows), l.PageSize), "page_size": l.PageSize})
}
