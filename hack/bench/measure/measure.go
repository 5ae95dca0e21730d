// Package measure is what the benchmarks under hack share: reading a server's CPU seconds, resident memory and
// live heap from its Prometheus /metrics (after a garbage collection when asked), running requests in
// parallel, and the plumbing of a benchmark command.
package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Server is one process whose /metrics the benchmark reads.
type Server struct {
	Name   string
	Client *http.Client
	// MetricsURL is the full URL of /metrics.
	MetricsURL string
	// Profiling says that /debug/pprof is served next to /metrics, so CollectGarbage works.
	Profiling bool
}

// Sample is one reading of a server.
type Sample struct {
	CPUSeconds float64
	RSSBytes   float64
	HeapBytes  float64
}

// Minus is what happened between an earlier sample and this one (memory: the growth).
func (s Sample) Minus(earlier Sample) Sample {
	return Sample{CPUSeconds: s.CPUSeconds - earlier.CPUSeconds, RSSBytes: s.RSSBytes - earlier.RSSBytes, HeapBytes: s.HeapBytes - earlier.HeapBytes}
}

// Families reads and parses the server's metrics.
func (s Server) Families() (map[string]*dto.MetricFamily, error) {
	resp, err := s.Client.Get(s.MetricsURL)
	if err != nil {
		return nil, fmt.Errorf("reading %s metrics: %w", s.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("reading %s metrics: %s: %s", s.Name, resp.Status, strings.TrimSpace(string(body)))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing %s metrics: %w", s.Name, err)
	}
	return families, nil
}

// Read samples the server's CPU and memory.
func (s Server) Read() (Sample, error) {
	f, err := s.Families()
	if err != nil {
		return Sample{}, err
	}
	return Sample{
		CPUSeconds: Single(f["process_cpu_seconds_total"]),
		RSSBytes:   Single(f["process_resident_memory_bytes"]),
		HeapBytes:  Single(f["go_memstats_heap_inuse_bytes"]),
	}, nil
}

// CollectGarbage has the server collect garbage (its heap profile does, first) and returns the profile, so
// that the next reading of its heap counts live objects only.
func (s Server) CollectGarbage() ([]byte, error) {
	if !s.Profiling {
		return nil, nil
	}
	return s.pprof("heap?gc=1")
}

// CPUProfile records the server's CPU profile for the given time (/debug/pprof/profile; go tool pprof reads it).
func (s Server) CPUProfile(d time.Duration) ([]byte, error) {
	if !s.Profiling {
		return nil, fmt.Errorf("the server does not serve /debug/pprof")
	}
	return s.pprof(fmt.Sprintf("profile?seconds=%d", int(d.Seconds())))
}

// pprof reads /debug/pprof/<path> next to /metrics.
func (s Server) pprof(path string) ([]byte, error) {
	url := strings.TrimSuffix(s.MetricsURL, "/metrics") + "/debug/pprof/" + path
	resp, err := s.Client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading %s: %s %v", url, resp.Status, err)
	}
	return body, nil
}

// Single is the value of a metric without labels (0 when the server does not export it).
func Single(f *dto.MetricFamily) float64 {
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Untyped != nil:
			return m.GetUntyped().GetValue()
		}
	}
	return 0
}

// Loadavg is the machine's load (1, 5, 15 minutes), as /proc/loadavg gives it.
func Loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// Parallel runs do(0..n-1) on workers goroutines and returns the first error; the others stop early.
func Parallel(ctx context.Context, workers, n int, do func(ctx context.Context, i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := do(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Main runs a benchmark until it ends, is interrupted or times out; an error ends the process with status 1.
func Main(name string, timeout time.Duration, run func(context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// EnvOr is the environment variable's value, or def when it is empty.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Logf reports progress on stderr, with the benchmark's name and the time; tables go to stdout.
func Logf(name, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s %s] %s\n", name, time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
