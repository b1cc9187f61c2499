package media_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/media"
)

type tools struct {
	probe media.Probe
	dir   string
}

// videoTools finds ffmpeg and ffprobe (REVIEWD_FFMPEG / REVIEWD_FFPROBE or PATH).
func videoTools(t *testing.T) tools {
	t.Helper()
	p := media.Probe{FFmpeg: os.Getenv("REVIEWD_FFMPEG"), FFprobe: os.Getenv("REVIEWD_FFPROBE")}
	if err := p.Available(); err != nil {
		t.Skipf("ffmpeg/ffprobe not installed (set REVIEWD_FFMPEG and REVIEWD_FFPROBE or put them on PATH): %v", err)
	}
	return tools{probe: p, dir: t.TempDir()}
}

func (tt tools) ffmpegPath() string {
	if tt.probe.FFmpeg != "" {
		return tt.probe.FFmpeg
	}
	return "ffmpeg"
}

func (tt tools) ffprobePath() string {
	if tt.probe.FFprobe != "" {
		return tt.probe.FFprobe
	}
	return "ffprobe"
}

// make runs ffmpeg to write name in the test folder and returns its path.
func (tt tools) make(t *testing.T, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(tt.dir, name)
	full := append([]string{"-nostdin", "-v", "error", "-y"}, args...)
	full = append(full, out)
	if b, err := exec.Command(tt.ffmpegPath(), full...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v\n%s", args, err, b)
	}
	return out
}

type probed struct {
	Streams []struct {
		CodecType string            `json:"codec_type"`
		CodecName string            `json:"codec_name"`
		Tags      map[string]string `json:"tags"`
	} `json:"streams"`
	Format struct {
		Tags map[string]string `json:"tags"`
	} `json:"format"`
}

func (tt tools) ffprobe(t *testing.T, path string) probed {
	t.Helper()
	b, err := exec.Command(tt.ffprobePath(), "-v", "error", "-print_format", "json", "-show_streams", "-show_format", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var p probed
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	h264 = []string{"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"}
	aac  = []string{"-c:a", "aac", "-b:a", "64k"}
)

func cat(parts ...[]string) []string { return slices.Concat(parts...) }

func TestVideoProcessStripsMetadata(t *testing.T) {
	tt := videoTools(t)
	ctx := context.Background()
	src := tt.make(t, "in.mp4", cat(
		[]string{"-f", "lavfi", "-i", "testsrc=s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=d=2"},
		h264, aac,
		[]string{"-metadata", "location=+40.0+29.0/", "-metadata", "title=secret", "-shortest"})...)
	if tags := tt.ffprobe(t, src).Format.Tags; tags["location"] == "" || tags["title"] != "secret" {
		t.Fatalf("test input lacks its tags: %v", tags)
	}
	head, _ := os.ReadFile(src)
	if kind, mime, ok := media.Sniff(head); kind != "mp4" || mime != "video/mp4" || !ok {
		t.Errorf("Sniff = %s %s %v", kind, mime, ok)
	}

	info, err := tt.probe.Check(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 320 || info.Height != 240 || info.Codec != "h264" || info.FrameRate != 30 ||
		info.AudioCodec != "aac" || info.Duration < 1900*time.Millisecond || info.Duration > 2100*time.Millisecond {
		t.Errorf("Check = %+v", info)
	}

	out := t.TempDir()
	res, err := tt.probe.Process(ctx, src, out, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 320 || res.Height != 240 || res.File.Name != "v1.mp4" || res.File.Bytes <= 0 || res.Duration < time.Second {
		t.Errorf("Process = %+v", res)
	}
	if res.Poster.Width != 320 || res.Poster.Height != 240 || len(res.Poster.Files) != 1 || res.Poster.Files[0].Name != "v1-poster.jpg" {
		t.Errorf("poster = %+v", res.Poster)
	}
	if names := dirNames(t, out); !slices.Equal(names, []string{"v1-poster.jpg", "v1.mp4"}) {
		t.Errorf("folder holds %v", names)
	}
	got := tt.ffprobe(t, filepath.Join(out, "v1.mp4"))
	for k, v := range got.Format.Tags {
		if strings.HasPrefix(k, "location") || k == "title" || strings.Contains(v, "secret") {
			t.Errorf("output keeps tag %s=%s", k, v)
		}
	}
	var kinds []string
	for _, s := range got.Streams {
		kinds = append(kinds, s.CodecType+"/"+s.CodecName)
	}
	if !slices.Equal(kinds, []string{"video/h264", "audio/aac"}) {
		t.Errorf("output streams %v", kinds)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "v1.mp4"))
	for _, s := range []string{"secret", "+40.0+29.0"} {
		if strings.Contains(string(raw), s) {
			t.Errorf("output bytes contain %q", s)
		}
	}
	// moov before mdat (faststart).
	if m, d := strings.Index(string(raw), "moov"), strings.Index(string(raw), "mdat"); m < 0 || m > d {
		t.Errorf("moov at %d, mdat at %d", m, d)
	}
	if _, err := tt.probe.Check(ctx, filepath.Join(out, "v1.mp4")); err != nil {
		t.Errorf("output does not pass Check: %v", err)
	}
}

func TestVideoRotatedAndMOV(t *testing.T) {
	tt := videoTools(t)
	ctx := context.Background()
	plain := tt.make(t, "plain.mp4", cat([]string{"-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=1"}, h264)...)
	// A phone's portrait clip: landscape frames with a 90 degree display rotation.
	rotated := tt.make(t, "rotated.mp4", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90")
	info, err := tt.probe.Check(ctx, rotated)
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 240 || info.Height != 320 || info.CodedWidth != 320 || (info.Rotation != 90 && info.Rotation != 270) {
		t.Errorf("Check = %+v", info)
	}
	out := t.TempDir()
	res, err := tt.probe.Process(ctx, rotated, out, "r")
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 240 || res.Height != 320 || res.Poster.Width != 240 || res.Poster.Height != 320 {
		t.Errorf("Process = %dx%d, poster %dx%d", res.Width, res.Height, res.Poster.Width, res.Poster.Height)
	}
	if again, err := tt.probe.Check(ctx, filepath.Join(out, "r.mp4")); err != nil || again.Rotation != info.Rotation {
		t.Errorf("rotation lost in output: %+v %v", again, err)
	}

	// QuickTime with PCM sound (which MP4 cannot carry): sound becomes AAC.
	mov := tt.make(t, "clip.mov", cat(
		[]string{"-f", "lavfi", "-i", "testsrc=s=640x360:r=30:d=1", "-f", "lavfi", "-i", "sine=d=1"},
		h264, []string{"-c:a", "pcm_s16le", "-metadata", "location=+40.0+29.0/", "-shortest"})...)
	head, _ := os.ReadFile(mov)
	if kind, mime, ok := media.Sniff(head); kind != "mov" || mime != "video/quicktime" || !ok {
		t.Errorf("Sniff mov = %s %s %v", kind, mime, ok)
	}
	res, err = tt.probe.Process(ctx, mov, out, "m")
	if err != nil {
		t.Fatal(err)
	}
	got := tt.ffprobe(t, filepath.Join(out, "m.mp4"))
	if len(got.Streams) != 2 || got.Streams[1].CodecName != "aac" || got.Format.Tags["location"] != "" {
		t.Errorf("mov output %+v", got)
	}
	if len(res.Poster.Files) != 2 || res.Poster.Files[1].Name != "m-poster-320.jpg" || res.Poster.Files[1].Height != 180 {
		t.Errorf("mov poster %+v", res.Poster)
	}
}

func TestVideoRefusals(t *testing.T) {
	tt := videoTools(t)
	garbage := filepath.Join(tt.dir, "garbage.mp4")
	junk := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	if err := os.WriteFile(garbage, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	fakeFtyp := filepath.Join(tt.dir, "fake.mp4")
	if err := os.WriteFile(fakeFtyp, append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), junk...), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path func() string
		want error
	}{
		{"120 fps", func() string {
			return tt.make(t, "fast.mp4", cat([]string{"-f", "lavfi", "-i", "testsrc=s=64x64:r=120:d=0.5"}, h264)...)
		}, media.ErrVideoFrameRateTooHigh},
		{"61 seconds", func() string {
			return tt.make(t, "long.mp4", cat([]string{"-f", "lavfi", "-i", "color=c=gray:s=32x32:r=1:d=61"}, h264)...)
		}, media.ErrVideoTooLong},
		{"audio only", func() string {
			return tt.make(t, "sound.mp4", cat([]string{"-f", "lavfi", "-i", "sine=d=1"}, aac)...)
		}, media.ErrVideoStreamMissing},
		{"garbage", func() string { return garbage }, media.ErrVideoUnreadable},
		{"garbage after an ftyp box", func() string { return fakeFtyp }, media.ErrVideoUnreadable},
		{"missing file", func() string { return filepath.Join(tt.dir, "nope.mp4") }, media.ErrVideoUnreadable},
		{"mjpeg", func() string {
			return tt.make(t, "mjpeg.mov", "-f", "lavfi", "-i", "testsrc=s=64x64:r=10:d=0.5", "-c:v", "mjpeg")
		}, media.ErrVideoCodecNotAllowed},
		{"mpeg2", func() string {
			return tt.make(t, "mpeg2.mp4", "-f", "lavfi", "-i", "testsrc=s=64x64:r=10:d=0.5", "-c:v", "mpeg2video")
		}, media.ErrVideoCodecNotAllowed},
		{"wider than 3840", func() string {
			return tt.make(t, "wide.mp4", cat([]string{"-f", "lavfi", "-i", "color=s=3856x64:r=1:d=1"}, h264)...)
		}, media.ErrVideoFrameTooLarge},
		{"portrait 2160x3840 fits", func() string {
			return tt.make(t, "portrait.mp4", cat([]string{"-f", "lavfi", "-i", "color=s=2160x3840:r=1:d=1"}, h264)...)
		}, nil},
		{"60 fps fits", func() string {
			return tt.make(t, "sixty.mp4", cat([]string{"-f", "lavfi", "-i", "testsrc=s=64x64:r=60:d=0.5"}, h264)...)
		}, nil},
		{"mpeg4 part 2 allowed", func() string {
			return tt.make(t, "mpeg4.mp4", "-f", "lavfi", "-i", "testsrc=s=64x64:r=10:d=0.5", "-c:v", "mpeg4")
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path()
			_, err := tt.probe.Check(context.Background(), path)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Check err = %v, want %v", err, tc.want)
			}
			if tc.want == nil {
				return
			}
			if r, ok := media.AsRefusal(err); !ok || r.Status() != 422 {
				t.Errorf("not a 422 refusal: %v", err)
			}
			// Process refuses the same way and writes nothing.
			out := t.TempDir()
			if _, err := tt.probe.Process(context.Background(), path, out, "x"); !errors.Is(err, tc.want) {
				t.Errorf("Process err = %v, want %v", err, tc.want)
			}
			if names := dirNames(t, out); len(names) != 0 {
				t.Errorf("Process left %v", names)
			}
		})
	}
}

func TestVideoContextAndTools(t *testing.T) {
	tt := videoTools(t)
	src := tt.make(t, "c.mp4", cat([]string{"-f", "lavfi", "-i", "testsrc=s=64x64:r=10:d=1"}, h264)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tt.probe.Check(ctx, src); !errors.Is(err, context.Canceled) {
		t.Errorf("Check cancelled: %v", err)
	}
	out := t.TempDir()
	if _, err := tt.probe.Process(ctx, src, out, "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("Process cancelled: %v", err)
	}
	if names := dirNames(t, out); len(names) != 0 {
		t.Errorf("left %v", names)
	}
	missing := media.Probe{FFmpeg: "/nonexistent/ffmpeg", FFprobe: "/nonexistent/ffprobe"}
	if _, err := missing.Check(context.Background(), src); !errors.Is(err, media.ErrToolMissing) {
		t.Errorf("missing tools: %v", err)
	}
	if _, err := tt.probe.Process(context.Background(), src, filepath.Join(out, "nope"), "c"); !errors.Is(err, media.ErrProcessingFailed) {
		t.Errorf("missing folder: %v", err)
	}
}

// fakeTool writes an executable shell script standing in for ffmpeg or ffprobe.
func fakeTool(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVideoToolTimeout: a tool that never finishes is stopped at the per-call
// limit and the video is unreadable, instead of holding the media job forever.
func TestVideoToolTimeout(t *testing.T) {
	hang := fakeTool(t, "exec sleep 600")
	p := media.Probe{FFprobe: hang, FFmpeg: hang, Timeout: 300 * time.Millisecond}
	src := filepath.Join(t.TempDir(), "v.mp4")
	if err := os.WriteFile(src, []byte("not really a video"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := p.Check(context.Background(), src)
	if !errors.Is(err, media.ErrVideoUnreadable) || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("Check with a hanging ffprobe: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Check returned after %v", d)
	}
}

// TestVideoToolResourceLimits: each tool process starts with the address-space,
// CPU, file-size and core limits already set (the fake tool reports its own).
func TestVideoToolResourceLimits(t *testing.T) {
	report := fakeTool(t, "cat /proc/self/limits >&2; exit 1")
	p := media.Probe{FFprobe: report, FFmpeg: report, Timeout: 10 * time.Second, MaxMemory: 300 << 20}
	src := filepath.Join(t.TempDir(), "v.mp4")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.Check(context.Background(), src)
	if !errors.Is(err, media.ErrVideoUnreadable) {
		t.Fatalf("Check: %v", err)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`Max address space\s+314572800\s+314572800`),
		regexp.MustCompile(`Max cpu time\s+11\s+11`),
		regexp.MustCompile(`Max file size\s+` + strconv.Itoa(media.VideoMaxBytes+64<<20) + `\s`),
		regexp.MustCompile(`Max core file size\s+0\s+0`),
	} {
		if !want.MatchString(err.Error()) {
			t.Errorf("limits of the tool process lack %s:\n%v", want, err)
		}
	}

	// A real ffprobe given too little memory fails instead of growing.
	if path := os.Getenv("REVIEWD_FFPROBE"); path != "" {
		tt := videoTools(t)
		ok := tt.make(t, "ok.mp4", cat([]string{"-f", "lavfi", "-i", "testsrc=s=64x64:r=10:d=1"}, h264)...)
		small := media.Probe{FFprobe: path, MaxMemory: 4 << 20}
		if _, err := small.Check(context.Background(), ok); !errors.Is(err, media.ErrVideoUnreadable) {
			t.Fatalf("ffprobe in 4 MB: %v", err)
		}
		if _, err := tt.probe.Check(context.Background(), ok); err != nil {
			t.Fatalf("ffprobe with the default limits: %v", err)
		}
	}
}
