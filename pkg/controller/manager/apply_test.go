package manager

import (
	"encoding/json"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
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
	if field, err := Drift(live, data); err != nil || field != "" {
		t.Errorf("drift of the object as the server returns it: %q (%v)", field, err)
	}
}
