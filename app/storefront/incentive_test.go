package storefront_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app/core/readmodel"
)

// TestIncentiveLabel: an incentivised review carries incentivized and its
// localised label in the list answer and a labelled badge in the ready HTML;
// a review without an incentive has neither (its row is as before).
func TestIncentiveLabel(t *testing.T) {
	f := newFx(t)
	r := f.seed(seedRev{rating: 5, title: "Harika", ago: time.Hour, incentive: true},
		seedRev{rating: 4, title: "İyi", ago: 2 * time.Hour})
	list := f.Do("GET", "/v1/reviews/list?channel=web&product=SKU-1", nil, map[string]string{"Authorization": "Bearer " + f.server})
	if list.Status != 200 {
		t.Fatalf("list: %s", list.Body)
	}
	rows := map[string]map[string]any{}
	for _, it := range list.JSON["reviews"].([]any) {
		row := it.(map[string]any)
		rows[row["id"].(string)] = row
	}
	const tr = "Teşvikli yorum: yorum karşılığında avantaj sağlandı"
	if row := rows[r[0]]; row["incentivized"] != true || row["incentive_label"] != tr {
		t.Fatalf("incentivised row: %v", row)
	}
	if row := rows[r[1]]; row == nil || row["incentivized"] != nil || row["incentive_label"] != nil {
		t.Fatalf("plain row: %v", row)
	}
	html := f.mustSSR("product=SKU-1").JSON["html"].(string)
	if strings.Count(html, `data-review-badge="incentivized"`) != 1 ||
		!strings.Contains(html, `<span class="rvw-badge" data-review-badge="incentivized">`+tr+`</span>`) {
		t.Fatalf("ssr html lacks the incentive label: %s", html)
	}
	// The page script draws the same badge from the row, within its budget of
	// 16 KB gzipped.
	loader := f.Do("GET", "/v1/widget.js", nil, nil)
	m := regexp.MustCompile(`"\.\./assets/([0-9a-f]{16})/reviews\.js"`).FindSubmatch(loader.Body)
	if m == nil {
		t.Fatalf("loader: %s", loader.Body)
	}
	js := f.Do("GET", "/assets/"+string(m[1])+"/reviews.js", nil, map[string]string{"Accept-Encoding": "gzip"})
	if js.Header.Get("Content-Encoding") != "gzip" || len(js.Body) > 16<<10 {
		t.Fatalf("script: %d bytes gzipped (%v)", len(js.Body), js.Header)
	}
	plain := string(f.Do("GET", "/assets/"+string(m[1])+"/reviews.js", nil, nil).Body)
	if !strings.Contains(plain, `data-review-badge="incentivized">${esc(r.incentive_label)}`) {
		t.Fatal("the page script does not draw the incentive label")
	}
	if readmodel.IncentiveLabel("en") != "Incentivised review: a benefit was offered for reviewing" {
		t.Fatal("en label")
	}
}
