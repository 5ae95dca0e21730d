package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Column names of the table; the API paths use their own names.
const (
	pathAggregated = "aggregated"
	pathCRD        = "CRD twin"
	pathDirect     = "direct"
	pathEtcd       = "etcd"
)

var columns = []string{pathAggregated, pathCRD, pathDirect, pathEtcd}

// Rows measured once per path and round (the timed runs add theirs through addRun).
const (
	rowListJSON      = "LIST all, JSON: ms"
	rowListProtobuf  = "LIST all, protobuf: ms"
	rowPagedJSON     = "LIST in pages of 500, JSON: ms"
	rowPagedProtobuf = "LIST in pages of 500, protobuf: ms"
	rowListLabel     = "LIST 1% by label selector: ms"
	rowListField     = "LIST 1% by field selector status.status: ms"
	rowWatchP50      = "watch delivery p50: ms"
	rowWatchP99      = "watch delivery p99: ms"
	rowWatchCPU      = "watch: CPU s of kube-apiserver + aim-apiserver"
	rowHeap          = "heap per 10k objects (after GC) of the server holding them: MiB"
	rowRSS           = "RSS growth per 10k objects of the server holding them: MiB"
	rowEtcdBytes     = "etcd bytes per object"
)

// target is what issue 13 asks of the ratio aggregated / CRD twin of a row.
type target struct {
	atLeast bool
	ratio   float64
	// against names the CRD twin's row to compare with when it is not the same row (protobuf vs JSON).
	against string
}

// results collects one value per path and round for each row.
type results struct {
	c                     config
	cores                 int
	loadBefore, loadAfter string
	rows                  []string
	values                map[string]map[string][]float64
	higherBetter          map[string]bool
	targets               map[string]target
	// stored is what aim-apiserver stored for one object: the raw etcd path puts these bytes.
	stored []byte
}

func newResults(c config) *results {
	create16 := fmt.Sprintf("create c=%d", c.concurrency)
	return &results{
		c: c, values: map[string]map[string][]float64{}, higherBetter: map[string]bool{},
		targets: map[string]target{
			create16 + ": objects/s": {atLeast: true, ratio: 1.2},
			"create c=1: p50 ms":     {ratio: 1.0},
			rowListProtobuf:          {ratio: 0.3, against: rowListJSON},
			rowListJSON:              {ratio: 0.6},
			rowWatchP99:              {ratio: 1.0},
			rowWatchCPU:              {ratio: 1.0},
			rowEtcdBytes:             {ratio: 0.6},
			rowHeap:                  {ratio: 0.45},
		},
	}
}

func (r *results) add(row, path string, v float64) {
	if _, ok := r.values[row]; !ok {
		r.rows = append(r.rows, row)
		r.values[row] = map[string][]float64{}
	}
	r.values[row][path] = append(r.values[row][path], v)
}

// addRun records a timed run of n requests: throughput, latency percentiles and CPU per object.
func (r *results) addRun(name, path string, n int, wall time.Duration, lat []time.Duration, cpu map[string]float64) {
	rate := name + ": objects/s"
	r.higherBetter[rate] = true
	r.add(rate, path, float64(n)/wall.Seconds())
	r.add(name+": p50 ms", path, ms(percentile(lat, 0.50)))
	r.add(name+": p99 ms", path, ms(percentile(lat, 0.99)))
	for _, server := range []string{"kube-apiserver", "aim-apiserver", "etcd"} {
		r.add(name+": CPU ms/object "+server, path, cpu[server]*1000/float64(n))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile of durations (nearest rank); 0 for none.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// best is the best round: the highest rate, or the lowest time, CPU or size.
func (r *results) best(row string, v []float64) float64 {
	if r.higherBetter[row] {
		return slices.Max(v)
	}
	return slices.Min(v)
}

func format(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func (r *results) print(out io.Writer) {
	fmt.Fprintf(out, "\n## AIM API paths side by side: %d AIMServices per path and round, %d rounds, paths interleaved\n\n", r.c.objects, r.c.rounds)
	fmt.Fprintf(out, "machine: %d cores, load %s before, %s after. Cells: median of the rounds (best round). "+
		"ratio = aggregated / CRD twin (medians). aggregated = kube-apiserver -> aim-apiserver; direct = aim-apiserver without the aggregator; "+
		"etcd = puts of the bytes aim-apiserver stores. Creates: %d at concurrency 1, %d at concurrency %d; updates and status "+
		"updates are merge patches; LISTs read the %d objects (fastest of %d reads); watch: %d watchers, %d changes; etcd bytes "+
		"after the status updates.\n\n",
		r.cores, r.loadBefore, r.loadAfter, r.c.serial, r.c.objects-r.c.serial, r.c.concurrency, r.c.objects, r.c.listRepeats, r.c.watchers, r.c.watchEvents)
	fmt.Fprintf(out, "| measure | %s | ratio | target |\n", strings.Join(columns, " | "))
	fmt.Fprintf(out, "|---|%s---|---|\n", strings.Repeat("---|", len(columns)))
	for _, row := range r.ordered() {
		cells := make([]string, len(columns))
		for i, col := range columns {
			v := r.values[row][col]
			if len(v) == 0 {
				cells[i] = "-"
				continue
			}
			cells[i] = fmt.Sprintf("%s (%s)", format(median(v)), format(r.best(row, v)))
		}
		ratio, verdict := r.ratio(row)
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", row, strings.Join(cells, " | "), ratio, verdict)
	}
	fmt.Fprintln(out)
}

// ordered lists the rows by what they measure: creates, updates, status updates, lists, watch, memory, etcd.
func (r *results) ordered() []string {
	rank := func(row string) int {
		for i, prefix := range []string{"create c=1:", "create", "update", "status update", "LIST", "watch", "heap", "RSS", "etcd"} {
			if strings.HasPrefix(row, prefix) {
				return i
			}
		}
		return 99
	}
	rows := slices.Clone(r.rows)
	slices.SortStableFunc(rows, func(a, b string) int { return rank(a) - rank(b) })
	return rows
}

// ratio is aggregated / CRD twin of a row (against another CRD row where the target says so), and the
// verdict on the row's target.
func (r *results) ratio(row string) (string, string) {
	t, hasTarget := r.targets[row]
	against := row
	if t.against != "" {
		against = t.against
	}
	agg, crd := r.values[row][pathAggregated], r.values[against][pathCRD]
	if len(agg) == 0 || len(crd) == 0 || median(crd) == 0 {
		return "-", ""
	}
	q := median(agg) / median(crd)
	ratio := fmt.Sprintf("%.2fx", q)
	if t.against != "" {
		ratio += " of CRD JSON"
	}
	if !hasTarget {
		return ratio, ""
	}
	bound := fmt.Sprintf("<= %.2fx", t.ratio)
	ok := q <= t.ratio
	if t.atLeast {
		bound, ok = fmt.Sprintf(">= %.2fx", t.ratio), q >= t.ratio
	}
	if ok {
		return ratio, bound + ": met"
	}
	return ratio, bound + ": MISSED"
}
