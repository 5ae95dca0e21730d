package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
)

const (
	aimGroup        = "aim.eai.amd.com"
	systemNamespace = "aim-system"
	// runLabel marks every object the benchmark creates, for the cleanup.
	runLabel = "bench.aim-apiserver.io/run"
	// handEditManager is the field manager of the benchmark's hand edits.
	handEditManager = "bench-hand-edit"
)

var (
	clusterModels    = schema.GroupVersionResource{Group: aimGroup, Version: "v1alpha1", Resource: "aimclustermodels"}
	clusterTemplates = schema.GroupVersionResource{Group: aimGroup, Version: "v1alpha1", Resource: "aimclusterservicetemplates"}
	clusterConfigs   = schema.GroupVersionResource{Group: aimGroup, Version: "v1alpha1", Resource: "aimclusterruntimeconfigs"}
	services         = schema.GroupVersionResource{Group: aimGroup, Version: "v1alpha1", Resource: "aimservices"}
	inferenceSvcs    = schema.GroupVersionResource{Group: "serving.kserve.io", Version: "v1beta1", Resource: "inferenceservices"}
)

// discoveryOutput is what an AIM image's dry run prints for a 1 x MI300X fp8 latency profile.
const discoveryOutput = `[{"filename":"vllm-mi300x-fp8-tp1-latency.yaml","profile":{"model":"Org/Model",
"metadata":{"engine":"vllm","gpu":"MI300X","precision":"fp8","gpu_count":1,"metric":"latency","type":"optimized"},
"engine_args":{"tensor-parallel-size":1},"env_vars":{}},"models":[{"name":"Org/Model","source":"hf://Org/Model","size_gb":16}]}]`

// world creates and observes the benchmark's objects.
type world struct {
	cl *clients
	c  config
	// isvcs is what the InferenceService informer saw.
	isvcs *isvcTracker
	stop  chan struct{}
}

func newWorld(cl *clients, c config) *world {
	return &world{cl: cl, c: c, isvcs: &isvcTracker{seen: map[string]isvcState{}}, stop: make(chan struct{})}
}

func (w *world) namespace(i int) string { return fmt.Sprintf("bench-ctl-%02d", i%w.c.namespaces) }
func (w *world) model(i int) string     { return fmt.Sprintf("bench-m%02d", i%w.c.models) }
func (w *world) service(i int) string   { return fmt.Sprintf("svc-%04d", i) }
func (w *world) node(i int) string      { return fmt.Sprintf("bench-gpu-%03d", i) }

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// setup creates the namespaces, the GPU Nodes, the cluster models and templates, and plays every template's
// discovery to Ready; then it starts the InferenceService informer.
func (w *world) setup(ctx context.Context) error {
	kube := w.cl.kube
	for i := range w.c.namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.namespace(i), Labels: map[string]string{runLabel: "controller"}}}
		if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return fmt.Errorf("namespace %s: %w", ns.Name, err)
		}
	}
	logf("creating %d GPU Nodes (8 x MI300X each, no kubelet)", w.c.nodes)
	gpus := resource.MustParse("8")
	err := measure.Parallel(ctx, w.c.concurrency, w.c.nodes, func(ctx context.Context, i int) error {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: w.node(i), Labels: map[string]string{"amd.com/gpu.device-id": "74a1", runLabel: "controller"}}}
		created, err := kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			created, err = kube.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
		list := corev1.ResourceList{"amd.com/gpu": gpus, corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("1Ti"), corev1.ResourcePods: resource.MustParse("110")}
		created.Status.Allocatable, created.Status.Capacity = list, list
		if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("status of node %s: %w", n.Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The runtime config every object falls back to, as aim-engine's chart (clusterRuntimeConfig) and ours
	// (defaultRuntimeConfig) declare it: it counts its consumers in its status, which changes with every service.
	cfg := object("AIMClusterRuntimeConfig", "default", "", map[string]any{"storage": map[string]any{"pvcHeadroomPercent": int64(10)}})
	if _, err := w.cl.dyn.Resource(clusterConfigs).Create(ctx, cfg, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return fmt.Errorf("cluster runtime config default: %w", err)
	}
	logf("creating %d cluster models and templates", w.c.models)
	err = measure.Parallel(ctx, w.c.concurrency, w.c.models, func(ctx context.Context, i int) error {
		name := w.model(i)
		model := object("AIMClusterModel", name+"-model", "", map[string]any{
			"image":         "registry.example/aim/" + name + ":1.0",
			"imageMetadata": map[string]any{"model": map[string]any{"canonicalName": "Org/" + name}},
		})
		tpl := object("AIMClusterServiceTemplate", name, "", map[string]any{
			"modelName": name + "-model", "metric": "latency", "precision": "fp8",
			"hardware": map[string]any{"gpu": map[string]any{"requests": int64(1), "model": "MI300X"}},
		})
		if _, err := w.cl.dyn.Resource(clusterModels).Create(ctx, model, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return fmt.Errorf("cluster model %s: %w", model.GetName(), err)
		}
		if _, err := w.cl.dyn.Resource(clusterTemplates).Create(ctx, tpl, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return fmt.Errorf("cluster template %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.playDiscovery(ctx); err != nil {
		return err
	}
	return w.watchInferenceServices(ctx)
}

// object is an AIM object as a manifest would give it.
func object(kind, name, namespace string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": aimGroup + "/v1alpha1", "kind": kind,
		"metadata": map[string]any{"name": name, "labels": map[string]any{runLabel: "controller"}},
		"spec":     spec,
	}}
	if namespace != "" {
		u.SetNamespace(namespace)
	}
	return u
}

// playDiscovery plays kubelet for the templates' discovery pods (the Job controller of kube-controller-manager
// makes them; nothing runs them): each ends Succeeded with the dry run's output as its termination message.
// It returns when every template is Ready.
func (w *world) playDiscovery(ctx context.Context) error {
	logf("playing discovery of %d templates to Ready", w.c.models)
	now := metav1.Now()
	ended := map[string]bool{}
	return wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := w.cl.kube.CoreV1().Pods(systemNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=aim-discovery"})
		if err != nil {
			return false, err
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			if !strings.HasPrefix(p.Labels["aim.eai.amd.com/template"], "bench-m") || ended[p.Name] || p.Status.Phase == corev1.PodSucceeded {
				continue
			}
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "discovery", Image: "x", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", Message: discoveryOutput, StartedAt: now, FinishedAt: now}}}}
			if _, err := w.cl.kube.CoreV1().Pods(systemNamespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
				return false, fmt.Errorf("ending discovery pod %s: %w", p.Name, err)
			}
			ended[p.Name] = true
		}
		tpls, err := w.cl.dyn.Resource(clusterTemplates).List(ctx, metav1.ListOptions{LabelSelector: runLabel + "=controller"})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, t := range tpls.Items {
			if s, _, _ := unstructured.NestedString(t.Object, "status", "status"); s == "Ready" {
				ready++
			}
		}
		return ready == w.c.models, nil
	})
}

// playDownloads plays the volume provisioner and kubelet for the services' shared caches until ctx ends: every
// claim in the benchmark's namespaces becomes Bound and every download pod ends Succeeded, so each cache becomes
// Ready and its services go on to their InferenceServices, as with warm caches. It returns the writes it sent.
func (w *world) playDownloads(ctx context.Context) writes {
	sent := writes{}
	done := map[string]bool{}
	_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for i := range min(w.c.namespaces, w.c.services) {
			ns := w.namespace(i)
			claims, err := w.cl.kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for j := range claims.Items {
				c := &claims.Items[j]
				if c.Status.Phase == corev1.ClaimBound || done["pvc/"+ns+"/"+c.Name] {
					continue
				}
				c.Status.Phase = corev1.ClaimBound
				if _, err := w.cl.kube.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err == nil {
					done["pvc/"+ns+"/"+c.Name] = true
					sent[writeKey{Resource: "persistentvolumeclaims", Subresource: "status", Verb: "PUT"}]++
				}
			}
			pods, err := w.cl.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "aim.eai.amd.com/component=download"})
			if err != nil {
				return false, nil
			}
			now := metav1.Now()
			for j := range pods.Items {
				p := &pods.Items[j]
				if p.Status.Phase == corev1.PodSucceeded || done["pod/"+ns+"/"+p.Name] {
					continue
				}
				p.Status.Phase = corev1.PodSucceeded
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "model-download", Image: "x", State: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}}}
				if _, err := w.cl.kube.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err == nil {
					done["pod/"+ns+"/"+p.Name] = true
					sent[writeKey{Resource: "pods", Subresource: "status", Verb: "PUT"}]++
				}
			}
		}
		return false, nil
	})
	return sent
}

// isvcState is what the benchmark tracks of one InferenceService.
type isvcState struct {
	resourceVersion int64
	minReplicas     int64
}

// isvcTracker holds the InferenceServices of the benchmark's namespaces as the informer saw them.
type isvcTracker struct {
	mu   sync.Mutex
	seen map[string]isvcState
}

func (t *isvcTracker) observe(obj any, deleted bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !strings.HasPrefix(u.GetNamespace(), "bench-ctl-") {
		return
	}
	key := u.GetNamespace() + "/" + u.GetName()
	t.mu.Lock()
	defer t.mu.Unlock()
	if deleted {
		delete(t.seen, key)
		return
	}
	rv, _ := strconv.ParseInt(u.GetResourceVersion(), 10, 64)
	minR, _, _ := unstructured.NestedInt64(u.Object, "spec", "predictor", "minReplicas")
	t.seen[key] = isvcState{resourceVersion: rv, minReplicas: minR}
}

func (t *isvcTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.seen)
}

func (t *isvcTracker) get(key string) (isvcState, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.seen[key]
	return s, ok
}

func (t *isvcTracker) keys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.seen))
	for k := range t.seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (w *world) watchInferenceServices(ctx context.Context) error {
	f := dynamicinformer.NewDynamicSharedInformerFactory(w.cl.dyn, 0)
	inf := f.ForResource(inferenceSvcs).Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.isvcs.observe(obj, false) },
		UpdateFunc: func(_, obj any) { w.isvcs.observe(obj, false) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			w.isvcs.observe(obj, true)
		},
	}); err != nil {
		return err
	}
	f.Start(w.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("InferenceService informer did not sync")
	}
	return nil
}

// readBoth reads both servers' metrics.
func (w *world) readBoth() (aim, kube scrape, err error) {
	if aim, err = readScrape(w.cl.aimMet); err != nil {
		return aim, kube, err
	}
	kube, err = readScrape(w.cl.kubeMet)
	return aim, kube, err
}

// apiWrites are the writes both servers received between two readings, without lease renewals (leader
// election of every component, not work), access and token reviews (POSTs that store nothing: aim-apiserver
// asks them for the benchmark's own requests) and, on kube-apiserver, requests for the AIM group (counted
// where they are served).
func apiWrites(aimBefore, aimAfter, kubeBefore, kubeAfter scrape) (aim, kube writes) {
	notWork := func(k writeKey) bool {
		return k.Resource == "leases" || k.Group == "authorization.k8s.io" || k.Group == "authentication.k8s.io"
	}
	aim = aimAfter.Requests.minus(aimBefore.Requests).without(notWork)
	kube = kubeAfter.Requests.minus(kubeBefore.Requests).without(func(k writeKey) bool { return notWork(k) || k.Group == aimGroup })
	return aim, kube
}

// converge creates the services at once and waits until every one has its InferenceService and the
// controller has gone quiet.
func (w *world) converge(ctx context.Context, r *result) error {
	live0, err := w.liveHeap("")
	if err != nil {
		return err
	}
	aim0, kube0, err := w.readBoth()
	if err != nil {
		return err
	}
	logf("applying %d AIMServices over %d namespaces, %d at a time", w.c.services, w.c.namespaces, w.c.concurrency)
	start := time.Now()
	playCtx, stopPlaying := context.WithCancel(ctx)
	defer stopPlaying()
	played := make(chan writes, 1)
	go func() { played <- w.playDownloads(playCtx) }()
	err = measure.Parallel(ctx, w.c.concurrency, w.c.services, func(ctx context.Context, i int) error {
		svc := object("AIMService", w.service(i), w.namespace(i), map[string]any{
			"model": map[string]any{"name": w.model(i) + "-model"},
		})
		if _, err := w.cl.dyn.Resource(services).Namespace(svc.GetNamespace()).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("service %s/%s: %w", svc.GetNamespace(), svc.GetName(), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.created = time.Since(start)
	logf("created in %s; waiting for their InferenceServices", r.created.Round(time.Millisecond))
	last := -1
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Minute, true, func(context.Context) (bool, error) {
		n := w.isvcs.count()
		if n/100 != last/100 {
			logf("%d of %d InferenceServices after %s", n, w.c.services, time.Since(start).Round(time.Second))
			last = n
		}
		return n >= w.c.services, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d InferenceServices: %w", w.isvcs.count(), w.c.services, err)
	}
	r.allInferenceServices = time.Since(start)
	stopPlaying()
	ownKube := <-played
	logf("every InferenceService exists after %s; waiting for the controller to go quiet", r.allInferenceServices.Round(time.Millisecond))
	aim1, kube1, err := w.quiet(ctx)
	if err != nil {
		return err
	}
	r.quiet = time.Since(start)
	r.convergeAIM, r.convergeKube = apiWrites(aim0, aim1, kube0, kube1)
	// The benchmark's own creates and the volume provisioner's and kubelet's writes it plays are not the
	// controller's writes.
	r.convergeAIM[writeKey{Group: aimGroup, Resource: "aimservices", Verb: "POST"}] -= float64(w.c.services)
	for k, n := range ownKube {
		r.convergeKube[k] -= n
	}
	r.convergeController = aim1.Controller.minus(aim0.Controller)
	r.convergeCPU = aim1.CPUSeconds - aim0.CPUSeconds
	r.convergeReconciles = map[string]float64{}
	for c, n := range aim1.Reconciles {
		r.convergeReconciles[c] = n - aim0.Reconciles[c]
	}
	r.rssBefore, r.heapBefore = aim0.RSSBytes, live0
	return nil
}

// liveHeap is aim-apiserver's heap in use right after a garbage collection; with a file name it keeps the
// heap profile there (go tool pprof -sample_index=inuse_space reads it).
func (w *world) liveHeap(profile string) (float64, error) {
	data, err := w.cl.aimMet.CollectGarbage()
	if err != nil {
		return 0, err
	}
	if profile != "" {
		if err := os.WriteFile(profile, data, 0o600); err != nil {
			return 0, err
		}
		logf("heap profile of aim-apiserver in %s", profile)
	}
	s, err := readScrape(w.cl.aimMet)
	return s.HeapBytes, err
}

// quiet waits until the controller's write counter has not moved for 3 s and the service queue is empty, and
// returns the last readings.
func (w *world) quiet(ctx context.Context) (aim, kube scrape, err error) {
	var lastTotal float64 = -1
	stable := 0
	err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(context.Context) (bool, error) {
		if aim, kube, err = w.readBoth(); err != nil {
			return false, err
		}
		total := aim.Controller.total()
		if total == lastTotal && aim.QueueDepth == 0 {
			stable++
		} else {
			stable = 0
		}
		lastTotal = total
		return stable >= 3, nil
	})
	return aim, kube, err
}

// steady counts the writes over several resync periods once everything has converged.
func (w *world) steady(ctx context.Context, r *result) error {
	logf("waiting one resync period (%s), then counting writes over %d more", w.c.resync, w.c.resyncs)
	if err := sleep(ctx, w.c.resync); err != nil {
		return err
	}
	aim0, kube0, err := w.readBoth()
	if err != nil {
		return err
	}
	window := time.Duration(w.c.resyncs) * w.c.resync
	profiled := make(chan error, 1)
	if w.c.cpuProfile != "" {
		go func() {
			data, err := w.cl.aimMet.CPUProfile(window)
			if err == nil {
				err = os.WriteFile(w.c.cpuProfile, data, 0o600)
			}
			profiled <- err
		}()
	} else {
		profiled <- nil
	}
	if err := sleep(ctx, window); err != nil {
		return err
	}
	if err := <-profiled; err != nil {
		return fmt.Errorf("CPU profile: %w", err)
	}
	if w.c.cpuProfile != "" {
		logf("CPU profile of aim-apiserver over the steady state in %s", w.c.cpuProfile)
	}
	aim1, kube1, err := w.readBoth()
	if err != nil {
		return err
	}
	r.steadyAIM, r.steadyKube = apiWrites(aim0, aim1, kube0, kube1)
	r.steadyController = aim1.Controller.minus(aim0.Controller)
	r.steadyReconciles = map[string]float64{}
	for c, n := range aim1.Reconciles {
		r.steadyReconciles[c] = n - aim0.Reconciles[c]
	}
	r.steadyCPU = aim1.CPUSeconds - aim0.CPUSeconds
	r.rssAfter = aim1.RSSBytes
	if r.heapAfter, err = w.liveHeap(w.c.heapProfile); err != nil {
		return err
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// handEdits changes spec.predictor.minReplicas of some InferenceServices as a user with kubectl would, and
// waits until the controller has put every one back.
func (w *world) handEdits(ctx context.Context, r *result) error {
	if w.c.edits == 0 {
		return nil
	}
	keys := w.isvcs.keys()[:w.c.edits]
	orig := make([]isvcState, len(keys))
	for i, k := range keys {
		orig[i], _ = w.isvcs.get(k)
	}
	edited := make([]int64, len(keys))
	logf("editing %d InferenceServices by hand", len(keys))
	aim0, kube0, err := w.readBoth()
	if err != nil {
		return err
	}
	start := time.Now()
	err = measure.Parallel(ctx, w.c.concurrency, len(keys), func(ctx context.Context, i int) error {
		ns, name, _ := strings.Cut(keys[i], "/")
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"predictor": map[string]any{"minReplicas": orig[i].minReplicas + 2}}})
		u, err := w.cl.dyn.Resource(inferenceSvcs).Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: handEditManager})
		if err != nil {
			return fmt.Errorf("editing %s: %w", keys[i], err)
		}
		edited[i], _ = strconv.ParseInt(u.GetResourceVersion(), 10, 64)
		return nil
	})
	if err != nil {
		return err
	}
	lastEdit := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		for i, k := range keys {
			if s, ok := w.isvcs.get(k); !ok || s.resourceVersion <= edited[i] || s.minReplicas != orig[i].minReplicas {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("hand edits not reverted: %w", err)
	}
	r.revertAll, r.revertAfterLastEdit = time.Since(start), time.Since(lastEdit)
	aim1, kube1, err := w.quiet(ctx)
	if err != nil {
		return err
	}
	r.revertAIM, r.revertKube = apiWrites(aim0, aim1, kube0, kube1)
	r.revertKube[writeKey{Group: inferenceSvcs.Group, Resource: inferenceSvcs.Resource, Verb: "PATCH"}] -= float64(len(keys))
	return nil
}

// cleanup deletes what the benchmark created (namespaces take their services with them).
func (w *world) cleanup() {
	close(w.stop)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: runLabel + "=controller"}
	bg := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{PropagationPolicy: &bg}
	for i := range w.c.namespaces {
		_ = w.cl.kube.CoreV1().Namespaces().Delete(ctx, w.namespace(i), del)
	}
	for _, gvr := range []schema.GroupVersionResource{clusterTemplates, clusterModels, clusterConfigs} {
		if list, err := w.cl.dyn.Resource(gvr).List(ctx, sel); err == nil {
			for _, o := range list.Items {
				_ = w.cl.dyn.Resource(gvr).Delete(ctx, o.GetName(), del)
			}
		}
	}
	_ = w.cl.kube.CoreV1().Nodes().DeleteCollection(ctx, del, sel)
	logf("deleted the benchmark's namespaces, templates, models, runtime config and nodes")
}
