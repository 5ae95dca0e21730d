package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

func TestApplyBodyHoldsOnlyOwnedFields(t *testing.T) {
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Labels: map[string]string{"a": "1"}, ResourceVersion: "9", UID: "u",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "X", Name: "o", UID: "ou", Controller: ptr.To(true)}}},
		Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](0), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "i"}, {Name: "d", Image: "j"}},
			Volumes:       []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		}}},
		Status: batchv1.JobStatus{Active: 1},
	}
	data, err := ApplyBody(job)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"labels":{"a":"1"},"name":"d","namespace":"ns",` +
		`"ownerReferences":[{"apiVersion":"v1","controller":true,"kind":"X","name":"o","uid":"ou"}]},` +
		`"spec":{"backoffLimit":0,"template":{"metadata":{},"spec":{"containers":[{"image":"i","name":"c","resources":{}},{"image":"j","name":"d","resources":{}}],` +
		`"restartPolicy":"Never","volumes":[{"emptyDir":{},"name":"scratch"}]}}}}`
	if string(data) != want {
		t.Errorf("apply body:\n got %s\nwant %s", data, want)
	}
	// What the server returns holds the body: no drift.
	var live map[string]any
	_ = json.Unmarshal([]byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"d","namespace":"ns","uid":"u",
"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"1","batch.kubernetes.io/controller-uid":"x"},
"ownerReferences":[{"apiVersion":"v1","controller":true,"kind":"X","name":"o","uid":"ou"}]},
"spec":{"backoffLimit":0,"completions":1,"template":{"metadata":{"labels":{"x":"y"}},"spec":{"containers":[{"image":"i","name":"c","terminationMessagePath":"/dev/termination-log"},{"image":"j","name":"d"}],"restartPolicy":"Never","volumes":[{"name":"scratch","emptyDir":{}}]}}},
"status":{"active":1}}`), &live)
	var applied map[string]any
	if err := json.Unmarshal(data, &applied); err != nil {
		t.Fatal(err)
	}
	if field := Drift(live, applied); field != "" {
		t.Errorf("drift of the object as the server returns it: %q", field)
	}
}

// TestPrepareApply: the one rule for re-applying a child. A child that does not exist, a desired object that
// changed, and a hand edit of an owned field are applied; a child that holds the last apply, plus fields
// others added, is not.
func TestPrepareApply(t *testing.T) {
	desired := func(image string) *batchv1.Job {
		return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
			ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Labels: map[string]string{"a": "1"}},
			Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: image}}}}}}
	}
	// live is what the server holds after applying body: the body plus fields of the server and of others.
	live := func(body []byte) *batchv1.Job {
		var j batchv1.Job
		if err := json.Unmarshal(body, &j); err != nil {
			t.Fatal(err)
		}
		j.UID, j.ResourceVersion = "u", "7"
		j.Labels["team"] = "blue"
		j.Spec.Completions = ptr.To[int32](1)
		j.Status.Active = 1
		return &j
	}
	body, drift, err := PrepareApply(desired("i:1"), (*batchv1.Job)(nil))
	if err != nil || body == nil || drift != "" {
		t.Fatalf("no child yet: body %s, drift %q (%v)", body, drift, err)
	}
	applied := live(body)
	if applied.Annotations[AnnotationAppliedHash] == "" {
		t.Fatalf("the body carries no %s: %s", AnnotationAppliedHash, body)
	}
	if body, drift, err := PrepareApply(desired("i:1"), applied); err != nil || body != nil || drift != "" {
		t.Errorf("unchanged: body %s, drift %q (%v), want nothing to send", body, drift, err)
	}
	// A typed informer caches objects without apiVersion and kind (its decoder drops them).
	cached := applied.DeepCopy()
	cached.TypeMeta = metav1.TypeMeta{}
	if body, drift, err := PrepareApply(desired("i:1"), cached); err != nil || body != nil || drift != "" {
		t.Errorf("unchanged, as a typed informer caches it: body %s, drift %q (%v), want nothing to send", body, drift, err)
	}
	if body, drift, err := PrepareApply(desired("i:2"), applied); err != nil || body == nil || drift != "" {
		t.Errorf("desired changed: body %s, drift %q (%v)", body, drift, err)
	}
	edited := applied.DeepCopy()
	edited.Spec.BackoffLimit = ptr.To[int32](9)
	if body, drift, err := PrepareApply(desired("i:1"), edited); err != nil || body == nil || drift != "spec.backoffLimit" {
		t.Errorf("hand edit: body %s, drift %q (%v), want spec.backoffLimit", body, drift, err)
	}
}

// TestApplyThroughTypedClient: an apply body reaches the server as the kind's apply configuration, with the
// controller's field manager.
func TestApplyThroughTypedClient(t *testing.T) {
	kube := fake.NewClientset()
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Labels: map[string]string{"a": "1"}},
		Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](0), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	body, err := ApplyBody(job)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Send(context.Background(), body, kube.BatchV1().Jobs("ns").Apply, "aim-test")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "d" || got.Labels["a"] != "1" || got.Spec.BackoffLimit == nil || *got.Spec.BackoffLimit != 0 || got.Spec.Template.Spec.Containers[0].Image != "i" {
		t.Errorf("applied %+v", got)
	}
	if len(got.ManagedFields) != 1 || got.ManagedFields[0].Manager != "aim-test" || got.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managed fields %+v", got.ManagedFields)
	}
	if _, err := Send(context.Background(), []byte("{"), kube.BatchV1().Jobs("ns").Apply, "aim-test"); err == nil {
		t.Error("a malformed body was sent")
	}
	// Apply is ApplyBody and Send in one; its errors name the object.
	job.Labels["a"] = "2"
	if got, err := Apply(context.Background(), job, kube.BatchV1().Jobs("ns").Apply, "aim-test"); err != nil || got.Labels["a"] != "2" {
		t.Errorf("Apply of the object: %+v (%v)", got, err)
	}
	if _, err := Apply(context.Background(), job, kube.BatchV1().Jobs("other").Apply, "aim-test"); err == nil || !strings.Contains(err.Error(), "applying Job ns/d") {
		t.Errorf("an Apply the server refuses: %v, want an error naming Job ns/d", err)
	}
}

// TestApplyChanged: the one owned apply sends nothing in a steady state, sends a changed or drifted object, and
// names the object in an error.
func TestApplyChanged(t *testing.T) {
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}, Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](1)}}
	var bodies [][]byte
	send := func(_ context.Context, body []byte) error { bodies = append(bodies, body); return nil }
	if sent, err := ApplyChanged(context.Background(), job, (*batchv1.Job)(nil), send); !sent || err != nil || len(bodies) != 1 {
		t.Fatalf("a new child: sent %v err %v bodies %d", sent, err, len(bodies))
	}
	var live batchv1.Job
	if err := json.Unmarshal(bodies[0], &live); err != nil {
		t.Fatal(err)
	}
	if sent, err := ApplyChanged(context.Background(), job, &live, send); sent || err != nil || len(bodies) != 1 {
		t.Errorf("a child as applied: sent %v err %v", sent, err)
	}
	live.Spec.BackoffLimit = ptr.To[int32](5)
	if sent, err := ApplyChanged(context.Background(), job, &live, send); !sent || err != nil {
		t.Errorf("a drifted child: sent %v err %v", sent, err)
	}
	boom := errors.New("forbidden")
	_, err := ApplyChanged(context.Background(), job, (*batchv1.Job)(nil), func(context.Context, []byte) error { return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "applying Job ns/d") {
		t.Errorf("a failed apply: %v", err)
	}
}

// appliedJob is a desired Job and the live object its apply made (UID u1, resourceVersion 10).
func appliedJob(t *testing.T) (job, live *batchv1.Job) {
	t.Helper()
	job = &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}, Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](1)}}
	body, _, err := PrepareApply(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	live = &batchv1.Job{}
	if err := json.Unmarshal(body, live); err != nil {
		t.Fatal(err)
	}
	live.UID, live.ResourceVersion = "u1", "10"
	return job, live
}

// TestSteadyRemembersWhatWasFoundSteady: once a live resourceVersion was found as desired, the same desired object
// is not compared with it again; a new resourceVersion, or another desired object, is.
func TestSteadyRemembersWhatWasFoundSteady(t *testing.T) {
	job, live := appliedJob(t)
	sends := 0
	send := func(context.Context, []byte) error { sends++; return nil }
	var s Steady
	if sent, err := s.ApplyChanged(context.Background(), job, live, send); sent || err != nil {
		t.Fatalf("a child as applied: sent %v err %v", sent, err)
	}
	// The cache could not hold this (a change always comes with a new resourceVersion): it shows the comparison
	// is skipped.
	live.Spec.BackoffLimit = ptr.To[int32](5)
	if sent, _ := s.ApplyChanged(context.Background(), job, live, send); sent || sends != 0 {
		t.Errorf("the steady child was compared again: sent %v", sent)
	}
	live.ResourceVersion = "11"
	if sent, _ := s.ApplyChanged(context.Background(), job, live, send); !sent || sends != 1 {
		t.Errorf("a new resourceVersion with drift: sent %v, %d sends", sent, sends)
	}
	live.Spec.BackoffLimit, live.ResourceVersion = ptr.To[int32](1), "12"
	if sent, _ := s.ApplyChanged(context.Background(), job, live, send); sent {
		t.Error("the reverted child is applied again")
	}
	job.Spec.BackoffLimit = ptr.To[int32](2)
	if sent, _ := s.ApplyChanged(context.Background(), job, live, send); !sent || sends != 2 {
		t.Errorf("a changed desired object: sent %v, %d sends", sent, sends)
	}
}

// TestSteadyGoesByInputs: with the inputs of the desired object named, a live resourceVersion found steady is
// not compared again while the inputs are the same; other inputs, or a new resourceVersion, are compared.
func TestSteadyGoesByInputs(t *testing.T) {
	job, live := appliedJob(t)
	sends := 0
	send := func(context.Context, []byte) error { sends++; return nil }
	var s Steady
	apply := func(inputs string) bool {
		t.Helper()
		sent, err := s.ApplyChangedFrom(context.Background(), inputs, job, live, send)
		if err != nil {
			t.Fatal(err)
		}
		return sent
	}
	if apply("a") {
		t.Fatal("a child as applied is applied")
	}
	// The desired object changes here without its inputs, which cannot be: it shows that the inputs decide.
	job.Spec.BackoffLimit = ptr.To[int32](2)
	if apply("a") || sends != 0 {
		t.Error("the steady child was compared again under the same inputs")
	}
	if !apply("b") || sends != 1 {
		t.Errorf("other inputs: %d sends, want 1", sends)
	}
	job.Spec.BackoffLimit = ptr.To[int32](1)
	if apply("b") {
		t.Error("inputs b with the object as applied: applied")
	}
	live.Spec.BackoffLimit, live.ResourceVersion = ptr.To[int32](5), "11"
	if !apply("b") || sends != 2 {
		t.Errorf("a new resourceVersion with drift under the same inputs: %d sends, want 2", sends)
	}
	// Without inputs, the object's JSON decides (TestSteadyRemembersWhatWasFoundSteady).
	live.Spec.BackoffLimit, live.ResourceVersion = ptr.To[int32](1), "12"
	if apply("") {
		t.Error("without inputs: the child as applied is applied")
	}
	job.Spec.BackoffLimit = ptr.To[int32](3)
	if !apply("") || sends != 3 {
		t.Errorf("without inputs, a changed object: %d sends, want 3", sends)
	}
}

func TestVersion(t *testing.T) {
	obj := &metav1.ObjectMeta{UID: "u1", ResourceVersion: "7"}
	if got := Version(obj); got != "u1@7" {
		t.Errorf("Version %q", got)
	}
	if got := Version(&metav1.ObjectMeta{UID: "u1"}); got != "" {
		t.Errorf("an object without a resourceVersion: %q, want none", got)
	}
	if Version(obj) == Version(&metav1.ObjectMeta{UID: "u2", ResourceVersion: "7"}) {
		t.Error("another object of the same resourceVersion has the same version")
	}
}

// TestSpecVersion: a write of the status or metadata (a new resourceVersion, the same generation) keeps the
// version; a spec change (a new generation) moves it; without a generation it is Version.
func TestSpecVersion(t *testing.T) {
	obj := &metav1.ObjectMeta{UID: "u1", ResourceVersion: "7", Generation: 2}
	statusWritten := &metav1.ObjectMeta{UID: "u1", ResourceVersion: "8", Generation: 2}
	if SpecVersion(obj) != SpecVersion(statusWritten) {
		t.Errorf("a status write moved the version: %q -> %q", SpecVersion(obj), SpecVersion(statusWritten))
	}
	if SpecVersion(obj) == SpecVersion(&metav1.ObjectMeta{UID: "u1", ResourceVersion: "9", Generation: 3}) {
		t.Error("a spec change kept the version")
	}
	if got := SpecVersion(&metav1.ObjectMeta{UID: "u1", ResourceVersion: "7"}); got != Version(obj) {
		t.Errorf("without a generation: %q, want %q", got, Version(obj))
	}
}

// TestSteadyKnownInputs: the inputs a live resourceVersion was found steady with are told for that resourceVersion
// only; none before, and none for a new one.
func TestSteadyKnownInputs(t *testing.T) {
	job, live := appliedJob(t)
	var s Steady
	if got := s.KnownInputs(live); got != "" {
		t.Errorf("before any apply: %q", got)
	}
	if _, err := s.ApplyChangedFrom(context.Background(), "a", job, live, func(context.Context, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := s.KnownInputs(live); got != "a" {
		t.Errorf("found steady with a: %q", got)
	}
	live.ResourceVersion = "11"
	if got := s.KnownInputs(live); got != "" {
		t.Errorf("a new resourceVersion: %q", got)
	}
}

// TestScalingKeepsTheInferenceServicesHash: KServe copies an InferenceService's annotations into its predictor's
// pod template, so a changed replica count applied with a new applied-hash would restart every predictor pod. The
// replica and autoscaling fields are applied, and compared, but left out of the hash; an InferenceService annotated
// by an earlier release (a hash over every field) is steady as it is, so that an upgrade rolls nothing.
func TestScalingKeepsTheInferenceServicesHash(t *testing.T) {
	isvc := func(replicas int64, image string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
			"metadata": map[string]any{"name": "chat", "namespace": "team"},
			"spec": map[string]any{"predictor": map[string]any{"minReplicas": replicas, "maxReplicas": replicas,
				"containers": []any{map[string]any{"name": "kserve-container", "image": image}}}}}}
	}
	applied := func(obj *unstructured.Unstructured, live runtime.Object) (*unstructured.Unstructured, string) {
		t.Helper()
		body, drift, err := PrepareApply(obj, live, kserve.ScaleFields()...)
		if err != nil {
			t.Fatal(err)
		}
		if body == nil {
			return nil, drift
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(body); err != nil {
			t.Fatal(err)
		}
		return u, drift
	}
	one, _ := applied(isvc(1, "x:1"), nil)
	two, drift := applied(isvc(2, "x:1"), one)
	if two == nil || drift != "" {
		t.Fatalf("a scale change: body %v, drift %q; want an apply, and no change made outside the controller", two, drift)
	}
	if h1, h2 := one.GetAnnotations()[AnnotationAppliedHash], two.GetAnnotations()[AnnotationAppliedHash]; h1 != h2 {
		t.Errorf("the hash moved with the replicas (%s, %s): the predictor's pods would restart", h1, h2)
	}
	if other, _ := applied(isvc(1, "x:2"), one); other == nil || other.GetAnnotations()[AnnotationAppliedHash] == one.GetAnnotations()[AnnotationAppliedHash] {
		t.Error("another image kept the hash")
	}
	// A field removed (the autoscaling metrics, a metric) is no drift, as Drift sees only what the desired object
	// holds: the hash moves with the fields there are, so the apply removes it.
	scaled := isvc(1, "x:1")
	_ = unstructured.SetNestedSlice(scaled.Object, []any{map[string]any{"type": "External", "target": int64(8)}}, "spec", "predictor", "autoScaling", "metrics")
	withMetrics, _ := applied(scaled, nil)
	if body, _ := applied(isvc(1, "x:1"), withMetrics); body == nil ||
		body.GetAnnotations()[AnnotationAppliedHash] == withMetrics.GetAnnotations()[AnnotationAppliedHash] {
		t.Error("the autoscaling metrics removed: nothing applied, or the hash kept (the apply would not remove them)")
	}
	retargeted := isvc(1, "x:1")
	_ = unstructured.SetNestedSlice(retargeted.Object, []any{map[string]any{"type": "External", "target": int64(16)}}, "spec", "predictor", "autoScaling", "metrics")
	if body, _ := applied(retargeted, withMetrics); body == nil || body.GetAnnotations()[AnnotationAppliedHash] != withMetrics.GetAnnotations()[AnnotationAppliedHash] {
		t.Error("a new target of the same metric: nothing applied, or the hash moved")
	}
	// An earlier release's hash, over every field, of the same desired object: steady.
	full, err := ApplyBody(isvc(1, "x:1"))
	if err != nil {
		t.Fatal(err)
	}
	legacy := one.DeepCopy()
	legacy.SetAnnotations(map[string]string{AnnotationAppliedHash: naming.Hash(16, string(full))})
	if body, _ := applied(isvc(1, "x:1"), legacy); body != nil {
		t.Error("an InferenceService of an earlier release is applied again: an upgrade would restart every predictor")
	}
}
