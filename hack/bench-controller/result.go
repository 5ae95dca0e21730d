package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Targets of issue 12, on a 2-core machine.
const (
	targetAllInferenceServices = 60 * time.Second
	targetWritesPerService     = 6.0
	targetRevert               = 10 * time.Second
	targetBytesPerObject       = 20 * 1024
	// targetResyncCPU is issue 23's: the CPU a resync costs per unchanged service.
	targetResyncCPU = 300 * time.Microsecond
)

// result holds the benchmark's measurements.
type result struct {
	config
	cores                 int
	loadBefore, loadAfter string

	created, allInferenceServices, quiet time.Duration
	convergeAIM, convergeKube            writes
	convergeController                   writes
	convergeCPU                          float64
	// convergeReconciles are the reconciles until the controller is quiet, by controller.
	convergeReconciles                      map[string]float64
	steadyAIM, steadyKube, steadyController writes
	steadyCPU                               float64
	// steadyReconciles are the reconciles over the resyncs, by controller.
	steadyReconciles               map[string]float64
	rssBefore, rssAfter            float64
	heapBefore, heapAfter          float64
	revertAll, revertAfterLastEdit time.Duration
	revertAIM, revertKube          writes
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func kib(bytes float64) string { return fmt.Sprintf("%.1f KiB", bytes/1024) }
func mib(bytes float64) string { return fmt.Sprintf("%.0f MiB", bytes/(1<<20)) }

func (r *result) print(out io.Writer) {
	n := float64(r.services)
	perService := (r.convergeAIM.total() + r.convergeKube.total()) / n
	steady := r.steadyAIM.total() + r.steadyKube.total()
	rssPer := (r.rssAfter - r.rssBefore) / n
	heapPer := (r.heapAfter - r.heapBefore) / n

	fmt.Fprintf(out, "\n## Controller at scale: %d AMD GPU Nodes, %d cluster models with Ready templates, %d AIMServices (shared caches, downloads played) in %d namespaces\n\n",
		r.nodes, r.models, r.services, r.namespaces)
	fmt.Fprintf(out, "machine: %d cores, load %s before, %s after; resync period %s\n\n", r.cores, r.loadBefore, r.loadAfter, r.resync)
	fmt.Fprintln(out, "| measure | value | target |")
	fmt.Fprintln(out, "|---|---|---|")
	row := func(measure, value, target string) { fmt.Fprintf(out, "| %s | %s | %s |\n", measure, value, target) }
	row(fmt.Sprintf("%d AIMServices created (the benchmark's %d clients)", r.services, r.concurrency), r.created.Round(time.Millisecond).String(), "")
	row("time until every InferenceService exists", r.allInferenceServices.Round(time.Millisecond).String(),
		fmt.Sprintf("<= %s: %s", targetAllInferenceServices, met(r.allInferenceServices <= targetAllInferenceServices)))
	row("time until the controller is quiet (no write for 3 s, queue empty)", r.quiet.Round(time.Second).String(), "")
	events := func(k writeKey) bool { return k.Resource == "events" }
	eventsPer := (r.convergeAIM.total() + r.convergeKube.total() - r.convergeAIM.without(events).total() - r.convergeKube.without(events).total()) / n
	row("API writes per service on the way (aim-apiserver + kube-apiserver)",
		fmt.Sprintf("%.2f (%.2f + %.2f): %.2f to objects, %.2f Events", perService, r.convergeAIM.total()/n, r.convergeKube.total()/n, perService-eventsPer, eventsPer),
		fmt.Sprintf("<= %.0f: %s", targetWritesPerService, met(perService <= targetWritesPerService)))
	row(fmt.Sprintf("API writes during %d resyncs afterwards (%s)", r.resyncs, time.Duration(r.resyncs)*r.resync), fmt.Sprintf("%.0f", steady),
		fmt.Sprintf("0: %s", met(steady == 0)))
	row("aim-apiserver CPU until quiet", fmt.Sprintf("%.1f s (%.1f ms per service)", r.convergeCPU, r.convergeCPU*1000/n), "")
	row("reconciles per service until quiet", fmt.Sprintf("%.2f (every controller: %s)", sum(r.convergeReconciles)/n, perResync(r.convergeReconciles, 1)), "")
	resyncCPU := time.Duration(r.steadyCPU / float64(r.resyncs) / n * float64(time.Second))
	row(fmt.Sprintf("aim-apiserver CPU over the %d resyncs; per unchanged service and resync (the idle server's own work included)", r.resyncs),
		fmt.Sprintf("%.1f s; %s", r.steadyCPU, resyncCPU.Round(time.Microsecond)),
		fmt.Sprintf("<= %s: %s", targetResyncCPU, met(resyncCPU <= targetResyncCPU)))
	row("service reconciles per service and resync (one wanted: its own resync)",
		fmt.Sprintf("%.2f (every controller: %s)", r.steadyReconciles["service"]/float64(r.resyncs)/n, perResync(r.steadyReconciles, r.resyncs)), "")
	row("aim-apiserver RSS before the services / after", mib(r.rssBefore)+" / "+mib(r.rssAfter), "")
	row("memory per AIMService (RSS growth; live Go heap, after a collection)", kib(rssPer)+"; "+kib(heapPer),
		fmt.Sprintf("<= %s: %s", kib(targetBytesPerObject), met(rssPer <= targetBytesPerObject)))
	if r.edits > 0 {
		row(fmt.Sprintf("%d hand-edited InferenceServices reverted (from the first edit; from the last)", r.edits),
			r.revertAll.Round(time.Millisecond).String()+"; "+r.revertAfterLastEdit.Round(time.Millisecond).String(),
			fmt.Sprintf("<= %s: %s", targetRevert, met(r.revertAll <= targetRevert)))
		row("API writes to revert them", fmt.Sprintf("%.0f (%s)", r.revertAIM.total()+r.revertKube.total(), breakdown(r.revertAIM, r.revertKube, 1)), "")
	}
	fmt.Fprintf(out, "\nwrites per service on the way, by kind: %s\n", breakdown(r.convergeAIM, r.convergeKube, n))
	fmt.Fprintf(out, "sent by the controller (aim_controller_write_requests_total), per service: %s\n", breakdown(r.convergeController, nil, n))
	if steady > 0 {
		fmt.Fprintf(out, "steady-state writes: %s\n", breakdown(r.steadyAIM, r.steadyKube, 1))
	}
}

// sum is the total of the reconciles of every controller.
func sum(reconciles map[string]float64) (total float64) {
	for _, n := range reconciles {
		total += n
	}
	return total
}

// perResync lists reconciles by controller, per resync, most first.
func perResync(reconciles map[string]float64, resyncs int) string {
	names := slices.SortedFunc(maps.Keys(reconciles), func(a, b string) int {
		return cmp.Or(cmp.Compare(reconciles[b], reconciles[a]), cmp.Compare(a, b))
	})
	parts := make([]string, 0, len(names))
	for _, c := range names {
		if reconciles[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f", c, reconciles[c]/float64(resyncs)))
		}
	}
	return strings.Join(parts, ", ")
}

// breakdown lists the kinds of writes of both servers, each divided by per.
func breakdown(aim, kube writes, per float64) string {
	var parts []string
	for _, side := range []struct {
		server string
		w      writes
	}{{"aim", aim}, {"kube", kube}} {
		for _, k := range side.w.sorted() {
			if v := side.w[k]; v != 0 {
				parts = append(parts, fmt.Sprintf("%s %s %.2f", side.server, k, v/per))
			}
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
