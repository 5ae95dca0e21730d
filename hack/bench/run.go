package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// serviceName is the name of the benchmark's i-th AIMService.
func serviceName(i int) string { return fmt.Sprintf("svc-%05d", i) }

// serviceBody is an AIMService as users write them (a model by name, replicas, env, resources), labelled so
// that shard=N selects 1% of them.
func serviceBody(group string, i int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"%s/v1alpha1","kind":"AIMService","metadata":{"name":"%s","labels":{"app.kubernetes.io/part-of":"bench","shard":"%d"}},`+
		`"spec":{"model":{"name":"qwen3-32b"},"replicas":1,"env":[{"name":"VLLM_LOGGING_LEVEL","value":"INFO"},{"name":"HF_HUB_OFFLINE","value":"1"}],`+
		`"resources":{"requests":{"cpu":"4","memory":"32Gi"},"limits":{"memory":"64Gi"}}}}`, group, serviceName(i), i%100)
}

// statusBody is a status a controller writes: Running for 1% of the objects (what the field selector finds).
func statusBody(i int) []byte {
	status, reason := "Starting", "Starting"
	if i%100 == 7 {
		status, reason = "Running", "Ready"
	}
	return fmt.Appendf(nil, `{"status":{"status":%q,"observedGeneration":1,"conditions":[{"type":"Ready","status":"False","reason":%q,`+
		`"message":"waiting for the predictor","lastTransitionTime":"2026-11-26T00:00:00Z","observedGeneration":1}]}}`, status, reason)
}

// readAll samples every server.
func readAll(servers []measure.Server) (map[string]measure.Sample, error) {
	out := map[string]measure.Sample{}
	for _, s := range servers {
		v, err := s.Read()
		if err != nil {
			return nil, err
		}
		out[s.Name] = v
	}
	return out, nil
}

// cpuBetween is each server's CPU seconds between two samples.
func cpuBetween(before, after map[string]measure.Sample) map[string]float64 {
	out := map[string]float64{}
	for name, a := range after {
		out[name] = a.Minus(before[name]).CPUSeconds
	}
	return out
}

// memory samples the servers after each collected its garbage.
func (h *harness) memory() (map[string]measure.Sample, error) {
	for _, s := range h.servers {
		if _, err := s.CollectGarbage(); err != nil {
			return nil, err
		}
	}
	return readAll(h.servers)
}

// timed runs n requests on workers goroutines and records throughput, latencies and CPU per object.
func (h *harness) timed(ctx context.Context, r *results, measureName, path string, workers, n int, do func(ctx context.Context, i int) (time.Duration, error)) error {
	lat := make([]time.Duration, n)
	before, err := readAll(h.servers)
	if err != nil {
		return err
	}
	start := time.Now()
	err = measure.Parallel(ctx, workers, n, func(ctx context.Context, i int) error {
		d, err := do(ctx, i)
		lat[i] = d
		return err
	})
	wall := time.Since(start)
	if err != nil {
		return err
	}
	after, err := readAll(h.servers)
	if err != nil {
		return err
	}
	r.addRun(measureName, path, n, wall, lat, cpuBetween(before, after))
	return nil
}

func (h *harness) benchPath(ctx context.Context, c config, r *results, p *apiPath) error {
	ns := c.namespace(p)
	names := make([]string, c.objects)
	for i := range names {
		names[i] = serviceName(i)
	}
	memBefore, err := h.memory()
	if err != nil {
		return err
	}
	create := func(ctx context.Context, i int) (time.Duration, error) {
		return p.create(ctx, ns, serviceBody(p.group, i))
	}
	if err := h.timed(ctx, r, "create c=1", p.name, 1, c.serial, create); err != nil {
		return err
	}
	err = h.timed(ctx, r, fmt.Sprintf("create c=%d", c.concurrency), p.name, c.concurrency, c.objects-c.serial,
		func(ctx context.Context, i int) (time.Duration, error) { return create(ctx, i+c.serial) })
	if err != nil {
		return err
	}
	memAfter, err := h.memory()
	if err != nil {
		return err
	}
	if p.name != pathDirect { // the same server and storage as the aggregated path
		// The server that holds the objects: kube-apiserver keeps nothing of an aggregated object, and its
		// own heap moves by tens of MiB with unrelated work.
		holder := "kube-apiserver"
		if p.name == pathAggregated {
			holder = "aim-apiserver"
		}
		grown := memAfter[holder].Minus(memBefore[holder])
		per := float64(c.objects) / 10000
		r.add(rowHeap, p.name, grown.HeapBytes/per/(1<<20))
		r.add(rowRSS, p.name, grown.RSSBytes/per/(1<<20))
	}

	err = h.timed(ctx, r, fmt.Sprintf("update c=%d", c.concurrency), p.name, c.concurrency, c.objects, func(ctx context.Context, i int) (time.Duration, error) {
		return p.patch(ctx, ns, names[i], "", []byte(`{"spec":{"replicas":2}}`))
	})
	if err != nil {
		return err
	}
	err = h.timed(ctx, r, fmt.Sprintf("status update c=%d", c.concurrency), p.name, c.concurrency, c.objects, func(ctx context.Context, i int) (time.Duration, error) {
		return p.patch(ctx, ns, names[i], "status", statusBody(i))
	})
	if err != nil {
		return err
	}

	// Stored size of the objects as they live: with the status a controller wrote.
	if p.name != pathDirect {
		size, count, err := etcdBytes(ctx, h.etcd, p.etcdPrefix+ns+"/")
		if err != nil {
			return err
		}
		if count != c.objects {
			return fmt.Errorf("%d objects in etcd under %s, want %d", count, p.etcdPrefix+ns, c.objects)
		}
		r.add(rowEtcdBytes, p.name, float64(size)/float64(count))
		if p.name == pathAggregated && r.stored == nil {
			resp, err := h.etcd.Get(ctx, p.etcdPrefix+ns+"/"+names[0])
			if err != nil || len(resp.Kvs) != 1 {
				return fmt.Errorf("reading a stored object: %v", err)
			}
			r.stored = resp.Kvs[0].Value
		}
	}

	if err := h.lists(ctx, c, r, p, ns); err != nil {
		return err
	}

	accept := mediaJSON
	if p.protobuf {
		accept = mediaProtobuf
	}
	w, err := p.watchDelivery(ctx, ns, names, c.watchers, c.watchEvents, accept, h.servers)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if w.missing > 0 {
		return fmt.Errorf("watch: %d of %d events never arrived (a watch ended: %q; an event without a number: %q)",
			w.missing, c.watchers*c.watchEvents, w.ended, w.other)
	}
	r.add(rowWatchP50, p.name, ms(percentile(w.latencies, 0.50)))
	r.add(rowWatchP99, p.name, ms(percentile(w.latencies, 0.99)))
	r.add(rowWatchCPU, p.name, w.cpu["kube-apiserver"]+w.cpu["aim-apiserver"])

	logf("  %s: deleting %d objects", p.name, c.objects)
	if err := p.deleteAll(ctx, ns); err != nil {
		return err
	}
	return h.settle(ctx)
}

// settle waits until the servers are nearly idle (under a fifth of a core together for a second), at most
// h.maxSettle: the work a path leaves behind (deletes reaching the watch caches, garbage collection, etcd
// compaction, the controller's reconciles of the deleted services) must not be charged to the path after it.
func (h *harness) settle(ctx context.Context) error {
	deadline := time.Now().Add(h.maxSettle)
	for time.Now().Before(deadline) {
		before, err := readAll(h.servers)
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		after, err := readAll(h.servers)
		if err != nil {
			return err
		}
		var busy float64
		for _, cpu := range cpuBetween(before, after) {
			busy += cpu
		}
		if busy < 0.2 {
			return nil
		}
	}
	if h.maxSettle > 0 {
		logf("  the servers were still busy after %s; going on", h.maxSettle)
	}
	return nil
}

// lists reads the namespace's collection in every form the table reports; each read repeats and the fastest
// counts, so a GC pause does not decide a row.
func (h *harness) lists(ctx context.Context, c config, r *results, p *apiPath, ns string) error {
	type listCase struct {
		row      string
		protobuf bool
		read     func(accept string) (time.Duration, error)
	}
	plain := func(query string) func(string) (time.Duration, error) {
		return func(accept string) (time.Duration, error) {
			_, d, err := p.list(ctx, ns, query, accept)
			return d, err
		}
	}
	paged := func(accept string) (time.Duration, error) {
		d, pages, err := p.listPaged(ctx, ns, 500, accept)
		if want := (c.objects + 499) / 500; err == nil && pages != want {
			err = fmt.Errorf("%d pages, want %d", pages, want)
		}
		return d, err
	}
	for _, lc := range []listCase{
		{rowListJSON, false, plain("")},
		{rowListProtobuf, true, plain("")},
		{rowPagedJSON, false, paged},
		{rowPagedProtobuf, true, paged},
		{rowListLabel, false, plain("labelSelector=shard%3D7")},
		{rowListField, false, plain("fieldSelector=status.status%3DRunning")},
	} {
		if lc.protobuf && !p.protobuf {
			continue
		}
		accept := mediaJSON
		if lc.protobuf {
			accept = mediaProtobuf
		}
		var best time.Duration
		for i := range c.listRepeats {
			d, err := lc.read(accept)
			if err != nil {
				return fmt.Errorf("%s: %w", lc.row, err)
			}
			if i == 0 || d < best {
				best = d
			}
		}
		r.add(lc.row, p.name, ms(best))
	}
	return nil
}

// benchEtcd puts the bytes aim-apiserver stored for one object, as many times as the paths create objects,
// under a scratch prefix: what the storage itself costs.
func (h *harness) benchEtcd(ctx context.Context, c config, r *results) error {
	if r.stored == nil {
		return fmt.Errorf("no stored object to copy")
	}
	const prefix = "/bench-raw/aimservices/"
	put := func(ctx context.Context, i int) (time.Duration, error) {
		start := time.Now()
		_, err := h.etcd.Put(ctx, prefix+serviceName(i), string(r.stored))
		return time.Since(start), err
	}
	if err := h.timed(ctx, r, "create c=1", pathEtcd, 1, c.serial, put); err != nil {
		return err
	}
	err := h.timed(ctx, r, fmt.Sprintf("create c=%d", c.concurrency), pathEtcd, c.concurrency, c.objects-c.serial,
		func(ctx context.Context, i int) (time.Duration, error) { return put(ctx, i+c.serial) })
	if err != nil {
		return err
	}
	if _, err = h.etcd.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
		return err
	}
	return h.settle(ctx)
}

// ensureNamespace creates a namespace unless it exists.
func (h *harness) ensureNamespace(ctx context.Context, name string) error {
	body := fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, name)
	_, _, err := h.admin.do(ctx, http.MethodPost, h.admin.base+"/api/v1/namespaces", mediaJSON, mediaJSON, body, http.StatusCreated)
	if he := (*httpError)(nil); errors.As(err, &he) && he.code == http.StatusConflict {
		return nil
	}
	return err
}

// installTwin applies the CRD twin and waits until kube-apiserver serves it.
func (h *harness) installTwin(ctx context.Context, c config) error {
	direct := h.direct
	doc, _, err := direct.do(ctx, http.MethodGet, c.aimServer+"/openapi/v3/apis/aim.eai.amd.com/v1alpha1", "", mediaJSON, nil, http.StatusOK)
	if err != nil {
		return fmt.Errorf("reading aim-apiserver's OpenAPI: %w", err)
	}
	discovery, _, err := direct.do(ctx, http.MethodGet, direct.base, "", mediaJSON, nil, http.StatusOK)
	if err != nil {
		return err
	}
	var list struct {
		Resources []struct {
			Name, SingularName, Kind string
			Namespaced               bool
		}
	}
	if err := json.Unmarshal(discovery, &list); err != nil {
		return fmt.Errorf("reading aim-apiserver's discovery: %w", err)
	}
	var resources []twinResource
	for _, res := range list.Resources {
		if strings.Contains(res.Name, "/") {
			continue
		}
		tr := twinResource{Plural: res.Name, Singular: res.SingularName, Kind: res.Kind, Namespaced: res.Namespaced}
		// The field selectors aim-apiserver serves, declared as selectable fields of the twin.
		for _, f := range aim.SelectableFields(res.Kind) {
			tr.SelectableFields = append(tr.SelectableFields, "."+f)
		}
		resources = append(resources, tr)
	}
	crds, err := twinCRDs(doc, c.twinGroup, resources)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		meta := crd["metadata"].(map[string]any)
		meta["labels"] = map[string]any{"app.kubernetes.io/part-of": "bench"}
		body, err := json.Marshal(crd)
		if err != nil {
			return err
		}
		url := h.admin.base + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + meta["name"].(string) + "?fieldManager=bench&force=true"
		if _, _, err := h.admin.do(ctx, http.MethodPatch, url, "application/apply-patch+yaml", mediaJSON, body, anySuccess); err != nil {
			return fmt.Errorf("applying CRD %s: %w", meta["name"], err)
		}
	}
	// Served, and published in kube-apiserver's OpenAPI: building that document is the last work a new CRD
	// causes, which must not land in the first round's figures.
	deadline := time.Now().Add(2 * time.Minute)
	for _, url := range []string{h.crd.collection(c.namespace(h.crd)), h.admin.base + "/openapi/v3/apis/" + c.twinGroup + "/v1alpha1"} {
		for {
			_, _, err := h.admin.do(ctx, http.MethodGet, url, "", mediaJSON, nil, http.StatusOK)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the CRD twin is not served after 2 minutes: %w", err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	time.Sleep(5 * time.Second)
	return nil
}

// cleanup removes the namespaces and the CRD twin.
func (h *harness) cleanup(c config) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, p := range h.paths {
		if err := p.deleteAll(ctx, c.namespace(p)); err != nil {
			logf("cleanup: %v", err)
		}
		if _, _, err := h.admin.do(ctx, http.MethodDelete, h.admin.base+"/api/v1/namespaces/"+c.namespace(p), "", mediaJSON, nil, http.StatusOK); err != nil {
			logf("cleanup: %v", err)
		}
	}
	if _, _, err := h.admin.do(ctx, http.MethodDelete, h.admin.base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector=app.kubernetes.io%2Fpart-of%3Dbench",
		"", mediaJSON, nil, http.StatusOK); err != nil {
		logf("cleanup: %v", err)
	}
}
