package health

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestFinished(t *testing.T) {
	job := func(conds ...batchv1.JobCondition) *batchv1.Job {
		return &batchv1.Job{Status: batchv1.JobStatus{Conditions: conds}}
	}
	for _, tc := range []struct {
		name     string
		job      *batchv1.Job
		finished bool
		failed   string
	}{
		{"running", job(), false, ""},
		{"complete", job(batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}), true, ""},
		{"a false condition does not count", job(batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionFalse}), false, ""},
		{"failed with reason", job(batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
			Message: "Job has reached the specified backoff limit"}), true, "BackoffLimitExceeded: Job has reached the specified backoff limit"},
		{"failed without reason", job(batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}), true, "failed"},
	} {
		if finished, failed := Finished(tc.job); finished != tc.finished || failed != tc.failed {
			t.Errorf("%s: %v %q, want %v %q", tc.name, finished, failed, tc.finished, tc.failed)
		}
	}
}
