package storefront_test

import (
	"regexp"
	"strings"
	"testing"

	"reviewd/app/core/readmodel"
)

// TestSSRWording: counted labels take the language's plural form ("1 review",
// "1 star", "2 stars"); an untitled review gets no heading of its stars (its
// article is named by its author), a titled one keeps its title as heading.
func TestSSRWording(t *testing.T) {
	f := newFx(t)
	f.seed(seedRev{rating: 1, title: "", author: "Ayşe Yılmaz", lang: "en"})
	res := f.ssr("product=SKU-1&name=Mug&lang=en", nil)
	if res.Status != 200 {
		t.Fatalf("ssr: %s", res)
	}
	html, _ := res.JSON["html"].(string)
	for _, want := range []string{">1 review<", `aria-label="1 star: 1"`, `aria-label="2 stars: 0"`} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %s", want)
		}
	}
	for _, bad := range []string{"1 reviews", "1 stars"} {
		if strings.Contains(html, bad) {
			t.Errorf("html has %q", bad)
		}
	}
	if regexp.MustCompile(`<h3 class="rvw-review-title"[^>]*>[^<]*out of 5 stars`).MatchString(html) {
		t.Fatalf("an untitled review is headed by its stars: %s", html)
	}
	id := regexp.MustCompile(`<article aria-labelledby="([^"]+)"`).FindStringSubmatch(html)
	if id == nil || !strings.Contains(html, `id="`+id[1]+`">Ayşe Yılmaz<`) {
		t.Fatalf("the untitled review's article is not named by its author: %v", id)
	}
	f.seed(seedRev{variant: "SKU-2", title: "Lovely glaze", lang: "en"})
	html, _ = f.ssr("product=SKU-2&name=Mug&lang=en", nil).JSON["html"].(string)
	if !regexp.MustCompile(`<article aria-labelledby="([^"]+)-h"`).MatchString(html) || !strings.Contains(html, `-h">Lovely glaze</h3>`) {
		t.Fatalf("titled review heading: %s", html)
	}
	// Turkish counts take no plural.
	if got := readmodel.CountWord("tr", "filter_rating", 1); got != "1 yıldız" {
		t.Fatalf("tr: %q", got)
	}
}

// TestThemeBars: the rating histogram and rating-topic bars are drawn in the
// theme's colours (custom properties every theme sets), not the browser's meter.
func TestThemeBars(t *testing.T) {
	css := string(readmodel.StaticCSS)
	for _, want := range []string{
		".rvw meter{-webkit-appearance:none;appearance:none;background:var(--rvw-star-off)",
		".rvw meter::-webkit-meter-optimum-value,.rvw meter::-webkit-meter-suboptimum-value,.rvw meter::-webkit-meter-even-less-good-value{background:var(--rvw-star)",
		".rvw meter::-moz-meter-bar{background:var(--rvw-star)",
		".rvw-aspect meter::-moz-meter-bar{background:var(--rvw-accent)}",
	} {
		if !strings.Contains(css, want) {
			t.Errorf("reviews.css lacks %s", want)
		}
	}
}
