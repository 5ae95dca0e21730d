package measure

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestParallelRunsEachIndexOnceAndStopsAtTheFirstError(t *testing.T) {
	var seen [100]atomic.Int32
	if err := Parallel(context.Background(), 7, 100, func(_ context.Context, i int) error { seen[i].Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Errorf("index %d ran %d times", i, n)
		}
	}
	boom := errors.New("boom")
	var ran atomic.Int32
	err := Parallel(context.Background(), 1, 100, func(_ context.Context, i int) error {
		ran.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() != 4 {
		t.Errorf("error %v after %d calls, want boom after 4", err, ran.Load())
	}
}

func TestReadParsesProcessMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n" +
			"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 1024\n" +
			"# TYPE go_memstats_heap_inuse_bytes gauge\ngo_memstats_heap_inuse_bytes 512\n"))
	}))
	defer srv.Close()
	s, err := Server{Name: "test", Client: srv.Client(), MetricsURL: srv.URL + "/metrics"}.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s != (Sample{CPUSeconds: 12.5, RSSBytes: 1024, HeapBytes: 512}) {
		t.Errorf("sample %+v", s)
	}
	if d := s.Minus(Sample{CPUSeconds: 2.5, RSSBytes: 24, HeapBytes: 12}); d != (Sample{CPUSeconds: 10, RSSBytes: 1000, HeapBytes: 500}) {
		t.Errorf("difference %+v", d)
	}
}
