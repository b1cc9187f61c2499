package storefront_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestWidgetAssets: the loader with a short cache life names the content-hash
// script; the script and the style sheet under the hash are cached for a year,
// gzip-compressed on request; an old hash goes to the running version; the style
// sheet served for the server-rendered markup is the same file.
func TestWidgetAssets(t *testing.T) {
	f := newFx(t)
	loader := f.Do("GET", "/v1/widget.js", nil, nil)
	if loader.Status != 200 || loader.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		loader.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("loader: %d %v", loader.Status, loader.Header)
	}
	m := regexp.MustCompile(`"\.\./assets/([0-9a-f]{16})/reviews\.js"`).FindSubmatch(loader.Body)
	if m == nil {
		t.Fatalf("loader names no script: %s", loader.Body)
	}
	hash := string(m[1])
	for _, c := range []struct{ file, ctype, want string }{
		{"reviews.js", "text/javascript; charset=utf-8", "W.Reviewd = {"},
		{"reviews.css", "text/css; charset=utf-8", ".rvw-dialog"},
	} {
		res := f.Do("GET", "/assets/"+hash+"/"+c.file, nil, map[string]string{"Accept-Encoding": "identity"})
		if res.Status != 200 || res.Header.Get("Content-Type") != c.ctype ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			res.Header.Get("Content-Encoding") != "" || !bytes.Contains(res.Body, []byte(c.want)) {
			t.Fatalf("%s: %d %v", c.file, res.Status, res.Header)
		}
		gz := f.Do("GET", "/assets/"+hash+"/"+c.file, nil, map[string]string{"Accept-Encoding": "br, gzip"})
		zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
		if err != nil || gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%s gzip: %v %v", c.file, err, gz.Header)
		}
		if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, res.Body) {
			t.Fatalf("%s: gzip body differs", c.file)
		}
		if c.file == "reviews.css" {
			if static := f.Do("GET", "/static/reviews.css", nil, nil); !bytes.Equal(static.Body, res.Body) {
				t.Fatalf("/static/reviews.css differs from the hashed style sheet")
			}
		}
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	old, err := noFollow.Get(f.URL + "/assets/0123456789abcdef/reviews.js")
	if err != nil {
		t.Fatal(err)
	}
	old.Body.Close()
	if old.StatusCode != 302 || old.Header.Get("Location") != "/assets/"+hash+"/reviews.js" || old.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("old hash: %d %v", old.StatusCode, old.Header)
	}
	if res := f.Do("GET", "/assets/"+hash+"/other.js", nil, nil); res.Status != 404 {
		t.Fatalf("other file: want 404, got %s", res)
	}
	// The script is plain JavaScript: no eval, no cookies, no other host.
	js := string(f.Do("GET", "/assets/"+hash+"/reviews.js", nil, nil).Body)
	for _, bad := range []string{"eval(", "new Function", "document.cookie", "http://", "https://"} {
		if strings.Contains(js, bad) {
			t.Errorf("script contains %q", bad)
		}
	}
}
