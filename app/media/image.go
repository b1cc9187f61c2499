package media

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/webp"
)

// JPEG qualities of the stored files.
const (
	originalQuality  = 88
	renditionQuality = 85
)

// ImageFile is one written JPEG file.
type ImageFile struct {
	Name   string // file name inside the output folder
	Width  int
	Height int
	Bytes  int64
}

// ImageResult describes a processed photo (or a video poster).
type ImageResult struct {
	// Width and Height of the stored original, after EXIF orientation and the
	// OriginalMaxSide cap.
	Width, Height int
	// Files[0] is the original "<base>.jpg"; then the renditions "<base>-<w>.jpg" by
	// ascending width (RenditionWidths smaller than Width).
	Files []ImageFile
}

// ProcessImage decodes a jpeg, png or webp photo and writes it to outDir as JPEG
// files without any metadata (so EXIF location and device data are gone): the
// original, turned upright by its EXIF orientation and capped at OriginalMaxSide,
// and RenditionWidths renditions. Transparency is flattened on white.
//
// Errors: ErrImageTooLarge (over ImageMaxPixels, judged from the header before
// decoding), ErrImageUnreadable (not a readable jpeg, png or webp),
// ErrProcessingFailed (files could not be written), or ctx's error. On any error
// no output file is left behind.
func ProcessImage(ctx context.Context, src []byte, outDir, baseName string) (ImageResult, error) {
	if err := validBase(baseName); err != nil {
		return ImageResult{}, err
	}
	b := &batch{dir: outDir}
	res, err := processImage(ctx, src, b, baseName)
	if err != nil {
		b.abort()
		return ImageResult{}, err
	}
	if err := b.commit(); err != nil {
		return ImageResult{}, ErrProcessingFailed.because(err)
	}
	return res, nil
}

// ImageSize returns the pixel size stated in an image's header without decoding
// it, with the same refusals as ProcessImage (ErrImageUnreadable, ErrImageTooLarge).
func ImageSize(src []byte) (width, height int, err error) {
	cfg, _, err := imageConfig(src)
	return cfg.Width, cfg.Height, err
}

func imageConfig(src []byte) (image.Config, string, error) {
	kind, _, _ := Sniff(src)
	var cfg image.Config
	var err error
	switch kind {
	case TypeJPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(src))
	case TypePNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(src))
	case TypeWebP:
		cfg, err = webp.DecodeConfig(bytes.NewReader(src))
		if err == nil {
			err = checkWebPFrame(src, cfg)
		}
	default:
		return cfg, kind, becausef(ErrImageUnreadable, "type %s", kind)
	}
	if err != nil {
		return cfg, kind, ErrImageUnreadable.because(err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return cfg, kind, becausef(ErrImageUnreadable, "size %dx%d", cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > ImageMaxPixels {
		return cfg, kind, becausef(ErrImageTooLarge, "%dx%d", cfg.Width, cfg.Height)
	}
	return cfg, kind, nil
}

// checkWebPFrame refuses a WebP whose frame is not the size its header states, so
// the pixel limit judged from the header is the memory the decoder will use.
func checkWebPFrame(src []byte, cfg image.Config) error {
	fw, fh, cw, ch, err := webpFrameSize(src)
	if err != nil {
		return err
	}
	if fw != cfg.Width || fh != cfg.Height || (cw != 0 && (fw != cw || fh != ch)) {
		return fmt.Errorf("webp frame %dx%d under a stated size of %dx%d", fw, fh, cfg.Width, cfg.Height)
	}
	return nil
}

// decodeImage decodes a photo whose header imageConfig accepted. A decoder panic
// (a bug in a decoder meeting a crafted file) is a refusal, not a crash.
func decodeImage(kind string, src []byte) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, becausef(ErrImageUnreadable, "%s decoder panic: %v", kind, p)
		}
	}()
	switch kind {
	case TypeJPEG:
		img, err = jpeg.Decode(bytes.NewReader(src))
	case TypePNG:
		img, err = png.Decode(bytes.NewReader(src))
	case TypeWebP:
		img, err = webp.Decode(bytes.NewReader(src))
	}
	if err != nil {
		return nil, ErrImageUnreadable.because(err)
	}
	return img, nil
}

func processImage(ctx context.Context, src []byte, b *batch, base string) (ImageResult, error) {
	_, kind, err := imageConfig(src)
	if err != nil {
		return ImageResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ImageResult{}, err
	}
	orientation := 1
	if kind == TypeJPEG {
		orientation = jpegOrientation(src)
	}
	img, err := decodeImage(kind, src)
	if err != nil {
		return ImageResult{}, err
	}

	sw, sh := img.Bounds().Dx(), img.Bounds().Dy()
	if orientation >= 5 { // these turn the picture by 90 degrees
		sw, sh = sh, sw
	}
	w, h := fit(sw, sh, OriginalMaxSide)
	pw, ph := w, h // size before turning
	if orientation >= 5 {
		pw, ph = h, w
	}
	scaled, err := resample(ctx, img, pw, ph)
	if err != nil {
		return ImageResult{}, err
	}
	orig := orient(scaled, orientation)

	res := ImageResult{Width: w, Height: h}
	f, err := writeJPEG(b, base+".jpg", orig, originalQuality)
	if err != nil {
		return ImageResult{}, err
	}
	res.Files = append(res.Files, f)
	for _, rw := range RenditionWidths {
		if rw >= w {
			continue
		}
		rh := max(1, int(math.Round(float64(h)*float64(rw)/float64(w))))
		r, err := resample(ctx, orig, rw, rh)
		if err != nil {
			return ImageResult{}, err
		}
		f, err := writeJPEG(b, base+"-"+strconv.Itoa(rw)+".jpg", r, renditionQuality)
		if err != nil {
			return ImageResult{}, err
		}
		res.Files = append(res.Files, f)
	}
	return res, nil
}

// fit scales w x h down so that the long side is at most limit.
func fit(w, h, limit int) (int, int) {
	long := max(w, h)
	if long <= limit {
		return w, h
	}
	s := float64(limit) / float64(long)
	return max(1, int(math.Round(float64(w)*s))), max(1, int(math.Round(float64(h)*s)))
}

func writeJPEG(b *batch, name string, img image.Image, quality int) (ImageFile, error) {
	f, err := b.create(name)
	if err != nil {
		return ImageFile{}, ErrProcessingFailed.because(err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = jpeg.Encode(bw, img, &jpeg.Options{Quality: quality})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	var size int64
	if err == nil {
		fi, serr := f.Stat()
		if err = serr; err == nil {
			size = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ImageFile{}, ErrProcessingFailed.because(fmt.Errorf("write %s: %w", name, err))
	}
	bd := img.Bounds()
	return ImageFile{Name: name, Width: bd.Dx(), Height: bd.Dy(), Bytes: size}, nil
}

// resample scales src down to dw x dh by area averaging (each output pixel is the
// coverage-weighted mean of the source pixels under it), flattening transparency
// on white. It reads the source one row at a time, so memory stays near the size
// of the output. Upscaling is not supported.
func resample(ctx context.Context, src image.Image, dw, dh int) (*image.RGBA, error) {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	if dw < 1 || dh < 1 || dw > sw || dh > sh {
		return nil, ErrProcessingFailed.because(fmt.Errorf("resample %dx%d to %dx%d", sw, sh, dw, dh))
	}
	xs := areaWeights(sw, dw)
	ys := areaWeights(sh, dh)

	row := image.NewRGBA(image.Rect(0, 0, sw, 1))
	hrow := make([]float32, 3*dw) // current source row, reduced horizontally
	acc := make([]float32, 3*dw)
	cached := -1
	loadRow := func(y int) {
		if y == cached {
			return
		}
		cached = y
		for i := range row.Pix {
			row.Pix[i] = 0xFF
		}
		draw.Draw(row, row.Rect, src, image.Pt(sb.Min.X, sb.Min.Y+y), draw.Over)
		p := row.Pix
		for x, wt := range xs.weights {
			var r, g, b float32
			i := 4 * xs.start[x]
			for _, k := range wt {
				r += k * float32(p[i])
				g += k * float32(p[i+1])
				b += k * float32(p[i+2])
				i += 4
			}
			hrow[3*x], hrow[3*x+1], hrow[3*x+2] = r, g, b
		}
	}

	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for j, wt := range ys.weights {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		clear(acc)
		for k, wy := range wt {
			loadRow(ys.start[j] + k)
			for i, v := range hrow {
				acc[i] += wy * v
			}
		}
		out := dst.Pix[j*dst.Stride : j*dst.Stride+4*dw]
		for x := 0; x < dw; x++ {
			out[4*x] = clamp8(acc[3*x])
			out[4*x+1] = clamp8(acc[3*x+1])
			out[4*x+2] = clamp8(acc[3*x+2])
			out[4*x+3] = 0xFF
		}
	}
	return dst, nil
}

func clamp8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// axisWeights lists, for each output index, the first source index and the
// weights of the source indexes from there on (they sum to 1).
type axisWeights struct {
	start   []int
	weights [][]float32
}

func areaWeights(sn, dn int) axisWeights {
	a := axisWeights{start: make([]int, dn), weights: make([][]float32, dn)}
	s := float64(sn) / float64(dn)
	for d := 0; d < dn; d++ {
		lo, hi := float64(d)*s, float64(d+1)*s
		i0 := int(math.Floor(lo))
		i1 := min(sn, int(math.Ceil(hi-1e-9)))
		a.start[d] = i0
		w := make([]float32, 0, i1-i0)
		for i := i0; i < i1; i++ {
			cover := math.Min(hi, float64(i+1)) - math.Max(lo, float64(i))
			w = append(w, float32(max(cover, 0)/s))
		}
		a.weights[d] = w
	}
	return a
}

// orient turns an image upright according to an EXIF orientation value (1-8).
func orient(src *image.RGBA, o int) *image.RGBA {
	if o <= 1 || o > 8 {
		return src
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for dy := 0; dy < dh; dy++ {
		for dx := 0; dx < dw; dx++ {
			var sx, sy int
			switch o {
			case 2: // mirrored
				sx, sy = w-1-dx, dy
			case 3: // turned 180
				sx, sy = w-1-dx, h-1-dy
			case 4: // mirrored vertically
				sx, sy = dx, h-1-dy
			case 5: // transposed
				sx, sy = dy, dx
			case 6: // needs turning 90 clockwise
				sx, sy = dy, h-1-dx
			case 7: // transverse
				sx, sy = w-1-dy, h-1-dx
			case 8: // needs turning 90 counter-clockwise
				sx, sy = w-1-dy, dx
			}
			si := sy*src.Stride + 4*sx
			di := dy*dst.Stride + 4*dx
			copy(dst.Pix[di:di+4], src.Pix[si:si+4])
		}
	}
	return dst
}
