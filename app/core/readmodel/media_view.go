package readmodel

import (
	"encoding/json"
	"reviewd/app/media"
	"reviewd/store"
	"strconv"
	"strings"
)

// MediaFiles lists the processed files of a media item (review_media.files).
type MediaFiles struct {
	Main             string      `json:"main"`
	Renditions       []Rendition `json:"renditions,omitempty"`
	Poster           string      `json:"poster,omitempty"`
	PosterWidth      int         `json:"poster_width,omitempty"`
	PosterRenditions []Rendition `json:"poster_renditions,omitempty"`
}

// Rendition is one resized JPEG of a photo or poster.
type Rendition struct {
	Width int    `json:"w"`
	Name  string `json:"name"`
}

// ParseMediaFiles reads review_media.files.
func ParseMediaFiles(s string) MediaFiles {
	var f MediaFiles
	_ = json.Unmarshal([]byte(s), &f)
	return f
}

// Names lists every file name.
func (f MediaFiles) Names() []string {
	var out []string
	if f.Main != "" {
		out = append(out, f.Main)
	}
	for _, r := range f.Renditions {
		out = append(out, r.Name)
	}
	if f.Poster != "" {
		out = append(out, f.Poster)
	}
	for _, r := range f.PosterRenditions {
		out = append(out, r.Name)
	}
	return out
}

// Has reports whether name is one of the files.
func (f MediaFiles) Has(name string) bool {
	for _, n := range f.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// MediaItemView is the spec's media item.
type MediaItemView struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	URL       string `json:"url"`
	Srcset    string `json:"srcset"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	AltText   string `json:"alt_text"`
	PosterURL string `json:"poster_url"`
}

// MediaItem builds the media item of a ready file; base is the address of the
// folder its files are served from, ending in "/" (PublicMediaBase, or the admin
// media address). ok is false for a file that is not ready. srcset lists the 320w,
// 640w and 1280w renditions (of the photo, or of a video's poster) that exist plus
// the stored original with its own width.
func MediaItem(m store.Media, base string) (MediaItemView, bool) {
	if m.State != store.MediaReady {
		return MediaItemView{}, false
	}
	f := ParseMediaFiles(m.Files)
	item := MediaItemView{ID: m.PublicID, Kind: m.Kind, URL: base + f.Main, Width: m.Width, Height: m.Height, AltText: m.AltText}
	set := func(rs []Rendition, main string, mainWidth int) string {
		var parts []string
		for _, r := range rs {
			parts = append(parts, base+r.Name+" "+strconv.Itoa(r.Width)+"w")
		}
		if main != "" && mainWidth > 0 {
			parts = append(parts, base+main+" "+strconv.Itoa(mainWidth)+"w")
		}
		return strings.Join(parts, ", ")
	}
	if m.Kind == media.KindVideo {
		if f.Poster != "" {
			item.PosterURL = base + f.Poster
		}
		item.Srcset = set(f.PosterRenditions, f.Poster, f.PosterWidth)
	} else {
		item.Srcset = set(f.Renditions, f.Main, m.Width)
	}
	return item, true
}

// PublicMediaBase is the public folder address of a media item's files
// ({media.public_url}/<id>/, by default {public_url}/media/<id>/); they are there
// only while its review is published.
func (c *Service) PublicMediaBase(m store.Media) string {
	if c.MediaPublicURL != "" {
		return strings.TrimRight(c.MediaPublicURL, "/") + "/" + m.PublicID + "/"
	}
	return strings.TrimRight(c.PublicURL, "/") + "/media/" + m.PublicID + "/"
}

// PublicMediaItem is MediaItem at the public address.
func (c *Service) PublicMediaItem(m store.Media) (MediaItemView, bool) {
	return MediaItem(m, c.PublicMediaBase(m))
}
