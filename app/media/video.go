package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Probe runs ffprobe and ffmpeg. Empty paths are looked up on PATH.
//
// Every call runs under a time limit and, on Unix, resource limits set by a
// /bin/sh wrapper before the tool starts (ulimit: address space, CPU seconds,
// written file size, no core files), so a crafted video can neither hang the
// media job nor take the server's memory.
type Probe struct {
	FFmpeg  string
	FFprobe string
	// Timeout bounds each ffmpeg call (0: DefaultToolTimeout); an ffprobe call gets
	// at most ProbeTimeout. It also sets the CPU seconds a call may use.
	Timeout time.Duration
	// MaxMemory is the address space of each tool process in bytes (0:
	// DefaultToolMemory).
	MaxMemory int64
}

// Default per-call limits of the video tools.
const (
	DefaultToolTimeout = 2 * time.Minute
	// ProbeTimeout caps an ffprobe call, which also runs inside an upload request.
	ProbeTimeout      = 30 * time.Second
	DefaultToolMemory = 2 << 30
	// toolMaxFile caps any file a tool writes: the remuxed video is at most the
	// upload plus container overhead.
	toolMaxFile = VideoMaxBytes + 64<<20
	// toolThreads caps the decoder threads of the poster grab.
	toolThreads = "2"
)

func (p Probe) timeout() time.Duration {
	if p.Timeout > 0 {
		return p.Timeout
	}
	return DefaultToolTimeout
}

func (p Probe) maxMemory() int64 {
	if p.MaxMemory > 0 {
		return p.MaxMemory
	}
	return DefaultToolMemory
}

// VideoInfo is what Check learned about a video.
type VideoInfo struct {
	// Width and Height as displayed, i.e. after Rotation.
	Width, Height int
	// CodedWidth and CodedHeight as stored in the stream.
	CodedWidth, CodedHeight int
	Rotation                int // degrees, 0, 90, 180 or 270
	Duration                time.Duration
	FrameRate               float64 // frames per second
	Codec                   string  // ffprobe codec name of the picture stream
	StreamIndex             int     // index of the picture stream in the file
	AudioCodec              string  // first audio stream's codec; empty when silent
}

// VideoFile is the written video file.
type VideoFile struct {
	Name  string // file name inside the output folder
	Bytes int64
}

// VideoResult describes a processed video.
type VideoResult struct {
	Width, Height int // as displayed
	Duration      time.Duration
	File          VideoFile   // "<base>.mp4"
	Poster        ImageResult // "<base>-poster.jpg" and "<base>-poster-<w>.jpg"
}

// Tolerances: container durations and average frame rates are rarely exact, so a
// value is compared after rounding to the nearest whole second / frame.
const (
	durationSlack = 500 * time.Millisecond
	fpsSlack      = 0.5
)

func (p Probe) tool(name, configured string) (string, error) {
	if configured == "" {
		configured = name
	}
	path, err := exec.LookPath(configured)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrToolMissing, name, err)
	}
	return path, nil
}

// Available reports whether ffmpeg and ffprobe can be found.
func (p Probe) Available() error {
	if _, err := p.tool("ffprobe", p.FFprobe); err != nil {
		return err
	}
	_, err := p.tool("ffmpeg", p.FFmpeg)
	return err
}

// inputArgs make ffmpeg/ffprobe read a local MP4/QuickTime file and nothing else
// (no other demuxer, no network or other protocol, no external references).
func inputArgs(path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return []string{"-threads", toolThreads, "-protocol_whitelist", "file", "-f", "mov", "-i", "file:" + abs}, nil
}

type probeJSON struct {
	Streams []struct {
		Index        int               `json:"index"`
		CodecType    string            `json:"codec_type"`
		CodecName    string            `json:"codec_name"`
		Width        int               `json:"width"`
		Height       int               `json:"height"`
		AvgFrameRate string            `json:"avg_frame_rate"`
		RFrameRate   string            `json:"r_frame_rate"`
		Duration     string            `json:"duration"`
		Tags         map[string]string `json:"tags"`
		Disposition  map[string]int    `json:"disposition"`
		SideDataList []struct {
			SideDataType string   `json:"side_data_type"`
			Rotation     *float64 `json:"rotation"`
		} `json:"side_data_list"`
	} `json:"streams"`
	Format struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

// Check probes a video file with ffprobe and applies the spec's limits. Errors:
// ErrVideoUnreadable, ErrVideoStreamMissing, ErrVideoTooLong,
// ErrVideoFrameTooLarge, ErrVideoFrameRateTooHigh, ErrVideoCodecNotAllowed,
// ErrToolMissing (not a refusal) or ctx's error.
func (p Probe) Check(ctx context.Context, path string) (VideoInfo, error) {
	info, err := p.probe(ctx, path)
	if err != nil {
		return info, err
	}
	long, short := max(info.Width, info.Height), min(info.Width, info.Height)
	switch {
	case info.Duration > VideoMaxSeconds*time.Second+durationSlack:
		return info, becausef(ErrVideoTooLong, "%v", info.Duration)
	case long > VideoMaxWidth || short > VideoMaxHeight:
		return info, becausef(ErrVideoFrameTooLarge, "%dx%d", info.Width, info.Height)
	case info.FrameRate > VideoMaxFPS+fpsSlack:
		return info, becausef(ErrVideoFrameRateTooHigh, "%.3f fps", info.FrameRate)
	case !slices.Contains(VideoCodecs, info.Codec):
		return info, becausef(ErrVideoCodecNotAllowed, "%s", info.Codec)
	}
	return info, nil
}

func (p Probe) probe(ctx context.Context, path string) (VideoInfo, error) {
	var info VideoInfo
	ffprobe, err := p.tool("ffprobe", p.FFprobe)
	if err != nil {
		return info, err
	}
	in, err := inputArgs(path)
	if err != nil {
		return info, ErrVideoUnreadable.because(err)
	}
	args := append([]string{"-v", "error", "-print_format", "json", "-show_streams", "-show_format"}, in...)
	out, err := p.run(ctx, min(p.timeout(), ProbeTimeout), ffprobe, args...)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return info, cerr
		}
		return info, ErrVideoUnreadable.because(err)
	}
	var pj probeJSON
	if err := json.Unmarshal(out, &pj); err != nil {
		return info, ErrVideoUnreadable.because(fmt.Errorf("ffprobe output: %w", err))
	}

	found := false
	for _, s := range pj.Streams {
		switch {
		case s.CodecType == "audio" && info.AudioCodec == "":
			info.AudioCodec = s.CodecName
		case s.CodecType == "video" && !found && s.Disposition["attached_pic"] == 0:
			found = true
			info.StreamIndex = s.Index
			info.Codec = s.CodecName
			info.CodedWidth, info.CodedHeight = s.Width, s.Height
			info.FrameRate = frameRate(s.AvgFrameRate)
			if info.FrameRate == 0 {
				info.FrameRate = frameRate(s.RFrameRate)
			}
			info.Rotation = rotation(s.Tags["rotate"])
			for _, sd := range s.SideDataList {
				if sd.Rotation != nil {
					info.Rotation = normDegrees(int(math.Round(*sd.Rotation)))
				}
			}
			info.Duration = seconds(s.Duration)
		}
	}
	if !found {
		return info, ErrVideoStreamMissing
	}
	if d := seconds(pj.Format.Duration); d > info.Duration {
		info.Duration = d
	}
	info.Width, info.Height = info.CodedWidth, info.CodedHeight
	if info.Rotation == 90 || info.Rotation == 270 {
		info.Width, info.Height = info.Height, info.Width
	}
	if info.Width <= 0 || info.Height <= 0 || info.Duration <= 0 {
		return info, becausef(ErrVideoUnreadable, "size %dx%d, duration %v", info.Width, info.Height, info.Duration)
	}
	return info, nil
}

func frameRate(s string) float64 {
	num, den, ok := strings.Cut(s, "/")
	if !ok {
		den = "1"
	}
	n, err1 := strconv.ParseFloat(num, 64)
	d, err2 := strconv.ParseFloat(den, 64)
	if err1 != nil || err2 != nil || d <= 0 || n <= 0 || math.IsInf(n/d, 0) {
		return 0
	}
	return n / d
}

func seconds(s string) time.Duration {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsNaN(v) || v > 1e7 {
		return 0
	}
	return time.Duration(v * float64(time.Second))
}

func rotation(s string) int {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return normDegrees(v)
}

// normDegrees folds an angle to 0, 90, 180 or 270 (nearest quarter turn).
func normDegrees(v int) int {
	v = ((v % 360) + 360) % 360
	return (v + 45) / 90 % 4 * 90
}

// audioCopy are audio codecs an MP4 file can carry as they are; others become AAC.
var audioCopy = []string{"aac", "mp3", "alac", "ac3", "eac3", "opus", "flac"}

// Process checks the video like Check (returning the same refusals) and writes to
// outDir "<base>.mp4": the first picture stream and the first audio stream copied
// without re-encoding (audio an MP4 cannot hold becomes AAC), all metadata,
// chapters, subtitles and data streams dropped (this removes location and device
// data), moov atom first for streaming; and a poster taken at 0.5 s (or the
// middle of shorter clips), stored with its renditions via ProcessImage as
// "<base>-poster.jpg". Other failures are ErrProcessingFailed. On any error no
// output file is left behind.
func (p Probe) Process(ctx context.Context, src, outDir, baseName string) (VideoResult, error) {
	var res VideoResult
	if err := validBase(baseName); err != nil {
		return res, err
	}
	info, err := p.Check(ctx, src)
	if err != nil {
		return res, err
	}
	ffmpeg, err := p.tool("ffmpeg", p.FFmpeg)
	if err != nil {
		return res, err
	}
	in, err := inputArgs(src)
	if err != nil {
		return res, ErrProcessingFailed.because(err)
	}
	b := &batch{dir: outDir}
	fail := func(err error) (VideoResult, error) {
		b.abort()
		if cerr := ctx.Err(); cerr != nil {
			return VideoResult{}, cerr
		}
		if _, ok := AsRefusal(err); ok {
			return VideoResult{}, err
		}
		return VideoResult{}, ErrProcessingFailed.because(err)
	}

	name := baseName + ".mp4"
	f, err := b.create(name)
	if err != nil {
		return fail(err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return fail(err)
	}
	args := []string{"-nostdin", "-v", "error", "-y"}
	args = append(args, in...)
	args = append(args,
		"-map", "0:"+strconv.Itoa(info.StreamIndex), "-map", "0:a:0?",
		"-dn", "-sn",
		"-map_metadata", "-1", "-map_chapters", "-1",
		"-c:v", "copy")
	if info.AudioCodec == "" || slices.Contains(audioCopy, info.AudioCodec) {
		args = append(args, "-c:a", "copy")
	} else {
		args = append(args, "-c:a", "aac", "-b:a", "160k")
	}
	if info.Codec == "hevc" {
		args = append(args, "-tag:v", "hvc1") // what Safari expects
	}
	args = append(args, "-movflags", "+faststart", "-f", "mp4", "file:"+tmp)
	if _, err := p.run(ctx, p.timeout(), ffmpeg, args...); err != nil {
		return fail(fmt.Errorf("remux: %w", err))
	}
	st, err := os.Stat(tmp)
	if err != nil {
		return fail(err)
	}
	res.File = VideoFile{Name: name, Bytes: st.Size()}

	poster, err := p.poster(ctx, ffmpeg, in, info)
	if err != nil {
		return fail(err)
	}
	res.Poster, err = processImage(ctx, poster, b, baseName+"-poster")
	if err != nil {
		return fail(fmt.Errorf("poster: %w", err))
	}
	if err := b.commit(); err != nil {
		return fail(err)
	}
	res.Width, res.Height, res.Duration = info.Width, info.Height, info.Duration
	return res, nil
}

// poster grabs one frame as PNG (ffmpeg turns it upright by the rotation).
func (p Probe) poster(ctx context.Context, ffmpeg string, in []string, info VideoInfo) ([]byte, error) {
	at := min(500*time.Millisecond, info.Duration/2)
	for _, ss := range []time.Duration{at, 0} {
		args := []string{"-nostdin", "-v", "error", "-ss", strconv.FormatFloat(ss.Seconds(), 'f', 3, 64)}
		args = append(args, in...)
		args = append(args, "-map", "0:"+strconv.Itoa(info.StreamIndex), "-frames:v", "1",
			"-an", "-sn", "-dn", "-map_metadata", "-1",
			"-f", "image2pipe", "-c:v", "png", "-")
		out, err := p.run(ctx, p.timeout(), ffmpeg, args...)
		if err != nil {
			return nil, fmt.Errorf("poster: %w", err)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, errors.New("poster: no frame")
}

// limitScript is run by /bin/sh with the limits and the tool as arguments: it sets
// the limits on itself and then becomes the tool, so they hold from the tool's
// first instruction.
const limitScript = `ulimit -v "$1" && ulimit -t "$2" && ulimit -f "$3" && ulimit -c 0 && shift 3 && exec "$@"`

// run executes a tool under the per-call limits and returns its standard output;
// the error carries the end of its standard error.
func (p Probe) run(ctx context.Context, limit time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, name, args...)
	} else {
		cpu := int64(math.Ceil(limit.Seconds())) + 1
		sh := []string{"-c", limitScript, "sh",
			strconv.FormatInt(p.maxMemory()>>10, 10), strconv.FormatInt(cpu, 10),
			strconv.FormatInt(toolMaxFile/512, 10), name}
		cmd = exec.CommandContext(ctx, "/bin/sh", append(sh, args...)...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &tailBuffer{max: 2048, buf: &stderr}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if ctx.Err() == context.DeadlineExceeded {
			msg = "over the time limit of " + limit.String() + "; " + msg
		}
		return nil, fmt.Errorf("%s: %w: %s", filepath.Base(name), err, msg)
	}
	return stdout.Bytes(), nil
}

// tailBuffer keeps only the last max bytes written.
type tailBuffer struct {
	max int
	buf *bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}
