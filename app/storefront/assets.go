package storefront

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/app/web"
	"reviewd/assets"
)

// The page script and its style sheet (STYLE §6). Stores embed one stable loader
// address, GET /v1/widget.js, kept for 5 minutes; it loads the script of the
// running version from GET /assets/<hash>/reviews.js, and the script takes its
// style sheet from the same folder. Files under a content hash never change, so
// they are cached for a year. Everything is embedded in the binary and compressed
// once at start; go build never needs node.

// AssetHash is the content hash of the script and the style sheet: 16 hex digits
// of the SHA-256 of both.
var AssetHash string

// assetFile is one served file with its gzip form.
type assetFile struct {
	body, gz []byte
	ctype    string
}

var (
	widgetLoader assetFile
	widgetFiles  map[string]assetFile // by file name: reviews.js, reviews.css
)

func init() {
	js := assets.PageScript()
	loader, err := assets.Widget.ReadFile("widget/loader.js")
	if err != nil {
		panic(err)
	}
	css := assets.ComponentCSS()
	sum := sha256.New()
	sum.Write(js)
	sum.Write([]byte{0})
	sum.Write(css)
	AssetHash = hex.EncodeToString(sum.Sum(nil))[:16]
	const jsType = "text/javascript; charset=utf-8"
	widgetFiles = map[string]assetFile{
		"reviews.js":  newAssetFile(js, jsType),
		"reviews.css": newAssetFile(css, "text/css; charset=utf-8"),
	}
	widgetLoader = newAssetFile(bytes.ReplaceAll(loader, []byte("{{HASH}}"), []byte(AssetHash)), jsType)
}

func newAssetFile(body []byte, ctype string) assetFile {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	return assetFile{body: body, gz: b.Bytes(), ctype: ctype}
}

// WidgetAssetPath is the content-hash address of an asset file ("reviews.js",
// "reviews.css"), for pages that link it directly.
func WidgetAssetPath(name string) string { return "/assets/" + AssetHash + "/" + name }

// handleWidgetLoader serves GET /v1/widget.js: the loader stores embed, cached for
// 5 minutes so a new version reaches every page soon after an upgrade.
func (h *Handler) handleWidgetLoader(w http.ResponseWriter, r *http.Request) error {
	serveAsset(w, r, widgetLoader, "public, max-age=300")
	return nil
}

// handleWidgetAsset serves GET /assets/<hash>/reviews.js and reviews.css. A hash
// of another version (a page cached across an upgrade) is sent, uncached, to the
// running version's address.
func (h *Handler) handleWidgetAsset(w http.ResponseWriter, r *http.Request) error {
	v := web.Vars(r)
	f, ok := widgetFiles[v["file"]]
	if !ok {
		return core.ErrNotFound
	}
	if v["hash"] != AssetHash {
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, WidgetAssetPath(v["file"]), http.StatusFound)
		return nil
	}
	serveAsset(w, r, f, "public, max-age=31536000, immutable")
	return nil
}

// serveAsset writes a file, gzip-compressed when the client accepts it.
func serveAsset(w http.ResponseWriter, r *http.Request, f assetFile, cache string) {
	hd := w.Header()
	hd.Set("Content-Type", f.ctype)
	hd.Set("Cache-Control", cache)
	hd.Set("Cross-Origin-Resource-Policy", "cross-origin")
	hd.Set("Vary", "Accept-Encoding")
	body := f.body
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		hd.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reads an Accept-Encoding header: gzip listed without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
